//! The USI protocol: the command loop and the session state it drives.
//!
//! The loop reads standard input on the calling thread; each `go` runs on a search thread of
//! its own, so `stop`, `ponderhit` and `isready` are answered while it searches. Every line goes
//! out through [`Output`], whole. Bad input is answered with `info string error: …` and changes
//! nothing (an illegal move in `position … moves` keeps the legal prefix, as reported).

mod command;
pub mod evaluator;
mod input;
mod options;
mod output;
mod report;

use std::io::{self, BufRead};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::search::{ClockLimits, Evaluator, Limits, SearchControl, SearchOptions, Searcher};
use crate::shogi::game::Game;
use crate::shogi::{Color, Position, Square, perft_divide};

use command::{Command, GoCommand, GoSearch, MateLimit, StartPosition, parse_command, quoted};
use input::{InputLine, LineReader, MAX_LINE_BYTES};
use options::{Setting, UsiOptions};
pub use output::Output;

const ENGINE_NAME: &str = "minishogi-engine";
const ENGINE_AUTHOR: &str = "the minishogi-engine developers";

/// Speaks USI on standard input and output until `quit` or the end of input.
pub fn run_stdio() -> io::Result<()> {
    run(io::stdin().lock(), Output::new(io::stdout()))
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
        let flow = match line {
            InputLine::Text(text) => session.handle_line(&text),
            InputLine::TooLong { bytes } => {
                session.out.error(format!(
                    "line of {bytes} bytes exceeds the limit of {MAX_LINE_BYTES}; ignored"
                ));
                Flow::Continue
            }
            InputLine::NotUtf8 { valid_up_to } => {
                session.out.error(format!(
                    "line is not valid UTF-8 (bad byte at offset {valid_up_to}); ignored"
                ));
                Flow::Continue
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

struct Session {
    out: Output,
    options: UsiOptions,
    game: Game,
    max_plies: Option<u32>,
    eval_file: String,
    evaluator: Arc<dyn Evaluator>,
    /// `None` only while a search thread holds it (then `search` is `Some`).
    searcher: Option<Searcher>,
    search: Option<RunningSearch>,
}

impl Session {
    fn new(out: Output) -> Session {
        let defaults = SearchOptions::default();
        let options = UsiOptions::new(&defaults);
        let max_plies = defaults.max_plies;
        let evaluator = evaluator::builtin();
        let mut searcher = Searcher::new(defaults);
        searcher.set_evaluator(evaluator.clone());
        Session {
            out,
            options,
            game: new_game(Position::startpos(), max_plies),
            max_plies,
            eval_file: String::new(),
            evaluator,
            searcher: Some(searcher),
            search: None,
        }
    }

    fn handle_line(&mut self, line: &str) -> Flow {
        match parse_command(line) {
            Ok(Some(command)) => self.execute(command),
            Ok(None) => Flow::Continue,
            Err(e) => {
                self.out.error(e);
                Flow::Continue
            }
        }
    }

    fn execute(&mut self, command: Command) -> Flow {
        match command {
            Command::Usi => self.usi(),
            Command::IsReady => self.out.line("readyok"),
            Command::UsiNewGame => self.usinewgame(),
            Command::SetOption { name, value } => self.setoption(&name, value.as_deref()),
            Command::Position { start, moves } => self.position(start, &moves),
            Command::Go(go) => self.go(go),
            Command::Stop => self.stop_search(),
            Command::PonderHit => self.ponderhit(),
            Command::GameOver(_) => self.stop_search(),
            Command::Quit => return Flow::Quit,
            Command::Display => self.display(),
            Command::Eval => self.eval(),
            Command::Perft(depth) => self.perft(depth),
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

    fn usinewgame(&mut self) {
        if let Some(searcher) = self.idle_searcher("usinewgame") {
            searcher.clear();
            self.game = new_game(Position::startpos(), self.max_plies);
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
            Setting::HashMb(mb) => options.hash_mb = mb,
            Setting::Threads(n) => options.threads = n,
            Setting::MultiPv(n) => options.multipv = n,
            Setting::MaxPly(limit) => {
                options.max_plies = limit;
                self.max_plies = limit;
                self.game.set_max_plies(limit);
            }
            Setting::MoveOverhead(overhead) => options.move_overhead = overhead,
            Setting::Ponder(_) | Setting::Variant => {}
            Setting::EvalFile(path) => self.set_eval_file(path),
        }
    }

    /// Switches evaluator; a file that fails to load leaves the current one in place.
    fn set_eval_file(&mut self, path: String) {
        let loaded = if path.is_empty() {
            Ok(evaluator::builtin())
        } else {
            evaluator::load(&path)
        };
        match loaded {
            Ok(evaluator) => {
                self.evaluator = evaluator;
                if let Some(searcher) = self.searcher.as_mut() {
                    searcher.set_evaluator(self.evaluator.clone());
                }
                self.eval_file = path;
            }
            Err(e) => self.out.error(format!(
                "setoption EvalFile: {e}; keeping {}",
                describe_eval_file(&self.eval_file)
            )),
        }
    }

    fn position(&mut self, start: StartPosition, moves: &[String]) {
        let start = match start {
            StartPosition::Startpos => Position::startpos(),
            StartPosition::Sfen(sfen) => match Position::from_sfen(&sfen) {
                Ok(pos) => pos,
                Err(e) => {
                    return self
                        .out
                        .error(format!("position: {e}; the position is unchanged"));
                }
            },
        };
        let mut game = new_game(start, self.max_plies);
        for (played, text) in moves.iter().enumerate() {
            let result = game
                .position()
                .parse_move(text)
                .and_then(|mv| game.play(mv));
            if let Err(e) = result {
                self.out.error(format!(
                    "position: move {} {}: {e}; the position is set after the first {played} \
                     moves",
                    played + 1,
                    quoted(text)
                ));
                break;
            }
        }
        self.game = game;
    }

    fn go(&mut self, go: GoCommand) {
        if self.idle_searcher("go").is_none() {
            return;
        }
        let root = self.game.position().clone();
        match go {
            GoCommand::Search(params) => {
                let limits = limits(&params, root.side_to_move());
                let game = self.game.clone();
                let fallback = report::fallback_bestmove_line(&root);
                self.spawn_search(
                    params.ponder,
                    params.infinite,
                    fallback,
                    move |searcher, control, out| {
                        // Resigning still waits for stop or ponderhit, like any bestmove.
                        if !root.has_legal_move() {
                            return "bestmove resign".to_string();
                        }
                        let result = searcher.search(&game, &limits, control, &mut |info| {
                            out.line(&report::info_line(&root, info))
                        });
                        report::bestmove_line(&root, &result)
                    },
                );
            }
            GoCommand::Mate(limit) => {
                let time = match limit {
                    MateLimit::Time(t) => Some(t),
                    MateLimit::Infinite => None,
                };
                let fallback = "checkmate timeout".to_string();
                self.spawn_search(false, false, fallback, move |searcher, control, _| {
                    let result = searcher.mate_search(&root, time, control);
                    report::checkmate_line(&root, &result)
                });
            }
        }
    }

    /// Starts `job` on a search thread with the searcher. `job` returns the final line; when
    /// `infinite` or pondering, that line waits for `stop` or `ponderhit` as USI requires. Should
    /// the job panic, `fallback` is sent instead so the GUI is never left waiting.
    fn spawn_search(
        &mut self,
        ponder: bool,
        infinite: bool,
        fallback: String,
        job: impl FnOnce(&mut Searcher, &SearchControl, &Output) -> String + Send + 'static,
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
        let thread_finished = finished.clone();
        let out = self.out.clone();
        let spawned = thread::Builder::new()
            .name("search".to_string())
            .spawn(move || {
                // The session sends the searcher right after spawning; without it, nothing to do.
                let mut searcher = receive_searcher.recv().ok()?;
                let control = &*thread_control;
                let line = catch_unwind(AssertUnwindSafe(|| job(&mut searcher, control, &out)))
                    .unwrap_or_else(|_| {
                        out.error("the search failed (see the log); answering with a fallback");
                        searcher.clear();
                        fallback
                    });
                while !control.stop.load(Ordering::SeqCst)
                    && (infinite || control.ponder.load(Ordering::SeqCst))
                {
                    thread::park_timeout(Duration::from_millis(10));
                }
                out.line_after(|| thread_finished.store(true, Ordering::SeqCst), &line);
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
            describe_eval_file(&self.eval_file)
        ));
    }

    fn perft(&mut self, depth: u32) {
        if self.is_searching() {
            return self
                .out
                .error("perft: a search is running; send stop first");
        }
        let start = Instant::now();
        let mut pos = self.game.position().clone();
        let divide = if depth == 0 {
            Vec::new()
        } else {
            perft_divide(&mut pos, depth)
        };
        let total: u64 = if depth == 0 {
            1
        } else {
            divide.iter().map(|&(_, n)| n).sum()
        };
        let elapsed = start.elapsed();
        let mut lines: Vec<String> = divide.iter().map(|(mv, n)| format!("{mv}: {n}")).collect();
        lines.push(format!("nodes: {total}"));
        lines.push(format!("time: {} ms", elapsed.as_millis()));
        self.out.lines(lines);
    }
}

fn new_game(start: Position, max_plies: Option<u32>) -> Game {
    let mut game = Game::new(start);
    game.set_max_plies(max_plies);
    game
}

/// The search limits of a `go`: the clock of the side to move, when any clock value was sent.
fn limits(go: &GoSearch, side: Color) -> Limits {
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
        movetime: go.movetime,
        clock: any_clock.then(|| ClockLimits {
            remaining: remaining.unwrap_or_default(),
            increment: increment.unwrap_or_default(),
            byoyomi: go.byoyomi.unwrap_or_default(),
        }),
        infinite: go.infinite,
    }
}

fn describe_eval_file(path: &str) -> String {
    if path.is_empty() {
        "the built-in evaluation".to_string()
    } else {
        format!("the weights from '{path}'")
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::Sente => "sente",
        Color::Gote => "gote",
    }
}

/// The board as text for people: gote's hand, ranks a–e with files 5…1, sente's hand.
fn board_lines(pos: &Position) -> Vec<String> {
    let hand = |color: Color| {
        let counts: Vec<String> = crate::shogi::PieceKind::HAND
            .iter()
            .filter(|&&k| pos.hand(color).count(k) > 0)
            .map(|&k| format!("{}{}", k.usi_letter(), pos.hand(color).count(k)))
            .collect();
        format!(
            "{} hand: {}",
            color_name(color),
            if counts.is_empty() {
                "-".to_string()
            } else {
                counts.join(" ")
            }
        )
    };
    let mut lines = vec![hand(Color::Gote), "   5  4  3  2  1".to_string()];
    for rank in 0..5u8 {
        let row: String = (1..=5u8)
            .rev()
            .map(|file| match pos.piece_at(Square::new(file, rank)) {
                Some(piece) => format!("{:>3}", piece.sfen()),
                None => "  .".to_string(),
            })
            .collect();
        lines.push(format!("{}{row}", (b'a' + rank) as char));
    }
    lines.push(hand(Color::Sente));
    lines
}
