//! The session as the host drives it, independent of how lines travel (tested natively): a
//! [`LineSession`] whose searches hear the host's lines through a [`LineSource`].

use std::collections::VecDeque;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::{Arc, Mutex, PoisonError};

use minishogi_engine::protocol::usi::{LineSession, Output};
use minishogi_engine::search::{Listener, SearchControl};

/// The lines that reached the host while a search ran, oldest first.
pub trait LineSource: Send + Sync {
    fn next_line(&self) -> Option<String>;
}

/// A USI session fed by a host: lines in through [`HostSession::handle`], lines out through
/// the [`Output`] it was given.
pub struct HostSession {
    session: LineSession,
    /// Lines heard during a search that must wait for its end (anything but `stop`,
    /// `ponderhit` and `isready`).
    deferred: Arc<Mutex<VecDeque<String>>>,
}

impl HostSession {
    pub fn new(out: Output, source: impl LineSource + 'static) -> HostSession {
        let deferred = Arc::new(Mutex::new(VecDeque::new()));
        let listener = {
            let (out, deferred) = (out.clone(), deferred.clone());
            Listener(Arc::new(move |control: &SearchControl| {
                while let Some(line) = source.next_line() {
                    hear(&line, control, &out, &deferred);
                }
            }))
        };
        HostSession {
            session: LineSession::new(out, listener),
            deferred,
        }
    }

    /// Handles `line`, then the lines kept back during its search, in order; `false` once the
    /// session has ended (`quit`).
    pub fn handle(&mut self, line: &str) -> bool {
        let mut alive = self.session.handle(line);
        while alive {
            let next = self
                .deferred
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop_front();
            match next {
                Some(next) => alive = self.session.handle(&next),
                None => break,
            }
        }
        alive
    }
}

/// What a line that arrives during a search does at once: `stop` stops it, `ponderhit`
/// turns pondering into searching, `isready` is answered; `quit` stops the search and ends
/// the session after it; every other line waits for the search's end.
fn hear(line: &str, control: &SearchControl, out: &Output, deferred: &Mutex<VecDeque<String>>) {
    let keep = || {
        deferred
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(line.to_string())
    };
    match line.split_whitespace().next() {
        Some("stop") => control.stop.store(true, SeqCst),
        Some("ponderhit") if control.ponder.load(SeqCst) => control.ponder.store(false, SeqCst),
        Some("isready") => out.line("readyok"),
        Some("quit") => {
            control.stop.store(true, SeqCst);
            keep();
        }
        _ => keep(),
    }
}
