//! The USI protocol: the command loop and the session state it drives.
//!
//! The loop reads standard input on the calling thread; each `go` runs on a search thread of
//! its own (`usi/search_thread.rs`, which lends it the session's `player::Player`), so `stop`,
//! `ponderhit` and `isready` are answered while it searches. Every line goes
//! out through [`Output`], whole. Bad input is answered with `info string error: …` and changes
//! nothing; a `go` with bad parameters still searches with the rest, so that every `go` gets
//! its `bestmove`. Whatever is slow to set up (the hash table, the threads' memory, a weights
//! file) is done by `setoption` and `isready`, before `readyok` (`usi/setoption.rs`).

mod book;
mod command;
pub mod evaluator;
mod input;
mod options;
mod output;
mod report;
mod search_thread;
mod setoption;
mod uci;

use crate::platform::Instant;
use std::io::{self, BufRead};
use std::sync::Arc;
use std::thread;

use crate::bench;
use crate::eval::{Evaluator, win_probability_of_cp};
use crate::fileio;
use crate::mcts::MctsParams;
use crate::mcts::policy::MovePolicy;
use crate::player::Player;
use crate::players::{self, PlayerOptions, PlayerParams, new_player};
use crate::search::{Listener, SearchOptions, mate_search};
use crate::shogi::game::Game;
use crate::shogi::{Color, Move, Position};

use book::SessionBook;
use command::{Command, GoCommand, GoSearch, MateLimit, StartPosition, parse_command, quoted};
use input::{InputLine, LineReader, MAX_LINE_BYTES};
use options::{Setting, Strength, UsiOptions};
pub use output::Output;
use search_thread::{Job, SearchThread};

const ENGINE_NAME: &str = "minishogi-engine";
const ENGINE_AUTHOR: &str = "the minishogi-engine developers";

/// The players' parameters of a `ParamsFile` (the search's and MCTS's): the defaults with the
/// file's values set; an empty path gives the defaults.
fn load_params_file(path: &str) -> Result<PlayerParams, String> {
    if path.is_empty() {
        return Ok(PlayerParams::DEFAULT);
    }
    let text =
        fileio::read_regular_to_string(std::path::Path::new(path)).map_err(|e| e.to_string())?;
    PlayerParams::from_text(&text).map_err(|e| format!("{path}: {e}"))
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

/// A USI session fed line by line by a host with no thread to spare for it (the WebAssembly
/// worker): each `go` (and `bench`, `perft`, `go mate`) runs on the calling thread before
/// [`LineSession::handle`] returns. While it runs, the search asks `listener` for what the
/// host received since and lets it set `stop` and `ponder` (the host answers `isready` and
/// keeps other commands for after the search).
pub struct LineSession {
    session: Session,
    ended: bool,
}

impl LineSession {
    pub fn new(out: Output, listener: Listener) -> LineSession {
        let mut session = Session::new(out);
        session.search.run_inline(listener);
        LineSession {
            session,
            ended: false,
        }
    }

    /// Handles one line (without its newline) as the standard-input loop does; `false` once
    /// the session has ended (`quit`), after which lines are ignored.
    pub fn handle(&mut self, line: &str) -> bool {
        if self.ended {
            return false;
        }
        let received = Instant::now();
        if line.len() > MAX_LINE_BYTES {
            self.session.out.error(format!(
                "line of {} bytes exceeds the limit of {MAX_LINE_BYTES}; ignored",
                line.len()
            ));
            return true;
        }
        if self.session.handle_line(line, received) == Flow::Quit {
            self.ended = true;
        }
        !self.ended
    }

    /// The session's output (for a host that answers `isready` during a search).
    pub fn output(&self) -> &Output {
        &self.session.out
    }
}

#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

struct Session {
    out: Output,
    options: UsiOptions,
    game: Game,
    evaluator: Arc<dyn Evaluator>,
    /// What the options `Evaluator`, `EvalFile` and `ClassicalFile` ask for.
    eval_choice: evaluator::Choice,
    /// Which weights the evaluator has, for people (`info string`).
    evaluator_description: String,
    /// Whether `isready` should say what is set up (after a change, and the first time).
    report_setup: bool,
    /// `usinewgame` asked for a clean hash table; `isready` zeroes it.
    clear_hash_at_ready: bool,
    /// The strength options (`Skill_Level`, `USI_LimitStrength`, `USI_Elo`, `Skill_Seed`);
    /// the player's `skill` follows them.
    strength: Strength,
    /// The seed of the weakened levels' choices while `Skill_Seed` is 0: drawn at start, so
    /// that games differ from one session to the next.
    session_seed: u64,
    /// `PolicyFile`'s move policy for MCTS; `None` = the shipped one.
    policy: Option<Arc<MovePolicy>>,
    /// MCTS's numbers (hidden options, `ParamsFile`), given to every MCTS player built.
    mcts_params: MctsParams,
    /// Which player the USI option `Search` chose (`players::new_player`'s names).
    search_name: &'static str,
    /// The player, idle or lent to a running search.
    search: SearchThread,
    /// The opening book and its options.
    book: SessionBook,
}

impl Session {
    fn new(out: Output) -> Session {
        let defaults = SearchOptions::default();
        let options = UsiOptions::new(&defaults);
        let builtin = evaluator::builtin();
        let evaluator = builtin.evaluator;
        let session_seed = crate::platform::entropy_seed();
        let strength = Strength::new(session_seed);
        let search_name = crate::players::ALPHABETA;
        let mut player = new_player(
            search_name,
            SearchOptions {
                skill: strength.skill(),
                ..defaults
            },
        )
        .expect("the default search is known");
        player.set_evaluator(evaluator.clone());
        Session {
            out,
            options,
            game: Game::new(Position::startpos()),
            evaluator,
            eval_choice: evaluator::Choice::default(),
            evaluator_description: builtin.description,
            report_setup: true,
            clear_hash_at_ready: false,
            strength,
            session_seed,
            policy: None,
            mcts_params: MctsParams::DEFAULT,
            search_name,
            search: SearchThread::new(player),
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
            Command::PonderHit => self.search.ponderhit(&self.out),
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
        self.search.is_searching()
    }

    /// The player, once any search thread has handed it back; `None` (after an error line
    /// naming `what`) while a search is still running.
    fn idle_player(&mut self, what: &str) -> Option<&mut dyn Player> {
        if self.is_searching() {
            self.out
                .error(format!("{what}: a search is running; send stop first"));
            return None;
        }
        self.stop_search();
        self.search.player()
    }

    /// A new game: the history heuristics go at once; the hash table is zeroed at the next
    /// `isready`, before `readyok`, since zeroing a big one can take longer than a whole move
    /// and some GUIs send `go` right after `usinewgame`. (A search that comes first uses the
    /// old entries, aged.)
    fn usinewgame(&mut self) {
        if let Some(player) = self.idle_player("usinewgame") {
            player.clear_heuristics();
            self.clear_hash_at_ready = true;
            self.game = new_game(Position::startpos(), self.game.max_plies());
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
        if self.idle_player("go").is_none() {
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
            let job: Job = Box::new(move |_, control, _, _| {
                let result = mate_search(&root, time, control);
                Some(report::checkmate_line(&root, &result))
            });
            return self.search.spawn(&self.out, false, false, fallback, job);
        }
        let params = go.search;
        let mut limits = params.limits(root.side_to_move(), received);
        limits.searchmoves = self.searchmoves(&root, &params.searchmoves);
        let (ponder, infinite) = (params.ponder, params.infinite);
        if let Some(answer) = self.book.answer(&self.game, &limits.searchmoves) {
            // Answered at once; like any bestmove it waits for stop (infinite) or ponderhit.
            self.out.note(answer.note);
            let line = answer.bestmove;
            let fallback = line.clone();
            let job: Job = Box::new(move |_, _, _, _| Some(line));
            return self
                .search
                .spawn(&self.out, ponder, infinite, fallback, job);
        }
        let fallback = report::fallback_bestmove_line(&root);
        // Timed: the answer has a deadline (not while pondering or infinite).
        let job =
            search_thread::search_job(self.game.clone(), limits, !(ponder || infinite), received);
        self.search
            .spawn(&self.out, ponder, infinite, fallback, job);
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

    /// Stops a running search (its final line is sent) and takes the player back.
    fn stop_search(&mut self) {
        if !self.search.stop() {
            self.out
                .error("the search thread died; starting a fresh searcher");
            // A fresh player starts from the default options, MCTS's numbers among them.
            self.mcts_params = MctsParams::DEFAULT;
            self.search.set_player(self.fresh_player());
        }
    }

    /// A player of the session's kind with the default options and the session's evaluator.
    fn fresh_player(&self) -> Box<dyn Player> {
        let mut player = new_player(
            self.search_name,
            self.player_options(SearchOptions::default()),
        )
        .expect("the session's search is known");
        player.set_evaluator(self.evaluator.clone());
        player
    }

    /// What a player of this session is built with: `search`, and MCTS's numbers and move
    /// policy as the session's options set them.
    fn player_options(&self, search: SearchOptions) -> PlayerOptions {
        PlayerOptions {
            search,
            mcts: self.mcts_params,
            move_policy: self.policy.clone(),
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
        let cp = self.evaluator.evaluate_cp(pos);
        self.out.line(&format!(
            "eval: {cp} cp, win probability {:.4} for {} (side to move), by {}",
            win_probability_of_cp(cp as f32),
            color_name(pos.side_to_move()),
            self.evaluator_description
        ));
    }

    /// `bench [depth]`: `engine bench`'s positions with the current evaluator and search options
    /// (hash and threads excepted), off the input
    /// loop like a search; the last line is `engine bench`'s (`Bench: N nodes M nps`).
    fn bench(&mut self, depth: Option<u32>) {
        let Some(player) = self.idle_player("bench") else {
            return;
        };
        let options = player.options().clone();
        let evaluator = self.evaluator.clone();
        let fallback = "Bench: failed".to_string();
        let job: Job = Box::new(move |_, control, _, _| {
            Some(
                match bench::run_bench_until(depth, evaluator, &options, control) {
                    Some(result) => result.to_string(),
                    None => "Bench: stopped".to_string(),
                },
            )
        });
        self.search.spawn(&self.out, false, false, fallback, job);
    }

    /// `perft N` / `go perft N`: leaf counts per root move, then `Nodes searched: N` as
    /// Fairy-Stockfish prints it. It runs like a search, off the input loop: `isready` is
    /// answered meanwhile, and `stop` or `quit` end it (with the partial count).
    fn perft(&mut self, depth: u32) {
        if self.idle_player("perft").is_none() {
            return;
        }
        let pos = self.game.position().clone();
        let fallback = "Nodes searched: 0".to_string();
        let job = search_thread::perft_job(pos, depth);
        self.search.spawn(&self.out, false, false, fallback, job);
    }
}

fn new_game(start: Position, max_plies: Option<u32>) -> Game {
    let mut game = Game::new(start);
    game.set_max_plies(max_plies);
    game
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
