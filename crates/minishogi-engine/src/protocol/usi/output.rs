//! The protocol channel: whole lines written under one lock, so that lines from the search
//! thread and from the command loop never interleave.

use std::fmt::Display;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::uci;

#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
    /// Whether the session speaks UCI: then each line goes out through `uci::to_uci`.
    uci: Arc<AtomicBool>,
}

impl Output {
    pub fn new(sink: impl Write + Send + 'static) -> Output {
        Output {
            sink: Arc::new(Mutex::new(Box::new(sink))),
            uci: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Switches the dialect of the lines written from now on (from every clone).
    pub fn set_uci(&self, uci: bool) {
        self.uci.store(uci, Ordering::SeqCst);
    }

    pub fn is_uci(&self) -> bool {
        self.uci.load(Ordering::SeqCst)
    }

    /// `line` in the session's dialect.
    fn spoken(&self, line: &str) -> String {
        if self.is_uci() {
            uci::to_uci(line)
        } else {
            line.to_string()
        }
    }

    pub fn line(&self, text: &str) {
        self.lines([text]);
    }

    /// Several lines with nothing from another thread between them.
    pub fn lines<S: AsRef<str>>(&self, lines: impl IntoIterator<Item = S>) {
        let mut block = String::new();
        for line in lines {
            block.push_str(&self.spoken(line.as_ref()));
            block.push('\n');
        }
        write_block(&mut **self.lock(), &block);
    }

    /// Writes `text` if `first` says so, deciding under the output lock: whoever reads the
    /// line knows `first` has run (used to mark a search finished before its `bestmove`, and to
    /// send that line only once).
    pub fn line_if(&self, first: impl FnOnce() -> bool, text: &str) {
        let mut sink = self.lock();
        if first() {
            write_block(&mut **sink, &format!("{}\n", self.spoken(text)));
        }
    }

    /// `info string error: …`: the answer to every bad input.
    pub fn error(&self, message: impl Display) {
        self.line(&format!("info string error: {message}"));
    }

    /// `info string …`: diagnostics for people.
    pub fn note(&self, message: impl Display) {
        self.line(&format!("info string {message}"));
    }

    fn lock(&self) -> MutexGuard<'_, Box<dyn Write + Send>> {
        // A panic elsewhere while holding the lock leaves the writer usable.
        self.sink
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn write_block(sink: &mut dyn Write, block: &str) {
    // A closed stdout (the GUI went away) is not worth a panic; the loop ends at EOF.
    if let Err(e) = sink.write_all(block.as_bytes()).and_then(|()| sink.flush()) {
        log::warn!("cannot write to the protocol channel: {e}");
    }
}
