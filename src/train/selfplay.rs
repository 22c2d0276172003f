//! `engine selfplay`: reinforcement learning as the seed does it. The network plays games
//! against itself — moves chosen one-ply as in the seed (a softmax over the values of the
//! positions after each move), or with `--depth` by the alpha-beta search — every visited
//! position gets a TD-style target computed from the end of the game backwards, and the network
//! is trained on those targets (plus a share of the mate data set, so the end-game knowledge of
//! pretraining is kept). Progress is measured by matches of the current network against the
//! starting one and against a material player.
//!
//! Targets, for the states `s_0 … s_n` of a game, each seen from its side to move:
//!
//! ```text
//! R_n = result for the side to move in s_n (0 lost, 1 won, ½ ply-limit draw)
//! R_i = 1 − ((1 − γ)·V(s_{i+1}) + γ·R_{i+1})      (i < n)
//! target_i = (1 − α)·V(s_i) + α·R_i
//! ```
//!
//! The defaults (α 0.8, γ 0.8, temperature 0.25, three iterations of replay, four epochs) were
//! chosen by a one-at-a-time sweep measured by matches. `--depth 2` trains a clearly stronger
//! network for the engine's search than one-ply self-play, at a tenth of the speed;
//! `weights/README.md` has the figures and the recommended command.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use super::matedata::{self, MateSample};
use crate::fileio;
use crate::nn::{self, Dataset, Features, Network, TrainConfig, Trainer};
use crate::search::{Limits, SearchControl, SearchOptions, Searcher};
use crate::shogi::{
    Color, Game, GameStatus, HistoryEntry, Move, PieceKind, Position, REPETITION_OCCURRENCES,
    repetition_verdict,
};

#[derive(clap::Args, Debug, Clone)]
pub struct SelfplayArgs {
    /// Training iterations: each plays `--games` games, then trains on them.
    #[arg(long, default_value_t = 20)]
    pub iterations: usize,
    /// Self-play games per iteration.
    #[arg(long, default_value_t = 200)]
    pub games: usize,
    /// A game reaching this many plies is a draw (target ½ for its last position).
    #[arg(long, default_value_t = 150)]
    pub max_plies: u32,
    /// Weight of the backed-up return in the target: `(1 − α)·V(s) + α·R`.
    #[arg(long, default_value_t = 0.8)]
    pub alpha: f32,
    /// Weight of the return against the next position's value: `R_i = 1 − ((1 − γ)·V' + γ·R')`.
    #[arg(long, default_value_t = 0.8)]
    pub gamma: f32,
    /// Softmax temperature of the move choice, in logits of the win probability (0 = greedy).
    #[arg(long, default_value_t = 0.25)]
    pub temperature: f32,
    /// Each game starts with a uniformly random number (0..=this) of random moves.
    #[arg(long, default_value_t = 4)]
    pub random_plies: usize,
    /// Choose self-play moves by an alpha-beta search of this depth with the current network
    /// (0 = the seed's one-ply choice). Much slower; the progress matches stay one-ply.
    #[arg(long, default_value_t = 0)]
    pub depth: u32,
    /// With `--depth`: share of moves chosen by the one-ply softmax instead, so games differ.
    #[arg(long, default_value_t = 0.1)]
    pub epsilon: f32,
    /// Weights to start from (e.g. the output of `engine pretrain`); default: the default network.
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// Weights file to write (atomically, after every iteration). Metrics go beside it as .csv.
    #[arg(long, default_value = "weights/selfplay.bin")]
    pub out: PathBuf,
    /// Mate data set mixed into training (skipped if the file is absent).
    #[arg(long, default_value = "data/mate.bin")]
    pub mate_data: PathBuf,
    /// Share of each iteration's training set drawn from the mate data (0 = none).
    #[arg(long, default_value_t = 0.3)]
    pub mate_share: f64,
    /// Self-play data of this many latest iterations is trained on (1 = the current only).
    #[arg(long, default_value_t = 3)]
    pub replay: usize,
    /// Training epochs per iteration.
    #[arg(long, default_value_t = 4)]
    pub epochs: usize,
    #[arg(long, default_value_t = 256)]
    pub batch_size: usize,
    #[arg(long, default_value_t = 5e-4)]
    pub lr: f32,
    /// `adam` or `sgd` (momentum 0.9).
    #[arg(long, default_value = "adam")]
    pub optimizer: String,
    #[arg(long, default_value_t = 0.0)]
    pub weight_decay: f32,
    /// Games of each progress match against the starting network (0 = no matches). Played in
    /// pairs from the same random opening with colours swapped, greedy moves on both sides.
    #[arg(long, default_value_t = 200)]
    pub eval_games: usize,
    /// Play the progress match every this many iterations (and after the last).
    #[arg(long, default_value_t = 1)]
    pub eval_every: usize,
    /// Reference network of the progress matches (default: the starting network). The
    /// network is also matched against a material-greedy one-ply player, a fixed yardstick.
    #[arg(long)]
    pub eval_opponent: Option<PathBuf>,
    /// Search depth of both sides in the progress matches (default: `--depth`; 0 = one-ply).
    #[arg(long)]
    pub eval_depth: Option<u32>,
    /// Also save the weights of every this many iterations as `<out>-NNNN.bin` (0 = never).
    #[arg(long, default_value_t = 0)]
    pub snapshot_every: usize,
    /// Seed of everything random: openings, move choice, sampling, shuffling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

impl Default for SelfplayArgs {
    fn default() -> Self {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Wrapper {
            #[command(flatten)]
            args: SelfplayArgs,
        }
        Wrapper::parse_from(["selfplay"]).args
    }
}

/// How moves are chosen.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// Softmax temperature over the movers' logits; 0 = always the best move.
    pub temperature: f32,
    /// Alpha-beta depth of the move choice (0 = the one-ply softmax above).
    pub depth: u32,
    /// With `depth > 0`: share of moves still chosen by the one-ply softmax, for variety.
    pub epsilon: f32,
}

impl Policy {
    /// The one-ply policy at `temperature`.
    pub const fn one_ply(temperature: f32) -> Policy {
        Policy {
            temperature,
            depth: 0,
            epsilon: 0.0,
        }
    }
}

/// Transposition table of the per-game searcher of `--depth` self-play: shallow searches need
/// little, and every game allocates its own.
const SELFPLAY_HASH_MB: usize = 2;

/// One finished game: every position from the start to the end, the moves between them, the
/// network's value of each position (side to move's win probability) and the result.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub positions: Vec<Position>,
    pub moves: Vec<Move>,
    pub values: Vec<f32>,
    pub status: GameStatus,
}

impl GameRecord {
    /// Result for the side to move in the final position: 0 lost, 1 won, ½ drawn.
    pub fn final_return(&self) -> f32 {
        let last = self.positions.last().expect("a game has a position");
        match self.status {
            GameStatus::Win { winner, .. } if winner == last.side_to_move() => 1.0,
            GameStatus::Win { .. } => 0.0,
            GameStatus::Draw(_) | GameStatus::Ongoing => 0.5,
        }
    }

    pub fn plies(&self) -> usize {
        self.moves.len()
    }
}

/// The seed's targets (see the module documentation), from `values[i] = V(s_i)` and the final
/// return `R_n`. Results are clamped to [0, 1] against rounding.
pub fn td_targets(values: &[f32], final_return: f32, alpha: f32, gamma: f32) -> Vec<f32> {
    let n = values.len();
    let mut targets = vec![0.0; n];
    if n == 0 {
        return targets;
    }
    let mut r = final_return;
    targets[n - 1] = (1.0 - alpha) * values[n - 1] + alpha * r;
    for i in (0..n - 1).rev() {
        r = 1.0 - ((1.0 - gamma) * values[i + 1] + gamma * r);
        targets[i] = (1.0 - alpha) * values[i] + alpha * r;
    }
    targets.iter_mut().for_each(|t| *t = t.clamp(0.0, 1.0));
    targets
}

/// Deterministic seed of game `game` of iteration `iteration` (SplitMix64 finaliser over the mix).
pub fn game_seed(seed: u64, iteration: u64, game: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(iteration.wrapping_mul(0xBF58_476D_1CE4_E5B9))
        .wrapping_add(game.wrapping_mul(0x94D0_49BB_1331_11EB))
        .wrapping_add(0x2545_F491_4F6C_DD1D);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Score (in logits, for the mover) of a move that ends the game by the rules.
const DECISIVE_LOGIT: f32 = 30.0;

/// Who chooses the moves of one side: a network, or the material-greedy baseline.
#[derive(Clone, Copy, Debug)]
pub enum Player<'a> {
    Net(&'a Arc<nn::Evaluator>),
    /// Material count (board and hands, `PieceKind::value`): an absolute yardstick that does
    /// not move with the networks being trained. One-ply with ties broken at random, or with a
    /// depth the search with its material evaluator.
    Material,
}

/// Material balance for the side to move, in pawns.
fn material(pos: &Position) -> f32 {
    let us = pos.side_to_move();
    let mut total = 0;
    for color in Color::ALL {
        let sign = if color == us { 1 } else { -1 };
        for sq in pos.pieces(color) {
            if let Some(p) = pos.piece_at(sq).filter(|p| p.kind != PieceKind::King) {
                total += sign * p.kind.value();
            }
        }
        for kind in PieceKind::HAND {
            total += sign * pos.hand(color).count(kind) as i32 * kind.value();
        }
    }
    total as f32 / 100.0
}

/// The mover's score of every legal move: `−logit V(s')`, i.e. the logit of `1 − V(s')`, or
/// ±[`DECISIVE_LOGIT`] where the move ends the game (mate, no legal move, or a 千日手 verdict —
/// the rules are exact there, so the evaluator is not asked).
fn score_moves(
    player: Player,
    game: &Game,
    moves: &[Move],
    features: &mut Features,
    rng: &mut SmallRng,
) -> Vec<f32> {
    let pos = game.position();
    let mover = pos.side_to_move();
    let history = game.history();
    let mut scratch: Vec<HistoryEntry> = Vec::new();
    moves
        .iter()
        .map(|&mv| {
            let child = pos.after(mv);
            if !child.has_legal_move() {
                return DECISIVE_LOGIT;
            }
            // Only a position seen three times before (same side to move) can end by 千日手.
            let key = child.key();
            let seen = history
                .iter()
                .rev()
                .skip(1)
                .step_by(2)
                .filter(|e| e.key == key)
                .count();
            if seen + 1 >= REPETITION_OCCURRENCES {
                if scratch.is_empty() {
                    scratch.extend_from_slice(history);
                }
                scratch.push(HistoryEntry::of(&child));
                let verdict = repetition_verdict(&scratch, child.side_to_move());
                scratch.pop();
                if let Some(v) = verdict {
                    return if v.loser == mover {
                        -DECISIVE_LOGIT
                    } else {
                        DECISIVE_LOGIT
                    };
                }
            }
            match player {
                Player::Net(net) => {
                    features.extract(&child);
                    -net.fast().logit(features)
                }
                Player::Material => -material(&child) + rng.r#gen::<f32>() * 0.01,
            }
        })
        .collect()
}

/// Index of the chosen move: the best score at temperature 0 (first of equals), else a sample
/// of the softmax `exp(score / T)`.
fn choose(scores: &[f32], temperature: f32, rng: &mut SmallRng) -> usize {
    let (best, &max) = scores
        .iter()
        .enumerate()
        .fold((0, &f32::NEG_INFINITY), |acc, (i, s)| {
            if *s > *acc.1 { (i, s) } else { acc }
        });
    if temperature <= 0.0 {
        return best;
    }
    let weights: Vec<f32> = scores
        .iter()
        .map(|s| ((s - max) / temperature).exp())
        .collect();
    let total: f32 = weights.iter().sum();
    let mut x = rng.r#gen::<f32>() * total;
    for (i, w) in weights.iter().enumerate() {
        x -= w;
        if x <= 0.0 {
            return i;
        }
    }
    best
}

/// Plays `random_plies` uniformly random moves from the start position (stopping early if the
/// game ends).
fn random_opening(game: &mut Game, random_plies: usize, rng: &mut SmallRng) {
    for _ in 0..random_plies {
        if game.status().is_over() {
            return;
        }
        let moves = game.position().legal_moves();
        let mv = *moves.choose(rng).expect("an ongoing game has a legal move");
        game.play(mv).expect("legal move");
    }
}

/// A fresh searcher for `player`'s moves: its network, or the search's material evaluator.
fn searcher_for(player: Player) -> Searcher {
    let mut searcher = Searcher::new(SearchOptions {
        hash_mb: SELFPLAY_HASH_MB,
        threads: 1,
        ..SearchOptions::default()
    });
    if let Player::Net(evaluator) = player {
        searcher.set_evaluator(evaluator.clone());
    }
    searcher
}

/// Plays one game to its end with `players[color]` choosing for each side. With
/// `policy.depth > 0` each side's moves come from a search of that depth (its own searcher),
/// except an `epsilon` share chosen by the one-ply softmax.
fn play_out(
    mut game: Game,
    players: [Player; 2],
    policy: Policy,
    rng: &mut SmallRng,
) -> (Game, Vec<Position>) {
    let mut searchers: Vec<Searcher> = if policy.depth > 0 {
        players.iter().map(|&p| searcher_for(p)).collect()
    } else {
        Vec::new()
    };
    let mut features = Features::new();
    let mut positions: Vec<Position> = Vec::new();
    // Reconstruct the positions of the opening already played.
    let mut pos = game.start_position().clone();
    positions.push(pos.clone());
    for &mv in game.moves() {
        pos.make_move(mv);
        positions.push(pos.clone());
    }
    while !game.status().is_over() {
        let side = game.position().side_to_move().index();
        if policy.depth > 0
            && rng.r#gen::<f32>() >= policy.epsilon
            && let Some(searcher) = searchers.get_mut(side)
        {
            let limits = Limits {
                depth: Some(policy.depth),
                ..Limits::default()
            };
            let result = searcher.search(&game, &limits, &SearchControl::default(), &mut |_| {});
            let mv = result.best.expect("an ongoing game has a legal move");
            game.play(mv).expect("the search returns legal moves");
            positions.push(game.position().clone());
            continue;
        }
        let moves = game.position().legal_moves();
        let player = players[side];
        let scores = score_moves(player, &game, &moves, &mut features, rng);
        let mv = moves[choose(&scores, policy.temperature, rng)];
        game.play(mv).expect("chosen among legal moves");
        positions.push(game.position().clone());
    }
    (game, positions)
}

/// Plays one self-play game: random opening, then the policy for both sides.
pub fn play_selfplay_game(
    evaluator: &Arc<nn::Evaluator>,
    policy: Policy,
    max_plies: u32,
    random_plies: usize,
    seed: u64,
) -> GameRecord {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::startpos();
    game.set_max_plies(Some(max_plies));
    let opening = rng.gen_range(0..=random_plies);
    random_opening(&mut game, opening, &mut rng);
    let (game, positions) = play_out(game, [Player::Net(evaluator); 2], policy, &mut rng);
    let net = evaluator.fast();
    let mut features = Features::new();
    let values = positions
        .iter()
        .map(|p| {
            features.extract(p);
            nn::sigmoid(net.logit(&features))
        })
        .collect();
    GameRecord {
        positions,
        moves: game.moves().to_vec(),
        values,
        status: game.status(),
    }
}

/// Totals of a batch of games.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GameTally {
    pub games: usize,
    pub sente_wins: usize,
    pub gote_wins: usize,
    pub draws: usize,
    pub plies: usize,
}

impl GameTally {
    fn add(&mut self, status: GameStatus, plies: usize) {
        self.games += 1;
        self.plies += plies;
        match status {
            GameStatus::Win {
                winner: Color::Sente,
                ..
            } => self.sente_wins += 1,
            GameStatus::Win { .. } => self.gote_wins += 1,
            _ => self.draws += 1,
        }
    }

    pub fn mean_plies(&self) -> f64 {
        self.plies as f64 / self.games.max(1) as f64
    }
}

/// Result of a progress match, from the candidate's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MatchResult {
    pub games: usize,
    pub wins: usize,
    pub losses: usize,
    pub draws: usize,
}

impl MatchResult {
    /// Points per game: win 1, draw ½.
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }
}

/// Plays `games` greedy games (rounded up to pairs) between `candidate` and `opponent`, one-ply
/// or with a search of `depth`: each pair starts from the same seeded random opening (2 to 4
/// plies), the candidate playing sente in one and gote in the other. The openings depend on
/// `seed` only, so matches of successive networks are played from the same positions.
pub fn play_match(
    candidate: Player,
    opponent: Player,
    games: usize,
    max_plies: u32,
    depth: u32,
    seed: u64,
) -> MatchResult {
    let pairs = games.div_ceil(2);
    let policy = Policy {
        temperature: 0.0,
        depth,
        epsilon: 0.0,
    };
    // Half-points of the candidate per game: 2 win, 1 draw, 0 loss.
    let outcomes: Vec<[u8; 2]> = (0..pairs)
        .into_par_iter()
        .map(|p| {
            let mut rng = SmallRng::seed_from_u64(game_seed(seed, u64::MAX, p as u64));
            let mut opening = Game::startpos();
            opening.set_max_plies(Some(max_plies));
            let plies = rng.gen_range(2..=4);
            random_opening(&mut opening, plies, &mut rng);
            let mut points = [0; 2];
            for (k, candidate_color) in [Color::Sente, Color::Gote].into_iter().enumerate() {
                let players = if candidate_color == Color::Sente {
                    [candidate, opponent]
                } else {
                    [opponent, candidate]
                };
                let (game, _) = play_out(opening.clone(), players, policy, &mut rng);
                points[k] = match game.status() {
                    GameStatus::Win { winner, .. } if winner == candidate_color => 2,
                    GameStatus::Win { .. } => 0,
                    _ => 1,
                };
            }
            points
        })
        .collect();
    let mut result = MatchResult::default();
    for p in outcomes.iter().flatten() {
        result.games += 1;
        match p {
            2 => result.wins += 1,
            0 => result.losses += 1,
            _ => result.draws += 1,
        }
    }
    result
}

/// Figures of one iteration. Iteration 0 is the starting network, measured before training.
#[derive(Clone, Debug, Default)]
pub struct IterationStats {
    pub iteration: usize,
    pub tally: GameTally,
    pub positions: usize,
    pub mate_positions: usize,
    pub train_loss: f64,
    pub generation_seconds: f64,
    pub train_seconds: f64,
    /// Match against the reference network (the starting one unless `--eval-opponent`).
    pub eval: Option<MatchResult>,
    /// Match against the material-greedy baseline.
    pub material: Option<MatchResult>,
    pub seconds: f64,
}

impl IterationStats {
    pub fn generation_positions_per_second(&self) -> f64 {
        self.positions as f64 / self.generation_seconds.max(1e-9)
    }
}

#[derive(Clone, Debug)]
pub struct SelfplayReport {
    pub iterations: Vec<IterationStats>,
}

/// Self-play samples of one batch of games, as a data set.
fn games_to_dataset(records: &[GameRecord], alpha: f32, gamma: f32) -> Dataset {
    let total = records.iter().map(|r| r.positions.len()).sum();
    let mut data = Dataset::with_capacity(nn::NUM_FEATURES, total);
    let mut features = Features::new();
    for r in records {
        let targets = td_targets(&r.values, r.final_return(), alpha, gamma);
        for (pos, &t) in r.positions.iter().zip(&targets) {
            features.extract(pos);
            data.push(features.values(), t);
        }
    }
    data
}

/// `count` mate samples drawn (without replacement where possible) with a seeded generator.
fn sample_mate_data(samples: &[MateSample], count: usize, seed: u64) -> Result<Dataset, String> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let count = count.min(samples.len());
    super::mate_dataset(samples.choose_multiple(&mut rng, count))
}

fn validate(args: &SelfplayArgs) -> Result<(), String> {
    let unit = |name: &str, v: f32| {
        if (0.0..=1.0).contains(&v) {
            Ok(())
        } else {
            Err(format!("--{name} {v} must be in [0, 1]"))
        }
    };
    unit("alpha", args.alpha)?;
    unit("gamma", args.gamma)?;
    unit("epsilon", args.epsilon)?;
    if !(0.0..1.0).contains(&args.mate_share) {
        return Err(format!(
            "--mate-share {} must be in [0, 1)",
            args.mate_share
        ));
    }
    if !(args.temperature.is_finite() && args.temperature >= 0.0) {
        return Err(format!(
            "--temperature {} must be a number ≥ 0",
            args.temperature
        ));
    }
    if args.games == 0 || args.max_plies == 0 || args.replay == 0 || args.eval_every == 0 {
        return Err("--games, --max-plies, --replay and --eval-every must be at least 1".into());
    }
    Ok(())
}

fn load_network(path: &Path, what: &str) -> Result<Network, String> {
    nn::load_from_path(path).map_err(|e| format!("{what} {}: {e}", path.display()))
}

const CSV_HEADER: &str = "iteration,games,positions,mate_positions,mean_plies,sente_wins,gote_wins,draws,\
train_loss,eval_games,eval_wins,eval_losses,eval_draws,eval_score,material_games,material_wins,\
material_losses,material_draws,material_score,generation_seconds,generation_positions_per_second,\
train_seconds,seconds\n";

fn match_columns(m: &Option<MatchResult>) -> String {
    match m {
        Some(m) => format!(
            "{},{},{},{},{:.4}",
            m.games,
            m.wins,
            m.losses,
            m.draws,
            m.score()
        ),
        None => ",,,,".to_string(),
    }
}

fn csv_line(s: &IterationStats) -> String {
    let t = &s.tally;
    format!(
        "{},{},{},{},{:.2},{},{},{},{:.6},{},{},{:.2},{:.0},{:.2},{:.2}\n",
        s.iteration,
        t.games,
        s.positions,
        s.mate_positions,
        t.mean_plies(),
        t.sente_wins,
        t.gote_wins,
        t.draws,
        s.train_loss,
        match_columns(&s.eval),
        match_columns(&s.material),
        s.generation_seconds,
        s.generation_positions_per_second(),
        s.train_seconds,
        s.seconds
    )
}

fn summary_line(s: &IterationStats, iterations: usize) -> String {
    let t = &s.tally;
    let mut line = if s.iteration == 0 {
        "selfplay 0: starting network".to_string()
    } else {
        format!(
            "selfplay {}/{iterations}: {} games, {} positions ({:.0}/s), mean {:.1} plies, \
             sente/gote/draw {}/{}/{}, loss {:.4}",
            s.iteration,
            t.games,
            s.positions,
            s.generation_positions_per_second(),
            t.mean_plies(),
            t.sente_wins,
            t.gote_wins,
            t.draws,
            s.train_loss
        )
    };
    for (name, m) in [("reference", &s.eval), ("material", &s.material)] {
        if let Some(m) = m {
            let _ = write!(
                line,
                ", vs {name} {:.1}% (+{} -{} ={})",
                100.0 * m.score(),
                m.wins,
                m.losses,
                m.draws
            );
        }
    }
    line
}

/// The progress matches of `net`: against the reference network and the material baseline.
fn progress_matches(
    net: &Network,
    reference: &Arc<nn::Evaluator>,
    args: &SelfplayArgs,
) -> Result<(Option<MatchResult>, Option<MatchResult>), String> {
    if args.eval_games == 0 {
        return Ok((None, None));
    }
    let current = Arc::new(nn::Evaluator::new(net.clone(), "current").map_err(|e| e.to_string())?);
    let play = |opponent| {
        play_match(
            Player::Net(&current),
            opponent,
            args.eval_games,
            args.max_plies,
            args.eval_depth.unwrap_or(args.depth),
            args.seed,
        )
    };
    Ok((
        Some(play(Player::Net(reference))),
        Some(play(Player::Material)),
    ))
}

/// Path of the snapshot of `iteration` beside `out`: `weights/selfplay-0010.bin`.
pub fn snapshot_path(out: &Path, iteration: usize) -> PathBuf {
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "selfplay".to_string());
    out.with_file_name(format!("{stem}-{iteration:04}.bin"))
}

/// Runs the whole job: iterations of self-play and training, checkpoints, metrics. With
/// `--iterations 0` it only measures the starting network (e.g. `--init A --eval-opponent B`
/// compares two weights files).
pub fn run(args: &SelfplayArgs) -> Result<SelfplayReport, String> {
    validate(args)?;
    if args.threads > 0 {
        // Fails only if a pool exists already (tests run several jobs in one process).
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads)
            .build_global();
    }
    let optimizer = super::parse_optimizer(&args.optimizer)?;
    let start_net = match &args.init {
        Some(path) => load_network(path, "--init")?,
        None => nn::default_network(),
    };
    let reference_net = match &args.eval_opponent {
        Some(path) => load_network(path, "--eval-opponent")?,
        None => start_net.clone(),
    };
    let reference =
        Arc::new(nn::Evaluator::new(reference_net, "reference").map_err(|e| e.to_string())?);
    let mate_samples = if args.mate_share > 0.0 && args.mate_data.exists() {
        let s = matedata::load(&args.mate_data).map_err(|e| e.to_string())?;
        log::info!(
            "mixing in mate data from {} ({} positions)",
            args.mate_data.display(),
            s.len()
        );
        s
    } else {
        if args.mate_share > 0.0 {
            log::warn!(
                "{} not found: training on self-play data only",
                args.mate_data.display()
            );
        }
        Vec::new()
    };

    let config = TrainConfig {
        learning_rate: args.lr,
        optimizer,
        weight_decay: args.weight_decay,
        batch_size: args.batch_size,
        seed: args.seed,
        ..TrainConfig::default()
    };
    let mut trainer = Trainer::new(start_net, config).map_err(|e| e.to_string())?;
    fileio::create_parent_dir(&args.out).map_err(|e| e.to_string())?;
    let metrics_path = args.out.with_extension("csv");
    let mut csv = String::from(CSV_HEADER);
    let policy = Policy {
        temperature: args.temperature,
        depth: args.depth,
        epsilon: args.epsilon,
    };
    let mut window: VecDeque<Dataset> = VecDeque::new();
    let mut report = SelfplayReport {
        iterations: Vec::new(),
    };

    // Iteration 0: where the starting network stands.
    let started = Instant::now();
    let (eval, material) = progress_matches(trainer.network(), &reference, args)?;
    let baseline = IterationStats {
        eval,
        material,
        seconds: started.elapsed().as_secs_f64(),
        ..IterationStats::default()
    };
    csv.push_str(&csv_line(&baseline));
    fileio::write_atomic(&metrics_path, csv.as_bytes()).map_err(|e| e.to_string())?;
    eprintln!("{}", summary_line(&baseline, args.iterations));
    report.iterations.push(baseline);

    for iteration in 1..=args.iterations {
        let started = Instant::now();
        let net = Arc::new(
            nn::Evaluator::new(trainer.network().clone(), "selfplay").map_err(|e| e.to_string())?,
        );
        let pb = super::progress_bar(
            args.games as u64,
            "iteration {msg} {bar:30} {pos}/{len} games ({elapsed})",
        );
        pb.set_message(format!("{iteration}/{}", args.iterations));
        let records: Vec<GameRecord> = (0..args.games)
            .into_par_iter()
            .map(|g| {
                let seed = game_seed(args.seed, iteration as u64, g as u64);
                let r = play_selfplay_game(&net, policy, args.max_plies, args.random_plies, seed);
                pb.inc(1);
                r
            })
            .collect();
        pb.finish_and_clear();
        let generation_seconds = started.elapsed().as_secs_f64();
        let mut tally = GameTally::default();
        for r in &records {
            tally.add(r.status, r.plies());
        }

        let selfplay_data = games_to_dataset(&records, args.alpha, args.gamma);
        let positions = selfplay_data.len();
        window.push_back(selfplay_data);
        while window.len() > args.replay {
            window.pop_front();
        }
        let mut train = Dataset::new(nn::NUM_FEATURES);
        for d in &window {
            train.extend(d);
        }
        let mate_wanted = if mate_samples.is_empty() {
            0
        } else {
            (train.len() as f64 * args.mate_share / (1.0 - args.mate_share)).round() as usize
        };
        let mate = sample_mate_data(
            &mate_samples,
            mate_wanted,
            game_seed(args.seed, iteration as u64, u64::MAX - 1),
        )?;
        train.extend(&mate);

        let train_started = Instant::now();
        let mut train_loss = 0.0;
        for _ in 0..args.epochs {
            train_loss = trainer.train_epoch(&train).map_err(|e| e.to_string())?.loss;
        }
        let train_seconds = train_started.elapsed().as_secs_f64();
        nn::save_to_path(trainer.network(), &args.out).map_err(|e| e.to_string())?;
        if args.snapshot_every > 0 && iteration % args.snapshot_every == 0 {
            nn::save_to_path(trainer.network(), snapshot_path(&args.out, iteration))
                .map_err(|e| e.to_string())?;
        }

        let (eval, material) = if iteration % args.eval_every == 0 || iteration == args.iterations {
            progress_matches(trainer.network(), &reference, args)?
        } else {
            (None, None)
        };
        let stats = IterationStats {
            iteration,
            tally,
            positions,
            mate_positions: mate.len(),
            train_loss,
            generation_seconds,
            train_seconds,
            eval,
            material,
            seconds: started.elapsed().as_secs_f64(),
        };
        csv.push_str(&csv_line(&stats));
        fileio::write_atomic(&metrics_path, csv.as_bytes()).map_err(|e| e.to_string())?;
        eprintln!("{}", summary_line(&stats, args.iterations));
        report.iterations.push(stats);
    }
    eprintln!(
        "selfplay: weights {}, metrics {}",
        args.out.display(),
        metrics_path.display()
    );
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::EndReason;

    #[test]
    fn targets_follow_the_recursion() {
        // V(s_0..s_3) by hand, s_3 terminal (lost for its side to move).
        let v = [0.6f32, 0.3, 0.8, 0.1];
        let (a, g) = (0.5f32, 0.8f32);
        let t = td_targets(&v, 0.0, a, g);
        // R_3 = 0; R_2 = 1 − (0.2·0.1 + 0.8·0) = 0.98; R_1 = 1 − (0.2·0.8 + 0.8·0.98) = 0.056;
        // R_0 = 1 − (0.2·0.3 + 0.8·0.056) = 0.8952.
        let r = [0.8952f32, 0.056, 0.98, 0.0];
        for i in 0..4 {
            let want = 0.5 * v[i] + 0.5 * r[i];
            assert!((t[i] - want).abs() < 1e-5, "target {i}: {} vs {want}", t[i]);
        }
        // α = 1, γ = 1: pure Monte Carlo, alternating results seen from each side.
        assert_eq!(td_targets(&v, 0.0, 1.0, 1.0), vec![1.0, 0.0, 1.0, 0.0]);
        // A ply-limit draw propagates ½ everywhere when the values are ½.
        assert_eq!(td_targets(&[0.5; 3], 0.5, 0.7, 0.9), vec![0.5; 3]);
        // α = 0 keeps the network's own values.
        assert_eq!(td_targets(&v, 1.0, 0.0, 0.3), v.to_vec());
        assert!(td_targets(&[], 0.0, 0.5, 0.5).is_empty());
    }

    #[test]
    fn choice_is_greedy_at_zero_temperature_and_follows_the_softmax() {
        let mut rng = SmallRng::seed_from_u64(3);
        assert_eq!(choose(&[0.1, 2.0, -1.0, 2.0], 0.0, &mut rng), 1);
        let mut counts = [0usize; 2];
        for _ in 0..4000 {
            counts[choose(&[0.0, 1.0f32.ln() + 1.0], 1.0, &mut rng)] += 1;
        }
        // p(1) = e / (1 + e) ≈ 0.731.
        let p1 = counts[1] as f64 / 4000.0;
        assert!((p1 - 0.731).abs() < 0.03, "{p1}");
    }

    #[test]
    fn games_are_legal_and_deterministic() {
        let net = Arc::new(nn::Evaluator::with_default_network());
        let searching = Policy {
            temperature: 0.5,
            depth: 2,
            epsilon: 0.2,
        };
        for seed in 0..8 {
            // The last two games choose their moves by a depth-2 search.
            let policy = if seed < 6 {
                Policy::one_ply(0.5)
            } else {
                searching
            };
            let r = play_selfplay_game(&net, policy, 60, 4, seed);
            assert_eq!(r.positions.len(), r.moves.len() + 1);
            assert_eq!(r.values.len(), r.positions.len());
            assert!(r.status.is_over());
            let mut game = Game::startpos();
            game.set_max_plies(Some(60));
            for (i, &mv) in r.moves.iter().enumerate() {
                assert_eq!(game.position(), &r.positions[i]);
                assert!(game.position().is_legal(mv), "game {seed} ply {i}: {mv}");
                game.play(mv).unwrap();
            }
            assert_eq!(game.position(), r.positions.last().unwrap());
            assert_eq!(game.status(), r.status);
            if let GameStatus::Draw(reason) = r.status {
                assert_eq!(reason, EndReason::MaxPlies);
                assert_eq!(r.plies(), 60);
            }
            let again = play_selfplay_game(&net, policy, 60, 4, seed);
            assert_eq!(again.moves, r.moves);
            assert_eq!(again.values, r.values);
        }
    }

    #[test]
    fn final_return_is_from_the_last_side_to_move() {
        let net = Arc::new(nn::Evaluator::with_default_network());
        let r = play_selfplay_game(&net, Policy::one_ply(1.0), 200, 4, 11);
        let last = r.positions.last().unwrap();
        match r.status {
            GameStatus::Win { winner, reason } => {
                let expected = if winner == last.side_to_move() {
                    1.0
                } else {
                    0.0
                };
                assert_eq!(r.final_return(), expected);
                if matches!(reason, EndReason::Checkmate | EndReason::NoLegalMove) {
                    assert_eq!(r.final_return(), 0.0);
                }
            }
            _ => assert_eq!(r.final_return(), 0.5),
        }
    }

    #[test]
    fn a_network_scores_half_against_itself() {
        let net = Arc::new(nn::Evaluator::with_default_network());
        // Each opening is played from both sides by the same deterministic player, so every
        // pair scores exactly one point in total; one-ply and with a depth-2 search.
        for depth in [0, 2] {
            let m = play_match(Player::Net(&net), Player::Net(&net), 8, 60, depth, 5);
            assert_eq!(m.games, 8);
            assert_eq!(m.wins + m.losses + m.draws, 8);
            assert_eq!(m.score(), 0.5, "depth {depth}");
        }
        // The material player plays, with or without search.
        for depth in [0, 2] {
            let m = play_match(Player::Net(&net), Player::Material, 4, 40, depth, 5);
            assert_eq!(m.wins + m.losses + m.draws, 4, "depth {depth}");
        }
    }

    #[test]
    fn material_counts_board_and_hands_for_the_side_to_move() {
        let start = Position::startpos();
        assert_eq!(material(&start), 0.0);
        let mut pos = start.clone();
        pos.set_hand_count(Color::Sente, PieceKind::Rook, 1);
        assert_eq!(material(&pos), 10.0);
        pos.set_side_to_move(Color::Gote);
        assert_eq!(material(&pos), -10.0);
        assert_eq!(
            snapshot_path(Path::new("w/selfplay.bin"), 7),
            Path::new("w/selfplay-0007.bin")
        );
    }

    #[test]
    fn bad_options_are_refused_with_their_names() {
        let mut args = SelfplayArgs {
            alpha: 1.5,
            ..SelfplayArgs::default()
        };
        assert!(run(&args).unwrap_err().contains("--alpha"));
        args.alpha = 0.5;
        args.mate_share = 1.0;
        assert!(run(&args).unwrap_err().contains("--mate-share"));
        args.mate_share = 0.3;
        args.optimizer = "rmsprop".into();
        assert!(run(&args).unwrap_err().contains("rmsprop"));
    }

    #[test]
    fn tiny_run_writes_weights_and_metrics_deterministically() {
        let dir = std::env::temp_dir().join(format!("selfplay-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A small mate data set to mix in.
        let mate_path = dir.join("mate.bin");
        let samples = matedata::generate(
            &matedata::MateGenConfig {
                positions: 200,
                seed: 2,
            },
            |_, _| {},
        );
        matedata::save(&mate_path, &samples).unwrap();
        let init = Network::new(&[nn::NUM_FEATURES, 16, 8, 1], nn::Activation::Relu, 4).unwrap();
        let init_path = dir.join("init.bin");
        nn::save_to_path(&init, &init_path).unwrap();
        let run_once = |name: &str| {
            let args = SelfplayArgs {
                iterations: 2,
                games: 8,
                max_plies: 60,
                init: Some(init_path.clone()),
                out: dir.join(name),
                mate_data: mate_path.clone(),
                eval_games: 4,
                replay: 2,
                snapshot_every: 2,
                ..SelfplayArgs::default()
            };
            let report = run(&args).unwrap();
            (report, nn::load_from_path(dir.join(name)).unwrap())
        };
        let (report, net) = run_once("a.bin");
        assert_eq!(report.iterations.len(), 3);
        let baseline = &report.iterations[0];
        assert_eq!(baseline.tally.games, 0);
        assert_eq!(
            baseline.eval.unwrap().score(),
            0.5,
            "the start network against itself"
        );
        assert_eq!(baseline.material.unwrap().games, 4);
        assert_eq!(net.sizes(), vec![nn::NUM_FEATURES, 16, 8, 1]);
        assert_ne!(net, init, "training changed the weights");
        for s in &report.iterations[1..] {
            assert_eq!(s.tally.games, 8);
            assert!(s.positions > 8);
            assert!(s.mate_positions > 0);
            assert!(s.train_loss.is_finite());
            assert_eq!(s.eval.unwrap().games, 4);
            assert_eq!(s.material.unwrap().games, 4);
        }
        assert!(dir.join("a-0002.bin").exists(), "snapshot of iteration 2");
        let csv = std::fs::read_to_string(dir.join("a.csv")).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(format!("{}\n", lines[0]), CSV_HEADER);
        let columns = CSV_HEADER.trim_end().split(',').count();
        assert!(lines[1..].iter().all(|l| l.split(',').count() == columns));
        assert!(lines[1].starts_with("0,0,0,"));
        assert!(lines[3].starts_with("2,8,"));

        let (again, net_again) = run_once("b.bin");
        assert_eq!(net_again, net, "same seed, same weights");
        for (x, y) in report.iterations.iter().zip(&again.iterations) {
            assert_eq!(x.tally, y.tally);
            assert_eq!(x.positions, y.positions);
            assert_eq!(x.eval, y.eval);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
