//! A USI engine running as a child process: spawned from a command line, read by a thread that
//! forwards timestamped lines over a channel (so every read has a deadline), and quit — then
//! killed if it lingers — when dropped.

use std::fmt;
use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// How an engine is started and configured.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EngineSpec {
    /// Name used in progress lines and records.
    pub name: String,
    /// Command line, split like a shell word list (quotes and backslashes honoured, no other
    /// shell syntax). A first word `self` stands for this program.
    pub command: String,
    /// `setoption name N value V` sent after the handshake, in order.
    pub options: Vec<(String, String)>,
    /// Extra limits appended to every `go` (e.g. `depth 4`), besides the time control.
    pub go_limits: Vec<(String, u64)>,
    /// A fixed time a move goes out as `go movetime N` rather than USI's `go btime 0 wtime 0
    /// byoyomi N`: for engines (Fairy-Stockfish) that budget byoyomi like a clock and think
    /// a fraction of it.
    #[serde(default)]
    pub movetime_go: bool,
    /// The engine's own time control, where it differs from the match's (time odds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<super::referee::TimeControl>,
}

/// Why talking to an engine failed.
#[derive(Debug)]
pub enum EngineError {
    /// The command line is empty or has an unterminated quote.
    BadCommand(String),
    /// The program could not be started.
    Spawn { program: String, source: io::Error },
    /// The engine's output ended (it exited or closed standard output).
    Exited { status: Option<ExitStatus> },
    /// No expected answer before the deadline.
    Timeout {
        waiting_for: String,
        after: Duration,
    },
    /// Writing to the engine failed (it probably exited).
    Write(io::Error),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::BadCommand(why) => write!(f, "bad engine command: {why}"),
            EngineError::Spawn { program, source } => {
                write!(f, "cannot start engine program '{program}': {source}")
            }
            EngineError::Exited {
                status: Some(status),
            } => {
                write!(f, "engine exited ({status})")
            }
            EngineError::Exited { status: None } => write!(f, "engine closed its output"),
            EngineError::Timeout { waiting_for, after } => {
                write!(f, "no '{waiting_for}' from engine within {after:.3?}")
            }
            EngineError::Write(e) => write!(f, "cannot write to engine: {e}"),
        }
    }
}

impl std::error::Error for EngineError {}

/// Splits a command line into words: whitespace separates, single quotes keep everything
/// literally, double quotes keep whitespace, a backslash escapes the next character.
pub fn split_command(line: &str) -> Result<Vec<String>, EngineError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => {
                            return Err(EngineError::BadCommand(format!(
                                "unterminated ' in '{line}'"
                            )));
                        }
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => word.push(c),
                            None => break,
                        },
                        Some(c) => word.push(c),
                        None => {
                            return Err(EngineError::BadCommand(format!(
                                "unterminated \" in '{line}'"
                            )));
                        }
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(EngineError::BadCommand("empty command".to_string()));
    }
    Ok(words)
}

/// What the engine told about itself during the handshake.
#[derive(Clone, Debug, Default)]
pub struct EngineId {
    pub name: Option<String>,
    /// Names of the options it declared.
    pub options: Vec<String>,
}

/// The engine's answer to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// The move token as sent (`7g7f`, `resign`, or anything else the engine wrote).
    pub token: String,
    /// From sending `go` to reading the `bestmove` line.
    pub elapsed: Duration,
}

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
    fn wait_for(
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

    /// `usi` … `usiok`, then the options, then `isready` … `readyok`.
    pub fn handshake(
        &mut self,
        options: &[(String, String)],
        timeout: Duration,
    ) -> Result<EngineId, EngineError> {
        self.send("usi")?;
        let mut id = EngineId::default();
        self.wait_for("usiok", timeout, |line| {
            if let Some(name) = line.strip_prefix("id name ") {
                id.name = Some(name.trim().to_string());
            } else if let Some(rest) = line.strip_prefix("option name ") {
                let name = rest.split(" type ").next().unwrap_or(rest).trim();
                id.options.push(name.to_string());
            }
        })?;
        for (name, value) in options {
            if !id.options.iter().any(|o| o.eq_ignore_ascii_case(name)) {
                log::warn!("{}: engine declared no option '{name}'", self.name);
            }
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        self.sync(timeout)?;
        Ok(id)
    }

    /// `isready` … `readyok`, discarding anything the engine said before.
    pub fn sync(&mut self, timeout: Duration) -> Result<(), EngineError> {
        self.send("isready")?;
        self.wait_for("readyok", timeout, |_| {})?;
        Ok(())
    }

    /// Sends the position and `go`, and waits for `bestmove` until `deadline`.
    pub fn go(
        &mut self,
        position: &str,
        go: &str,
        deadline: Instant,
    ) -> Result<BestMove, EngineError> {
        // Nothing the engine said before this search belongs to it.
        while self.lines.try_recv().is_ok() {}
        self.send(position)?;
        self.send(go)?;
        let sent = Instant::now();
        let timeout = deadline.saturating_duration_since(sent);
        let (at, line) = self.wait_for("bestmove", timeout, |_| {})?;
        let token = line.split_whitespace().nth(1).unwrap_or("").to_string();
        Ok(BestMove {
            token,
            elapsed: at.saturating_duration_since(sent),
        })
    }

    /// After a search ran past its deadline: `stop`, and whether a `bestmove` came within
    /// `grace` (if not, the engine should not be used again).
    pub fn stop(&mut self, grace: Duration) -> bool {
        self.send("stop").is_ok() && self.wait_for("bestmove", grace, |_| {}).is_ok()
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
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        assert_eq!(split_command("engine usi").unwrap(), ["engine", "usi"]);
        assert_eq!(
            split_command("  'my engine'  --opt \"a b\" c\\ d ").unwrap(),
            ["my engine", "--opt", "a b", "c d"]
        );
        assert_eq!(split_command("x ''").unwrap(), ["x", ""]);
        assert!(matches!(
            split_command("   "),
            Err(EngineError::BadCommand(_))
        ));
        assert!(matches!(
            split_command("a 'b"),
            Err(EngineError::BadCommand(_))
        ));
    }

    fn spec(command: &str) -> EngineSpec {
        EngineSpec {
            name: "test".to_string(),
            command: command.to_string(),
            options: vec![],
            go_limits: vec![],
            movetime_go: false,
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

    #[test]
    fn silent_program_times_out_and_exiting_program_is_reported() {
        let mut silent = EngineProcess::spawn(&spec("sleep 5")).unwrap();
        let err = silent
            .handshake(&[], Duration::from_millis(100))
            .unwrap_err();
        assert!(matches!(err, EngineError::Timeout { .. }), "{err}");
        let mut gone = EngineProcess::spawn(&spec("true")).unwrap();
        let err = gone.handshake(&[], Duration::from_secs(5)).unwrap_err();
        assert!(
            matches!(err, EngineError::Exited { .. } | EngineError::Write(_)),
            "{err}"
        );
    }
}
