//! The referee: plays one game between two USI engine processes from an opening, enforcing the
//! rules (through `Game`), the time control, and the protocol. Anything an engine does wrong
//! loses the game for it: an illegal or unparsable move, running out of time, crashing.

use std::fmt;
use std::time::{Duration, Instant};

use super::openings::Opening;
use crate::shogi::{Color, EndReason, Game, GameStatus, Move, MoveError};
use crate::usi_client::{EngineError, EngineProcess, EngineSpec, TimeControl};

/// Rules of play besides the rules of the game.
#[derive(Clone, Debug)]
pub struct RefereeSettings {
    pub time_control: TimeControl,
    /// A draw after this many plies in all (opening moves included); `None` = no limit.
    pub max_plies: Option<u32>,
    /// Lateness tolerated before a time forfeit (process and pipe overhead).
    pub time_margin: Duration,
    /// Limit for `usiok` and `readyok`.
    pub startup_timeout: Duration,
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// Checkmate, no legal move, repetition, perpetual check or the ply limit.
    Rules(EndReason),
    /// The engine to move sent a well-formed but illegal move.
    IllegalMove { text: String, reason: String },
    /// The engine to move sent a `bestmove` that is not a move (garbage).
    Unparsable { text: String },
    /// `bestmove resign`.
    Resignation,
    /// The engine to move used more than its time: it answered after `elapsed_ms`, or had
    /// not answered after that long (`answered` false).
    TimeForfeit {
        elapsed_ms: u64,
        allowed_ms: u64,
        answered: bool,
    },
    /// The engine to move exited, closed its pipes, or could not be (re)started.
    Crash { detail: String },
}

impl Termination {
    /// A short label for tallies (`checkmate`, `illegal move`, `time forfeit`, …).
    pub fn label(&self) -> String {
        match self {
            Termination::Rules(reason) => reason.to_string(),
            Termination::IllegalMove { .. } => "illegal move".to_string(),
            Termination::Unparsable { .. } => "unparsable move".to_string(),
            Termination::Resignation => "resignation".to_string(),
            Termination::TimeForfeit { .. } => "time forfeit".to_string(),
            Termination::Crash { .. } => "crash".to_string(),
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Rules(reason) => write!(f, "{reason}"),
            Termination::IllegalMove { text, reason } => {
                write!(f, "illegal move '{text}': {reason}")
            }
            Termination::Unparsable { text } => write!(f, "unparsable move '{text}'"),
            Termination::Resignation => write!(f, "resignation"),
            Termination::TimeForfeit {
                elapsed_ms,
                allowed_ms,
                answered,
            } => write!(
                f,
                "time forfeit ({} {elapsed_ms} ms, {allowed_ms} ms allowed)",
                if *answered {
                    "moved after"
                } else {
                    "no move after"
                }
            ),
            Termination::Crash { detail } => write!(f, "crash: {detail}"),
        }
    }
}

/// The result of a game by colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win(Color),
    Draw,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub opening: Opening,
    /// Engine names by colour (sente, gote).
    pub names: [String; 2],
    /// Moves the engines played (after the opening moves).
    pub moves: Vec<Move>,
    /// Thinking time of each of `moves`.
    pub times: Vec<Duration>,
    /// By colour: for a side on a clock, its main time left when the game ended and the main
    /// time it was given in all (base and increments); `None` at a fixed time a move.
    pub clock_left: [Option<ClockLeft>; 2],
    pub outcome: Outcome,
    pub termination: Termination,
}

/// A clock at the end of a game: what was left of the main time, of what was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockLeft {
    pub left: Duration,
    /// The base time and every increment received.
    pub given: Duration,
}

impl GameRecord {
    /// Opening moves and engine moves.
    pub fn all_moves(&self) -> Vec<Move> {
        self.opening
            .moves
            .iter()
            .chain(&self.moves)
            .copied()
            .collect()
    }

    /// `position sfen … moves …` for the whole game.
    pub fn position_command(&self) -> String {
        self.opening.position_command(&self.moves)
    }
}

/// An engine seat that survives across games: the process is started on demand and restarted
/// after it crashed or had to be killed.
pub struct EngineSlot {
    pub spec: EngineSpec,
    process: Option<EngineProcess>,
    /// The `id name` the engine gave at its last handshake.
    id_name: Option<String>,
}

impl EngineSlot {
    pub fn new(spec: EngineSpec) -> EngineSlot {
        EngineSlot {
            spec,
            process: None,
            id_name: None,
        }
    }

    /// The `id name` the engine gave when it was started, if it gave one.
    pub fn id_name(&self) -> Option<&str> {
        self.id_name.as_deref()
    }

    /// Starts the engine if needed, and prepares it for a new game.
    pub fn prepare(&mut self, startup_timeout: Duration) -> Result<(), EngineError> {
        let result = self.try_prepare(startup_timeout);
        if result.is_err() {
            self.process = None;
        }
        result
    }

    fn try_prepare(&mut self, startup_timeout: Duration) -> Result<(), EngineError> {
        let process = match &mut self.process {
            Some(process) => {
                process.sync(startup_timeout)?;
                process
            }
            None => {
                let mut process = EngineProcess::spawn(&self.spec)?;
                let id = process.handshake(&self.spec.options, startup_timeout)?;
                self.id_name = id.name.filter(|name| !name.is_empty());
                self.process.insert(process)
            }
        };
        process.send("usinewgame")
    }

    fn process(&mut self) -> &mut EngineProcess {
        self.process.as_mut().expect("prepared before use")
    }

    /// Drops (quits, then kills) the process; the next game starts a fresh one.
    fn discard(&mut self) {
        self.process = None;
    }

    fn game_over(&mut self, result: &str) {
        if let Some(process) = &mut self.process
            && process.send(&format!("gameover {result}")).is_err()
        {
            self.discard();
        }
    }
}

/// Each side's clock, under each side's time control (the same for both but with time odds).
struct Clocks {
    controls: [TimeControl; 2],
    remaining: [Duration; 2],
    /// Main time given so far: the base and the increments.
    given: [Duration; 2],
}

impl Clocks {
    fn new(controls: [TimeControl; 2]) -> Clocks {
        let base = |tc: &TimeControl| match tc {
            TimeControl::MoveTime(_) => Duration::ZERO,
            TimeControl::Clock { base, .. } => *base,
        };
        Clocks {
            remaining: controls.each_ref().map(base),
            given: controls.each_ref().map(base),
            controls,
        }
    }

    /// Each side's clock as it stands (`None` for a side at a fixed time a move).
    fn left(&self) -> [Option<ClockLeft>; 2] {
        Color::ALL.map(|side| match self.control(side) {
            TimeControl::MoveTime(_) => None,
            TimeControl::Clock { .. } => Some(ClockLeft {
                left: self.remaining[side.index()],
                given: self.given[side.index()],
            }),
        })
    }

    fn control(&self, side: Color) -> &TimeControl {
        &self.controls[side.index()]
    }

    /// The most time `side` may use for this move.
    fn allowed(&self, side: Color) -> Duration {
        match self.control(side) {
            TimeControl::MoveTime(t) => *t,
            TimeControl::Clock { byoyomi, .. } => self.remaining[side.index()] + *byoyomi,
        }
    }

    /// The USI `go` command for `side` (without engine-specific limits): its own time
    /// control, with both clocks as they stand and each side's increment.
    /// The `go` for `side` under its control; `swapped` sends sente's clock as gote's.
    fn go_command(&self, side: Color, swapped: bool) -> String {
        let ms = |d: Duration| d.as_millis();
        let [mut b, mut w] = self.remaining;
        let increment = |c: Color| match self.control(c) {
            TimeControl::Clock { increment, .. } => *increment,
            TimeControl::MoveTime(_) => Duration::ZERO,
        };
        let [mut binc, mut winc] = [increment(Color::Sente), increment(Color::Gote)];
        if swapped {
            std::mem::swap(&mut b, &mut w);
            std::mem::swap(&mut binc, &mut winc);
        }
        match self.control(side) {
            TimeControl::MoveTime(t) => format!("go btime 0 wtime 0 byoyomi {}", ms(*t)),
            TimeControl::Clock { increment: inc, .. } if !inc.is_zero() => format!(
                "go btime {} wtime {} binc {} winc {}",
                ms(b),
                ms(w),
                ms(binc),
                ms(winc)
            ),
            TimeControl::Clock { byoyomi, .. } => {
                format!(
                    "go btime {} wtime {} byoyomi {}",
                    ms(b),
                    ms(w),
                    ms(*byoyomi)
                )
            }
        }
    }

    fn charge(&mut self, side: Color, elapsed: Duration) {
        if let TimeControl::Clock { increment, .. } = self.controls[side.index()] {
            let clock = &mut self.remaining[side.index()];
            *clock = clock.saturating_sub(elapsed) + increment;
            self.given[side.index()] += increment;
        }
    }
}

/// Plays one game; `engines` are indexed by colour (sente first).
pub fn play_game(
    engines: [&mut EngineSlot; 2],
    opening: &Opening,
    settings: &RefereeSettings,
) -> GameRecord {
    let names = [engines[0].spec.name.clone(), engines[1].spec.name.clone()];
    let mut record = GameRecord {
        opening: opening.clone(),
        names,
        moves: Vec::new(),
        times: Vec::new(),
        clock_left: [None; 2],
        outcome: Outcome::Draw,
        termination: Termination::Rules(EndReason::MaxPlies),
    };
    let [sente, gote] = engines;
    let mut engines = [sente, gote];
    for color in Color::ALL {
        if let Err(e) = engines[color.index()].prepare(settings.startup_timeout) {
            record.outcome = Outcome::Win(!color);
            record.termination = Termination::Crash {
                detail: format!("cannot start a game: {e}"),
            };
            return finish(record, &mut engines);
        }
    }
    let mut game = opening.game();
    game.set_max_plies(settings.max_plies);
    let mut clocks = Clocks::new(
        engines
            .each_ref()
            .map(|slot| slot.spec.time_control.unwrap_or(settings.time_control)),
    );
    loop {
        match game.status() {
            GameStatus::Ongoing => {}
            GameStatus::Win { winner, reason } => {
                record.outcome = Outcome::Win(winner);
                record.termination = Termination::Rules(reason);
                break;
            }
            GameStatus::Draw(reason) => {
                record.outcome = Outcome::Draw;
                record.termination = Termination::Rules(reason);
                break;
            }
        }
        let side = game.position().side_to_move();
        match engine_move(engines[side.index()], &game, &record, &clocks, settings) {
            Ok((mv, elapsed)) => {
                game.play(mv).expect("engine_move returns legal moves");
                clocks.charge(side, elapsed);
                record.moves.push(mv);
                record.times.push(elapsed);
            }
            Err(termination) => {
                record.outcome = Outcome::Win(!side);
                record.termination = termination;
                break;
            }
        }
    }
    record.clock_left = clocks.left();
    finish(record, &mut engines)
}

/// Asks the engine to move for the side to move, and judges what it answers.
fn engine_move(
    slot: &mut EngineSlot,
    game: &Game,
    record: &GameRecord,
    clocks: &Clocks,
    settings: &RefereeSettings,
) -> Result<(Move, Duration), Termination> {
    let side = game.position().side_to_move();
    let allowed = clocks.allowed(side);
    let mut go = match clocks.control(side) {
        TimeControl::MoveTime(t) if slot.spec.movetime_go => {
            format!("go movetime {}", t.as_millis())
        }
        _ => clocks.go_command(side, slot.spec.swap_clocks),
    };
    for (name, value) in &slot.spec.go_limits {
        go.push_str(&format!(" {name} {value}"));
    }
    let deadline = Instant::now() + allowed + settings.time_margin;
    let forfeit = |elapsed: Duration, answered: bool| Termination::TimeForfeit {
        elapsed_ms: elapsed.as_millis() as u64,
        allowed_ms: allowed.as_millis() as u64,
        answered,
    };
    let best = match slot.process().go(&record.position_command(), &go, deadline) {
        Ok(best) => best,
        Err(EngineError::Timeout { after, .. }) => {
            // Let it finish its search so it can play the next game; if it cannot, restart it.
            if !slot.process().stop(Duration::from_secs(1)) {
                slot.discard();
            }
            return Err(forfeit(after, false));
        }
        Err(e) => {
            slot.discard();
            return Err(Termination::Crash {
                detail: e.to_string(),
            });
        }
    };
    if best.elapsed > allowed + settings.time_margin {
        return Err(forfeit(best.elapsed, true));
    }
    match best.token.as_str() {
        "resign" => return Err(Termination::Resignation),
        "win" => {
            return Err(Termination::IllegalMove {
                text: best.token,
                reason: "a win declaration (入玉宣言) is not part of these rules".to_string(),
            });
        }
        _ => {}
    }
    match game.position().parse_usi_move(&best.token) {
        Ok(mv) => Ok((mv, best.elapsed)),
        Err(MoveError::Illegal { reason, .. }) => Err(Termination::IllegalMove {
            text: best.token,
            reason,
        }),
        Err(MoveError::Syntax { .. }) => Err(Termination::Unparsable { text: best.token }),
    }
}

fn finish(record: GameRecord, engines: &mut [&mut EngineSlot; 2]) -> GameRecord {
    for color in Color::ALL {
        let result = match record.outcome {
            Outcome::Draw => "draw",
            Outcome::Win(winner) if winner == color => "win",
            Outcome::Win(_) => "lose",
        };
        engines[color.index()].game_over(result);
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_and_go_commands() {
        let movetime = TimeControl::MoveTime(Duration::from_millis(500));
        let clocks = Clocks::new([movetime; 2]);
        assert_eq!(
            clocks.go_command(Color::Sente, false),
            "go btime 0 wtime 0 byoyomi 500"
        );
        assert_eq!(clocks.allowed(Color::Gote), Duration::from_millis(500));

        let fischer = TimeControl::Clock {
            base: Duration::from_secs(10),
            increment: Duration::from_secs(1),
            byoyomi: Duration::ZERO,
        };
        let mut clocks = Clocks::new([fischer; 2]);
        clocks.charge(Color::Sente, Duration::from_millis(2500));
        assert_eq!(
            clocks.go_command(Color::Gote, false),
            "go btime 8500 wtime 10000 binc 1000 winc 1000"
        );
        assert_eq!(clocks.allowed(Color::Sente), Duration::from_millis(8500));
        // Swapped for an engine that reads sente's clock as gote's; what is allowed is not.
        assert_eq!(
            clocks.go_command(Color::Gote, true),
            "go btime 10000 wtime 8500 binc 1000 winc 1000"
        );

        let byoyomi = TimeControl::Clock {
            base: Duration::from_secs(1),
            increment: Duration::ZERO,
            byoyomi: Duration::from_secs(3),
        };
        let mut clocks = Clocks::new([byoyomi; 2]);
        clocks.charge(Color::Gote, Duration::from_millis(2500));
        // The clock empties and stays empty; byoyomi is granted again for each move.
        assert_eq!(
            clocks.go_command(Color::Sente, false),
            "go btime 1000 wtime 0 byoyomi 3000"
        );
        assert_eq!(clocks.allowed(Color::Gote), Duration::from_secs(3));
        assert_eq!(byoyomi.to_string(), "1s byoyomi 3s");
        assert_eq!(fischer.to_string(), "10s+1s");
    }

    #[test]
    fn with_time_odds_each_side_has_its_own_control() {
        let fast = TimeControl::MoveTime(Duration::from_millis(100));
        let slow = TimeControl::MoveTime(Duration::from_secs(1));
        let clocks = Clocks::new([fast, slow]);
        assert_eq!(
            clocks.go_command(Color::Sente, false),
            "go btime 0 wtime 0 byoyomi 100"
        );
        assert_eq!(
            clocks.go_command(Color::Gote, false),
            "go btime 0 wtime 0 byoyomi 1000"
        );
        assert_eq!(clocks.allowed(Color::Gote), Duration::from_secs(1));

        let clock = TimeControl::Clock {
            base: Duration::from_secs(60),
            increment: Duration::from_secs(2),
            byoyomi: Duration::ZERO,
        };
        let mut clocks = Clocks::new([fast, clock]);
        clocks.charge(Color::Sente, Duration::from_millis(90));
        clocks.charge(Color::Gote, Duration::from_millis(5000));
        // Gote's clock runs with its increment (sente's fixed time leaves it no clock); sente is
        // sent its fixed time alone, as byoyomi with empty clocks.
        assert_eq!(
            clocks.go_command(Color::Gote, false),
            "go btime 0 wtime 57000 binc 0 winc 2000"
        );
        assert_eq!(
            clocks.go_command(Color::Sente, false),
            "go btime 0 wtime 0 byoyomi 100"
        );
        assert_eq!(clocks.allowed(Color::Gote), Duration::from_secs(57));
        assert_eq!(
            clocks.go_command(Color::Gote, true),
            "go btime 57000 wtime 0 binc 2000 winc 0"
        );
    }
}
