//! The USI protocol: the command loop and the session state it drives.
//!
//! The loop reads standard input on the calling thread; each `go` runs on a search thread of
//! its own, so `stop`, `ponderhit` and `isready` are answered while it searches. Every line goes
//! out through [`Output`], whole. Bad input is answered with `info string error: …` and changes
//! nothing; a `go` with bad parameters still searches with the rest, so that every `go` gets
//! its `bestmove`. Whatever is slow to set up (the hash table, the threads' memory, a weights
//! file) is done by `setoption` and `isready`, before `readyok`.

mod book;
mod command;
pub mod evaluator;
mod input;
mod options;
mod output;
mod report;
mod uci;

use std::io::{self, BufRead};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::eval::Evaluator;
use crate::fileio;
use crate::search::params_file;
use crate::search::{
    ClockLimits, Limits, SearchControl, SearchEvent, SearchOptions, Searcher, THREAD_STACK, bench,
    time,
};
use crate::shogi::game::Game;
use crate::shogi::{Color, Move, Position, perft_until};

use book::SessionBook;
use command::{Command, GoCommand, GoSearch, MateLimit, StartPosition, parse_command, quoted};
use input::{InputLine, LineReader, MAX_LINE_BYTES};
use options::{Setting, Strength, UsiOptions};
pub use output::Output;

const ENGINE_NAME: &str = "minishogi-engine";
const ENGINE_AUTHOR: &str = "the minishogi-engine developers";

/// The search parameters of a `ParamsFile`: the defaults with the file's values set; an empty
/// path gives the defaults.
fn load_params_file(path: &str) -> Result<crate::search::SearchParams, String> {
    if path.is_empty() {
        return Ok(crate::search::SearchParams::DEFAULT);
    }
    let text =
        fileio::read_regular_to_string(std::path::Path::new(path)).map_err(|e| e.to_string())?;
    params_file::params_from_text(&text).map_err(|e| format!("{path}: {e}"))
}

/// Speaks USI on standard input and output until `quit` or the end of input.
pub fn run_stdio() -> io::Result<()> {
    run(io::stdin().lock(), Output::new(io::stdout()))
}

/// Speaks UCI in Fairy-Stockfish's dialect for minishogi (FEN positions, moves such as `a2a3`) on
/// standard input and output until `quit` or the end of input; `usi` switches to USI.
pub fn run_stdio_uci() -> io::Result<()> {
    let output = Output::new(io::stdout());
    output.set_uci(true);
    run(io::stdin().lock(), output)
}

/// Speaks USI on `input` and `output` until `quit` or the end of input.
pub fn run(input: impl BufRead, output: Output) -> io::Result<()> {
    let mut session = Session::new(output);
    let mut reader = LineReader::new(input, MAX_LINE_BYTES);
    let result = loop {
        let line = match reader.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        };
        // The clock of a `go` runs from here.
        let received = Instant::now();
        let flow = match line {
            InputLine::Text(text) => session.handle_line(&text, received),
            InputLine::TooLong { bytes } => {
                session.out.error(format!(
                    "line of {bytes} bytes exceeds the limit of {MAX_LINE_BYTES}; ignored"
                ));
                Flow::Continue
            }
            InputLine::NotUtf8 { valid_up_to, lossy } => {
                let is_go = lossy.split_whitespace().next() == Some("go");
                session.out.error(format!(
                    "line is not valid UTF-8 (bad byte at offset {valid_up_to}); {}",
                    if is_go {
                        "searching with what can be read"
                    } else {
                        "ignored"
                    }
                ));
                // A `go` is answered all the same: its unreadable parameters are skipped.
                if is_go {
                    session.handle_line(&lossy, received)
                } else {
                    Flow::Continue
                }
            }
        };
        if flow == Flow::Quit {
            break Ok(());
        }
    };
    session.stop_search();
    result
}

#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// A search or mate search running on its own thread.
struct RunningSearch {
    control: Arc<SearchControl>,
    /// Set, under the output lock, just before the final line is written: once the GUI has
    /// seen `bestmove`, the next command finds the search finished.
    finished: Arc<AtomicBool>,
    handle: JoinHandle<Option<Searcher>>,
}

impl RunningSearch {
    fn is_finished(&self) -> bool {
        self.finished.load(Ordering::SeqCst)
    }

    fn wake(&self) {
        self.handle.thread().unpark();
    }
}

/// How long past its hard time limit a search may stay silent before the watchdog answers for
/// it: the search stops itself at the limit, but a loaded machine may not run its thread then.
const WATCHDOG_GRACE: Duration = Duration::from_millis(4);

/// Answers for a search that is still silent at `deadline` (its thread not scheduled on a
/// loaded machine): sends the best move of its last completed iteration, kept in `latest`.
/// A sleeping thread woken by a timer is run promptly, ahead of busy ones.
fn watch_deadline(deadline: Instant, finisher: Finisher, latest: Arc<Mutex<Option<String>>>) {
    let spawned = thread::Builder::new()
        .name("deadline".to_string())
        .spawn(move || {
            while let Some(left) = deadline.checked_duration_since(Instant::now()) {
                if finisher.is_finished() {
                    return;
                }
                thread::park_timeout(left);
            }
            if let Some(line) = lock(&latest).clone() {
                if !finisher.is_finished() {
                    log::warn!("the search missed its deadline; answering with its last move");
                }
                finisher.finish(&line);
            }
        });
    if let Err(e) = spawned {
        log::warn!("cannot start the deadline watchdog: {e}");
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Sends a search's final line (`bestmove`, `checkmate`, …) exactly once, marking the search
/// finished under the output lock first: once the GUI has read it, the next command finds the
/// search over.
#[derive(Clone)]
struct Finisher {
    out: Output,
    finished: Arc<AtomicBool>,
}

impl Finisher {
    fn finish(&self, line: &str) {
        self.out
            .line_if(|| !self.finished.swap(true, Ordering::SeqCst), line);
    }

    fn is_finished(&self) -> bool {
        self.finished.load(Ordering::SeqCst)
    }
}

struct Session {
    out: Output,
    options: UsiOptions,
    game: Game,
    evaluator: Arc<dyn Evaluator>,
    /// Which weights the evaluator has, for people (`info string`).
    evaluator_description: String,
    /// Whether `isready` should say what is set up (after a change, and the first time).
    report_setup: bool,
    /// `usinewgame` asked for a clean hash table; `isready` zeroes it.
    clear_hash_at_ready: bool,
    /// The strength options (`Skill_Level`, `USI_LimitStrength`, `USI_Elo`, `Skill_Seed`);
    /// the searcher's `skill` follows them.
    strength: Strength,
    /// The seed of the weakened levels' choices while `Skill_Seed` is 0: drawn at start, so
    /// that games differ from one session to the next.
    session_seed: u64,
    /// `None` only while a search thread holds it (then `search` is `Some`).
    searcher: Option<Searcher>,
    search: Option<RunningSearch>,
    /// The opening book and its options.
    book: SessionBook,
}

impl Session {
    fn new(out: Output) -> Session {
        let defaults = SearchOptions::default();
        let options = UsiOptions::new(&defaults);
        let builtin = evaluator::builtin();
        let evaluator = builtin.evaluator;
        let session_seed = rand::random::<u64>();
        let strength = Strength::new(session_seed);
        let mut searcher = Searcher::new(SearchOptions {
            skill: strength.skill(),
            ..defaults
        });
        searcher.set_evaluator(evaluator.clone());
        Session {
            out,
            options,
            game: Game::new(Position::startpos()),
            evaluator,
            evaluator_description: builtin.description,
            report_setup: true,
            clear_hash_at_ready: false,
            strength,
            session_seed,
            searcher: Some(searcher),
            search: None,
            book: SessionBook::new(),
        }
    }

    fn handle_line(&mut self, line: &str, received: Instant) -> Flow {
        // In UCI, the line is first put into USI (`uci.rs`).
        let translated;
        let line = if self.out.is_uci() {
            match uci::to_usi(line) {
                Ok(usi) => {
                    translated = usi;
                    translated.as_str()
                }
                Err(e) => {
                    self.out.error(e);
                    return Flow::Continue;
                }
            }
        } else {
            line
        };
        match parse_command(line) {
            Ok(Some(command)) => self.execute(command, received),
            Ok(None) => Flow::Continue,
            Err(e) => {
                self.out.error(e);
                Flow::Continue
            }
        }
    }

    fn execute(&mut self, command: Command, received: Instant) -> Flow {
        match command {
            Command::Usi => {
                self.out.set_uci(false);
                self.usi();
            }
            Command::Uci => {
                self.out.set_uci(true);
                self.uci();
            }
            Command::IsReady => self.isready(),
            Command::UsiNewGame => self.usinewgame(),
            Command::SetOption { name, value } => self.setoption(&name, value.as_deref()),
            Command::Position { start, moves } => self.position(start, &moves),
            Command::Go(go) => self.go(go, received),
            Command::Stop => self.stop_search(),
            Command::PonderHit => self.ponderhit(),
            Command::GameOver(_) => self.stop_search(),
            Command::Quit => return Flow::Quit,
            Command::Display => self.display(),
            Command::Eval => self.eval(),
            Command::Perft(depth) => self.perft(depth),
            Command::Bench(depth) => self.bench(depth),
        }
        Flow::Continue
    }

    fn usi(&self) {
        let mut lines = vec![
            format!("id name {ENGINE_NAME} {}", env!("CARGO_PKG_VERSION")),
            format!("id author {ENGINE_AUTHOR}"),
        ];
        lines.extend(self.options.usi_lines());
        lines.push("usiok".to_string());
        self.out.lines(lines);
    }

    /// The `uci` answer: the options by their UCI names (`uci.rs` translates what follows).
    fn uci(&self) {
        let mut lines = vec![
            format!("id name {ENGINE_NAME} {}", env!("CARGO_PKG_VERSION")),
            format!("id author {ENGINE_AUTHOR}"),
        ];
        lines.extend(self.options.uci_lines());
        lines.push("uciok".to_string());
        self.out.lines(lines);
    }

    fn is_searching(&self) -> bool {
        self.search.as_ref().is_some_and(|s| !s.is_finished())
    }

    /// The searcher, once any search thread has handed it back; `None` (after an error line
    /// naming `what`) while a search is still running.
    fn idle_searcher(&mut self, what: &str) -> Option<&mut Searcher> {
        if self.is_searching() {
            self.out
                .error(format!("{what}: a search is running; send stop first"));
            return None;
        }
        self.stop_search();
        self.searcher.as_mut()
    }

    /// A new game: the history heuristics go at once; the hash table is zeroed at the next
    /// `isready`, before `readyok`, since zeroing a big one can take longer than a whole move
    /// and some GUIs send `go` right after `usinewgame`. (A search that comes first uses the
    /// old entries, aged.)
    fn usinewgame(&mut self) {
        if let Some(searcher) = self.idle_searcher("usinewgame") {
            searcher.clear_heuristics();
            self.clear_hash_at_ready = true;
            self.game = new_game(Position::startpos(), self.game.max_plies());
        }
    }

    fn setoption(&mut self, name: &str, value: Option<&str>) {
        let setting = match self.options.parse(name, value) {
            Ok(setting) => setting,
            Err(e) => return self.out.error(format!("setoption: {e}")),
        };
        let Some(searcher) = self.idle_searcher("setoption") else {
            return;
        };
        let options = searcher.options_mut();
        match setting {
            Setting::HashMb(mb) => {
                options.hash_mb = mb;
                self.allocate(true);
            }
            Setting::Threads(n) => {
                let cores = thread::available_parallelism().map_or(1, |n| n.get());
                if n > cores {
                    self.out.note(format!(
                        "Threads {n}: using {cores}, the number of cores available (more threads \
                         would only slow the search and delay its answers)"
                    ));
                }
                if let Some(searcher) = self.searcher.as_mut() {
                    searcher.options_mut().threads = n.min(cores);
                }
                self.allocate(false);
            }
            Setting::MultiPv(n) => options.multipv = n,
            Setting::MaxPly(limit) => {
                // The game owns its draw limit; the search reads it from there.
                self.game.set_max_plies(limit);
            }
            Setting::MoveOverhead(overhead) => options.move_overhead = overhead,
            Setting::SearchFeature(name, on) => {
                options.features.set(name, on);
            }
            Setting::SearchParam(name, value) => {
                // Checked against the parameter's range when parsed.
                if let Err(e) = options.params.set(name, value) {
                    self.out.error(format!("setoption: {e}"));
                }
            }
            Setting::SkillLevel(level) => self.set_strength(Strength {
                level,
                ..self.strength
            }),
            Setting::LimitStrength(limit_strength) => self.set_strength(Strength {
                limit_strength,
                ..self.strength
            }),
            Setting::Elo(elo) => self.set_strength(Strength {
                elo,
                ..self.strength
            }),
            Setting::SkillSeed(seed) => self.set_strength(Strength {
                seed: seed.unwrap_or(self.session_seed),
                ..self.strength
            }),
            Setting::Ponder(_) => {}
            // Said as Fairy-Stockfish says it: uci2wb turns this line into XBoard's `setup`
            // command, which gives XBoard the start position of its 5×5 shogi board.
            Setting::Variant => self.out.note(format!(
                "variant {} files 5 ranks 5 pocket 5 template shogi startpos {}",
                options::VARIANT,
                Position::startpos().to_fen()
            )),
            Setting::OwnBook(on) => {
                self.book.own_book = on;
                self.report_setup = true;
            }
            Setting::BookMaxPly(plies) => self.book.max_ply = plies,
            Setting::BookMoveChoice(choice) => self.book.choice = choice,
            Setting::BookFile(path) => match self.book.load(&path) {
                Ok(note) => {
                    self.out.note(note);
                    self.report_setup = true;
                }
                Err(e) => self.out.error(format!("setoption BookFile: {e}")),
            },
            Setting::EvalFile(path) => self.set_eval_file(path),
            Setting::ParamsFile(path) => match load_params_file(&path) {
                Ok(params) => {
                    options.params = params;
                    self.out.note(if path.is_empty() {
                        "ParamsFile: search parameters at their defaults".to_string()
                    } else {
                        format!("ParamsFile: search parameters from {path}")
                    });
                }
                Err(e) => self.out.error(format!(
                    "setoption ParamsFile: {e}; search parameters unchanged"
                )),
            },
        }
    }

    /// Takes the strength options `strength` and says what they make of the search.
    fn set_strength(&mut self, strength: Strength) {
        let changed = strength.skill().params() != self.strength.skill().params();
        self.strength = strength;
        let Some(searcher) = self.searcher.as_mut() else {
            return;
        };
        let skill = strength.skill();
        searcher.options_mut().skill = skill;
        if !changed {
            return;
        }
        self.out.note(match skill.params() {
            None => "strength: full".to_string(),
            Some(level) => format!(
                "strength: level {:.2}{}: at most {} node{} a move, choosing among {} moves with \
                 weakness {}/128",
                skill.level_value(),
                if strength.limit_strength {
                    format!(" (USI_Elo {})", strength.elo)
                } else {
                    String::new()
                },
                level.nodes,
                if level.nodes == 1 { "" } else { "s" },
                level.multipv,
                level.weakness
            ),
        });
    }

    /// Sets up what the options ask for (hash table, threads' memory) now rather than in the
    /// first search; a hash size that cannot be had is cut down, not fatal. With `report_hash`,
    /// says what the table holds.
    fn allocate(&mut self, report_hash: bool) {
        let Some(searcher) = self.searcher.as_mut() else {
            return;
        };
        searcher.allocate();
        let (requested, held) = (searcher.options().hash_mb, searcher.hash_size_mb());
        if report_hash && held < requested {
            self.out.note(format!(
                "USI_Hash: {requested} MB cannot be had; using {held} MB"
            ));
        } else if report_hash {
            self.out.note(format!("USI_Hash: {held} MB allocated"));
        }
        self.report_setup = true;
    }

    /// `readyok`, once everything the options ask for is set up; after a change (and the
    /// first time) an `info string` says what that is.
    fn isready(&mut self) {
        if !self.is_searching() {
            self.stop_search();
            if let Some(searcher) = self.searcher.as_mut() {
                searcher.allocate();
                if std::mem::take(&mut self.clear_hash_at_ready) {
                    searcher.clear();
                }
                if self.report_setup {
                    let threads = searcher.options().threads;
                    self.out.note(format!(
                        "ready: hash {} MB, {threads} thread{}, evaluation by {}, {}",
                        searcher.hash_size_mb(),
                        if threads == 1 { "" } else { "s" },
                        self.evaluator_description,
                        self.book.summary()
                    ));
                    self.report_setup = false;
                }
            }
        }
        self.out.line("readyok");
    }

    /// Switches evaluator; a file that fails to load leaves the current one in place.
    fn set_eval_file(&mut self, path: String) {
        let loaded = if path.is_empty() {
            Ok(evaluator::builtin())
        } else {
            evaluator::load(&path)
        };
        match loaded {
            Ok(loaded) => {
                self.evaluator = loaded.evaluator;
                if let Some(searcher) = self.searcher.as_mut() {
                    searcher.set_evaluator(self.evaluator.clone());
                }
                self.out
                    .note(format!("EvalFile: evaluating by {}", loaded.description));
                self.evaluator_description = loaded.description;
                self.report_setup = true;
            }
            Err(e) => self.out.error(format!(
                "setoption EvalFile: {e}; keeping {}",
                self.evaluator_description
            )),
        }
    }

    /// `position …`: all or nothing. A bad SFEN or move leaves the current position as it was,
    /// and the error names the move and its index.
    fn position(&mut self, start: StartPosition, moves: &[String]) {
        let start = match start {
            StartPosition::Startpos => Position::startpos(),
            // uci2wb hands XBoard's positions on as `position sfen <FEN>`, in Fairy-Stockfish's
            // FEN (hands in brackets, `w` for sente): the brackets tell the two apart.
            StartPosition::Sfen(fen) if fen.contains('[') => match Position::from_fen(&fen) {
                Ok(pos) => pos,
                Err(e) => {
                    return self
                        .out
                        .error(format!("position: {e}; the position is unchanged"));
                }
            },
            StartPosition::Sfen(sfen) => match Position::from_sfen(&sfen) {
                Ok(pos) => pos,
                Err(e) => {
                    return self
                        .out
                        .error(format!("position: {e}; the position is unchanged"));
                }
            },
        };
        let mut game = new_game(start, self.game.max_plies());
        match game.play_texts(moves) {
            Ok(()) => self.game = game,
            Err((index, e)) => self.out.error(format!(
                "position: move {} {}: {e}; the position is unchanged",
                index + 1,
                quoted(&moves[index])
            )),
        }
    }

    fn go(&mut self, go: GoCommand, received: Instant) {
        for warning in &go.warnings {
            self.out.error(warning);
        }
        if self.idle_searcher("go").is_none() {
            return;
        }
        let root = self.game.position().clone();
        if let Some(limit) = go.mate {
            if go.search != GoSearch::default() {
                self.out
                    .error("go: 'mate' asks for a mate search; its other parameters are ignored");
            }
            let time = match limit {
                MateLimit::Time(t) => Some(t.saturating_sub(received.elapsed())),
                MateLimit::Infinite => None,
            };
            let fallback = "checkmate timeout".to_string();
            self.spawn_search(false, false, fallback, move |searcher, control, _, _| {
                let result = searcher.mate_search(&root, time, control);
                Some(report::checkmate_line(&root, &result))
            });
            return;
        }
        let params = go.search;
        let mut limits = limits(&params, root.side_to_move(), received);
        limits.searchmoves = self.searchmoves(&root, &params.searchmoves);
        if let Some(answer) = self.book.answer(&self.game, &limits.searchmoves) {
            // Answered at once; like any bestmove it waits for stop (infinite) or ponderhit.
            self.out.note(answer.note);
            let line = answer.bestmove;
            let fallback = line.clone();
            self.spawn_search(
                params.ponder,
                params.infinite,
                fallback,
                move |_, _, _, _| Some(line),
            );
            return;
        }
        let game = self.game.clone();
        let fallback = report::fallback_bestmove_line(&root);
        // When the answer is due at the latest (not while pondering or infinite).
        let deadline = match (params.ponder || params.infinite, &self.searcher) {
            (false, Some(searcher)) => time::budget(&limits, searcher.options().move_overhead)
                .map(|budget| received + budget.maximum + WATCHDOG_GRACE),
            _ => None,
        };
        self.spawn_search(
            params.ponder,
            params.infinite,
            fallback,
            move |searcher, control, out, finisher| {
                // Resigning still waits for stop or ponderhit, like any bestmove.
                if !root.has_legal_move() {
                    return Some("bestmove resign".to_string());
                }
                log::debug!("go: search starts {:?} after the go", received.elapsed());
                let latest = Arc::new(Mutex::new(None));
                if let Some(deadline) = deadline {
                    watch_deadline(deadline, finisher.clone(), latest.clone());
                }
                let result = searcher.search(&game, &limits, control, &mut |event| {
                    match event {
                        SearchEvent::Finished(result) => {
                            log::debug!("go: bestmove {:?} after the go", received.elapsed());
                            finisher.finish(&report::bestmove_line(&root, result));
                        }
                        SearchEvent::Iteration(info) if info.multipv == 1 => {
                            *lock(&latest) = report::bestmove_from_pv(&root, &info.pv);
                        }
                        _ => {}
                    }
                    if let Some(line) = report::event_line(&root, event) {
                        out.line(&line);
                    }
                });
                // Already sent with `Finished`, unless the search ended without one.
                Some(report::bestmove_line(&root, &result))
            },
        );
    }

    /// The legal moves among `go searchmoves …`; each other one is reported and left out.
    fn searchmoves(&self, root: &Position, texts: &[String]) -> Vec<Move> {
        let mut moves = Vec::new();
        for text in texts {
            // `parse_move` also checks that the move is legal here.
            match root.parse_move(text) {
                Ok(mv) => moves.push(mv),
                Err(e) => self
                    .out
                    .error(format!("go searchmoves: {}: {e}; left out", quoted(text))),
            }
        }
        if !texts.is_empty() && moves.is_empty() {
            self.out
                .error("go searchmoves: no legal move given; searching every move");
        }
        moves
    }

    /// Starts `job` on a search thread with the searcher. `job` sends its final line through
    /// the [`Finisher`] as soon as it may (a search does so before waiting for its helper
    /// threads), or returns it; a returned line waits for `stop` or `ponderhit` when `infinite`
    /// or pondering, as USI requires. Should the job panic before its final line, `fallback`
    /// is sent instead so the GUI is never left waiting.
    fn spawn_search(
        &mut self,
        ponder: bool,
        infinite: bool,
        fallback: String,
        job: impl FnOnce(&mut Searcher, &SearchControl, &Output, &Finisher) -> Option<String>
        + Send
        + 'static,
    ) {
        let Some(searcher) = self.searcher.take() else {
            return self.out.error("internal: the searcher is missing");
        };
        let control = Arc::new(SearchControl::default());
        control.ponder.store(ponder, Ordering::SeqCst);
        let finished = Arc::new(AtomicBool::new(false));
        // The searcher goes over a channel once the thread exists, so a failed spawn keeps it.
        let (send_searcher, receive_searcher) = mpsc::channel::<Searcher>();
        let thread_control = control.clone();
        let finisher = Finisher {
            out: self.out.clone(),
            finished: finished.clone(),
        };
        let out = self.out.clone();
        let spawned = thread::Builder::new()
            .name("search".to_string())
            // The search's main worker runs on this thread.
            .stack_size(THREAD_STACK)
            .spawn(move || {
                // The session sends the searcher right after spawning; without it, nothing to do.
                let mut searcher = receive_searcher.recv().ok()?;
                let control = &*thread_control;
                let run = AssertUnwindSafe(|| job(&mut searcher, control, &out, &finisher));
                let line = catch_unwind(run).unwrap_or_else(|_| {
                    out.error("the search failed (see the log); answering with a fallback");
                    searcher.clear();
                    Some(fallback)
                });
                if let Some(line) = line.filter(|_| !finisher.is_finished()) {
                    while !control.stop.load(Ordering::SeqCst)
                        && (infinite || control.ponder.load(Ordering::SeqCst))
                    {
                        thread::park_timeout(Duration::from_millis(10));
                    }
                    finisher.finish(&line);
                }
                Some(searcher)
            });
        match spawned {
            Ok(handle) => match send_searcher.send(searcher) {
                Ok(()) => {
                    self.search = Some(RunningSearch {
                        control,
                        finished,
                        handle,
                    })
                }
                Err(mpsc::SendError(searcher)) => {
                    self.searcher = Some(searcher);
                    self.out.error("cannot start the search thread");
                }
            },
            Err(e) => {
                self.searcher = Some(searcher);
                self.out
                    .error(format!("cannot start the search thread: {e}"));
            }
        }
    }

    /// Stops a running search (its final line is sent) and takes the searcher back.
    fn stop_search(&mut self) {
        let Some(search) = self.search.take() else {
            return;
        };
        search.control.stop.store(true, Ordering::SeqCst);
        search.wake();
        self.searcher = Some(match search.handle.join() {
            Ok(Some(searcher)) => searcher,
            _ => {
                // Unreachable in practice: the thread catches the search's panics.
                self.out
                    .error("the search thread died; starting a fresh searcher");
                let mut searcher = Searcher::new(SearchOptions::default());
                searcher.set_evaluator(self.evaluator.clone());
                searcher
            }
        });
    }

    fn ponderhit(&mut self) {
        match &self.search {
            Some(search)
                if !search.is_finished() && search.control.ponder.load(Ordering::SeqCst) =>
            {
                search.control.ponder.store(false, Ordering::SeqCst);
                search.wake();
            }
            _ => self.out.error("ponderhit: no search is pondering"),
        }
    }

    fn display(&self) {
        let pos = self.game.position();
        let mut lines = board_lines(pos);
        lines.push(format!("sfen: {}", pos.to_sfen()));
        lines.push(format!("fen: {}", pos.to_fen()));
        lines.push(format!("key: {:016x}", pos.key()));
        lines.push(format!("side to move: {}", color_name(pos.side_to_move())));
        lines.push(format!("in check: {}", pos.in_check()));
        lines.push(format!("status: {:?}", self.game.status()));
        let moves = pos.legal_moves();
        let listed: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        lines.push(format!(
            "legal moves ({}): {}",
            moves.len(),
            listed.join(" ")
        ));
        self.out.lines(lines);
    }

    fn eval(&self) {
        let pos = self.game.position();
        self.out.line(&format!(
            "eval: {} cp, win probability {:.4} for {} (side to move), by {}",
            self.evaluator.evaluate_cp(pos),
            self.evaluator.win_probability(pos),
            color_name(pos.side_to_move()),
            self.evaluator_description
        ));
    }

    /// `bench [depth]`: `engine bench`'s positions with the current evaluator and search options
    /// (hash and threads excepted), off the input
    /// loop like a search; the last line is `engine bench`'s (`Bench: N nodes M nps`).
    fn bench(&mut self, depth: Option<u32>) {
        let Some(searcher) = self.idle_searcher("bench") else {
            return;
        };
        let options = searcher.options().clone();
        let evaluator = self.evaluator.clone();
        let fallback = "Bench: failed".to_string();
        self.spawn_search(false, false, fallback, move |_, control, _, _| {
            Some(
                match bench::run_bench_until(depth, evaluator, &options, control) {
                    Some(result) => result.to_string(),
                    None => "Bench: stopped".to_string(),
                },
            )
        });
    }

    /// `perft N` / `go perft N`: leaf counts per root move, then `Nodes searched: N` as
    /// Fairy-Stockfish prints it. It runs like a search, off the input loop: `isready` is
    /// answered meanwhile, and `stop` or `quit` end it (with the partial count).
    fn perft(&mut self, depth: u32) {
        if self.idle_searcher("perft").is_none() {
            return;
        }
        let mut pos = self.game.position().clone();
        let fallback = "Nodes searched: 0".to_string();
        self.spawn_search(false, false, fallback, move |_, control, out, _| {
            let start = Instant::now();
            let moves = if depth == 0 {
                Default::default()
            } else {
                pos.legal_moves()
            };
            let mut total: u64 = if depth == 0 { 1 } else { 0 };
            for (done, &mv) in moves.iter().enumerate() {
                let undo = pos.make_move(mv);
                let count = perft_until(&mut pos, depth - 1, &control.stop);
                pos.unmake_move(mv, undo);
                let Some(count) = count else {
                    out.note(format!(
                        "perft stopped: {done} of {} root moves counted",
                        moves.len()
                    ));
                    break;
                };
                out.line(&format!("{mv}: {count}"));
                total += count;
            }
            let elapsed = start.elapsed();
            out.note(format!(
                "perft {depth}: {total} nodes in {} ms ({:.0} nodes/s)",
                elapsed.as_millis(),
                total as f64 / elapsed.as_secs_f64().max(1e-6)
            ));
            Some(format!("Nodes searched: {total}"))
        });
    }
}

fn new_game(start: Position, max_plies: Option<u32>) -> Game {
    let mut game = Game::new(start);
    game.set_max_plies(max_plies);
    game
}

/// The search limits of a `go` that arrived at `received`: the clock of the side to move,
/// when any clock value was sent.
fn limits(go: &GoSearch, side: Color, received: Instant) -> Limits {
    let (remaining, increment) = match side {
        Color::Sente => (go.btime, go.binc),
        Color::Gote => (go.wtime, go.winc),
    };
    let any_clock = [go.btime, go.wtime, go.binc, go.winc, go.byoyomi]
        .iter()
        .any(Option::is_some);
    Limits {
        depth: go.depth,
        nodes: go.nodes,
        soft_nodes: None,
        movetime: go.movetime,
        clock: any_clock.then(|| ClockLimits {
            remaining: remaining.unwrap_or_default(),
            increment: increment.unwrap_or_default(),
            byoyomi: go.byoyomi.unwrap_or_default(),
            moves_to_go: go.movestogo,
        }),
        infinite: go.infinite,
        searchmoves: Vec::new(),
        start: Some(received),
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::Sente => "sente",
        Color::Gote => "gote",
    }
}

/// The board as text for people: `shogi::display`'s ASCII drawing.
fn board_lines(pos: &Position) -> Vec<String> {
    pos.pretty_ascii().lines().map(str::to_string).collect()
}
