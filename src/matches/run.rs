//! Playing a match: the engines checked, games run `concurrency` at a time over the openings,
//! each recorded (games.txt, KIF, CSA) and added to the summary, the Elo chart redrawn as games
//! come in, the SPRT stopping the match once decided.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::Instant;

use super::referee::{self, EngineSlot, GameRecord, Outcome, Termination};
use super::stats::Pentanomial;
use super::summary::{Finished, GameSummary, MatchSummary, engine1_points, record_game};
use super::{MatchConfig, MatchError, chart};
use crate::fileio;
use crate::records::{self, Ending, Format, Record};
use crate::shogi::EndReason;
use crate::usi_client::EngineSpec;

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
        move_comments: Vec::new(),
    }
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
        let mut pair_points: BTreeMap<usize, (f64, Outcome)> = BTreeMap::new();
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
