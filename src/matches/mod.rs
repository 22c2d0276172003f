//! Matches between two USI engines, refereed by our rules: game pairs over a set of openings
//! (each opening once with each engine as sente), run `concurrency` games at a time, with
//! pentanomial Elo, an optional SPRT that stops the match once decided, game records (USI move
//! lists and KIF), a JSON summary and a chart of the Elo estimate as games come in.

pub mod chart;
pub mod cli;
pub mod engine_process;
pub mod openings;
pub mod random_mover;
pub mod referee;
pub mod stats;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::Instant;

use serde::Serialize;

use crate::fileio::{self, FileError};
use crate::records::{self, Ending, Format, Record};
use crate::shogi::{Color, EndReason};
use engine_process::EngineSpec;
use openings::Opening;
use referee::{EngineSlot, GameRecord, Outcome, RefereeSettings, Termination};
use stats::{EloEstimate, Pentanomial, Sprt, SprtDecision};

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Engine 1 (the one measured) and engine 2 (the reference).
    pub engines: [EngineSpec; 2],
    pub openings: Vec<Opening>,
    /// Game pairs to play; pair `p` uses opening `p % openings.len()`.
    pub pairs: usize,
    pub concurrency: usize,
    pub referee: RefereeSettings,
    pub sprt: Option<Sprt>,
    /// Where game records and the summary go.
    pub out_dir: Option<PathBuf>,
    /// Print a progress line on stderr as games finish.
    pub progress: bool,
    /// For each engine, whether to name it by its USI `id name` (no `--engine-name` given).
    pub id_names: [bool; 2],
}

impl MatchConfig {
    /// The time control as reports and records state it: the match's, or with time odds each
    /// engine's by `names`.
    pub fn time_controls_text(&self, names: &[String; 2]) -> String {
        let own = self.engines.each_ref().map(|e| e.time_control);
        if own == [None, None] {
            return self.referee.time_control.to_string();
        }
        let tc = |i: usize| own[i].unwrap_or(self.referee.time_control);
        format!("{} {}, {} {}", names[0], tc(0), names[1], tc(1))
    }
}

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

/// A line of games.txt ([`GameSummary::games_line`]) read back. (A name holding " vs " is
/// split at its first; summary.json has the names exactly.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GamesLine<'a> {
    pub number: usize,
    /// Sente, gote.
    pub players: [&'a str; 2],
    /// `1-0`, `0-1` or `1/2-1/2`, for sente.
    pub result: &'a str,
    /// The game as a USI position line.
    pub position: &'a str,
}

impl GamesLine<'_> {
    /// Sente's points: 1, 0 or ½.
    pub fn sente_points(&self) -> f64 {
        match self.result {
            "1-0" => 1.0,
            "0-1" => 0.0,
            _ => 0.5,
        }
    }
}

/// Reads a line of games.txt; `None` for a line not of that form.
pub fn read_games_line(line: &str) -> Option<GamesLine<'_>> {
    let (number, rest) = line.split_once(' ')?;
    let number: usize = number.parse().ok().filter(|n| *n > 0)?;
    let (players, result, after) = ["1-0", "0-1", "1/2-1/2"]
        .iter()
        .filter_map(|r| {
            let (players, after) = rest.split_once(&format!(": {r} "))?;
            Some((players, *r, after))
        })
        .min_by_key(|(players, _, _)| players.len())?;
    let (sente, gote) = players.split_once(" vs ")?;
    let (_termination, position) = after.split_once("; ")?;
    Some(GamesLine {
        number,
        players: [sente, gote],
        result,
        position: position.trim_end(),
    })
}

/// What [`chart`] needs of a line of games.txt: the game number, the players (sente, gote)
/// and engine 1's points (engine 1 is sente in odd games).
pub fn parse_games_line(line: &str) -> Option<(usize, [String; 2], f64)> {
    let g = read_games_line(line)?;
    let sente_points = g.sente_points();
    let points = if g.number % 2 == 1 {
        sente_points
    } else {
        1.0 - sente_points
    };
    Some((g.number, g.players.map(str::to_string), points))
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
    /// Thinking time of each engine's moves (opening moves excluded): engine 1, engine 2.
    pub move_times: [MoveTimes; 2],
    pub game_list: Vec<GameSummary>,
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
    fn new(config: &MatchConfig, names: [String; 2]) -> MatchSummary {
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
            move_times: [MoveTimes::default(); 2],
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
        s
    }
}

/// Why a match could not be played.
#[derive(Debug)]
pub enum MatchError {
    /// An engine does not start or does not answer the handshake.
    Engine {
        name: String,
        detail: String,
    },
    /// Records or summary could not be written.
    Output {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A record or the summary could not be written atomically (names the file and why).
    File(FileError),
    Config(String),
    /// The Elo chart could not be drawn.
    Chart(String),
}

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MatchError::Engine { name, detail } => write!(f, "engine '{name}': {detail}"),
            MatchError::Output { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
            MatchError::File(e) => write!(f, "cannot write {e}"),
            MatchError::Config(why) => write!(f, "{why}"),
            MatchError::Chart(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for MatchError {}

/// Writes a record file atomically (the one owner is [`fileio::write_atomic`]).
fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), MatchError> {
    fileio::write_atomic(path, contents).map_err(MatchError::File)
}

fn ending(termination: &Termination) -> Ending {
    match termination {
        Termination::Rules(EndReason::Checkmate | EndReason::NoLegalMove) => Ending::Checkmate,
        Termination::Rules(EndReason::Repetition | EndReason::PerpetualCheck) => Ending::Repetition,
        Termination::Rules(EndReason::MaxPlies) => Ending::PlyLimit,
        Termination::Resignation => Ending::Resignation,
        Termination::TimeForfeit { .. } => Ending::TimeForfeit,
        Termination::IllegalMove { .. }
        | Termination::Unparsable { .. }
        | Termination::Crash { .. } => Ending::Foul,
    }
}

/// A refereed game as a record (opening moves with no thinking time), the referee's reason
/// as its comment.
fn record_of(game: &GameRecord, event: &str) -> Record {
    let mut times = vec![std::time::Duration::ZERO; game.opening.moves.len()];
    times.extend(&game.times);
    Record {
        start: game.opening.start.clone(),
        moves: game.all_moves(),
        times,
        sente: game.names[0].clone(),
        gote: game.names[1].clone(),
        event: Some(event.to_string()),
        ending: Some(ending(&game.termination)),
        winner: match game.outcome {
            Outcome::Win(color) => Some(color),
            Outcome::Draw => None,
        },
        comment: Some(game.termination.to_string()),
    }
}

/// A finished game as workers report it.
struct Finished {
    pair: usize,
    /// 0: engine 1 is sente; 1: engine 2 is sente.
    leg: usize,
    record: GameRecord,
}

/// Plays the match. Engines are checked once before the first game, so a command that does not
/// start is an error rather than a string of forfeits.
pub fn run_match(config: &MatchConfig) -> Result<MatchSummary, MatchError> {
    run_match_with(config, &mut |_| {})
}

/// [`run_match`], telling `on_game` of each game as it finishes (on the calling thread, in the
/// order games finish): for callers that keep their own progress display.
pub fn run_match_with(
    config: &MatchConfig,
    on_game: &mut dyn FnMut(&GameSummary),
) -> Result<MatchSummary, MatchError> {
    if config.openings.is_empty() {
        return Err(MatchError::Config("no openings".to_string()));
    }
    // The engines as they play: named by their `id name` where no name was given.
    let mut engines = config.engines.clone();
    for (spec, id_name) in engines.iter_mut().zip(config.id_names) {
        let mut slot = EngineSlot::new(spec.clone());
        slot.prepare(config.referee.startup_timeout)
            .map_err(|e| MatchError::Engine {
                name: spec.name.clone(),
                detail: e.to_string(),
            })?;
        if id_name && let Some(name) = slot.id_name() {
            spec.name = name.to_string();
        }
    }
    number_equal_names(&mut engines);
    if let Some(dir) = &config.out_dir {
        for format in [Format::Kif, Format::Csa] {
            std::fs::create_dir_all(dir.join(format.name())).map_err(|source| {
                MatchError::Output {
                    path: dir.clone(),
                    source,
                }
            })?;
        }
    }
    let next_pair = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // Workers judge the SPRT themselves as pairs finish, so that no new pair starts after the
    // decision however far the reporting lags behind.
    let decided_pairs = Mutex::new(Pentanomial::default());
    let (sender, receiver) = mpsc::channel::<Finished>();
    let mut summary = MatchSummary::new(config, engines.clone().map(|e| e.name));
    let workers = config.concurrency.clamp(1, config.pairs.max(1));
    let started = Instant::now();
    let event = format!(
        "engine match, {}",
        config.time_controls_text(&engines.clone().map(|e| e.name))
    );
    std::thread::scope(|scope| -> Result<(), MatchError> {
        for _ in 0..workers {
            let sender = sender.clone();
            let (next_pair, stop, decided_pairs) = (&next_pair, &stop, &decided_pairs);
            let engines = &engines;
            scope.spawn(move || {
                let mut slots = engines.clone().map(EngineSlot::new);
                while !stop.load(Ordering::Relaxed) {
                    let pair = next_pair.fetch_add(1, Ordering::Relaxed);
                    if pair >= config.pairs {
                        break;
                    }
                    let opening = &config.openings[pair % config.openings.len()];
                    let mut pair_points = 0.0;
                    for leg in 0..2 {
                        let [one, two] = &mut slots;
                        let seats = if leg == 0 { [one, two] } else { [two, one] };
                        let record = referee::play_game(seats, opening, &config.referee);
                        pair_points += engine1_points(&record, leg);
                        if sender.send(Finished { pair, leg, record }).is_err() {
                            return;
                        }
                    }
                    if let Some(sprt) = &config.sprt {
                        let mut pairs = decided_pairs.lock().expect("no worker panics");
                        pairs.add((pair_points * 2.0) as usize);
                        if sprt.decision(&pairs).is_some() {
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
        drop(sender);
        let mut pair_points: BTreeMap<usize, f64> = BTreeMap::new();
        // games.txt grows by one complete line per game as games finish (so a stopped match
        // keeps its records), and is rewritten in game order at the end.
        let mut usi_lines: BTreeMap<usize, String> = BTreeMap::new();
        let mut games_file = match &config.out_dir {
            Some(dir) => {
                let path = dir.join("games.txt");
                let file = fileio::create_regular(&path).map_err(MatchError::File)?;
                Some((path, file))
            }
            None => None,
        };
        // elo.svg is redrawn as pairs complete, at most once in ELO_CHART_INTERVAL: a long
        // match would otherwise rewrite (and sync) a growing file thousands of times.
        let mut chart_written: Option<Instant> = None;
        for finished in receiver {
            let pairs_before = summary.pentanomial.pairs();
            record_game(config, &mut summary, &finished, &mut pair_points);
            if let Some(dir) = &config.out_dir
                && summary.pentanomial.pairs() > pairs_before
                && chart_written.is_none_or(|t| t.elapsed() >= ELO_CHART_INTERVAL)
            {
                write_elo_chart(dir, &summary)?;
                chart_written = Some(Instant::now());
            }
            let game = summary.game_list.last().expect("just recorded").clone();
            on_game(&game);
            if let Some(dir) = &config.out_dir {
                let record = record_of(&finished.record, &event);
                for format in [Format::Kif, Format::Csa] {
                    let name = format!("game-{:04}.{}", game.number, format.extension());
                    let path = dir.join(format.name()).join(name);
                    write_atomic(&path, &records::write(&record, format))?;
                }
                let line = game.games_line();
                if let Some((path, file)) = &mut games_file {
                    file.write_all(line.as_bytes())
                        .map_err(|source| MatchError::Output {
                            path: path.clone(),
                            source,
                        })?;
                }
                usi_lines.insert(game.number, line);
            }
            if config.progress {
                eprintln!(
                    "[{}/{} {:.0}s] game {} ({} vs {}): {} by {} | {}",
                    summary.games,
                    2 * config.pairs,
                    started.elapsed().as_secs_f64(),
                    game.number,
                    game.sente,
                    game.gote,
                    game.result,
                    game.termination,
                    summary.standing()
                );
            }
        }
        if let Some((path, _)) = games_file {
            let text: String = usi_lines.values().map(String::as_str).collect();
            write_atomic(&path, text.as_bytes())?;
        }
        Ok(())
    })?;
    summary.game_list.sort_by_key(|g| g.number);
    if let Some(dir) = &config.out_dir {
        let json = serde_json::to_vec_pretty(&summary).expect("the summary serializes");
        write_atomic(&dir.join("summary.json"), &json)?;
        write_elo_chart(dir, &summary)?;
    }
    Ok(summary)
}

/// The chart file of `engine match --out`.
pub const ELO_CHART_FILE: &str = "elo.svg";
/// The least time between two drawings of the chart during a match (it is drawn at the end
/// too).
const ELO_CHART_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

/// Writes `elo.svg`: the Elo estimate after each pair so far (see [`chart`]).
fn write_elo_chart(dir: &Path, summary: &MatchSummary) -> Result<(), MatchError> {
    let games: Vec<(usize, f64)> = summary
        .game_list
        .iter()
        .map(|g| (g.number, g.engine1_score))
        .collect();
    let svg =
        chart::svg([&summary.names[0], &summary.names[1]], &games).map_err(MatchError::Chart)?;
    write_atomic(&dir.join(ELO_CHART_FILE), svg.as_bytes())
}

/// Engines with the same name get a number (`x #1`, `x #2`), so that reports and records
/// tell them apart.
pub fn number_equal_names(specs: &mut [EngineSpec]) {
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    for (i, spec) in specs.iter_mut().enumerate() {
        if names.iter().filter(|n| **n == spec.name).count() > 1 {
            spec.name = format!("{} #{}", spec.name, i + 1);
        }
    }
}

/// Engine 1's points in a game; it plays sente in the first leg of each pair.
fn engine1_points(record: &GameRecord, leg: usize) -> f64 {
    let engine1_color = if leg == 0 { Color::Sente } else { Color::Gote };
    match record.outcome {
        Outcome::Draw => 0.5,
        Outcome::Win(winner) if winner == engine1_color => 1.0,
        Outcome::Win(_) => 0.0,
    }
}

/// Adds a finished game to the summary.
fn record_game(
    config: &MatchConfig,
    summary: &mut MatchSummary,
    finished: &Finished,
    pair_points: &mut BTreeMap<usize, f64>,
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
    // Engine 1 is sente in leg 0; the engines' moves start with the side to move after the
    // opening moves.
    let mut mover = record.opening.start.side_to_move();
    if record.opening.moves.len() % 2 == 1 {
        mover = !mover;
    }
    for &time in &record.times {
        let engine = usize::from((mover == Color::Sente) == (finished.leg == 1));
        summary.move_times[engine].add(time);
        mover = !mover;
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
            pair_points.insert(finished.pair, points);
            return;
        }
        Some(first) => summary.pentanomial.add(((first + points) * 2.0) as usize),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(pentanomial: [u64; 5]) -> MatchSummary {
        let spec = |name: &str| EngineSpec {
            name: name.to_string(),
            command: format!("{name} usi"),
            options: vec![],
            go_limits: vec![],
            movetime_go: false,
            time_control: None,
        };
        let pentanomial = Pentanomial(pentanomial);
        let games = 2 * pentanomial.pairs() as usize;
        let points: f64 = (0..5)
            .map(|i| pentanomial.0[i] as f64 * i as f64 / 2.0)
            .sum();
        MatchSummary {
            engines: [spec("a"), spec("b")],
            names: ["Engine A 1.0".to_string(), "b".to_string()],
            time_control: "1 s a move".to_string(),
            games,
            wins: points as u64,
            losses: (games as f64 - points) as u64,
            draws: 0,
            points,
            pentanomial,
            elo: pentanomial.elo(),
            sprt: None,
            terminations: BTreeMap::new(),
            move_times: [MoveTimes::default(); 2],
            game_list: Vec::new(),
        }
    }

    #[test]
    fn the_report_shows_no_infinity_nan_or_negative_zero() {
        // No game, one even pair, all won, all lost, pairs all even, a spread reaching 0%.
        let cases = [
            ([0, 0, 0, 0, 0], "n/a (no complete pair)"),
            ([0, 0, 1, 0, 0], "+0.0 (95% interval n/a: too few pairs)"),
            ([0, 0, 0, 0, 3], "n/a (score 100%)"),
            ([3, 0, 0, 0, 0], "n/a (score 0%)"),
            ([0, 0, 5, 0, 0], "+0.0 (95% interval n/a: too few pairs)"),
            ([1, 0, 0, 0, 1], "+0.0 (95% interval n/a: too few pairs)"),
        ];
        for (counts, elo) in cases {
            let s = summary(counts);
            let report = s.report();
            for bad in ["inf", "NaN", "-0.0"] {
                assert!(!report.contains(bad), "{bad}: {report}");
                assert!(!s.standing().contains(bad), "{bad}: {}", s.standing());
            }
            assert!(
                report.contains(&format!("Elo difference: {elo}\n")),
                "{counts:?}: {report}"
            );
            // Engines go by the names the match found (their USI id name unless given one).
            assert!(
                report.starts_with("Engine 1: Engine A 1.0 (a usi)\n"),
                "{report}"
            );
        }
    }

    #[test]
    fn games_lines_read_back() {
        let game = GameSummary {
            number: 4,
            opening: 2,
            sente: "Engine A 1.0".to_string(),
            gote: "z".to_string(),
            result: "1-0".to_string(),
            engine1_score: 0.0,
            termination: "checkmate".to_string(),
            plies: 9,
            usi: "position startpos moves 2e2d".to_string(),
        };
        let (number, names, points) = parse_games_line(game.games_line().trim_end()).unwrap();
        // Game 4: engine 1 is gote, and sente won.
        assert_eq!((number, points), (4, 0.0));
        assert_eq!(names, ["Engine A 1.0".to_string(), "z".to_string()]);
        assert_eq!(parse_games_line("x a vs b: 1-0 c; d"), None);
        assert_eq!(parse_games_line("1 a vs b: 2-0 c; d"), None);
        let line = game.games_line();
        let read = read_games_line(&line).unwrap();
        assert_eq!(read.position, "position startpos moves 2e2d");
        assert_eq!((read.result, read.sente_points()), ("1-0", 1.0));
        // A line without its position part is not a games.txt line.
        assert_eq!(read_games_line("1 a vs b: 1-0 checkmate"), None);
    }
}
