//! Text encodings of record files, through `encoding_rs` (the WHATWG encodings Firefox uses;
//! its Shift_JIS is the Windows code page 932 that Japanese shogi software writes and reads).

use encoding_rs::{SHIFT_JIS, UTF_8};

use super::record::RecordError;

/// A record file's text: UTF-8 when the bytes are UTF-8 (a byte order mark is dropped), else
/// Shift_JIS. Japanese text in Shift_JIS is practically never valid UTF-8, and ASCII reads the
/// same in both, so no header needs trusting. Bytes that are neither are an error naming the
/// line of the first bad byte.
pub fn decode(bytes: &[u8]) -> Result<String, RecordError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Some(text) = UTF_8.decode_without_bom_handling_and_without_replacement(bytes) {
        return Ok(text.into_owned());
    }
    SHIFT_JIS
        .decode_without_bom_handling_and_without_replacement(bytes)
        .map(|text| text.into_owned())
        .ok_or_else(|| {
            // The first line that is neither, for the message.
            let line = bytes
                .split(|&b| b == b'\n')
                .position(|line| {
                    UTF_8
                        .decode_without_bom_handling_and_without_replacement(line)
                        .is_none()
                        && SHIFT_JIS
                            .decode_without_bom_handling_and_without_replacement(line)
                            .is_none()
                })
                .map_or(0, |i| i + 1);
            RecordError::new(line, "the text is neither UTF-8 nor Shift_JIS")
        })
}

/// Whether `c` has a Shift_JIS code.
pub fn in_shift_jis(c: char) -> bool {
    let mut buf = [0u8; 4];
    let (_, _, unmappable) = SHIFT_JIS.encode(c.encode_utf8(&mut buf));
    !unmappable
}

/// `text` in Shift_JIS with CR LF line ends. A character Shift_JIS lacks (only possible in
/// names and comments, which come from outside) becomes `?`.
pub fn shift_jis_crlf(text: &str) -> Vec<u8> {
    let mut crlf = String::with_capacity(text.len() + text.len() / 16);
    for c in text.chars() {
        match c {
            '\n' => crlf.push_str("\r\n"),
            '\r' => {}
            c if in_shift_jis(c) => crlf.push(c),
            _ => crlf.push('?'),
        }
    }
    let (bytes, _, unmappable) = SHIFT_JIS.encode(&crlf);
    debug_assert!(!unmappable, "unmappable characters were replaced");
    bytes.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_jis_round_trips_and_replaces_what_it_lacks() {
        let text = "手合割：5五将棋\n先手：▲△ 😀\n";
        let bytes = shift_jis_crlf(text);
        assert!(std::str::from_utf8(&bytes).is_err(), "Shift_JIS, not UTF-8");
        // 手 is 0x8E 0xE8 in Shift_JIS.
        assert_eq!(&bytes[..2], &[0x8E, 0xE8]);
        assert_eq!(decode(&bytes).unwrap(), "手合割：5五将棋\r\n先手：▲△ ?\r\n");
        assert!(!in_shift_jis('😀') && in_shift_jis('龍') && in_shift_jis('▲'));
    }

    #[test]
    fn utf8_is_read_as_utf8_with_or_without_bom() {
        assert_eq!(decode("歩".as_bytes()).unwrap(), "歩");
        assert_eq!(decode(b"\xEF\xBB\xBFabc").unwrap(), "abc");
        // 0x80 alone is neither encoding's.
        let e = decode(b"ok\n\x80\x80\x80\xFF\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
    }
}
