//! A USI engine serving the page: a process (`matches::engine_process`) driven by a thread of
//! its own, which takes jobs (search, stop, options) from a channel and reports what the
//! engine says (`info`, `bestmove`, `checkmate`) through a callback. A new job stops the
//! search before it: every report carries the job's `Purpose`, so the receiver can tell a
//! stale answer from the one it waits for.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use crate::matches::engine_process::{EngineError, EngineProcess, EngineSpec};

/// How long the engine may take to answer `usi`/`isready` (a big hash table takes a while).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a stopped search may take to send its `bestmove`.
const STOP_GRACE: Duration = Duration::from_secs(5);
/// How often the thread looks for a new job while the engine searches.
const POLL: Duration = Duration::from_millis(10);

/// What a search is for; reports carry it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// The engine's move in the game at `node`, of game number `game`.
    Play { game: u64, node: usize },
    /// Analysis of `node` (until stopped).
    Analyse { node: usize },
    /// A mate search from `node`.
    Mate { node: usize },
}

pub enum Job {
    Search {
        /// `position …` line.
        position: String,
        /// `go …` line.
        go: String,
        purpose: Purpose,
    },
    Stop,
    /// `setoption`s, sent with the engine idle, then `isready`. Options the engine did not
    /// declare are left out.
    Options(Vec<(String, String)>),
}

pub enum Report {
    /// The search for `purpose` was sent to the engine (a clock starts from here, not from
    /// the job: starting an engine takes a while).
    Started { purpose: Purpose },
    /// An `info` line of the search for `purpose` (not `info string`).
    Info { purpose: Purpose, line: String },
    /// The search's `bestmove` token (`resign`, `win` or a move).
    BestMove { purpose: Purpose, token: String },
    /// A mate search's `checkmate …` line, after the word.
    Checkmate { purpose: Purpose, rest: String },
    /// The engine failed (did not start, exited, stopped answering); it is gone.
    Failed(String),
}

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
    let declared = |name: &str| id.options.iter().any(|o| o.eq_ignore_ascii_case(name));
    let set_options = |engine: &mut EngineProcess, options: &[(String, String)]| {
        for (name, value) in options {
            if declared(name) {
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

/// One `info` line's fields, as the page shows them.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Info {
    pub multipv: u32,
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    /// `{"cp": n}` or `{"mate": n}`, from the side to move's view.
    pub score: Option<Score>,
    /// `"lower"` or `"upper"` for a bound.
    pub bound: Option<&'static str>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    pub time_ms: Option<u64>,
    pub pv: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

/// The fields of an `info` line (USI or UCI spelling); unknown fields are skipped, and a
/// malformed number leaves its field empty.
pub fn parse_info(line: &str) -> Info {
    let mut info = Info {
        multipv: 1,
        ..Info::default()
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut i = usize::from(words.first() == Some(&"info"));
    let number = |i: usize| words.get(i + 1).and_then(|w| w.parse::<u64>().ok());
    while i < words.len() {
        match words[i] {
            "depth" => info.depth = number(i).map(|n| n as u32),
            "seldepth" => info.seldepth = number(i).map(|n| n as u32),
            "multipv" => info.multipv = number(i).map_or(1, |n| n as u32),
            "nodes" => info.nodes = number(i),
            "nps" => info.nps = number(i),
            "time" => info.time_ms = number(i),
            "score" => {
                let value = words.get(i + 2).and_then(|w| w.parse::<i32>().ok());
                info.score = match (words.get(i + 1), value) {
                    (Some(&"cp"), Some(v)) => Some(Score::Cp(v)),
                    (Some(&"mate"), Some(v)) => Some(Score::Mate(v)),
                    _ => None,
                };
                i += 2;
                continue;
            }
            "lowerbound" => info.bound = Some("lower"),
            "upperbound" => info.bound = Some("upper"),
            "pv" => {
                info.pv = words[i + 1..].iter().map(|w| w.to_string()).collect();
                break;
            }
            "string" => break,
            _ => {}
        }
        i += 1;
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_are_read_field_by_field() {
        let info = parse_info(
            "info depth 12 seldepth 18 multipv 2 score cp -35 upperbound nodes 1234 nps 900 \
             time 140 hashfull 3 pv 2e3d 4a3b",
        );
        assert_eq!(info.depth, Some(12));
        assert_eq!(info.seldepth, Some(18));
        assert_eq!(info.multipv, 2);
        assert_eq!(info.score, Some(Score::Cp(-35)));
        assert_eq!(info.bound, Some("upper"));
        assert_eq!(info.nodes, Some(1234));
        assert_eq!(info.nps, Some(900));
        assert_eq!(info.time_ms, Some(140));
        assert_eq!(info.pv, ["2e3d", "4a3b"]);
        let mate = parse_info("info depth 3 score mate -2 pv 1a1b");
        assert_eq!(mate.score, Some(Score::Mate(-2)));
        assert_eq!(mate.multipv, 1);
        let bad = parse_info("info depth x score cp");
        assert_eq!((bad.depth, bad.score), (None, None));
    }
}
