//! A USI engine spawned as a GUI spawns it, for the test files that talk to the engine over
//! pipes. Its lines are read by a thread into a channel, so a hang fails the test instead of
//! blocking it. Each test file adds the helpers of its own protocol checks in its own `impl`
//! block. Shared by the engine crate's tests (the playing binary, `minishogi-engine`) and the
//! lab's (`tests/common/mod.rs` includes this file; there the binary is the lab's `engine`).

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

/// The binary under test: the package's own — the playing engine's in its crate, the lab's
/// `engine` in the root package (which has no `minishogi-engine` binary of its own).
const BINARY: &str = match (
    option_env!("CARGO_BIN_EXE_minishogi-engine"),
    option_env!("CARGO_BIN_EXE_engine"),
) {
    (Some(path), _) | (None, Some(path)) => path,
    (None, None) => panic!("no engine binary in this package"),
};

pub struct UsiEngine {
    child: Child,
    /// `None` once closed, to test the end of input.
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// How long any expected line may take before the test fails as hung.
    hang: Duration,
}

impl UsiEngine {
    /// The engine (USI mode by default), with `hang` as the limit on every expected line.
    pub fn start(hang: Duration) -> UsiEngine {
        UsiEngine::start_with_args(hang, &[])
    }

    /// `engine <args…>`, e.g. `engine uci`.
    pub fn start_with_args(hang: Duration, args: &[&str]) -> UsiEngine {
        let mut child = Command::new(BINARY)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("engine binary starts");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let (send, lines) = channel();
        thread::spawn(move || {
            let mut pending = Vec::new();
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = stdout.read(&mut chunk) {
                pending.extend_from_slice(&chunk[..n]);
                while let Some(end) = pending.iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = pending.drain(..=end).collect();
                    let text =
                        String::from_utf8(line[..end].to_vec()).expect("the engine writes UTF-8");
                    if send.send(text).is_err() {
                        return;
                    }
                }
            }
        });
        UsiEngine {
            child,
            stdin: Some(stdin),
            lines,
            hang,
        }
    }

    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("input is open");
        stdin.write_all(bytes).expect("engine reads its input");
        stdin.flush().unwrap();
    }

    /// Closes the engine's input, as a GUI that goes away does.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    pub fn try_line(&self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => panic!("the engine closed its output"),
        }
    }

    pub fn line(&self) -> String {
        let hang = self.hang;
        self.try_line(hang)
            .unwrap_or_else(|| panic!("no line from the engine within {hang:?}"))
    }

    /// Lines up to and including the first that satisfies `last`.
    pub fn lines_until(&self, last: impl Fn(&str) -> bool) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.line();
            let done = last(&line);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// The first line that starts with `prefix` (those before it are dropped).
    pub fn until(&self, prefix: &str) -> String {
        self.lines_until(|l| l.starts_with(prefix)).pop().unwrap()
    }

    /// Every line that arrives within `window`.
    pub fn lines_for(&self, window: Duration) -> Vec<String> {
        let end = Instant::now() + window;
        let mut lines = Vec::new();
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match self.try_line(left) {
                Some(line) => lines.push(line),
                None => break,
            }
        }
        lines
    }

    /// Waits for the engine to exit (after `quit` or the end of its input), successfully.
    pub fn wait_for_exit(&mut self) {
        let deadline = Instant::now() + self.hang;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "engine exited with {status}");
                return;
            }
            assert!(Instant::now() < deadline, "engine did not quit");
            thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for UsiEngine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The position after USI `moves` from `root`, panicking on an illegal one.
pub fn after_usi_moves(
    root: &minishogi_engine::shogi::Position,
    moves: &[&str],
) -> minishogi_engine::shogi::Position {
    let mut pos = root.clone();
    for text in moves {
        let mv = pos
            .parse_usi_move(text)
            .unwrap_or_else(|e| panic!("{text} in {}: {e}", pos.to_sfen()));
        pos.make_move(mv);
    }
    pos
}
