//! Internal score scale: centipawn-like evaluations, rule-decided results (repetition) and
//! mates, all from the side to move's point of view, with ply-relative conversion for the TT.
//! Also the **stored score scale** of the files that keep search scores (datagen records,
//! `engine book search` values): [`to_stored`] and [`is_stored_mate`].

use super::Score;

/// Deepest ply the search stack holds (main search plus quiescence).
pub const MAX_PLY: usize = 128;
/// Deepest nominal iteration depth.
pub const MAX_DEPTH: i32 = 100;

pub const INFINITE: i32 = 32_001;
pub const MATE: i32 = 32_000;
pub const MATE_IN_MAX_PLY: i32 = MATE - MAX_PLY as i32;
/// A game decided by the repetition rules (千日手 or perpetual check) `ply` plies from the
/// root scores `RULE_WIN - ply`: below any mate, far above any evaluation.
pub const RULE_WIN: i32 = 20_000;
pub const RULE_WIN_IN_MAX_PLY: i32 = RULE_WIN - MAX_PLY as i32;
/// Evaluations are clamped to ±EVAL_LIMIT so that they never reach decided scores (owned by
/// `eval`, with the centipawn scale).
pub use crate::eval::EVAL_LIMIT;
pub const DRAW: i32 = 0;

#[inline(always)]
pub const fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

#[inline(always)]
pub const fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// Whether a score is a proven result (mate or repetition verdict), not an evaluation.
#[inline(always)]
pub const fn is_decided(v: i32) -> bool {
    v >= RULE_WIN_IN_MAX_PLY || v <= -RULE_WIN_IN_MAX_PLY
}

/// Converts a score relative to the root into one relative to the node at `ply`, for storing
/// in the transposition table (a mate found at ply 7 is "mate in n from here" in the table).
#[inline(always)]
pub const fn to_tt(v: i32, ply: usize) -> i32 {
    if v >= RULE_WIN_IN_MAX_PLY {
        v + ply as i32
    } else if v <= -RULE_WIN_IN_MAX_PLY {
        v - ply as i32
    } else {
        v
    }
}

/// Inverse of [`to_tt`].
#[inline(always)]
pub const fn from_tt(v: i32, ply: usize) -> i32 {
    if v >= RULE_WIN_IN_MAX_PLY {
        v - ply as i32
    } else if v <= -RULE_WIN_IN_MAX_PLY {
        v + ply as i32
    } else {
        v
    }
}

/// The public form of a root score. Repetition verdicts stay centipawn scores (the game is
/// decided but not by mate), so GUIs never show a false mate.
pub fn to_public(v: i32) -> Score {
    if v >= MATE_IN_MAX_PLY {
        Score::Mate(MATE - v)
    } else if v <= -MATE_IN_MAX_PLY {
        Score::Mate(-(MATE + v))
    } else {
        Score::Cp(v)
    }
}

/// The stored form of a public score, for files that keep search scores (datagen shards, book
/// values): centipawns, clamped to ±(MATE − 1001), or ±(MATE − plies) for a mate, plies capped
/// at 999 — so that every stored mate is above any stored centipawn value ([`is_stored_mate`]).
/// Changing `MATE` changes these files.
pub fn to_stored(score: Score) -> i32 {
    match score {
        Score::Cp(cp) => cp.clamp(-(MATE - 1001), MATE - 1001),
        Score::Mate(n) if n >= 0 => MATE - n.min(999),
        Score::Mate(n) => -(MATE - (-n).min(999)),
    }
}

/// Whether a stored score ([`to_stored`]) is a mate.
#[inline(always)]
pub const fn is_stored_mate(v: i32) -> bool {
    v.abs() > MATE - 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_scale_is_pinned() {
        // The numbers of the files: mates as ±(32000 − plies), centipawns below ±31000.
        assert_eq!(to_stored(Score::Mate(3)), 31_997);
        assert_eq!(to_stored(Score::Mate(-4)), -31_996);
        assert_eq!(to_stored(Score::Mate(0)), 32_000);
        assert_eq!(to_stored(Score::Mate(5000)), 31_001);
        assert_eq!(to_stored(Score::Mate(-5000)), -31_001);
        assert_eq!(to_stored(Score::Cp(123)), 123);
        assert_eq!(to_stored(Score::Cp(40_000)), 30_999);
        assert_eq!(to_stored(Score::Cp(-40_000)), -30_999);
        for v in [31_001, -31_001, 32_000, -31_997] {
            assert!(is_stored_mate(v), "{v}");
        }
        for v in [0, 30_999, -30_999, 31_000, -31_000] {
            assert!(!is_stored_mate(v), "{v}");
        }
    }

    #[test]
    fn tt_conversion_round_trips_and_keeps_distance_from_node() {
        // Mate in 9 plies from the root, seen at ply 4: from that node it is mate in 5.
        let root_relative = mate_in(9);
        let stored = to_tt(root_relative, 4);
        assert_eq!(stored, mate_in(5));
        assert_eq!(from_tt(stored, 4), root_relative);
        // The same entry found at ply 2 (a transposition) means mate in 7 from the root.
        assert_eq!(from_tt(stored, 2), mate_in(7));
        // Being mated, and repetition verdicts, convert the same way.
        assert_eq!(to_tt(mated_in(6), 6), mated_in(0));
        assert_eq!(from_tt(to_tt(mated_in(6), 6), 3), mated_in(3));
        assert_eq!(to_tt(RULE_WIN - 10, 4), RULE_WIN - 6);
        assert_eq!(to_tt(-(RULE_WIN - 10), 4), -(RULE_WIN - 6));
        // Evaluations are untouched.
        for v in [-EVAL_LIMIT, -1, 0, 57, EVAL_LIMIT] {
            assert_eq!(to_tt(v, 11), v);
            assert_eq!(from_tt(v, 11), v);
        }
    }

    #[test]
    fn public_scores() {
        assert_eq!(to_public(mate_in(1)), Score::Mate(1));
        assert_eq!(to_public(mated_in(4)), Score::Mate(-4));
        assert_eq!(to_public(123), Score::Cp(123));
        assert_eq!(to_public(RULE_WIN - 3), Score::Cp(RULE_WIN - 3));
    }
}
