//! `engine puzzles INPUT…`: puzzles from games, by lichess-puzzler's rules (docs/puzzles.md).
//! The games ([`sources`]: datagen shards, KIF/KIFU/CSA records, games.txt) give candidate
//! positions — a mate within reach, or a swing in the winning chances; each is made into a
//! mate or an advantage puzzle or rejected ([`make`], with the full-width mate prover
//! [`prove`]), and checked again at smaller budgets ([`make::recheck`], which
//! `tests/puzzles.rs` runs over the shipped set). The set is written atomically in the board's
//! format ([`file`]); `--stats FILE` counts a set's kinds, themes and difficulties.
//!
//! Deterministic: every search is a fresh single-threaded searcher at a node limit and every
//! proof has its own prover, so a candidate's outcome depends on it and the options alone; the
//! candidates are tried in a seeded order and taken in that order, whatever `--threads`.

pub mod file;
pub mod make;
pub mod prove;
pub mod sources;

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use rayon::prelude::*;

use crate::fileio;
use crate::search::score::to_stored;
use crate::search::{Limits, SearchControl, SearchOptions, THREAD_STACK};
use crate::shogi::splitmix::SplitMix64;
use crate::shogi::{Game, Position};
use file::{Kind, Puzzle, PuzzleFile, VERSION};
use make::{Made, RecheckSettings, Rejection, Settings};
use prove::MAX_MATE_MOVES;
use sources::{Candidate, Hint};

#[derive(clap::Args, Debug, Clone)]
pub struct PuzzlesArgs {
    /// Games: datagen shards (.dgn), records (.kif, .kifu, .csa), files of USI position lines
    /// (engine match's games.txt, .usi, .sfen), or folders of them, read through.
    #[arg(required_unless_present = "stats")]
    pub inputs: Vec<PathBuf>,
    /// The puzzle file to write (JSON; web/page/puzzles/minishogi-puzzles.json's format).
    #[arg(long, value_name = "FILE", required_unless_present = "stats")]
    pub out: Option<PathBuf>,
    /// Each search that makes a puzzle (MultiPV 2 at the solver's moves, the replies, the
    /// difficulty), in nodes.
    #[arg(long, default_value_t = 50_000)]
    pub nodes: u64,
    /// The search of every position of a record (records have no scores), in nodes.
    #[arg(long, default_value_t = 5_000)]
    pub scan_nodes: u64,
    /// The longest mate, in plies (odd, at most 9: a mate in 5).
    #[arg(long, default_value_t = 9)]
    pub mate_plies: u32,
    /// The mate prover's budget for each puzzle, in nodes.
    #[arg(long, default_value_t = 2_000_000)]
    pub prove_nodes: u64,
    /// The most solver moves of an advantage puzzle.
    #[arg(long, default_value_t = 3)]
    pub advantage_moves: u32,
    /// The recheck's searches, in nodes (the shipped set keeps the default: tests/puzzles.rs
    /// rechecks it with the defaults).
    #[arg(long, default_value_t = RecheckSettings::default().nodes)]
    pub recheck_nodes: u64,
    /// The recheck's prover budget for each puzzle, in nodes (the shipped set: the default).
    #[arg(long, default_value_t = RecheckSettings::default().prove_nodes)]
    pub recheck_prove_nodes: u64,
    /// Puzzles to make, at most.
    #[arg(long, default_value_t = 600)]
    pub limit: usize,
    /// Puzzles of each kind, at most: mates in 1, in 2, … in 5, and advantage.
    #[arg(long, default_value_t = 150)]
    pub per_kind: usize,
    /// Candidates to try, at most (0: all).
    #[arg(long, default_value_t = 0)]
    pub max_candidates: usize,
    /// The order the candidates are tried in (a shuffle by this seed).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads: candidates made in parallel (each search on one thread).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Count a puzzle file's kinds, themes and difficulties (Markdown tables) and stop.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
}

/// A kind of puzzle, for `--per-kind` and the counts: `mateIn1` … `mateIn5`, `advantage`.
fn category(kind: Kind, mate: Option<u32>) -> String {
    match kind {
        Kind::Mate => format!("mateIn{}", mate.unwrap_or(0)),
        Kind::Advantage => "advantage".to_string(),
    }
}

fn hint_category(hint: Hint) -> String {
    match hint {
        Hint::Mate(n) => category(Kind::Mate, Some(n)),
        Hint::Advantage => category(Kind::Advantage, None),
    }
}

/// The command line, as the file records it (`engine` for the program's path).
fn command_line() -> String {
    let quote = |a: String| {
        if a.is_empty() || a.contains(|c: char| c.is_whitespace() || "'\"$\\".contains(c)) {
            format!("'{}'", a.replace('\'', r"'\''"))
        } else {
            a
        }
    };
    std::iter::once("engine".to_string())
        .chain(std::env::args().skip(1).map(quote))
        .collect::<Vec<_>>()
        .join(" ")
}

fn check_args(args: &PuzzlesArgs) -> Result<(), String> {
    if args.mate_plies.is_multiple_of(2) || args.mate_plies > 2 * MAX_MATE_MOVES - 1 {
        return Err(format!(
            "--mate-plies {}: an odd number of plies up to {}",
            args.mate_plies,
            2 * MAX_MATE_MOVES - 1
        ));
    }
    for (name, value) in [
        ("--nodes", args.nodes),
        ("--scan-nodes", args.scan_nodes),
        ("--prove-nodes", args.prove_nodes),
        ("--recheck-nodes", args.recheck_nodes),
        ("--recheck-prove-nodes", args.recheck_prove_nodes),
    ] {
        if value == 0 {
            return Err(format!("{name} must be at least 1"));
        }
    }
    if args.threads == 0 || args.limit == 0 || args.per_kind == 0 || args.advantage_moves == 0 {
        return Err(
            "--threads, --limit, --per-kind and --advantage-moves must be at least 1".into(),
        );
    }
    if let Some(out) = &args.out {
        if args.inputs.contains(out) {
            return Err(format!("{}: an input would be overwritten", out.display()));
        }
        fileio::check_replaceable(out).map_err(|e| format!("cannot write {e}"))?;
    }
    Ok(())
}

/// The search's score of each position of a record game (the stored scale), by a fresh
/// single-threaded search at `nodes` each.
fn scan(
    positions: &[Position],
    nodes: u64,
    evaluator: &std::sync::Arc<dyn crate::eval::Evaluator>,
) -> Vec<i32> {
    positions
        .par_iter()
        .map(|pos| {
            if !pos.has_legal_move() {
                return 0;
            }
            let options = SearchOptions {
                hash_mb: 1,
                threads: 1,
                ..SearchOptions::default()
            };
            let mut player = crate::players::new_player(crate::players::ALPHABETA, options)
                .expect("the default search is known");
            player.set_evaluator(evaluator.clone());
            let limits = Limits {
                nodes: Some(nodes),
                ..Limits::default()
            };
            let result = player.search(
                &Game::new(pos.clone()),
                &limits,
                &SearchControl::default(),
                &mut |_| {},
            );
            to_stored(result.score)
        })
        .collect()
}

/// The order candidates are tried in: a hash of the position and the seed.
fn shuffle_key(pos: &Position, seed: u64) -> u64 {
    SplitMix64::new(pos.key() ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64()
}

/// What a run found, for the summary.
#[derive(Default)]
struct Tally {
    tried: usize,
    rejected: BTreeMap<&'static str, usize>,
    made: BTreeMap<String, usize>,
}

pub fn run(args: &PuzzlesArgs) -> Result<(), String> {
    if let Some(path) = &args.stats {
        let file = PuzzleFile::read(path)?;
        print!("{}", stats(&file)?);
        return Ok(());
    }
    check_args(args)?;
    let out = args.out.clone().ok_or("--out FILE is needed")?;
    let max_mate = args.mate_plies.div_ceil(2);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .stack_size(THREAD_STACK)
        .build()
        .map_err(|e| e.to_string())?;
    let evaluator = crate::nn::engine_evaluator();

    let mut inputs = sources::read(&args.inputs, max_mate)?;
    eprintln!(
        "puzzles: {} files: {} shards ({} games, {} positions), {} record games; {} candidates \
         from the shards",
        inputs.files,
        inputs.shards,
        inputs.shard_games,
        inputs.shard_positions,
        inputs.record_games.len(),
        inputs.candidates.len()
    );
    let first_record_game = inputs.games - inputs.record_games.len();
    for (i, game) in inputs.record_games.iter().enumerate() {
        let scores = pool.install(|| scan(&game.positions, args.scan_nodes, &evaluator));
        for (index, hint) in sources::game_candidates(&scores, max_mate) {
            let pos = &game.positions[index];
            inputs.candidates.push(Candidate {
                pos: pos.clone(),
                source: format!("{} ply {}", game.label, pos.move_number() - 1),
                game: first_record_game + i,
                hint,
            });
        }
        eprint!(
            "\rpuzzles: scanned {}/{} record games",
            i + 1,
            inputs.record_games.len()
        );
    }
    if !inputs.record_games.is_empty() {
        eprintln!();
    }

    // Each position once (its first sighting), in the seeded order.
    let mut seen = HashSet::new();
    let mut candidates: Vec<(u64, Candidate)> = inputs
        .candidates
        .into_iter()
        .filter(|c| seen.insert(c.pos.key()))
        .map(|c| (shuffle_key(&c.pos, args.seed), c))
        .collect();
    candidates.sort_by_key(|(key, _)| *key);
    let mut by_hint: BTreeMap<String, usize> = BTreeMap::new();
    for (_, c) in &candidates {
        *by_hint.entry(hint_category(c.hint)).or_default() += 1;
    }
    eprintln!(
        "puzzles: {} candidates ({})",
        candidates.len(),
        by_hint
            .iter()
            .map(|(c, n)| format!("{c} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if args.max_candidates > 0 {
        candidates.truncate(args.max_candidates);
        eprintln!("puzzles: the first {} tried", candidates.len());
    }

    let settings = Settings {
        nodes: args.nodes,
        mate_moves: max_mate,
        prove_nodes: args.prove_nodes,
        advantage_moves: args.advantage_moves,
        hash_mb: 8,
        recheck: RecheckSettings {
            nodes: args.recheck_nodes,
            prove_nodes: args.recheck_prove_nodes,
            ..RecheckSettings::default()
        },
    };
    let kinds = 1 + max_mate as usize;
    let mut made: Vec<Made> = Vec::new();
    let mut games_used = HashSet::new();
    let mut tally = Tally::default();
    let mut next = 0;
    let chunk = 4 * args.threads;
    let start = std::time::Instant::now();
    while next < candidates.len() && made.len() < args.limit {
        let full = |c: &str, t: &Tally| t.made.get(c).copied().unwrap_or(0) >= args.per_kind;
        if tally.made.len() == kinds && tally.made.keys().all(|c| full(c, &tally)) {
            break;
        }
        // The next candidates whose game has no puzzle yet and whose kind is not full.
        let mut batch = Vec::new();
        while next < candidates.len() && batch.len() < chunk {
            let c = &candidates[next].1;
            next += 1;
            if !games_used.contains(&c.game) && !full(&hint_category(c.hint), &tally) {
                batch.push(c);
            }
        }
        let outcomes: Vec<Result<Made, Rejection>> = pool.install(|| {
            batch
                .par_iter()
                .map(|c| {
                    let mate_first = matches!(c.hint, Hint::Mate(_));
                    make::make(&c.pos, mate_first, &c.source, &evaluator, &settings)
                })
                .collect()
        });
        for (c, outcome) in batch.iter().zip(outcomes) {
            tally.tried += 1;
            match outcome {
                Ok(m) => {
                    let cat = category(m.puzzle.kind, m.puzzle.mate);
                    if made.len() >= args.limit
                        || full(&cat, &tally)
                        || games_used.contains(&c.game)
                    {
                        continue;
                    }
                    games_used.insert(c.game);
                    *tally.made.entry(cat).or_default() += 1;
                    made.push(m);
                }
                Err(e) => {
                    log::debug!("{} ({}): {e:?}", c.source, c.pos.to_sfen());
                    if let Rejection::Inconsistent(why) = &e {
                        log::error!("{} ({}): {why}", c.source, c.pos.to_sfen());
                    }
                    if let Rejection::Recheck(reason) = &e {
                        log::warn!(
                            "{} ({}): recheck failed: {reason}",
                            c.source,
                            c.pos.to_sfen()
                        );
                    }
                    *tally.rejected.entry(e.name()).or_default() += 1;
                }
            }
        }
        eprint!(
            "\rpuzzles: {} made of {} tried ({}/{} candidates, {:.0} s)   ",
            made.len(),
            tally.tried,
            next,
            candidates.len(),
            start.elapsed().as_secs_f64()
        );
    }
    eprintln!();
    let recheck: f64 = made.iter().map(|m| m.recheck_time.as_secs_f64()).sum();
    let mut found: Vec<u64> = made.iter().filter_map(|m| m.nodes_to_find).collect();
    found.sort_unstable();
    let quantile = |q: f64| {
        found
            .get(((found.len() as f64 - 1.0) * q) as usize)
            .copied()
    };
    eprintln!(
        "puzzles: rechecked in {recheck:.1} s of one thread; nodes to find the first move: \
         median {:?}, 90% {:?}, not found {}",
        quantile(0.5),
        quantile(0.9),
        made.len() - found.len()
    );
    for (reason, n) in &tally.rejected {
        eprintln!("puzzles: rejected {n}: {reason}");
    }

    // Ids in a fixed order: by kind, then difficulty, then position.
    made.sort_by(|a, b| {
        let key = |m: &Made| {
            (
                m.puzzle.kind == Kind::Advantage,
                m.puzzle.mate,
                m.puzzle.difficulty,
                m.puzzle.sfen.clone(),
            )
        };
        key(a).cmp(&key(b))
    });
    let puzzles: Vec<Puzzle> = made
        .into_iter()
        .enumerate()
        .map(|(i, m)| Puzzle {
            id: format!("p{:04}", i + 1),
            ..m.puzzle
        })
        .collect();
    let file = PuzzleFile {
        version: VERSION,
        generated_by: command_line(),
        puzzles,
    };
    file.write(&out)?;
    eprintln!(
        "puzzles: wrote {} puzzles to {}",
        file.puzzles.len(),
        out.display()
    );
    print!("{}", stats(&file)?);
    Ok(())
}

/// A set's counts as Markdown tables: by kind, theme and difficulty; mates whose last move has
/// other mates in one (the board takes any).
pub fn stats(file: &PuzzleFile) -> Result<String, String> {
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut themes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut difficulty = [0usize; 5];
    let mut by_kind_difficulty: BTreeMap<String, [usize; 5]> = BTreeMap::new();
    let mut last_open = 0;
    for p in &file.puzzles {
        let cat = category(p.kind, p.mate);
        *kinds.entry(cat.clone()).or_default() += 1;
        for t in &p.themes {
            *themes.entry(t).or_default() += 1;
        }
        let d = usize::from(p.difficulty.clamp(1, 5)) - 1;
        difficulty[d] += 1;
        by_kind_difficulty.entry(cat).or_default()[d] += 1;
        if p.kind == Kind::Mate {
            let (pos, moves) = make::replay(p).map_err(|e| format!("{}: {e}", p.id))?;
            let before_last = moves[..moves.len() - 1]
                .iter()
                .fold(pos, |q, &m| q.after(m));
            let mates = before_last
                .legal_moves()
                .iter()
                .filter(|&&m| before_last.after(m).is_checkmate())
                .count();
            if mates > 1 {
                last_open += 1;
            }
        }
    }
    let mut text = format!(
        "{} puzzles\n\n| kind | puzzles | difficulty 1 | 2 | 3 | 4 | 5 |\n|---|---|---|---|---|---|---|\n",
        file.puzzles.len()
    );
    for (cat, n) in &kinds {
        let d = by_kind_difficulty[cat];
        text.push_str(&format!(
            "| {cat} | {n} | {} | {} | {} | {} | {} |\n",
            d[0], d[1], d[2], d[3], d[4]
        ));
    }
    text.push_str(&format!(
        "| all | {} | {} | {} | {} | {} | {} |\n\n",
        file.puzzles.len(),
        difficulty[0],
        difficulty[1],
        difficulty[2],
        difficulty[3],
        difficulty[4]
    ));
    text.push_str("| theme | puzzles |\n|---|---|\n");
    let mut themes: Vec<(&str, usize)> = themes.into_iter().collect();
    themes.sort_by_key(|&(t, n)| (std::cmp::Reverse(n), t));
    for (t, n) in themes {
        text.push_str(&format!("| {t} | {n} |\n"));
    }
    text.push_str(&format!(
        "\nMates whose last move has other mates in one (the board takes any): {last_open}\n"
    ));
    Ok(text)
}
