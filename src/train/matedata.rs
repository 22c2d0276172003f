//! The pretraining data set of the seed's design: positions where the side to move is mated
//! (value 0) and positions where the side to move has a mating move (value 1), harvested from
//! biased random playouts, deduplicated by key, every label verified by the rules.

use std::collections::HashSet;
use std::path::Path;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::packed::PackedPosition;
use crate::fileio::{self, FileError};
use crate::shogi::{Move, Position};

/// One labelled position: `target` is 0.0 for mated, 1.0 for mate-in-one available.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MateSample {
    pub position: PackedPosition,
    pub target: f32,
}

#[derive(Clone, Copy, Debug)]
pub struct MateGenConfig {
    /// Total positions, split half mated, half pre-mate.
    pub positions: usize,
    pub seed: u64,
}

impl Default for MateGenConfig {
    fn default() -> Self {
        MateGenConfig {
            positions: 360_000,
            seed: 1,
        }
    }
}

/// Candidates found by one chunk of playouts, in discovery order.
#[derive(Default)]
struct Harvest {
    mated: Vec<Position>,
    pre_mate: Vec<Position>,
}

/// Playouts per chunk; chunks run in parallel and merge in index order, so the result depends on
/// the seed only, not on the number of threads.
const PLAYOUTS_PER_CHUNK: usize = 64;
const CHUNKS_PER_ROUND: u64 = 32;
const MAX_PLAYOUT_PLIES: usize = 160;

/// Moves that give checkmate: checks after which the opponent has no legal move.
pub fn mating_moves(pos: &Position) -> Vec<Move> {
    pos.legal_moves()
        .iter()
        .copied()
        .filter(|&m| pos.gives_check(m) && !pos.after(m).has_legal_move())
        .collect()
}

/// Picks a random legal move, weighting captures, checks, promotions and drops up so that
/// playouts reach mating patterns quickly.
fn biased_move(pos: &Position, moves: &[Move], rng: &mut SmallRng) -> Move {
    let mut weights = [0u32; 256];
    let mut total = 0;
    for (i, &m) in moves.iter().enumerate() {
        let mut w = 2;
        if pos.piece_at(m.to()).is_some() {
            w += 8;
        }
        if m.is_promotion() {
            w += 4;
        }
        if m.is_drop() {
            w += 1;
        }
        if pos.gives_check(m) {
            w += 6;
        }
        weights[i] = w;
        total += w;
    }
    let mut pick = rng.gen_range(0..total);
    for (i, &w) in weights[..moves.len()].iter().enumerate() {
        if pick < w {
            return moves[i];
        }
        pick -= w;
    }
    moves[moves.len() - 1]
}

fn playout(rng: &mut SmallRng, harvest: &mut Harvest) {
    let mut pos = Position::startpos();
    // Varied openings: a few uniformly random moves first.
    let opening_plies = rng.gen_range(0..6);
    for ply in 0..MAX_PLAYOUT_PLIES {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            if pos.in_check() {
                harvest.mated.push(pos.clone());
            }
            return;
        }
        let mates = mating_moves(&pos);
        if !mates.is_empty() {
            harvest.pre_mate.push(pos.clone());
            for &m in &mates {
                harvest.mated.push(pos.after(m));
            }
            // Usually the game ends here; sometimes play on to find other patterns.
            if rng.gen_bool(0.7) {
                return;
            }
        }
        let mv = if ply < opening_plies {
            moves[rng.gen_range(0..moves.len())]
        } else {
            biased_move(&pos, &moves, rng)
        };
        pos.make_move(mv);
    }
}

fn run_chunk(seed: u64, chunk: u64) -> Harvest {
    // SplitMix-style mixing gives each chunk an independent stream.
    let mixed =
        (seed ^ chunk.wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let mut rng = SmallRng::seed_from_u64(mixed);
    let mut harvest = Harvest::default();
    for _ in 0..PLAYOUTS_PER_CHUNK {
        playout(&mut rng, &mut harvest);
    }
    harvest
}

/// Generates `config.positions` distinct labelled positions (half each label), calling
/// `progress(done, total)` as they accumulate. Uses rayon's global pool.
pub fn generate(config: &MateGenConfig, mut progress: impl FnMut(usize, usize)) -> Vec<MateSample> {
    let want_mated = config.positions / 2;
    let want_pre = config.positions - want_mated;
    let mut seen = HashSet::with_capacity(config.positions * 2);
    let mut mated = Vec::with_capacity(want_mated);
    let mut pre = Vec::with_capacity(want_pre);
    let mut next_chunk = 0u64;
    while mated.len() < want_mated || pre.len() < want_pre {
        let chunks: Vec<Harvest> = (next_chunk..next_chunk + CHUNKS_PER_ROUND)
            .into_par_iter()
            .map(|c| run_chunk(config.seed, c))
            .collect();
        next_chunk += CHUNKS_PER_ROUND;
        for h in chunks {
            for p in h.mated {
                if mated.len() < want_mated && seen.insert(p.key()) {
                    mated.push(p);
                }
            }
            for p in h.pre_mate {
                if pre.len() < want_pre && seen.insert(p.key()) {
                    pre.push(p);
                }
            }
        }
        progress(mated.len() + pre.len(), config.positions);
    }
    // Interleave the labels so that any prefix (and the validation split) is balanced.
    let mut samples = Vec::with_capacity(config.positions);
    let mut mated = mated.into_iter();
    let mut pre = pre.into_iter();
    loop {
        let a = mated.next().map(|p| MateSample {
            position: PackedPosition::pack(&p),
            target: 0.0,
        });
        let b = pre.next().map(|p| MateSample {
            position: PackedPosition::pack(&p),
            target: 1.0,
        });
        if a.is_none() && b.is_none() {
            break;
        }
        samples.extend(a);
        samples.extend(b);
    }
    samples
}

const DATA_MAGIC: &[u8; 8] = b"MSMATE01";
const DATA_VERSION: u32 = 1;

/// Saves the data set (atomic write, versioned header, checksum).
pub fn save(path: &Path, samples: &[MateSample]) -> Result<(), FileError> {
    fileio::save(path, DATA_MAGIC, DATA_VERSION, &samples)
}

/// Loads a data set written by `save`; a corrupt or foreign file is a clear error, and so is
/// a sample whose packed position is out of range.
pub fn load(path: &Path) -> Result<Vec<MateSample>, FileError> {
    let samples: Vec<MateSample> = fileio::load(path, DATA_MAGIC, DATA_VERSION)?;
    if let Some(i) = samples.iter().position(|s| s.position.unpack().is_none()) {
        return Err(FileError::Decode {
            path: path.to_path_buf(),
            error: format!("sample {i} holds an invalid position"),
        });
    }
    Ok(samples)
}

/// Checks a label against the rules: mated = in check with no legal move; pre-mate = some
/// legal move checkmates.
pub fn label_is_correct(pos: &Position, target: f32) -> bool {
    if target == 0.0 {
        pos.in_check() && !pos.has_legal_move()
    } else {
        pos.legal_moves()
            .iter()
            .any(|&m| pos.after(m).is_checkmate())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_labels_are_verified_by_the_rules() {
        let config = MateGenConfig {
            positions: 2000,
            seed: 7,
        };
        let samples = generate(&config, |_, _| {});
        assert_eq!(samples.len(), 2000);
        let mated = samples.iter().filter(|s| s.target == 0.0).count();
        assert_eq!(mated, 1000);
        let mut keys = HashSet::new();
        let mut gote_to_move = 0;
        for s in &samples {
            let pos = s.position.unpack().unwrap();
            assert!(label_is_correct(&pos, s.target), "{}", pos.to_sfen());
            assert!(keys.insert(pos.key()), "duplicate {}", pos.to_sfen());
            if pos.side_to_move() == crate::shogi::Color::Gote {
                gote_to_move += 1;
            }
        }
        // Both colours to move are represented.
        assert!(gote_to_move > 200 && gote_to_move < 1800, "{gote_to_move}");
    }

    #[test]
    fn data_file_round_trips() {
        let samples = generate(
            &MateGenConfig {
                positions: 100,
                seed: 5,
            },
            |_, _| {},
        );
        let path = std::env::temp_dir().join(format!("matedata-{}.bin", std::process::id()));
        save(&path, &samples).unwrap();
        assert_eq!(load(&path).unwrap(), samples);
        std::fs::write(&path, b"garbage").unwrap();
        assert!(load(&path).is_err());
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn generation_is_deterministic() {
        let config = MateGenConfig {
            positions: 300,
            seed: 3,
        };
        assert_eq!(generate(&config, |_, _| {}), generate(&config, |_, _| {}));
    }
}
