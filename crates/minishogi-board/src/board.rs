//! The calls a transport makes: a person's actions, the clock's tick and the engines'
//! reports. Each changes the session, then brings the engines and clocks in line with it
//! (`settle`) and publishes the new state; what the transport must do comes out of
//! `take_commands`.

use std::collections::HashMap;
use std::time::Duration;

use minishogi_engine::platform::Instant;
use minishogi_engine::search::skill;
use serde::{Deserialize, Serialize};

use crate::clock::{Clock, ClockSettings};
use crate::notation;
use crate::port::{Command, Job, Purpose, Report, Role};
use crate::puzzle::{Puzzle, PuzzleStart, PuzzleStatus, Verdict};
use crate::records::{self, Ending, Record};
use crate::review::{Budget, Found, ReviewRun};
use crate::session::{Ended, SELF_ENGINE, Session, Slot};
use crate::setup::{self, Setup, SetupCheck};
use crate::shogi::{Color, EndReason, GameStatus, Position};
use crate::tree::Tree;
use crate::view::{BoardView, Event, InfoEvent, MateEvent, Player, Source, State, win_probability};
use crate::{Score, parse_info};

/// The level of the game a session starts with, before anyone chose one: a newcomer's first
/// opponent, gentle (the new-game dialog offers it too, read from the state).
pub const NEWCOMER_LEVEL: u32 = 5;
/// The most lines the analysis shows.
pub const MAX_MULTIPV: u32 = 5;
/// A review's search of a position when the page names none: about 0.1 s on one core
/// natively, 0.2 s in a browser.
pub const REVIEW_NODES: u64 = 100_000;
/// A person's flag falls this long after the clock reads zero; an engine's a little later,
/// for the pipe and process switch.
const ENGINE_TIME_GRACE: Duration = Duration::from_millis(300);
/// Why an engine's call or a step back is refused while a puzzle is solved.
const PUZZLE_UNDER_WAY: &str = "a puzzle is being solved";

/// What a new game asks for (`POST /api/new`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    #[serde(default)]
    pub sfen: Option<String>,
    pub sente: Player,
    pub gote: Player,
    #[serde(default)]
    pub engine: Option<String>,
    #[serde(default)]
    pub level: Option<u32>,
    #[serde(default)]
    pub elo: Option<i32>,
    #[serde(default)]
    pub clock: Option<ClockSettings>,
    #[serde(default)]
    pub movetime_ms: Option<u64>,
}

/// A record as a download.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecordFile {
    pub bytes: Vec<u8>,
    pub filename: String,
    pub content_type: &'static str,
}

/// A record format as the page names it: `kif`, `kifu`, `csa`, `usi` (`sfen` too), or
/// `auto`/none for `None` (guessed from the bytes).
pub fn record_format(name: Option<&str>) -> Result<Option<records::Format>, String> {
    match name {
        None | Some("auto") | Some("") => Ok(None),
        Some("sfen") => Ok(Some(records::Format::Usi)),
        Some(name) => records::Format::from_name(name).map(Some).ok_or_else(|| {
            format!("unknown record format '{name}' (kif, kifu, csa, usi, sfen or auto)")
        }),
    }
}

/// The session and the engines the page may choose from. Single-threaded: a transport that
/// serves several threads keeps it under a lock.
pub struct Board {
    session: Session,
    /// The engines by name, the first the default.
    engines: Vec<String>,
}

impl Board {
    /// A board with the start position, a person against the first of `engines` (its names;
    /// the engine itself if none are given).
    pub fn new(engines: Vec<String>) -> Board {
        let engines = if engines.is_empty() {
            vec![SELF_ENGINE.to_string()]
        } else {
            engines
        };
        Board {
            session: Session {
                tree: Tree::new(Position::startpos()),
                players: [Player::Human, Player::Engine],
                engine: engines[0].clone(),
                level: Some(NEWCOMER_LEVEL),
                elo: None,
                clock: None,
                movetime_ms: 1000,
                ended: None,
                game_id: 0,
                opponent: None,
                thinking: None,
                analyser: None,
                analysis_on: false,
                multipv: 1,
                analysing: None,
                review: None,
                puzzle: None,
                lines: Vec::new(),
                evals: HashMap::new(),
                error: None,
                serial: 0,
                version: 0,
                commands: Vec::new(),
            },
            engines,
        }
    }

    /// What the transport is to do since it last asked, in order: events to send, engines
    /// to start, jobs to hand them, engines to end.
    pub fn take_commands(&mut self) -> Vec<Command> {
        std::mem::take(&mut self.session.commands)
    }

    /// A new version of the state, queued for the pages and returned.
    fn publish(&mut self) -> State {
        let s = &mut self.session;
        s.version += 1;
        let state = s.view(&self.engines);
        s.commands
            .push(Command::Event(Event::State(Box::new(state.clone()))));
        state
    }

    /// What a page that starts listening now is sent first: the state, then the latest lines
    /// of the searches at the cursor (a deep search may not report again for a long while).
    pub fn catch_up(&self) -> Vec<Event> {
        let s = &self.session;
        let mut events = vec![Event::State(Box::new(self.state()))];
        let mut lines: Vec<&InfoEvent> = s
            .lines
            .iter()
            .filter(|line| line.node == s.tree.cursor())
            .collect();
        lines.sort_by_key(|line| (line.source == Source::Analysis, line.info.multipv));
        events.extend(
            lines
                .into_iter()
                .map(|line| Event::Info(Box::new(line.clone()))),
        );
        events
    }

    /// The state now.
    pub fn state(&self) -> State {
        self.session.view(&self.engines)
    }

    /// Runs `change` on the session, then brings the engines and clocks in line and
    /// publishes the new state. An error leaves the session as `change` left it (changes
    /// check first).
    fn change(
        &mut self,
        change: impl FnOnce(&mut Session) -> Result<(), String>,
    ) -> Result<State, String> {
        change(&mut self.session)?;
        self.settle();
        Ok(self.publish())
    }

    /// A person's move at the cursor (while a puzzle is solved, judged by the puzzle).
    pub fn play_move(&mut self, text: &str) -> Result<State, String> {
        if self.session.solving() {
            return self.puzzle_move(text);
        }
        self.change(|s| {
            if let Some(reason) = s.game_over_reason()
                && s.tree.at_line_end()
            {
                return Err(format!("the game is over ({reason})"));
            }
            let side = s.tree.position().side_to_move();
            if s.players[side.index()] == Player::Engine && s.tree.at_line_end() {
                return Err("the engine is to move".to_string());
            }
            let mv = s
                .tree
                .position()
                .parse_usi_move(text)
                .map_err(|e| e.to_string())?;
            s.stop_clock(true);
            s.tree.play(mv)?;
            s.ended = None;
            Ok(())
        })
    }

    pub fn new_game(&mut self, request: NewGame) -> Result<State, String> {
        let start = match &request.sfen {
            Some(sfen) => Position::from_sfen(sfen.trim()).map_err(|e| format!("SFEN: {e}"))?,
            None => Position::startpos(),
        };
        let engine = request
            .engine
            .clone()
            .unwrap_or_else(|| self.engines[0].clone());
        if !self.engines.contains(&engine) {
            return Err(format!("no engine named '{engine}'"));
        }
        if let Some(level) = request.level
            && level > skill::MAX_LEVEL
        {
            return Err(format!(
                "level {level}: the levels are 0 to {}",
                skill::MAX_LEVEL
            ));
        }
        if let Some(elo) = request.elo {
            let (low, high) = skill::elo_range();
            if !(low..=high).contains(&elo) {
                return Err(format!(
                    "Elo {elo}: the calibrated range is {low} to {high}"
                ));
            }
        }
        if let Some(clock) = request.clock {
            const DAY_MS: u64 = 24 * 3600 * 1000;
            if clock.main_ms > DAY_MS || clock.byoyomi_ms > DAY_MS || clock.increment_ms > DAY_MS {
                return Err("clock: at most a day".to_string());
            }
            if clock.main_ms + clock.byoyomi_ms + clock.increment_ms == 0 {
                return Err("clock: no time at all".to_string());
            }
        }
        let movetime_ms = request.movetime_ms.unwrap_or(1000);
        if !(10..=3_600_000).contains(&movetime_ms) {
            return Err(format!("movetime {movetime_ms} ms: 10 ms to an hour"));
        }
        self.change(|s| {
            s.new_game_id();
            s.puzzle = None;
            s.tree = Tree::new(start);
            s.players = [request.sente, request.gote];
            if s.engine != engine {
                s.close(Role::Opponent);
                s.close(Role::Analyser);
            }
            s.engine = engine;
            s.level = request.level;
            s.elo = request.elo;
            s.clock = request.clock.map(Clock::new);
            s.movetime_ms = movetime_ms;
            Ok(())
        })
    }

    /// Takes back moves until a person is to move (at least one move).
    pub fn undo(&mut self) -> Result<State, String> {
        self.change(|s| {
            if s.tree.cursor() == 0 {
                return Err("no move to take back".to_string());
            }
            if s.solving() {
                return Err(PUZZLE_UNDER_WAY.to_string());
            }
            if let Some(ended) = s.ended.filter(|e| e.node == s.tree.line_end()) {
                return Err(format!("the game is over ({})", ended.reason));
            }
            s.stop_clock(false);
            s.new_game_id();
            s.tree.take_back();
            while s.tree.cursor() != 0
                && s.players[s.tree.position().side_to_move().index()] == Player::Engine
                && s.players.contains(&Player::Human)
            {
                s.tree.take_back();
            }
            s.ended = None;
            Ok(())
        })
    }

    pub fn resign(&mut self) -> Result<State, String> {
        self.change(|s| {
            if let Some(reason) = s.game_over_reason() {
                return Err(format!("the game is over ({reason})"));
            }
            if s.solving() {
                return Err(PUZZLE_UNDER_WAY.to_string());
            }
            let side = s.tree.position().side_to_move();
            let loser = if s.players[side.index()] == Player::Human {
                side
            } else if s.players[side.flip().index()] == Player::Human {
                side.flip()
            } else {
                return Err("no person plays this game".to_string());
            };
            s.stop_clock(false);
            s.end(Some(loser.flip()), "resignation");
            Ok(())
        })
    }

    pub fn goto(&mut self, node: usize) -> Result<State, String> {
        self.change(|s| {
            s.stop_clock(false);
            s.tree.goto(node)
        })
    }

    pub fn set_analysis(&mut self, on: bool, multipv: Option<u32>) -> Result<State, String> {
        let multipv = multipv.unwrap_or(1);
        if !(1..=MAX_MULTIPV).contains(&multipv) {
            return Err(format!("multipv {multipv}: 1 to {MAX_MULTIPV}"));
        }
        self.change(|s| {
            if on && s.reviewing() {
                return Err("a review is under way".to_string());
            }
            if on && s.solving() {
                return Err(PUZZLE_UNDER_WAY.to_string());
            }
            if s.multipv != multipv {
                s.multipv = multipv;
                if s.analyser.is_some() {
                    s.send(
                        Role::Analyser,
                        Job::Options(vec![("MultiPV".into(), multipv.to_string())]),
                    );
                }
                s.analysing = None;
            }
            s.analysis_on = on;
            if !on {
                if s.analyser.is_some() {
                    s.send(Role::Analyser, Job::Stop);
                }
                s.analysing = None;
            }
            Ok(())
        })
    }

    /// Reviews the line through the cursor: the analyser searches each of its positions for
    /// `nodes` nodes, from the start; the state's `review` tells each move's loss, mark and
    /// the better move as they come, and each side's accuracy at the end. Analysis stops
    /// meanwhile; a change of the line (a move, a new game) ends the review.
    pub fn review(&mut self, nodes: u64) -> Result<State, String> {
        self.review_with(Budget::Nodes(nodes))
    }

    /// [`Board::review`] with a budget in nodes or time a position.
    pub fn review_with(&mut self, budget: Budget) -> Result<State, String> {
        let go = budget.go()?;
        self.change(|s| {
            if s.solving() {
                return Err(PUZZLE_UNDER_WAY.to_string());
            }
            let line: Vec<usize> = std::iter::once(0).chain(s.tree.line()).collect();
            if line.len() < 2 {
                return Err("no move to review".to_string());
            }
            if s.analysis_on && s.analyser.is_some() {
                s.send(Role::Analyser, Job::Stop);
            }
            s.analysis_on = false;
            s.analysing = None;
            let mut run = ReviewRun::new(s.game_id, line, go);
            // Where the rules decided the game, the last position needs no search.
            let mut game = crate::shogi::Game::new(s.tree.start().clone());
            for mv in s.tree.line_moves() {
                let _ = game.play(mv);
            }
            let mover_lost = |winner: Color| winner != game.position().side_to_move();
            let decided = |score| {
                Some(Found {
                    score,
                    line: Vec::new(),
                })
            };
            run.found[run.nodes.len() - 1] = match game.status() {
                GameStatus::Win { winner, .. } if mover_lost(winner) => decided(Score::Mate(-1)),
                GameStatus::Win { .. } => decided(Score::Mate(1)),
                GameStatus::Draw(_) => decided(Score::Cp(0)),
                GameStatus::Ongoing => None,
            };
            s.review = Some(run);
            ensure_analyser(s);
            send_review_job(s);
            Ok(())
        })
    }

    /// A mate search from the cursor's position on the analysing engine.
    pub fn mate_search(&mut self, movetime_ms: u64) -> Result<State, String> {
        if !(100..=600_000).contains(&movetime_ms) {
            return Err(format!("movetime {movetime_ms} ms: 100 ms to 10 minutes"));
        }
        self.change(|s| {
            if s.reviewing() {
                return Err("a review is under way".to_string());
            }
            if s.solving() {
                return Err(PUZZLE_UNDER_WAY.to_string());
            }
            let node = s.tree.cursor();
            let position = s.position_line();
            ensure_analyser(s);
            s.send(
                Role::Analyser,
                Job::Search {
                    position,
                    go: format!("go mate {movetime_ms}"),
                    purpose: Purpose::Mate {
                        game: s.game_id,
                        node,
                    },
                },
            );
            s.analysing = Some(node);
            Ok(())
        })
    }

    /// Loads a record (its bytes in `format`, or guessed): both sides people, the cursor at
    /// the end.
    pub fn load_record(
        &mut self,
        bytes: &[u8],
        format: Option<records::Format>,
    ) -> Result<State, String> {
        let format = format.unwrap_or_else(|| records::detect_format(bytes));
        let record = records::read(bytes, format).map_err(|e| format!("{}: {e}", format.name()))?;
        let tree = Tree::from_line(record.start.clone(), &record.moves)?;
        self.change(|s| {
            s.new_game_id();
            s.puzzle = None;
            s.tree = tree;
            s.players = [Player::Human, Player::Human];
            s.clock = None;
            if record.ending == Some(Ending::Resignation)
                || record.ending == Some(Ending::TimeForfeit)
            {
                let reason = if record.ending == Some(Ending::Resignation) {
                    "resignation"
                } else {
                    "time"
                };
                let node = s.tree.cursor();
                s.ended = Some(Ended {
                    winner: record.winner,
                    reason,
                    node,
                });
            }
            Ok(())
        })
    }

    /// The line through the cursor as a file to download.
    pub fn record_file(&self, format: records::Format) -> RecordFile {
        RecordFile {
            bytes: self.record(format),
            filename: format!("game.{}", format.extension()),
            content_type: match format {
                records::Format::Kif | records::Format::Csa => "text/plain; charset=Shift_JIS",
                _ => "text/plain; charset=utf-8",
            },
        }
    }

    /// The line through the cursor as a record file.
    pub fn record(&self, format: records::Format) -> Vec<u8> {
        let s = &self.session;
        let mut record = Record::new(s.tree.start().clone(), s.tree.line_moves());
        let name = |p: Player| match p {
            Player::Human => "Human".to_string(),
            Player::Engine => s.engine.clone(),
        };
        record.sente = name(s.players[0]);
        record.gote = name(s.players[1]);
        if let Some(ended) = s.ended.filter(|e| e.node == s.tree.line_end()) {
            record.ending = Some(match ended.reason {
                "time" => Ending::TimeForfeit,
                _ => Ending::Resignation,
            });
            record.winner = ended.winner;
        } else if let GameStatus::Win { winner, reason } = {
            let mut game = crate::shogi::Game::new(s.tree.start().clone());
            for mv in s.tree.line_moves() {
                let _ = game.play(mv);
            }
            game.status()
        } {
            record.ending = Some(match reason {
                EndReason::Repetition | EndReason::PerpetualCheck => Ending::Repetition,
                _ => Ending::Checkmate,
            });
            record.winner = Some(winner);
        }
        records::write(&record, format)
    }

    /// Starts a puzzle: its position with both sides played by people and no engine at work
    /// (analysis stops); the person plays the solver's moves, the core the opponent's. A bad
    /// puzzle is refused with the session unchanged.
    pub fn start_puzzle(&mut self, start: &PuzzleStart) -> Result<State, String> {
        let puzzle = Puzzle::new(start)?;
        self.change(|s| {
            s.new_game_id();
            s.tree = Tree::new(puzzle.start.clone());
            s.players = [Player::Human, Player::Human];
            s.clock = None;
            if s.analysis_on && s.analyser.is_some() {
                s.send(Role::Analyser, Job::Stop);
            }
            s.analysis_on = false;
            s.puzzle = Some(puzzle);
            Ok(())
        })
    }

    /// The person's move in a puzzle, at its position: a wrong one stays on the board and
    /// fails the puzzle; a right one is followed by the opponent's reply, published as a
    /// state of its own (the page shows it arrive, as an engine's move).
    fn puzzle_move(&mut self, text: &str) -> Result<State, String> {
        let s = &mut self.session;
        let puzzle = s.puzzle.as_mut().expect("solving");
        if s.tree.cursor() != puzzle.node {
            return Err("the puzzle goes on from its latest position".to_string());
        }
        let mv = s
            .tree
            .position()
            .parse_usi_move(text)
            .map_err(|e| e.to_string())?;
        let verdict = puzzle.judge(s.tree.position(), mv);
        s.tree.play(mv)?;
        puzzle.hint_shown = false;
        let reply = match verdict {
            Verdict::Wrong => {
                puzzle.status = PuzzleStatus::Failed;
                puzzle.wrong = Some(mv);
                None
            }
            Verdict::Solved => {
                puzzle.status = PuzzleStatus::Solved;
                puzzle.played += 1;
                None
            }
            Verdict::Right { reply } => {
                puzzle.played += 1;
                Some(reply)
            }
        };
        self.settle();
        let mut state = self.publish();
        if let Some(reply) = reply {
            let s = &mut self.session;
            s.tree.play(reply)?;
            let puzzle = s.puzzle.as_mut().expect("solving");
            puzzle.played += 1;
            puzzle.node = s.tree.cursor();
            self.settle();
            state = self.publish();
        }
        Ok(state)
    }

    /// Shows where the puzzle's next move starts (the piece to move or to drop); the board
    /// returns to the puzzle's position if the person had stepped back.
    pub fn puzzle_hint(&mut self) -> Result<State, String> {
        self.change(|s| {
            let Some(puzzle) = s.puzzle.as_mut().filter(|p| p.solving()) else {
                return Err("no puzzle is being solved".to_string());
            };
            puzzle.hint_shown = true;
            puzzle.hints += 1;
            let node = puzzle.node;
            if s.tree.cursor() != node {
                s.tree.goto(node)?;
            }
            Ok(())
        })
    }

    /// The solution on the board: played from the start into the tree (a variation where the
    /// person went another way), the cursor where the puzzle ended, to step through it from
    /// there. While solving, this gives the puzzle up (failed).
    pub fn puzzle_solution(&mut self) -> Result<State, String> {
        self.change(|s| {
            let Some(puzzle) = s.puzzle.as_mut() else {
                return Err("no puzzle".to_string());
            };
            if puzzle.solving() {
                puzzle.status = PuzzleStatus::Failed;
            }
            puzzle.hint_shown = false;
            // Where it ended: before the move that failed or that solved it.
            let ended_at = match puzzle.status {
                PuzzleStatus::Solved => puzzle.played.saturating_sub(1),
                _ => puzzle.played,
            };
            let solution = puzzle.solution.clone();
            s.tree.goto(0)?;
            let mut nodes = vec![0];
            for mv in solution {
                nodes.push(s.tree.play(mv)?);
            }
            s.tree.goto(nodes[ended_at.min(nodes.len() - 1)])
        })
    }

    /// Leaves the puzzle: the position stays, a board for two people.
    pub fn end_puzzle(&mut self) -> Result<State, String> {
        self.change(|s| {
            if s.puzzle.take().is_none() {
                return Err("no puzzle".to_string());
            }
            Ok(())
        })
    }

    /// Checks the running clock: a side past its time loses.
    pub fn tick(&mut self) {
        let s = &mut self.session;
        let Some(clock) = &s.clock else { return };
        let Some((color, over)) = clock.overrun() else {
            return;
        };
        let grace = if s.players[color.index()] == Player::Engine {
            ENGINE_TIME_GRACE
        } else {
            Duration::ZERO
        };
        if over <= grace {
            return;
        }
        s.stop_clock(false);
        s.end(Some(color.flip()), "time");
        self.settle();
        self.publish();
    }

    /// Brings the engines and clocks in line with the session.
    fn settle(&mut self) {
        let s = &mut self.session;
        // A review is of one line of one game: another line ends it.
        if let Some(run) = &s.review
            && (run.game != s.game_id || !run.nodes[1..].iter().copied().eq(s.tree.line()))
        {
            s.review = None;
        }
        let node = s.tree.cursor();
        let side = s.tree.position().side_to_move();
        let game_on = s.game_over_reason().is_none() && s.tree.at_line_end();
        let engine_to_move = game_on && s.players[side.index()] == Player::Engine;
        // The opponent.
        if engine_to_move {
            if s.thinking != Some(node) {
                ensure_opponent(s);
                let job = Job::Search {
                    position: s.position_line(),
                    go: s.go_line(),
                    purpose: Purpose::Play {
                        game: s.game_id,
                        node,
                    },
                };
                s.send(Role::Opponent, job);
                s.thinking = Some(node);
            }
        } else if s.thinking.take().is_some() && s.opponent.is_some() {
            s.send(Role::Opponent, Job::Stop);
        }
        // The clock runs for the side to move while the game goes on at the line's end.
        if let Some(clock) = &mut s.clock
            && game_on
            && clock.running.is_none()
        {
            clock.running = Some((side, Instant::now()));
        }
        // Analysis follows the cursor.
        if s.analysis_on && s.analysing != Some(node) {
            let position = s.position_line();
            ensure_analyser(s);
            s.send(
                Role::Analyser,
                Job::Search {
                    position,
                    go: "go infinite".to_string(),
                    purpose: Purpose::Analyse {
                        game: s.game_id,
                        node,
                    },
                },
            );
            s.analysing = Some(node);
        }
    }

    /// The position after `moves` (USI) played from `node`, for a page showing a line.
    pub fn preview(&self, node: usize, moves: &[String]) -> Result<BoardView, String> {
        let s = &self.session;
        if s.tree.node(node).is_none() {
            return Err(format!("no node {node}"));
        }
        let mut pos = s.position_at(node);
        let mut last = s.tree.node(node).and_then(|n| n.mv).map(|m| m.to_string());
        for (i, text) in moves.iter().enumerate() {
            let mv = pos
                .parse_usi_move(text.trim())
                .map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
            pos.make_move(mv);
            last = Some(mv.to_string());
        }
        Ok(BoardView::of(&pos, last))
    }

    /// The editor's position checked by the rules: its SFEN (to start a game from, the
    /// new-game path), or why it cannot be played. The session is unchanged.
    pub fn setup(&self, setup: &Setup) -> Result<SetupCheck, String> {
        setup::check(setup)
    }

    /// What an engine reported; `serial` says which start of the engine in `role` it came
    /// from (an engine since replaced is not heard).
    pub fn on_report(&mut self, role: Role, serial: u64, report: Report) {
        let s = &mut self.session;
        if s.slot(role).as_ref().map(|slot| slot.serial) != Some(serial) {
            return;
        }
        match report {
            Report::Started { purpose } => {
                let Purpose::Play { game, node } = purpose else {
                    return;
                };
                if game == s.game_id && s.thinking == Some(node) {
                    let side = s.tree.position().side_to_move();
                    if let Some(clock) = &mut s.clock
                        && let Some((color, since)) = &mut clock.running
                        && *color == side
                    {
                        *since = Instant::now();
                    }
                }
            }
            Report::Info { purpose, line } => {
                if purpose.game() != s.game_id {
                    return;
                }
                let node = purpose.node();
                let info = parse_info(&line);
                let Some(pos) = s.tree.node(node).map(|_| s.position_at(node)) else {
                    return;
                };
                if let (Purpose::Review { .. }, Some(run), Some(score), 1, None) =
                    (purpose, &mut s.review, info.score, info.multipv, info.bound)
                {
                    run.last = Some((score, info.pv.clone()));
                }
                let side = pos.side_to_move();
                if let (Some(score), Some(depth), 1) = (info.score, info.depth, info.multipv)
                    && info.bound.is_none()
                {
                    let sente_score = match (side, score) {
                        (Color::Sente, s) => s,
                        (Color::Gote, Score::Cp(cp)) => Score::Cp(-cp),
                        (Color::Gote, Score::Mate(m)) => Score::Mate(-m),
                    };
                    let keep = s.evals.get(&node).is_none_or(|&(_, d)| depth >= d);
                    if keep {
                        s.evals.insert(node, (sente_score, depth));
                    }
                }
                let source = match purpose {
                    Purpose::Play { .. } => Source::Opponent,
                    _ => Source::Analysis,
                };
                let event = InfoEvent {
                    source,
                    node,
                    pv_ja: notation::kif_line(&pos, &info.pv),
                    pv_en: notation::en_line(&pos, &info.pv),
                    win: info.score.map(win_probability),
                    info,
                };
                if !event.info.pv.is_empty() {
                    // The latest line of each search, for pages that come late; a new node
                    // of a source replaces its old node's lines.
                    s.lines.retain(|l| {
                        l.source != source
                            || (l.node == node && l.info.multipv != event.info.multipv)
                    });
                    s.lines.push(event.clone());
                }
                s.commands
                    .push(Command::Event(Event::Info(Box::new(event))));
            }
            Report::BestMove {
                purpose: Purpose::Review { game, node },
                token,
            } => {
                let Some(run) = s.review.as_mut().filter(|r| r.game == game) else {
                    return;
                };
                let Some(index) = run.current.filter(|&i| run.nodes[i] == node) else {
                    return;
                };
                let (score, mut line) = run.last.take().unwrap_or((Score::Cp(0), Vec::new()));
                // The line is the last one reported, if it starts with the move chosen.
                if token == "resign" || token == "win" {
                    line.clear();
                } else if line.first() != Some(&token) {
                    line = vec![token];
                }
                run.found[index] = Some(Found { score, line });
                run.current = None;
                send_review_job(s);
                self.publish();
            }
            Report::BestMove { purpose, token } => {
                let Purpose::Play { game, node } = purpose else {
                    return;
                };
                if game != s.game_id || s.thinking != Some(node) || s.tree.cursor() != node {
                    return;
                }
                s.thinking = None;
                let side = s.tree.position().side_to_move();
                match token.as_str() {
                    "resign" => {
                        s.stop_clock(false);
                        s.end(Some(side.flip()), "resignation");
                    }
                    "win" => {
                        s.error = Some(format!(
                            "{}: declared a win, which minishogi does not have",
                            s.engine
                        ));
                        s.stop_clock(false);
                        s.end(Some(side.flip()), "illegal move");
                    }
                    text => match s.tree.position().parse_usi_move(text) {
                        Ok(mv) => {
                            s.stop_clock(true);
                            if let Err(e) = s.tree.play(mv) {
                                s.error = Some(format!("{}: {e}", s.engine));
                            }
                        }
                        Err(e) => {
                            s.error = Some(format!("{}: bestmove {text}: {e}", s.engine));
                            s.stop_clock(false);
                            s.end(Some(side.flip()), "illegal move");
                        }
                    },
                }
                self.settle();
                self.publish();
            }
            Report::Checkmate { purpose, rest } => {
                let Purpose::Mate { game, node } = purpose else {
                    return;
                };
                if game != s.game_id {
                    return;
                }
                s.analysing = None;
                let pos = s.position_at(node);
                let words: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
                let (result, pv) = match words.first().map(String::as_str) {
                    Some("nomate") => ("nomate", Vec::new()),
                    Some("timeout") => ("timeout", Vec::new()),
                    Some("notimplemented") => ("notimplemented", Vec::new()),
                    _ => ("mate", words),
                };
                let event = MateEvent {
                    node,
                    result,
                    pv_ja: notation::kif_line(&pos, &pv),
                    pv_en: notation::en_line(&pos, &pv),
                    pv,
                };
                s.commands.push(Command::Event(Event::Mate(event)));
                self.settle();
            }
            Report::Failed(message) => {
                log::warn!("{message}");
                s.error = Some(message);
                // The engine is gone: a fresh one starts when it is next needed.
                s.close(role);
                match role {
                    Role::Opponent => s.thinking = None,
                    Role::Analyser => {
                        s.analysing = None;
                        s.analysis_on = false;
                        s.review = None;
                    }
                }
                self.publish();
            }
        }
    }
}

/// Starts an engine in `role` with `options` at its handshake.
fn start_engine(s: &mut Session, role: Role, options: Vec<(String, String)>) {
    s.serial += 1;
    let serial = s.serial;
    s.commands.push(Command::Start {
        role,
        serial,
        engine: s.engine.clone(),
        options: options.clone(),
    });
    *s.slot(role) = Some(Slot { serial, options });
}

/// The review's next search, if a position is left.
fn send_review_job(s: &mut Session) {
    let Some(run) = &mut s.review else { return };
    let Some(index) = run.next() else { return };
    run.current = Some(index);
    run.last = None;
    let node = run.nodes[index];
    let moves: Vec<_> = s.tree.line_moves().into_iter().take(index).collect();
    let job = Job::Search {
        position: records::usi::position_command(s.tree.start(), &moves),
        go: run.go.clone(),
        purpose: Purpose::Review {
            game: run.game,
            node,
        },
    };
    s.send(Role::Analyser, job);
}

fn ensure_opponent(s: &mut Session) {
    let mut options = vec![("USI_Variant".to_string(), "minishogi".to_string())];
    options.push(("UCI_Variant".to_string(), "minishogi".to_string()));
    match (s.elo, s.level) {
        (Some(elo), _) => {
            options.push(("USI_LimitStrength".into(), "true".into()));
            options.push(("USI_Elo".into(), elo.to_string()));
        }
        (None, level) => {
            options.push(("USI_LimitStrength".into(), "false".into()));
            options.push((
                "Skill_Level".into(),
                level.unwrap_or(skill::MAX_LEVEL).to_string(),
            ));
        }
    }
    match &mut s.opponent {
        Some(slot) if slot.options == options => {}
        Some(slot) => {
            slot.options = options.clone();
            s.send(Role::Opponent, Job::Options(options));
        }
        None => start_engine(s, Role::Opponent, options),
    }
}

fn ensure_analyser(s: &mut Session) {
    if s.analyser.is_some() {
        return;
    }
    let options = vec![
        ("USI_Variant".to_string(), "minishogi".to_string()),
        ("UCI_Variant".to_string(), "minishogi".to_string()),
        ("MultiPV".to_string(), s.multipv.to_string()),
    ];
    start_engine(s, Role::Analyser, options);
}
