//! `engine review RECORD…`: the board's review (`minishogi_board::Board::review`) of game
//! records, outside the board: each record is loaded into a session core, whose analyser — the
//! engine itself (`self usi`) or any USI engine, as a process — searches every position; the
//! judgement (loss in win%, mark, better move, accuracy) is the core's, as in the page. Writes
//! each record back beside it with a comment on every move, in its own format, and a JSON
//! report.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use minishogi_board::review::Budget;
use minishogi_board::view::{Event, ReviewView};
use minishogi_board::{Board, Command, Report, Role, Score};

use crate::fileio;
use crate::gui::engine::EngineHandle;
use crate::records::{self, Format};
use crate::usi_client::EngineSpec;

#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// Records (KIF, KIFU, CSA, USI) or folders of them.
    #[arg(required = true)]
    pub records: Vec<PathBuf>,
    /// The search of each position, in nodes.
    #[arg(long, default_value_t = minishogi_board::REVIEW_NODES, conflicts_with = "movetime")]
    pub nodes: u64,
    /// The search of each position, in milliseconds (instead of `--nodes`).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Cores to use: several records are reviewed at once, one engine each; a single record
    /// gets an engine with this many threads (its USI `Threads`).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// The engine's command line (`self usi`: this program).
    #[arg(long, default_value = "self usi")]
    pub engine: String,
    /// Where the reviewed records go (default: beside each record, as NAME.review.EXT).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The JSON report of every record reviewed.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// The records named: files as given, folders' record files sorted.
fn record_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("{}: {e}", path.display()))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| Format::from_path(p).is_some_and(|f| f != Format::Usi))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    if files.is_empty() {
        return Err("no record to review".to_string());
    }
    Ok(files)
}

/// Reviews one record's main line with `engine`.
fn review_record(
    bytes: &[u8],
    format: Format,
    spec: &EngineSpec,
    budget: Budget,
    progress: &dyn Fn(usize),
) -> Result<ReviewView, String> {
    let mut board = Board::new(vec![spec.name.clone()]);
    board.load_record(bytes, Some(format))?;
    board.review_with(budget)?;
    let (reports, received) = mpsc::channel::<(Role, u64, Report)>();
    let mut analyser: Option<EngineHandle> = None;
    loop {
        for command in board.take_commands() {
            match command {
                Command::Start {
                    role,
                    serial,
                    options,
                    ..
                } => {
                    let reports = reports.clone();
                    let report = Arc::new(move |report| {
                        let _ = reports.send((role, serial, report));
                    });
                    analyser = Some(EngineHandle::start(spec.clone(), options, report));
                }
                Command::Job { job, .. } => {
                    if let Some(engine) = &analyser {
                        engine.send(job);
                    }
                }
                Command::Close { .. } => analyser = None,
                Command::Event(Event::State(state)) => {
                    if let Some(error) = &state.error {
                        return Err(error.clone());
                    }
                    if let Some(review) = &state.review {
                        progress(review.searched);
                    }
                    if let Some(review) = state.review.filter(|r| r.done) {
                        return Ok(review);
                    }
                }
                Command::Event(_) => {}
            }
        }
        match received.recv_timeout(Duration::from_secs(120)) {
            Ok((role, serial, report)) => board.on_report(role, serial, report),
            Err(RecvTimeoutError::Timeout) => {
                return Err("the engine said nothing for 2 minutes".into());
            }
            Err(RecvTimeoutError::Disconnected) => return Err("the engine is gone".into()),
        }
    }
}

/// A move's comment: its mark, the loss and the better move (KIF's and CSA's marks ▲△, which
/// Shift_JIS has, for the board's ☗☖).
fn comment(reviewed: &minishogi_board::view::ReviewedMove) -> String {
    use minishogi_board::review::Mark;
    let mark = match reviewed.mark {
        Some(Mark::Inaccuracy) => "疑問手 inaccuracy",
        Some(Mark::Mistake) => "悪手 mistake",
        Some(Mark::Blunder) => "大悪手 blunder",
        Some(Mark::MissedMate) => "詰み逃し missed mate",
        Some(Mark::AllowedMate) => "頓死 allowed mate",
        None => "",
    };
    let best = reviewed
        .best_ja
        .as_deref()
        .map(|b| b.replace('☗', "▲").replace('☖', "△"));
    let score = |s: Score| match s {
        Score::Cp(cp) => format!("{cp:+}"),
        Score::Mate(m) => format!("mate {m:+}"),
    };
    let mut text = format!(
        "loss {:.1}% ({} → {})",
        reviewed.loss,
        score(reviewed.before),
        score(reviewed.after)
    );
    if !mark.is_empty() {
        text = format!("{mark}: {text}");
    }
    if let Some(best) = best {
        text.push_str(&format!(" 最善手 best {best}"));
    }
    text
}

/// Where a reviewed record goes.
fn output_path(file: &Path, out: Option<&Path>) -> PathBuf {
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("record");
    let extension = file.extension().and_then(|s| s.to_str()).unwrap_or("kif");
    let name = format!("{stem}.review.{extension}");
    match out {
        Some(dir) => dir.join(name),
        None => file.with_file_name(name),
    }
}

/// One record to review: its file, bytes and format, and the record read from them.
struct Job {
    file: PathBuf,
    bytes: Vec<u8>,
    format: Format,
    record: records::Record,
}

impl Job {
    /// The positions its review searches: the start and one after each move.
    fn positions(&self) -> u64 {
        self.record.moves.len() as u64 + 1
    }
}

/// A record reviewed: the line printed and its part of the JSON report.
struct Done {
    line: String,
    report: serde_json::Value,
}

pub fn run(args: &ReviewArgs) -> Result<(), String> {
    let budget = match args.movetime {
        Some(ms) => Budget::Millis(ms),
        None => Budget::Nodes(args.nodes),
    };
    budget.go()?;
    let mut jobs = Vec::new();
    for file in record_files(&args.records)? {
        let bytes = fileio::read_regular(&file).map_err(|e| format!("cannot read {e}"))?;
        let format = Format::from_path(&file).unwrap_or_else(|| records::detect_format(&bytes));
        let record =
            records::read(&bytes, format).map_err(|e| format!("{}: {e}", file.display()))?;
        jobs.push(Job {
            file,
            bytes,
            format,
            record,
        });
    }
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    // Several records: one single-threaded engine each, as many at once as threads; one
    // record: one engine with every thread.
    let workers = (args.threads as usize).min(jobs.len()).max(1);
    let engine_threads = if jobs.len() == 1 { args.threads } else { 1 };
    let spec = EngineSpec {
        name: "reviewer".to_string(),
        command: args.engine.clone(),
        options: (engine_threads > 1)
            .then(|| ("Threads".to_string(), engine_threads.to_string()))
            .into_iter()
            .collect(),
        go_limits: Vec::new(),
        movetime_go: false,
        swap_clocks: false,
        time_control: None,
    };
    let bar = ProgressBar::new(jobs.iter().map(Job::positions).sum());
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:40} {pos}/{len} positions, {msg} [{elapsed_precise} < {eta_precise}]",
    ) {
        bar.set_style(style);
    }
    let records_done = AtomicUsize::new(0);
    bar.set_message(format!("0/{} records", jobs.len()));
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Result<Done, String>>>> =
        jobs.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let counted = AtomicUsize::new(0);
                    let progress = |searched: usize| {
                        let before = counted.swap(searched, Ordering::Relaxed);
                        bar.inc(searched.saturating_sub(before) as u64);
                    };
                    let done = review_job(job, &spec, budget, args.out.as_deref(), &progress);
                    bar.inc(job.positions() - counted.load(Ordering::Relaxed) as u64);
                    let finished = records_done.fetch_add(1, Ordering::Relaxed) + 1;
                    bar.set_message(format!("{finished}/{} records", jobs.len()));
                    let failed = done.is_err();
                    *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(done);
                    if failed {
                        // The first error ends the run: no new record is started.
                        next.store(jobs.len(), Ordering::Relaxed);
                    }
                }
            });
        }
    });
    bar.finish_and_clear();
    let mut report = Vec::new();
    for result in results {
        match result.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(Ok(done)) => {
                println!("{}", done.line);
                report.push(done.report);
            }
            Some(Err(e)) => return Err(e),
            None => {}
        }
    }
    if let Some(json) = &args.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        fileio::write_atomic(json, text.as_bytes()).map_err(|e| format!("cannot write {e}"))?;
    }
    Ok(())
}

/// Reviews one record and writes it back with its comments.
fn review_job(
    job: &Job,
    spec: &EngineSpec,
    budget: Budget,
    out: Option<&Path>,
    progress: &dyn Fn(usize),
) -> Result<Done, String> {
    let file = &job.file;
    let review = review_record(&job.bytes, job.format, spec, budget, progress)
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let mut record = job.record.clone();
    record.move_comments = review.moves.iter().map(|m| Some(comment(m))).collect();
    let path = output_path(file, out);
    fileio::write_atomic(&path, &records::write(&record, job.format))
        .map_err(|e| format!("cannot write {e}"))?;
    let accuracy = review.accuracy.unwrap_or(minishogi_board::view::Accuracy {
        sente: None,
        gote: None,
    });
    let show = |a: Option<f32>| a.map_or("–".to_string(), |a| format!("{a:.1}"));
    let line = format!(
        "{}: {} moves, accuracy sente {} gote {}, marks {}; {}",
        file.display(),
        review.moves.len(),
        show(accuracy.sente),
        show(accuracy.gote),
        review.moves.iter().filter(|m| m.mark.is_some()).count(),
        path.display()
    );
    let report = serde_json::json!({"record": file, "reviewed": path, "review": review});
    Ok(Done { line, report })
}
