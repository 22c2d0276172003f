//! Strength levels (USI `Skill_Level` 0–20, `USI_LimitStrength` with `USI_Elo`), weakened the
//! way Stockfish's `Skill` does it: a level searches at most a node budget, always over several
//! principal variations (MultiPV), and plays the best of those candidates after a
//! level-dependent push of their scores — partly towards the weaker moves, partly random. Level
//! 20 is full strength: no budget, no push.
//!
//! Every number of the levels lives here: the table of budgets, candidates and weakness
//! ([`LEVELS`]) and the Elo each calibrated level measured (`CALIBRATED_ELO`, from the matches
//! of `docs/levels.md`), which `USI_Elo` reads backwards.
//!
//! The random part is reproducible: it is drawn from the position's key and the skill's seed
//! (USI `Skill_Seed`), so the same seed and position give the same choice.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::shogi::Move;

/// Full strength.
pub const MAX_LEVEL: u32 = 20;

/// A level's search and choice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LevelParams {
    /// Nodes searched at most (the search always completes depth 1, whatever the budget).
    pub nodes: u64,
    /// Candidate moves searched as principal variations (at least this many MultiPV lines).
    pub multipv: usize,
    /// How far the choice strays from the best candidate, Stockfish's `weakness` in 1/128: a
    /// candidate's score is pushed up by `weakness / 128` of its gap to the best and by a
    /// random part of up to `weakness / 128` of the candidates' spread (at most
    /// [`NOISE_SPREAD_CP`]). At 128 the choice would be blind to the gaps.
    pub weakness: u32,
}

const fn level(nodes: u64, multipv: usize, weakness: u32) -> LevelParams {
    LevelParams {
        nodes,
        multipv,
        weakness,
    }
}

/// Levels 0 to 20 (row = level). Budgets grow geometrically (×1.35 a level) from depth 1 alone
/// up to the 20 000 nodes at which full strength was rated; weakness falls by 6 a level to 0.
/// Row 20's budget serves only to interpolate towards it (a `USI_Elo` between levels 19 and
/// 20): level 20 itself searches without a budget.
pub const LEVELS: [LevelParams; MAX_LEVEL as usize + 1] = [
    level(1, 6, 120),
    level(70, 6, 114),
    level(90, 6, 108),
    level(120, 6, 102),
    level(165, 5, 96),
    level(220, 5, 90),
    level(300, 5, 84),
    level(400, 4, 78),
    level(550, 4, 72),
    level(740, 4, 66),
    level(1_000, 4, 60),
    level(1_350, 3, 54),
    level(1_800, 3, 48),
    level(2_450, 3, 42),
    level(3_300, 3, 36),
    level(4_450, 2, 30),
    level(6_000, 2, 24),
    level(8_100, 2, 18),
    level(11_000, 1, 0),
    level(14_800, 1, 0),
    level(20_000, 1, 0),
];

/// The random part of the push is a share of the spread between the best and the last
/// candidate, at most this much: a pawn as material counts it (Stockfish caps it at its pawn).
pub const NOISE_SPREAD_CP: i32 = 100;

/// Elo of the calibrated levels, ascending in both: `USI_Elo` interpolates between them, and
/// its range is theirs. From `scripts/calibrate-levels.sh` with 300 games a match and the
/// embedded network of generation 3 (the table and the commands are in `docs/levels.md`): one
/// fit to matches between neighbouring levels and against full strength at 20 000 nodes a move;
/// the random mover, which lost every game to every level, is 0.
const CALIBRATED_ELO: [(u32, i32); 10] = [
    (0, 729),
    (3, 876),
    (6, 921),
    (9, 1090),
    (12, 1378),
    (15, 1648),
    (17, 1805),
    (18, 2007),
    (19, 2107),
    (20, 2158),
];

/// The lowest and highest `USI_Elo`.
pub fn elo_range() -> (i32, i32) {
    (
        CALIBRATED_ELO[0].1,
        CALIBRATED_ELO[CALIBRATED_ELO.len() - 1].1,
    )
}

/// What a whole level is worth on the `USI_Elo` scale (above 20 is 20), read through the
/// same table as [`Skill::from_elo`]: piecewise linearly between the calibrated levels around
/// it, halves to even (the table of `docs/levels.md`). For a page to show beside the level.
pub fn elo_of_level(level: u32) -> i32 {
    let level = level.min(MAX_LEVEL);
    let pair = CALIBRATED_ELO
        .windows(2)
        .find(|pair| level <= pair[1].0)
        .expect("the table reaches MAX_LEVEL");
    let ((l0, e0), (l1, e1)) = (pair[0], pair[1]);
    let share = (level - l0) as f64 / (l1 - l0) as f64;
    (e0 as f64 + share * (e1 - e0) as f64).round_ties_even() as i32
}

/// A strength: a level, possibly between two whole levels (from `USI_Elo`), and the seed of
/// its random choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skill {
    /// The level in hundredths, 0..=2000.
    centi_level: u32,
    seed: u64,
}

impl Skill {
    /// Full strength.
    pub const FULL: Skill = Skill {
        centi_level: MAX_LEVEL * 100,
        seed: 0,
    };

    /// Level `level` (above 20 is 20), choosing with `seed`.
    pub fn level(level: u32, seed: u64) -> Skill {
        Skill {
            centi_level: level.min(MAX_LEVEL) * 100,
            seed,
        }
    }

    /// The strength rated `elo` (clamped to [`elo_range`]): the level between the two
    /// calibrated levels around it, in proportion to the Elo.
    pub fn from_elo(elo: i32, seed: u64) -> Skill {
        let (low, high) = elo_range();
        let elo = elo.clamp(low, high);
        let centi_level = CALIBRATED_ELO
            .windows(2)
            .find(|pair| elo <= pair[1].1)
            .map_or(MAX_LEVEL * 100, |pair| {
                let ((l0, e0), (l1, e1)) = (pair[0], pair[1]);
                let share = (elo - e0) as f64 / (e1 - e0).max(1) as f64;
                (100.0 * (l0 as f64 + share * (l1 - l0) as f64)).round() as u32
            });
        Skill { centi_level, seed }
    }

    /// The level, with two decimals.
    pub fn level_value(&self) -> f64 {
        self.centi_level as f64 / 100.0
    }

    pub fn is_full(&self) -> bool {
        self.centi_level >= MAX_LEVEL * 100
    }

    /// What this strength searches and how it chooses; `None` at full strength. Between two
    /// levels the budget is interpolated geometrically and the weakness linearly; the
    /// candidates are the lower level's.
    pub fn params(&self) -> Option<LevelParams> {
        if self.is_full() {
            return None;
        }
        let below = (self.centi_level / 100) as usize;
        let share = (self.centi_level % 100) as f64 / 100.0;
        let (low, high) = (LEVELS[below], LEVELS[below + 1]);
        let nodes = (low.nodes as f64).powf(1.0 - share) * (high.nodes as f64).powf(share);
        let weakness = low.weakness as f64 + share * (high.weakness as f64 - low.weakness as f64);
        Some(LevelParams {
            nodes: nodes.round() as u64,
            multipv: low.multipv,
            weakness: weakness.round() as u32,
        })
    }

    /// The index of the candidate to play. `candidates` are the searched moves with their
    /// scores, best first (at least one); `key` is the position's, so that the choice is the
    /// same for the same seed and position. Stockfish's formula: each score is pushed up by
    /// `weakness` × (its gap to the best + a random share of the spread) / 128, and the highest
    /// pushed score is played. A mate or a lost piece is a gap no push bridges.
    pub fn pick(&self, candidates: &[(Move, i32)], key: u64) -> usize {
        let Some(params) = self.params().filter(|p| p.weakness > 0) else {
            return 0;
        };
        let Some(&(_, top)) = candidates.first() else {
            return 0;
        };
        let last = candidates[candidates.len() - 1].1;
        let weakness = params.weakness as i64;
        let spread = (top as i64 - last as i64).clamp(0, NOISE_SPREAD_CP as i64);
        let mut rng = StdRng::seed_from_u64(self.seed ^ key);
        let mut chosen = 0;
        let mut highest = i64::MIN;
        for (i, &(_, score)) in candidates.iter().enumerate() {
            let gap = top as i64 - score as i64;
            let push = (weakness * gap + spread * rng.gen_range(0..weakness)) / 128;
            let pushed = score as i64 + push;
            // As in Stockfish, a tie goes to the later (weaker) candidate.
            if pushed >= highest {
                highest = pushed;
                chosen = i;
            }
        }
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_weaken_steadily() {
        for pair in LEVELS.windows(2) {
            assert!(pair[0].nodes < pair[1].nodes, "{pair:?}");
            assert!(pair[0].multipv >= pair[1].multipv, "{pair:?}");
            assert!(pair[0].weakness >= pair[1].weakness, "{pair:?}");
        }
        for level in LEVELS {
            assert!(level.weakness < 128 && level.multipv >= 1, "{level:?}");
            // One candidate leaves nothing to choose: no weakness to pretend.
            assert_eq!(level.multipv == 1, level.weakness == 0, "{level:?}");
        }
    }

    #[test]
    fn calibration_table_ascends() {
        for pair in CALIBRATED_ELO.windows(2) {
            assert!(pair[0].0 < pair[1].0 && pair[0].1 < pair[1].1, "{pair:?}");
        }
        assert_eq!(CALIBRATED_ELO[0].0, 0);
        assert_eq!(CALIBRATED_ELO[CALIBRATED_ELO.len() - 1].0, MAX_LEVEL);
    }

    #[test]
    fn whole_levels_take_their_row_and_twenty_is_full() {
        for level in 0..MAX_LEVEL {
            assert_eq!(
                Skill::level(level, 1).params(),
                Some(LEVELS[level as usize])
            );
        }
        assert!(Skill::level(20, 1).is_full());
        assert_eq!(Skill::level(99, 1), Skill::level(20, 1));
        assert_eq!(Skill::level(20, 1).params(), None);
        assert!(Skill::FULL.is_full());
    }

    #[test]
    fn elo_maps_onto_levels_monotonically() {
        let (low, high) = elo_range();
        assert_eq!(Skill::from_elo(low, 0), Skill::level(0, 0));
        assert_eq!(Skill::from_elo(low - 500, 0), Skill::level(0, 0));
        assert!(Skill::from_elo(high, 0).is_full());
        assert!(Skill::from_elo(high + 500, 0).is_full());
        for &(level, elo) in &CALIBRATED_ELO {
            assert_eq!(Skill::from_elo(elo, 3), Skill::level(level, 3), "{elo}");
        }
        let mut previous = Skill::from_elo(low, 0);
        for elo in low..=high {
            let skill = Skill::from_elo(elo, 0);
            assert!(skill.centi_level >= previous.centi_level, "{elo}");
            if let (Some(a), Some(b)) = (previous.params(), skill.params()) {
                assert!(a.nodes <= b.nodes && a.weakness >= b.weakness, "{elo}");
            }
            previous = skill;
        }
    }

    #[test]
    fn whole_levels_are_worth_the_elo_docs_levels_lists() {
        // docs/levels.md, "USI_Elo → level".
        let listed = [
            729, 778, 827, 876, 891, 906, 921, 977, 1034, 1090, 1186, 1282, 1378, 1468, 1558, 1648,
            1726, 1805, 2007, 2107, 2158,
        ];
        for (level, &elo) in listed.iter().enumerate() {
            assert_eq!(elo_of_level(level as u32), elo, "level {level}");
        }
        assert_eq!(elo_of_level(99), 2158);
        for &(level, elo) in &CALIBRATED_ELO {
            assert_eq!(elo_of_level(level), elo);
        }
        // Read back, each lands on its level (to the hundredth a rounded Elo allows).
        for level in 0..=MAX_LEVEL {
            let back = Skill::from_elo(elo_of_level(level), 0).level_value();
            assert!((back - level as f64).abs() <= 0.02, "{level}: {back}");
        }
    }

    #[test]
    fn between_levels_the_budget_and_weakness_are_between_theirs() {
        let skill = Skill {
            centi_level: 950,
            seed: 0,
        };
        let p = skill.params().unwrap();
        assert!(
            LEVELS[9].nodes < p.nodes && p.nodes < LEVELS[10].nodes,
            "{p:?}"
        );
        assert_eq!(p.weakness, (LEVELS[9].weakness + LEVELS[10].weakness) / 2);
        assert_eq!(p.multipv, LEVELS[9].multipv);
        let top = Skill {
            centi_level: 1999,
            seed: 0,
        };
        assert!(top.params().unwrap().nodes <= LEVELS[20].nodes);
    }

    fn candidates(scores: &[i32]) -> Vec<(Move, i32)> {
        scores.iter().map(|&s| (Move::NULL, s)).collect()
    }

    fn choices(level: u32, scores: &[i32]) -> Vec<usize> {
        let c = candidates(scores);
        let mut counts = vec![0; c.len()];
        for key in 0..2000u64 {
            counts[Skill::level(level, 7).pick(&c, key.wrapping_mul(0x9E37_79B9_7F4A_7C15))] += 1;
        }
        counts
    }

    #[test]
    fn low_levels_stray_among_close_moves_high_levels_do_not() {
        let close = [30, 20, 10, 0];
        let weakest = choices(0, &close);
        assert!(weakest.iter().all(|&n| n > 200), "{weakest:?}");
        let strong = choices(17, &close);
        assert!(strong[0] > 1900, "{strong:?}");
        assert_eq!(choices(19, &close)[0], 2000);
        assert_eq!(choices(20, &close)[0], 2000);
    }

    #[test]
    fn no_level_gives_away_a_mate_and_only_level_0_a_rook() {
        // The best candidate mates; the others are ordinary.
        let mate = [31_990, 40, 20, 0];
        // The last candidate loses a rook (~10 pawns) against the others: a gap that only
        // weakness 120 (level 0) can bridge, as the push is at most 100 · w / (128 − w) cp.
        let blunder = [50, 40, 30, -1_000];
        for level in 0..=MAX_LEVEL {
            assert_eq!(choices(level, &mate)[0], 2000, "level {level}");
            let rook_lost = choices(level, &blunder)[3];
            assert_eq!(rook_lost > 0, level == 0, "level {level}: {rook_lost}");
        }
    }

    #[test]
    fn the_choice_is_reproducible_and_follows_the_seed() {
        let c = candidates(&[10, 5, 0, -5]);
        let picks = |seed| -> Vec<usize> {
            (0..64u64)
                .map(|key| Skill::level(0, seed).pick(&c, key << 20))
                .collect()
        };
        assert_eq!(picks(1), picks(1));
        assert_ne!(picks(1), picks(2));
        assert_eq!(Skill::level(5, 1).pick(&c[..1], 9), 0);
    }
}
