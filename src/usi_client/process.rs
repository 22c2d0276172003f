//! A USI engine running as a child process: spawned from a command line, read by a thread that
//! forwards timestamped lines over a channel (so every read has a deadline), its standard error
//! logged, and quit — then killed if it lingers — when dropped.

use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use super::error::EngineError;
use super::spec::{EngineSpec, split_command};

/// A running USI engine.
pub struct EngineProcess {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Instant, String)>,
}

impl EngineProcess {
    /// Starts the engine program (no USI traffic yet).
    pub fn spawn(spec: &EngineSpec) -> Result<EngineProcess, EngineError> {
        let mut words = split_command(&spec.command)?;
        if words[0] == "self" {
            words[0] = std::env::current_exe()
                .map_err(|source| EngineError::Spawn {
                    program: "self".to_string(),
                    source,
                })?
                .to_string_lossy()
                .into_owned();
        }
        let mut child = Command::new(&words[0])
            .args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| EngineError::Spawn {
                program: words[0].clone(),
                source,
            })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (sender, lines) = mpsc::channel();
        let name = spec.name.clone();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                        log::trace!("{name} > {line}");
                        if sender.send((Instant::now(), line)).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let name = spec.name.clone();
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                match line {
                    Ok(line) => log::debug!("{name} stderr: {line}"),
                    Err(_) => break,
                }
            }
        });
        Ok(EngineProcess {
            name: spec.name.clone(),
            stdin: child.stdin.take(),
            child,
            lines,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sends one command line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        log::trace!("{} < {line}", self.name);
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| EngineError::Write(io::Error::from(io::ErrorKind::BrokenPipe)))?;
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .map_err(EngineError::Write)
    }

    /// The next output line, waiting until `deadline` at most.
    pub fn recv(&mut self, deadline: Instant) -> Result<(Instant, String), EngineError> {
        let timeout = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Timeout {
                waiting_for: String::new(),
                after: timeout,
            }),
            Err(RecvTimeoutError::Disconnected) => Err(self.exited()),
        }
    }

    /// Drops the lines already read and not yet taken.
    pub fn discard_pending(&mut self) {
        while self.lines.try_recv().is_ok() {}
    }

    fn exited(&mut self) -> EngineError {
        // The output closing usually means the process is exiting: give it a moment.
        let until = Instant::now() + Duration::from_millis(200);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return EngineError::Exited {
                    status: Some(status),
                };
            }
            if Instant::now() >= until {
                return EngineError::Exited { status: None };
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// Reads lines until one whose first word is `keyword`, returning it; other lines go to
    /// `other`.
    pub fn wait_for(
        &mut self,
        keyword: &str,
        timeout: Duration,
        mut other: impl FnMut(&str),
    ) -> Result<(Instant, String), EngineError> {
        let deadline = Instant::now() + timeout;
        loop {
            let (at, line) = self.recv(deadline).map_err(|e| match e {
                EngineError::Timeout { .. } => EngineError::Timeout {
                    waiting_for: keyword.to_string(),
                    after: timeout,
                },
                e => e,
            })?;
            if line.split_whitespace().next() == Some(keyword) {
                return Ok((at, line));
            }
            other(&line);
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.send("quit");
        self.stdin = None;
        let until = Instant::now() + Duration::from_millis(500);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(5));
        }
        log::debug!("{}: did not quit, killing it", self.name);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(in crate::usi_client) fn spec(command: &str) -> EngineSpec {
        EngineSpec {
            name: "test".to_string(),
            command: command.to_string(),
            options: vec![],
            go_limits: vec![],
            movetime_go: false,
            swap_clocks: false,
            time_control: None,
        }
    }

    #[test]
    fn missing_program_is_a_spawn_error() {
        let err = EngineProcess::spawn(&spec("/nonexistent/engine-xyz"))
            .err()
            .unwrap();
        assert!(matches!(err, EngineError::Spawn { .. }), "{err}");
    }
}
