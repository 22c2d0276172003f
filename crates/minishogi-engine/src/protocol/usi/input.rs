//! Reading input lines as bytes, so that overlong lines and bytes that are not UTF-8 become
//! errors to report instead of ending the loop.

use std::io::{self, BufRead};

/// The longest line accepted, in bytes. A `position … moves` line of a very long game (10 000
/// plies of five-character moves) fits easily.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// One line of input, without its line ending.
#[derive(Debug, PartialEq, Eq)]
pub enum InputLine {
    Text(String),
    /// The line exceeded the limit; its bytes were discarded up to the newline.
    TooLong {
        bytes: usize,
    },
    /// The line is not valid UTF-8; `valid_up_to` is the offset of the first bad byte.
    /// `lossy` is the line with each bad sequence replaced by U+FFFD.
    NotUtf8 {
        valid_up_to: usize,
        lossy: String,
    },
}

pub struct LineReader<R> {
    inner: R,
    max_bytes: usize,
    buffer: Vec<u8>,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R, max_bytes: usize) -> LineReader<R> {
        LineReader {
            inner,
            max_bytes,
            buffer: Vec::new(),
        }
    }

    /// The next line, or `None` at the end of input. A final line without a newline counts.
    pub fn next_line(&mut self) -> io::Result<Option<InputLine>> {
        self.buffer.clear();
        let mut total = 0usize;
        let mut read_any = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                if !read_any {
                    return Ok(None);
                }
                break;
            }
            read_any = true;
            let newline = available.iter().position(|&b| b == b'\n');
            let chunk = &available[..newline.unwrap_or(available.len())];
            total += chunk.len();
            // Keep at most one byte past the limit: enough to know the line is too long.
            let room = (self.max_bytes + 1).saturating_sub(self.buffer.len());
            self.buffer
                .extend_from_slice(&chunk[..chunk.len().min(room)]);
            let consumed = chunk.len() + usize::from(newline.is_some());
            self.inner.consume(consumed);
            if newline.is_some() {
                break;
            }
        }
        if self.buffer.last() == Some(&b'\r') && total <= self.max_bytes {
            self.buffer.pop();
            total -= 1;
        }
        if total > self.max_bytes {
            return Ok(Some(InputLine::TooLong { bytes: total }));
        }
        Ok(Some(match std::str::from_utf8(&self.buffer) {
            Ok(text) => InputLine::Text(text.to_string()),
            Err(e) => InputLine::NotUtf8 {
                valid_up_to: e.valid_up_to(),
                lossy: String::from_utf8_lossy(&self.buffer).into_owned(),
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<InputLine> {
        // A tiny buffer makes lines span several fill_buf calls.
        let mut reader = LineReader::new(io::BufReader::with_capacity(3, input), max);
        std::iter::from_fn(|| reader.next_line().unwrap()).collect()
    }

    fn text(s: &str) -> InputLine {
        InputLine::Text(s.to_string())
    }

    #[test]
    fn splits_lines_and_strips_carriage_returns() {
        assert_eq!(
            lines(b"usi\r\nisready\n\nquit", 100),
            vec![text("usi"), text("isready"), text(""), text("quit")]
        );
    }

    #[test]
    fn overlong_lines_are_reported_and_skipped() {
        let mut input = vec![b'x'; 25];
        input.extend_from_slice(b"\nok\n");
        assert_eq!(
            lines(&input, 10),
            vec![InputLine::TooLong { bytes: 25 }, text("ok")]
        );
        assert_eq!(lines(b"0123456789\n", 10), vec![text("0123456789")]);
    }

    #[test]
    fn invalid_utf8_is_reported() {
        assert_eq!(
            lines(b"go\xff\xfe\nstop\n", 100),
            vec![
                InputLine::NotUtf8 {
                    valid_up_to: 2,
                    lossy: "go\u{fffd}\u{fffd}".to_string()
                },
                text("stop")
            ]
        );
    }
}
