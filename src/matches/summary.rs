//! What a match found: each game as the summary lists it, the pentanomial counts, Elo and
//! SPRT, move times; a finished game added to it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::MatchConfig;
use super::referee::{ClockLeft, GameRecord, Outcome};
use super::stats::{EloEstimate, Pentanomial, Sprt, SprtDecision};
use crate::shogi::Color;
use crate::usi_client::EngineSpec;

/// A game as the summary lists it.
#[derive(Clone, Debug, Serialize)]
pub struct GameSummary {
    /// 1-based game number; games 2p-1 and 2p form pair p.
    pub number: usize,
    pub opening: usize,
    pub sente: String,
    pub gote: String,
    /// `1-0` (sente won), `0-1` or `1/2-1/2`.
    pub result: String,
    /// Engine 1's points: 1, 0.5 or 0.
    pub engine1_score: f64,
    pub termination: String,
    pub plies: usize,
    /// `position sfen … moves …`.
    pub usi: String,
}

impl GameSummary {
    /// The game's line in games.txt: `N sente vs gote: result termination; position …`.
    pub fn games_line(&self) -> String {
        format!(
            "{} {} vs {}: {} {}; {}\n",
            self.number, self.sente, self.gote, self.result, self.termination, self.usi
        )
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct SprtReport {
    pub test: Sprt,
    pub llr: f64,
    pub lower_bound: f64,
    pub upper_bound: f64,
    pub decision: Option<SprtDecision>,
}

/// What a match found, from engine 1's point of view.
#[derive(Clone, Debug, Serialize)]
pub struct MatchSummary {
    /// The engines as configured (names from `--engine-name` or the command line).
    pub engines: [EngineSpec; 2],
    /// The names the report and the records use: `--engine-name`, else the engine's USI
    /// `id name`, else the one configured; numbered when equal.
    pub names: [String; 2],
    pub time_control: String,
    pub games: usize,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Points of engine 1 out of `games`.
    pub points: f64,
    pub pentanomial: Pentanomial,
    pub elo: Option<EloEstimate>,
    pub sprt: Option<SprtReport>,
    /// How games ended: label → count.
    pub terminations: BTreeMap<String, u64>,
    /// Results by colour, whichever engine played it.
    pub colours: ColourResults,
    /// Thinking time of each engine's moves (opening moves excluded): engine 1, engine 2.
    pub move_times: [MoveTimes; 2],
    /// Main time left on each engine's clock when its games ended (clock games only):
    /// engine 1, engine 2.
    pub clock_left: [ClocksLeft; 2],
    pub game_list: Vec<GameSummary>,
}

/// Results by colour: how much the side (rather than the engine) decided the games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ColourResults {
    /// Games won by the side that is sente in the game (`1-0`), by gote (`0-1`), drawn.
    pub sente_wins: u64,
    pub gote_wins: u64,
    pub draws: u64,
    /// Complete pairs whose two games sente won, and whose two games gote won: each engine
    /// won its game with that colour, so the opening's colour decided them, not the engines.
    pub pairs_sente_won_both: u64,
    pub pairs_gote_won_both: u64,
}

impl ColourResults {
    fn add_game(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Win(Color::Sente) => self.sente_wins += 1,
            Outcome::Win(Color::Gote) => self.gote_wins += 1,
            Outcome::Draw => self.draws += 1,
        }
    }

    fn add_pair(&mut self, first: Outcome, second: Outcome) {
        match (first, second) {
            (Outcome::Win(Color::Sente), Outcome::Win(Color::Sente)) => {
                self.pairs_sente_won_both += 1
            }
            (Outcome::Win(Color::Gote), Outcome::Win(Color::Gote)) => self.pairs_gote_won_both += 1,
            _ => {}
        }
    }
}

/// The main time an engine left on its clock, over the games it played on one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ClocksLeft {
    pub games: u64,
    /// Sum over the games of the main time left, in milliseconds.
    pub total_left_ms: f64,
    /// Sum over the games of the main time given (base and increments), in milliseconds.
    pub total_given_ms: f64,
    /// The least left at the end of a game, in milliseconds.
    pub min_left_ms: Option<f64>,
}

impl ClocksLeft {
    pub fn add(&mut self, clock: ClockLeft) {
        let left = clock.left.as_secs_f64() * 1000.0;
        self.games += 1;
        self.total_left_ms += left;
        self.total_given_ms += clock.given.as_secs_f64() * 1000.0;
        self.min_left_ms = Some(self.min_left_ms.map_or(left, |m: f64| m.min(left)));
    }

    /// Mean milliseconds left at the end of a game; `None` before the first clock game.
    pub fn mean_left_ms(&self) -> Option<f64> {
        (self.games > 0).then(|| self.total_left_ms / self.games as f64)
    }

    /// The share of the main time given that was left unused, in percent.
    pub fn unused_percent(&self) -> Option<f64> {
        (self.total_given_ms > 0.0).then(|| 100.0 * self.total_left_ms / self.total_given_ms)
    }
}

/// Thinking time over the moves an engine played in a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct MoveTimes {
    pub moves: u64,
    /// Sum over the moves, in milliseconds.
    pub total_ms: f64,
    /// The slowest move, in milliseconds.
    pub max_ms: f64,
}

impl MoveTimes {
    pub fn add(&mut self, time: std::time::Duration) {
        let ms = time.as_secs_f64() * 1000.0;
        self.moves += 1;
        self.total_ms += ms;
        self.max_ms = self.max_ms.max(ms);
    }

    /// Mean milliseconds a move; `None` before the first move.
    pub fn mean_ms(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.total_ms / self.moves as f64)
    }
}

impl MatchSummary {
    pub(super) fn new(config: &MatchConfig, names: [String; 2]) -> MatchSummary {
        MatchSummary {
            engines: config.engines.clone(),
            time_control: config.time_controls_text(&names),
            names,
            games: 0,
            wins: 0,
            losses: 0,
            draws: 0,
            points: 0.0,
            pentanomial: Pentanomial::default(),
            elo: None,
            sprt: config.sprt.map(|test| {
                let (lower_bound, upper_bound) = test.bounds();
                SprtReport {
                    test,
                    llr: 0.0,
                    lower_bound,
                    upper_bound,
                    decision: None,
                }
            }),
            terminations: BTreeMap::new(),
            colours: ColourResults::default(),
            move_times: [MoveTimes::default(); 2],
            clock_left: [ClocksLeft::default(); 2],
            game_list: Vec::new(),
        }
    }

    /// The standings on one line.
    pub fn standing(&self) -> String {
        let mut s = format!(
            "{} - {}: +{} -{} ={} ({:.1}/{})",
            self.names[0],
            self.names[1],
            self.wins,
            self.losses,
            self.draws,
            self.points,
            self.games
        );
        if let Some(elo) = &self.elo {
            let _ = write!(s, ", Elo {}", elo.describe());
        }
        if let Some(sprt) = &self.sprt {
            let _ = write!(
                s,
                ", LLR {:.2} [{:.2}, {:.2}]",
                sprt.llr, sprt.lower_bound, sprt.upper_bound
            );
        }
        s
    }

    /// The final report as text.
    pub fn report(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Engine 1: {} ({})",
            self.names[0], self.engines[0].command
        );
        let _ = writeln!(
            s,
            "Engine 2: {} ({})",
            self.names[1], self.engines[1].command
        );
        let _ = writeln!(s, "Time control: {}", self.time_control);
        let _ = writeln!(
            s,
            "Games: {}, engine 1: +{} -{} ={}, {:.1} points ({:.1}%)",
            self.games,
            self.wins,
            self.losses,
            self.draws,
            self.points,
            if self.games == 0 {
                0.0
            } else {
                100.0 * self.points / self.games as f64
            }
        );
        let _ = writeln!(s, "Pairs (0, ½, 1, 1½, 2 points): {:?}", self.pentanomial.0);
        match &self.elo {
            Some(elo) => {
                let _ = writeln!(s, "Elo difference: {}", elo.describe());
            }
            None => s.push_str("Elo difference: n/a (no complete pair)\n"),
        }
        if let Some(sprt) = &self.sprt {
            let verdict = match sprt.decision {
                Some(SprtDecision::H1) => "H1 accepted",
                Some(SprtDecision::H0) => "H0 accepted",
                None => "undecided",
            };
            let _ = writeln!(
                s,
                "SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.3} [{:.3}, {:.3}], {verdict}",
                sprt.test.elo0,
                sprt.test.elo1,
                sprt.test.alpha,
                sprt.test.beta,
                sprt.llr,
                sprt.lower_bound,
                sprt.upper_bound
            );
        }
        let endings: Vec<String> = self
            .terminations
            .iter()
            .map(|(label, n)| format!("{label} {n}"))
            .collect();
        let _ = writeln!(s, "Endings: {}", endings.join(", "));
        let c = &self.colours;
        let _ = writeln!(
            s,
            "By colour: sente won {}, gote {}, drawn {}; pairs won by one colour twice: sente {}, gote {}",
            c.sente_wins, c.gote_wins, c.draws, c.pairs_sente_won_both, c.pairs_gote_won_both
        );
        let times: Vec<String> = self
            .move_times
            .iter()
            .zip(&self.names)
            .filter_map(|(t, name)| {
                let mean = t.mean_ms()?;
                Some(format!("{name} {mean:.1} ms (max {:.0})", t.max_ms))
            })
            .collect();
        if !times.is_empty() {
            let _ = writeln!(s, "Time a move: {}", times.join(", "));
        }
        let clocks: Vec<String> = self
            .clock_left
            .iter()
            .zip(&self.names)
            .filter_map(|(c, name)| {
                // Byoyomi alone gives no main time to leave.
                let unused = c.unused_percent()?;
                Some(format!(
                    "{name} {:.0} ms (min {:.0}; {unused:.1}% of the main time given unused)",
                    c.mean_left_ms().unwrap_or(0.0),
                    c.min_left_ms.unwrap_or(0.0),
                ))
            })
            .collect();
        if !clocks.is_empty() {
            let _ = writeln!(s, "Clock left at the end: {}", clocks.join(", "));
        }
        s
    }
}

/// A finished game as workers report it.
pub(super) struct Finished {
    pub(super) pair: usize,
    /// 0: engine 1 is sente; 1: engine 2 is sente.
    pub(super) leg: usize,
    pub(super) record: GameRecord,
}

/// Engine 1's points in a game; it plays sente in the first leg of each pair.
pub(super) fn engine1_points(record: &GameRecord, leg: usize) -> f64 {
    let engine1_color = if leg == 0 { Color::Sente } else { Color::Gote };
    match record.outcome {
        Outcome::Draw => 0.5,
        Outcome::Win(winner) if winner == engine1_color => 1.0,
        Outcome::Win(_) => 0.0,
    }
}

/// Adds a finished game to the summary.
pub(super) fn record_game(
    config: &MatchConfig,
    summary: &mut MatchSummary,
    finished: &Finished,
    pair_points: &mut BTreeMap<usize, (f64, Outcome)>,
) {
    let record = &finished.record;
    let points = engine1_points(record, finished.leg);
    let result = match record.outcome {
        Outcome::Draw => "1/2-1/2",
        Outcome::Win(Color::Sente) => "1-0",
        Outcome::Win(Color::Gote) => "0-1",
    };
    summary.games += 1;
    summary.points += points;
    match points {
        1.0 => summary.wins += 1,
        0.0 => summary.losses += 1,
        _ => summary.draws += 1,
    }
    *summary
        .terminations
        .entry(record.termination.label())
        .or_default() += 1;
    summary.colours.add_game(record.outcome);
    // Engine 1 is sente in leg 0; the engines' moves start with the side to move after the
    // opening moves.
    let engine_of = |side: Color| usize::from((side == Color::Sente) == (finished.leg == 1));
    let mut mover = record.opening.start.side_to_move();
    if record.opening.moves.len() % 2 == 1 {
        mover = !mover;
    }
    for &time in &record.times {
        summary.move_times[engine_of(mover)].add(time);
        mover = !mover;
    }
    for side in Color::ALL {
        if let Some(clock) = record.clock_left[side.index()] {
            summary.clock_left[engine_of(side)].add(clock);
        }
    }
    summary.game_list.push(GameSummary {
        number: 2 * finished.pair + finished.leg + 1,
        opening: finished.pair % config.openings.len() + 1,
        sente: record.names[0].clone(),
        gote: record.names[1].clone(),
        result: result.to_string(),
        engine1_score: points,
        termination: record.termination.to_string(),
        plies: record.opening.moves.len() + record.moves.len(),
        usi: record.position_command(),
    });
    // A pair counts once both of its games are in.
    match pair_points.remove(&finished.pair) {
        None => {
            pair_points.insert(finished.pair, (points, record.outcome));
            return;
        }
        Some((first, first_outcome)) => {
            summary.pentanomial.add(((first + points) * 2.0) as usize);
            summary.colours.add_pair(first_outcome, record.outcome);
        }
    }
    summary.elo = summary.pentanomial.elo();
    if let Some(sprt) = &mut summary.sprt {
        sprt.llr = sprt.test.llr(&summary.pentanomial);
        // The first decision stands, as the match stopped on it.
        if sprt.decision.is_none() {
            sprt.decision = sprt.test.decision(&summary.pentanomial);
        }
    }
}
