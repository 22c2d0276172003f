//! Why talking to a USI engine failed: one error type for every step, from starting the
//! program to waiting for its `bestmove`.

use std::fmt;
use std::io;
use std::process::ExitStatus;
use std::time::Duration;

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
