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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::atomic::AtomicUsize;

    /// The session's output, kept.
    #[derive(Clone, Default)]
    struct Kept(Arc<Mutex<Vec<u8>>>);

    impl Write for Kept {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Kept {
        fn lines(&self) -> Vec<String> {
            String::from_utf8(self.0.lock().unwrap().clone())
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect()
        }
    }

    /// Lines the host "receives" during a search: each after the search has asked `after`
    /// times in all (the search asks every few hundred nodes).
    struct Scripted {
        lines: Mutex<VecDeque<(usize, String)>>,
        asked: AtomicUsize,
    }

    impl LineSource for Arc<Scripted> {
        fn next_line(&self) -> Option<String> {
            let asked = self.asked.fetch_add(1, SeqCst);
            let mut lines = self.lines.lock().unwrap();
            match lines.front() {
                Some((after, _)) if asked >= *after => lines.pop_front().map(|(_, line)| line),
                _ => None,
            }
        }
    }

    fn session(during_search: &[(usize, &str)]) -> (HostSession, Kept, Arc<Scripted>) {
        let kept = Kept::default();
        let source = Arc::new(Scripted {
            lines: Mutex::new(
                during_search
                    .iter()
                    .map(|&(after, line)| (after, line.to_string()))
                    .collect(),
            ),
            asked: AtomicUsize::new(0),
        });
        let session = HostSession::new(Output::new(kept.clone()), source.clone());
        (session, kept, source)
    }

    #[test]
    fn stop_heard_during_an_infinite_search_ends_it() {
        let (mut session, kept, _) = session(&[(20, "isready"), (40, "stop")]);
        assert!(session.handle("position startpos"));
        assert!(session.handle("go infinite"));
        let lines = kept.lines();
        let ready = lines.iter().position(|l| l == "readyok").expect("readyok");
        let best = lines
            .iter()
            .position(|l| l.starts_with("bestmove "))
            .unwrap();
        assert!(ready < best, "{lines:?}");
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("bestmove")).count(),
            1
        );
    }

    #[test]
    fn other_lines_wait_for_the_search_and_quit_ends_the_session() {
        let (mut session, kept, _) = session(&[
            (5, "position startpos moves 2e3d"),
            (6, "go depth 1"),
            (30, "stop"),
            (31, "quit"),
        ]);
        assert!(!session.handle("go infinite"));
        let lines = kept.lines();
        let bestmoves: Vec<&String> = lines.iter().filter(|l| l.starts_with("bestmove")).collect();
        // The infinite search's answer, then the deferred `go depth 1`'s, from the position
        // set after it: a legal move of gote's there.
        assert_eq!(bestmoves.len(), 2, "{lines:?}");
        let start = minishogi_engine::shogi::Position::startpos();
        let after = start.after(start.parse_usi_move("2e3d").unwrap());
        let reply = bestmoves[1].split_whitespace().nth(1).unwrap();
        assert!(after.parse_usi_move(reply).is_ok(), "{reply} after 2e3d");
        assert!(!session.handle("usi"), "no line after quit");
    }

    #[test]
    fn a_timed_search_ends_by_itself_without_the_host() {
        let (mut session, kept, source) = session(&[]);
        assert!(session.handle("go movetime 50"));
        assert!(kept.lines().iter().any(|l| l.starts_with("bestmove ")));
        assert!(source.asked.load(SeqCst) > 0, "the search asked the host");
    }
}
