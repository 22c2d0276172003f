//! The session behind the page: the game tree, who plays each side, the clocks, the engines
//! playing and analysing, and the rule that decides what runs: the engine searches when the
//! cursor is at the end of the line, the game is on and its side is to move; the clock of the
//! side to move runs then too; analysis follows the cursor. Every change is sent to the pages
//! as a `state` event; engine reports as `info` and `mate` events.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::clock::{Clock, ClockSettings};
use super::engine::{EngineHandle, Job, Purpose, Report, Score, parse_info};
use super::notation;
use super::session::{Ended, Player, Session, Slot, lock};
use super::tree::Tree;
use super::view::{self, win_probability};
use crate::records::{self, Ending, Record};
use crate::search::skill;
use crate::shogi::{Color, EndReason, GameStatus, Position};
use crate::usi_client::EngineSpec;

/// The name the engine itself has in the page's list.
pub const SELF_ENGINE: &str = "minishogi-engine";
/// The most lines the analysis shows.
pub const MAX_MULTIPV: u32 = 5;
/// A person's flag falls this long after the clock reads zero; an engine's a little later,
/// for the pipe and process switch.
const ENGINE_TIME_GRACE: Duration = Duration::from_millis(300);

/// An event for the pages: its name and its JSON.
#[derive(Clone, Debug)]
pub struct Event {
    pub name: &'static str,
    pub data: String,
}

/// What `POST /api/new` asks for.
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

/// The engines the page may choose from, by name.
pub struct Engines {
    pub specs: Vec<EngineSpec>,
}

impl Engines {
    fn spec(&self, name: &str) -> Option<&EngineSpec> {
        self.specs.iter().find(|s| s.name == name)
    }

    /// Their names, as the page's `State` lists them.
    fn names(&self) -> Vec<&str> {
        self.specs.iter().map(|s| s.name.as_str()).collect()
    }
}

pub struct App {
    session: Mutex<Session>,
    pub(super) engines: Engines,
    events: broadcast::Sender<Event>,
    /// Itself, for the engines' report callbacks.
    me: Weak<App>,
}

impl App {
    pub fn new(engines: Engines) -> Arc<App> {
        let (events, _) = broadcast::channel(1024);
        let engine = engines
            .specs
            .first()
            .map_or(SELF_ENGINE.to_string(), |s| s.name.clone());
        Arc::new_cyclic(|me| App {
            session: Mutex::new(Session {
                tree: Tree::new(Position::startpos()),
                players: [Player::Human, Player::Engine],
                engine,
                level: None,
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
                evals: HashMap::new(),
                error: None,
                serial: 0,
                version: 0,
            }),
            engines,
            events,
            me: me.clone(),
        })
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    fn send_event(&self, name: &'static str, data: &Value) {
        // No page listening is not an error.
        let _ = self.events.send(Event {
            name,
            data: data.to_string(),
        });
    }

    /// A new version of the state, sent to the pages while the session is still locked, so
    /// that they receive the versions in order.
    fn publish(&self, s: &mut Session) -> Value {
        s.version += 1;
        let state = view::state(s, &self.engines.names());
        self.send_event("state", &state);
        state
    }

    /// The state as JSON.
    pub fn state(&self) -> Value {
        view::state(&lock(&self.session), &self.engines.names())
    }

    /// Runs `change` on the session, then brings the engines and clocks in line and sends
    /// the new state. An error leaves the session as `change` left it (changes check first).
    fn change(
        &self,
        change: impl FnOnce(&mut Session) -> Result<(), String>,
    ) -> Result<Value, String> {
        let mut s = lock(&self.session);
        change(&mut s)?;
        self.settle(&mut s);
        Ok(self.publish(&mut s))
    }

    /// A person's move at the cursor.
    pub fn play_move(&self, text: &str) -> Result<Value, String> {
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

    pub fn new_game(&self, request: NewGame) -> Result<Value, String> {
        let start = match &request.sfen {
            Some(sfen) => Position::from_sfen(sfen.trim()).map_err(|e| format!("SFEN: {e}"))?,
            None => Position::startpos(),
        };
        let engine = request.engine.clone().unwrap_or_else(|| {
            self.engines
                .specs
                .first()
                .map_or(SELF_ENGINE.to_string(), |s| s.name.clone())
        });
        if self.engines.spec(&engine).is_none() {
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
            s.tree = Tree::new(start);
            s.players = [request.sente, request.gote];
            if s.engine != engine {
                s.opponent = None;
                s.analyser = None;
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
    pub fn undo(&self) -> Result<Value, String> {
        self.change(|s| {
            if s.tree.cursor() == 0 {
                return Err("no move to take back".to_string());
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

    pub fn resign(&self) -> Result<Value, String> {
        self.change(|s| {
            if let Some(reason) = s.game_over_reason() {
                return Err(format!("the game is over ({reason})"));
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

    pub fn goto(&self, node: usize) -> Result<Value, String> {
        self.change(|s| {
            s.stop_clock(false);
            s.tree.goto(node)
        })
    }

    pub fn set_analysis(&self, on: bool, multipv: Option<u32>) -> Result<Value, String> {
        let multipv = multipv.unwrap_or(1);
        if !(1..=MAX_MULTIPV).contains(&multipv) {
            return Err(format!("multipv {multipv}: 1 to {MAX_MULTIPV}"));
        }
        self.change(|s| {
            if s.multipv != multipv {
                s.multipv = multipv;
                if let Some(slot) = &s.analyser {
                    slot.handle
                        .send(Job::Options(vec![("MultiPV".into(), multipv.to_string())]));
                }
                s.analysing = None;
            }
            s.analysis_on = on;
            if !on {
                if let Some(slot) = &s.analyser {
                    slot.handle.send(Job::Stop);
                }
                s.analysing = None;
            }
            Ok(())
        })
    }

    /// A mate search from the cursor's position on the analysing engine.
    pub fn mate_search(&self, movetime_ms: u64) -> Result<Value, String> {
        if !(100..=600_000).contains(&movetime_ms) {
            return Err(format!("movetime {movetime_ms} ms: 100 ms to 10 minutes"));
        }
        self.change(|s| {
            let node = s.tree.cursor();
            let position = s.position_line();
            self.ensure_analyser(s);
            let slot = s.analyser.as_ref().expect("started above");
            slot.handle.send(Job::Search {
                position,
                go: format!("go mate {movetime_ms}"),
                purpose: Purpose::Mate { node },
            });
            s.analysing = Some(node);
            Ok(())
        })
    }

    /// Loads a record (its bytes in `format`, or guessed): both sides people, the cursor at
    /// the end.
    pub fn load_record(
        &self,
        bytes: &[u8],
        format: Option<records::Format>,
    ) -> Result<Value, String> {
        let format = format.unwrap_or_else(|| records::detect_format(bytes));
        let record = records::read(bytes, format).map_err(|e| format!("{}: {e}", format.name()))?;
        let tree = Tree::from_line(record.start.clone(), &record.moves)?;
        self.change(|s| {
            s.new_game_id();
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

    /// The line through the cursor as a record file.
    pub fn record(&self, format: records::Format) -> Vec<u8> {
        let s = lock(&self.session);
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

    /// Checks the running clock: a side past its time loses.
    pub fn tick(&self) {
        let mut s = lock(&self.session);
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
        self.settle(&mut s);
        self.publish(&mut s);
    }

    /// Brings the engines and clocks in line with the session.
    fn settle(&self, s: &mut Session) {
        let node = s.tree.cursor();
        let side = s.tree.position().side_to_move();
        let game_on = s.game_over_reason().is_none() && s.tree.at_line_end();
        let engine_to_move = game_on && s.players[side.index()] == Player::Engine;
        // The opponent.
        if engine_to_move {
            if s.thinking != Some(node) {
                self.ensure_opponent(s);
                let go = s.go_line();
                let position = s.position_line();
                if let Some(slot) = &s.opponent {
                    slot.handle.send(Job::Search {
                        position,
                        go,
                        purpose: Purpose::Play {
                            game: s.game_id,
                            node,
                        },
                    });
                    s.thinking = Some(node);
                }
            }
        } else if s.thinking.take().is_some()
            && let Some(slot) = &s.opponent
        {
            slot.handle.send(Job::Stop);
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
            self.ensure_analyser(s);
            if let Some(slot) = &s.analyser {
                slot.handle.send(Job::Search {
                    position,
                    go: "go infinite".to_string(),
                    purpose: Purpose::Analyse { node },
                });
                s.analysing = Some(node);
            }
        }
    }

    fn start_engine(
        &self,
        s: &mut Session,
        options: Vec<(String, String)>,
        role: &'static str,
    ) -> Option<Slot> {
        let spec = self.engines.spec(&s.engine)?.clone();
        s.serial += 1;
        let serial = s.serial;
        let me = self.me.clone();
        let report = Arc::new(move |report: Report| {
            if let Some(app) = me.upgrade() {
                app.on_report(role, serial, report);
            }
        });
        Some(Slot {
            handle: EngineHandle::start(spec, options.clone(), report),
            serial,
            options,
        })
    }

    fn ensure_opponent(&self, s: &mut Session) {
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
                slot.handle.send(Job::Options(options.clone()));
                slot.options = options;
            }
            None => s.opponent = self.start_engine(s, options, "opponent"),
        }
    }

    fn ensure_analyser(&self, s: &mut Session) {
        if s.analyser.is_some() {
            return;
        }
        let options = vec![
            ("USI_Variant".to_string(), "minishogi".to_string()),
            ("UCI_Variant".to_string(), "minishogi".to_string()),
            ("MultiPV".to_string(), s.multipv.to_string()),
        ];
        s.analyser = self.start_engine(s, options, "analyser");
    }

    fn on_report(&self, role: &'static str, serial: u64, report: Report) {
        let mut s = lock(&self.session);
        let slot = match role {
            "opponent" => &s.opponent,
            _ => &s.analyser,
        };
        if slot.as_ref().map(|slot| slot.serial) != Some(serial) {
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
                let node = match purpose {
                    Purpose::Play { node, .. }
                    | Purpose::Analyse { node }
                    | Purpose::Mate { node } => node,
                };
                let info = parse_info(&line);
                let Some(pos) = s.tree.node(node).map(|_| s.position_at(node)) else {
                    return;
                };
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
                    Purpose::Play { .. } => "opponent",
                    _ => "analysis",
                };
                let pv_ja = notation::kif_line(&pos, &info.pv);
                let mut data = serde_json::to_value(&info).unwrap_or(Value::Null);
                data["source"] = json!(source);
                data["node"] = json!(node);
                data["pv_ja"] = json!(pv_ja);
                data["pv_en"] = json!(notation::en_line(&pos, &info.pv));
                data["win"] = json!(info.score.map(win_probability));
                self.send_event("info", &data);
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
                self.settle(&mut s);
                self.publish(&mut s);
            }
            Report::Checkmate { purpose, rest } => {
                let Purpose::Mate { node } = purpose else {
                    return;
                };
                s.analysing = None;
                let pos = s.position_at(node);
                let words: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
                let (result, pv) = match words.first().map(String::as_str) {
                    Some("nomate") => ("nomate", Vec::new()),
                    Some("timeout") => ("timeout", Vec::new()),
                    Some("notimplemented") => ("notimplemented", Vec::new()),
                    _ => ("mate", words),
                };
                let data = json!({
                    "node": node, "result": result,
                    "pv_ja": notation::kif_line(&pos, &pv),
                    "pv_en": notation::en_line(&pos, &pv), "pv": pv,
                });
                self.send_event("mate", &data);
                self.settle(&mut s);
            }
            Report::Failed(message) => {
                log::warn!("{message}");
                s.error = Some(message);
                match role {
                    "opponent" => {
                        s.opponent = None;
                        s.thinking = None;
                    }
                    _ => {
                        s.analyser = None;
                        s.analysing = None;
                        s.analysis_on = false;
                    }
                }
                self.publish(&mut s);
            }
        }
    }

    /// The position after playing the USI `moves` from node `node`, as the page draws a board
    /// (`sfen`, `board`, `hands`, `side_to_move`, `last_move`): a line shown, not played, so
    /// the game is unchanged. Errors name the node or the first move that is not legal.
    pub fn preview(&self, node: usize, moves: &[String]) -> Result<Value, String> {
        let (mut pos, mut last_move) = {
            let s = lock(&self.session);
            let Some(start) = s.tree.node(node) else {
                return Err(format!("no move with node number {node}"));
            };
            (s.position_at(node), start.mv)
        };
        for (i, text) in moves.iter().enumerate() {
            let mv = pos
                .parse_usi_move(text.trim())
                .map_err(|e| format!("move {} of the line: {e}", i + 1))?;
            pos.make_move(mv);
            last_move = Some(mv);
        }
        let mut board = view::board_view(&pos);
        board["last_move"] = json!(last_move.map(|m| m.to_string()));
        Ok(board)
    }
}
