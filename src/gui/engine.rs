//! A USI engine serving the page, the native side of the board's engine port
//! (`minishogi_board::port`): a process (`usi_client`) driven by a thread of
//! its own, which takes jobs (search, stop, options) from a channel and reports what the
//! engine says (`info`, `bestmove`, `checkmate`) through a callback. A new job stops the
//! search before it: every report carries the job's `Purpose`, so the receiver can tell a
//! stale answer from the one it waits for.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use minishogi_board::{Job, Purpose, Report};

use crate::usi_client::{EngineError, EngineProcess, EngineSpec};

/// How long the engine may take to answer `usi`/`isready` (a big hash table takes a while).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a stopped search may take to send its `bestmove`.
const STOP_GRACE: Duration = Duration::from_secs(5);
/// How often the thread looks for a new job while the engine searches.
const POLL: Duration = Duration::from_millis(10);

pub type ReportFn = Arc<dyn Fn(Report) + Send + Sync>;

/// The page's side of an engine thread; dropping it ends the thread and the process.
pub struct EngineHandle {
    pub name: String,
    jobs: Sender<Job>,
}

impl EngineHandle {
    /// Starts `spec`'s program on a thread of its own; `options` are set at the handshake.
    pub fn start(spec: EngineSpec, options: Vec<(String, String)>, report: ReportFn) -> Self {
        let (jobs, receiver) = mpsc::channel();
        let name = spec.name.clone();
        let spawned = thread::Builder::new()
            .name(format!("engine {name}"))
            .spawn({
                let report = report.clone();
                move || {
                    if let Err(e) = serve(&spec, &options, &receiver, &*report) {
                        report(Report::Failed(format!("{}: {e}", spec.name)));
                    }
                }
            });
        if let Err(e) = spawned {
            report(Report::Failed(format!(
                "{name}: cannot start a thread: {e}"
            )));
        }
        EngineHandle { name, jobs }
    }

    /// Hands a job to the engine thread (nothing happens if it has ended; its failure was
    /// reported).
    pub fn send(&self, job: Job) {
        let _ = self.jobs.send(job);
    }
}

/// The search in progress.
struct Current {
    purpose: Purpose,
}

fn serve(
    spec: &EngineSpec,
    options: &[(String, String)],
    jobs: &Receiver<Job>,
    report: &(dyn Fn(Report) + Send + Sync),
) -> Result<(), EngineError> {
    let mut engine = EngineProcess::spawn(spec)?;
    let id = engine.handshake(&[], HANDSHAKE_TIMEOUT)?;
    let set_options = |engine: &mut EngineProcess, options: &[(String, String)]| {
        for (name, value) in options {
            if id.declares(name) {
                engine.send(&format!("setoption name {name} value {value}"))?;
            } else {
                log::debug!("{}: no option {name}; not set", spec.name);
            }
        }
        engine.sync(HANDSHAKE_TIMEOUT)
    };
    set_options(&mut engine, options)?;
    let mut current: Option<Current> = None;
    loop {
        let job = if current.is_some() {
            match jobs.try_recv() {
                Ok(job) => Some(job),
                Err(mpsc::TryRecvError::Empty) => None,
                Err(mpsc::TryRecvError::Disconnected) => return Ok(()),
            }
        } else {
            match jobs.recv_timeout(Duration::from_secs(3600)) {
                Ok(job) => Some(job),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            }
        };
        if let Some(job) = job {
            // Any job ends the search before it.
            if current.is_some() {
                engine.send("stop")?;
                finish_search(&mut engine, &mut current, report, Some(STOP_GRACE))?;
            }
            match job {
                Job::Search {
                    position,
                    go,
                    purpose,
                } => {
                    engine.send(&position)?;
                    engine.send(&go)?;
                    current = Some(Current { purpose });
                    report(Report::Started { purpose });
                }
                Job::Stop => {}
                Job::Options(options) => set_options(&mut engine, &options)?,
            }
            continue;
        }
        finish_search(&mut engine, &mut current, report, None)?;
    }
}

/// Reads the engine's lines for the current search, reporting them, until its final line
/// (then `current` is cleared) or, with `grace` `None`, until there is nothing to read for
/// a moment. With a grace, a search that does not end within it is an error.
fn finish_search(
    engine: &mut EngineProcess,
    current: &mut Option<Current>,
    report: &(dyn Fn(Report) + Send + Sync),
    grace: Option<Duration>,
) -> Result<(), EngineError> {
    let Some(Current { purpose }) = *current else {
        return Ok(());
    };
    let deadline = Instant::now() + grace.unwrap_or(POLL);
    loop {
        let line = match engine.recv(deadline) {
            Ok((_, line)) => line,
            Err(EngineError::Timeout { .. }) if grace.is_none() => return Ok(()),
            Err(EngineError::Timeout { .. }) => {
                return Err(EngineError::Timeout {
                    waiting_for: "bestmove".to_string(),
                    after: grace.unwrap_or_default(),
                });
            }
            Err(e) => return Err(e),
        };
        let mut words = line.split_whitespace();
        match words.next() {
            Some("info") if words.next() != Some("string") => {
                report(Report::Info { purpose, line });
            }
            Some("bestmove") => {
                let token = words.next().unwrap_or("").to_string();
                *current = None;
                report(Report::BestMove { purpose, token });
                return Ok(());
            }
            Some("checkmate") => {
                let rest = line["checkmate".len()..].trim().to_string();
                *current = None;
                report(Report::Checkmate { purpose, rest });
                return Ok(());
            }
            _ => {}
        }
    }
}
