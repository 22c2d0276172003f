//! One search asked of the engine: the position and `go`, read until `bestmove` or a deadline;
//! `stop` for a search that ran past it.

use std::time::{Duration, Instant};

use super::error::EngineError;
use super::process::EngineProcess;

/// The engine's answer to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// The move token as sent (`7g7f`, `resign`, or anything else the engine wrote).
    pub token: String,
    /// From sending `go` to reading the `bestmove` line.
    pub elapsed: Duration,
}

impl EngineProcess {
    /// Sends the position and `go`, and waits for `bestmove` until `deadline`.
    pub fn go(
        &mut self,
        position: &str,
        go: &str,
        deadline: Instant,
    ) -> Result<BestMove, EngineError> {
        // Nothing the engine said before this search belongs to it.
        self.discard_pending();
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
