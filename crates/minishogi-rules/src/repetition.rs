//! 千日手 (fourfold repetition) and its perpetual-check exception: the one place that judges
//! them. The game record ([`Game`](super::Game)), the referee, the search (on its hot path,
//! over parallel slices of keys and check flags) and the mate solver all call these functions.
//!
//! A record is one entry per ply, oldest first, alternating sides to move (no null moves in
//! between): the Zobrist key of each position (board, hands, side to move) and whether the side
//! to move there is in check, i.e. whether the move that led there gave check.

use super::history::{EndReason, HistoryEntry};
use super::types::Color;

/// How many times a position must occur for 千日手.
pub const REPETITION_OCCURRENCES: usize = 4;

/// The keys of a record, by index.
pub trait Keys {
    fn key(&self, index: usize) -> u64;
}

/// The keys and check flags of a record, by index.
pub trait Record: Keys {
    /// Whether the side to move at `index` is in check (the move that led there gave check).
    fn in_check(&self, index: usize) -> bool;
}

impl Keys for [u64] {
    #[inline(always)]
    fn key(&self, index: usize) -> u64 {
        self[index]
    }
}

impl Keys for [HistoryEntry] {
    #[inline(always)]
    fn key(&self, index: usize) -> u64 {
        self[index].key
    }
}

impl Record for [HistoryEntry] {
    #[inline(always)]
    fn in_check(&self, index: usize) -> bool {
        self[index].in_check
    }
}

/// A record kept as two parallel slices, as the search keeps its path.
#[derive(Clone, Copy, Debug)]
pub struct Path<'a> {
    pub keys: &'a [u64],
    pub checks: &'a [bool],
}

impl Keys for Path<'_> {
    #[inline(always)]
    fn key(&self, index: usize) -> u64 {
        self.keys[index]
    }
}

impl Record for Path<'_> {
    #[inline(always)]
    fn in_check(&self, index: usize) -> bool {
        self.checks[index]
    }
}

/// A history followed by one more entry (a move under consideration), without copying.
struct Then<'a> {
    history: &'a [HistoryEntry],
    next: HistoryEntry,
}

impl Keys for Then<'_> {
    #[inline]
    fn key(&self, index: usize) -> u64 {
        self.history.get(index).map_or(self.next.key, |e| e.key)
    }
}

impl Record for Then<'_> {
    #[inline]
    fn in_check(&self, index: usize) -> bool {
        self.history
            .get(index)
            .map_or(self.next.in_check, |e| e.in_check)
    }
}

/// The loser of a repetition cycle and why.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct RepetitionVerdict {
    pub loser: Color,
    /// `Repetition` (sente loses) or `PerpetualCheck` (the checking side loses).
    pub reason: EndReason,
}

/// Where the position at some index occurred before (same side to move).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Occurrences {
    /// Occurrences counting the one at the index itself (so at least 2).
    pub count: usize,
    /// The oldest earlier occurrence.
    pub first: usize,
    /// The most recent earlier occurrence.
    pub latest: usize,
}

/// The earlier occurrences of `key` as the position at `index`: entries `index − 2`,
/// `index − 4`, … (the key includes the side to move, so only those can match), none below
/// `floor` (the search sets it above a null move). `None` when there is none. The entry at
/// `index` itself is not read, so it need not be stored yet.
#[inline(always)]
pub fn earlier_occurrences<K: Keys + ?Sized>(
    keys: &K,
    key: u64,
    index: usize,
    floor: usize,
) -> Option<Occurrences> {
    let mut latest = None;
    let mut first = index;
    let mut count = 1;
    let mut j = index;
    while j >= floor + 2 {
        j -= 2;
        if keys.key(j) == key {
            latest.get_or_insert(j);
            first = j;
            count += 1;
        }
    }
    Some(Occurrences {
        count,
        first,
        latest: latest?,
    })
}

/// Whether `key`, as the position at `index`, occurred before (same scan as
/// [`earlier_occurrences`], stopping at the first match).
#[inline]
pub fn repeats<K: Keys + ?Sized>(keys: &K, key: u64, index: usize, floor: usize) -> bool {
    let mut j = index;
    while j >= floor + 2 {
        j -= 2;
        if keys.key(j) == key {
            return true;
        }
    }
    false
}

/// Judges the cycle from entry `first` to entry `last`, which must hold the same position.
/// `side_to_move` is the side to move at `last`.
///
/// If exactly one side gave check with every one of its moves in the cycle, that side loses
/// (perpetual check); otherwise — no perpetual check, or both sides checking throughout —
/// sente loses.
#[inline]
pub fn cycle_verdict<R: Record + ?Sized>(
    record: &R,
    first: usize,
    last: usize,
    side_to_move: Color,
) -> RepetitionVerdict {
    debug_assert!(first < last && record.key(first) == record.key(last));
    // Entry j was reached by a move of the side not to move at j, and its check flag says
    // whether that move gave check. Entries with the parity of `last` were reached by
    // `!side_to_move`.
    let mut opponent_always_checked = true; // `!side_to_move`, who completed the cycle
    let mut mover_always_checked = true; // `side_to_move`
    for j in first + 1..=last {
        if (last - j).is_multiple_of(2) {
            opponent_always_checked &= record.in_check(j);
        } else {
            mover_always_checked &= record.in_check(j);
        }
    }
    match (opponent_always_checked, mover_always_checked) {
        (true, false) => RepetitionVerdict {
            loser: !side_to_move,
            reason: EndReason::PerpetualCheck,
        },
        (false, true) => RepetitionVerdict {
            loser: side_to_move,
            reason: EndReason::PerpetualCheck,
        },
        _ => RepetitionVerdict {
            loser: Color::Sente,
            reason: EndReason::Repetition,
        },
    }
}

/// The 千日手 verdict if entry `last` is the fourth (or later) occurrence of its position;
/// `None` otherwise. Judged over everything since the first occurrence.
#[inline]
pub fn fourfold_verdict<R: Record + ?Sized>(
    record: &R,
    last: usize,
    side_to_move: Color,
) -> Option<RepetitionVerdict> {
    let occ = earlier_occurrences(record, record.key(last), last, 0)?;
    if occ.count < REPETITION_OCCURRENCES {
        return None;
    }
    Some(cycle_verdict(record, occ.first, last, side_to_move))
}

/// The 千日手 verdict if the last entry of `history` is the fourth occurrence of its position;
/// `None` otherwise. `side_to_move` is the side to move in the last entry.
pub fn repetition_verdict(
    history: &[HistoryEntry],
    side_to_move: Color,
) -> Option<RepetitionVerdict> {
    let last = history.len().checked_sub(1)?;
    fourfold_verdict(history, last, side_to_move)
}

/// The 千日手 verdict if `next` followed `history` (a move under consideration), without
/// copying the history. `side_to_move` is the side to move at `next`.
pub fn repetition_verdict_after(
    history: &[HistoryEntry],
    next: HistoryEntry,
    side_to_move: Color,
) -> Option<RepetitionVerdict> {
    fourfold_verdict(&Then { history, next }, history.len(), side_to_move)
}

/// What a repetition inside a search tree comes to if the cycle is played on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Projection {
    /// The rules decide it: the fourth occurrence is reached (or will be) before any ply limit.
    Decided(RepetitionVerdict),
    /// The ply limit comes before the fourth occurrence: a draw.
    Draw,
}

/// The search's view of a repetition: if the position at `index` repeats an earlier one (not
/// below `floor`), the cycle since the latest earlier occurrence is assumed to go on until
/// 千日手 — judged over that cycle, or over everything since the first occurrence once the
/// fourth occurrence is there. A cycle that cannot reach its fourth occurrence before the ply
/// limit (`max_plies` counted in entries from index 0; `None` = no limit) is a draw. `None`
/// when the position has not occurred before.
///
/// With `root` (the index of the search's root), only a cycle closed inside the search is
/// projected: a position whose latest earlier occurrence is at or before `root` has been
/// reached again by moves the game already played, and the side that would lose the cycle
/// may still leave it, so it counts only at its real fourth occurrence (`None` then).
#[inline]
pub fn projected_verdict<R: Record + ?Sized>(
    record: &R,
    index: usize,
    floor: usize,
    root: Option<usize>,
    side_to_move: Color,
    max_plies: Option<u32>,
) -> Option<Projection> {
    let occ = earlier_occurrences(record, record.key(index), index, floor)?;
    if occ.count >= REPETITION_OCCURRENCES {
        return Some(Projection::Decided(cycle_verdict(
            record,
            occ.first,
            index,
            side_to_move,
        )));
    }
    if root.is_some_and(|root| occ.latest <= root) {
        return None;
    }
    if let Some(limit) = max_plies {
        let plies_to_fourth = (REPETITION_OCCURRENCES - occ.count) * (index - occ.latest);
        if (index + plies_to_fourth) as u64 > u64::from(limit) {
            return Some(Projection::Draw);
        }
    }
    Some(Projection::Decided(cycle_verdict(
        record,
        occ.latest,
        index,
        side_to_move,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(key: u64, in_check: bool) -> HistoryEntry {
        HistoryEntry { key, in_check }
    }

    #[test]
    fn occurrences_scan_same_side_only_and_respect_the_floor() {
        let keys: [u64; 7] = [1, 9, 1, 1, 1, 9, 1];
        // Index 6: same-side entries 4, 2, 0 all hold key 1 (index 3 has the other side).
        assert_eq!(
            earlier_occurrences(&keys[..], 1, 6, 0),
            Some(Occurrences {
                count: 4,
                first: 0,
                latest: 4
            })
        );
        assert_eq!(
            earlier_occurrences(&keys[..], 1, 6, 2).map(|o| o.count),
            Some(3)
        );
        assert_eq!(earlier_occurrences(&keys[..], 1, 6, 5), None);
        assert_eq!(earlier_occurrences(&keys[..], 7, 6, 0), None);
        assert!(repeats(&keys[..], 9, 7, 0));
        assert!(!repeats(&keys[..], 9, 7, 6));
        // The entry at the index itself is not read.
        assert!(repeats(&keys[..5], 1, 6, 0));
    }

    #[test]
    fn slices_history_and_appended_entry_agree() {
        // A B A B A B A: sente to move at A; gote checks with every move (leading to A).
        let mut h = vec![e(1, true)];
        for _ in 0..3 {
            h.extend([e(2, false), e(1, true)]);
        }
        let keys: Vec<u64> = h.iter().map(|e| e.key).collect();
        let checks: Vec<bool> = h.iter().map(|e| e.in_check).collect();
        let path = Path {
            keys: &keys,
            checks: &checks,
        };
        let expected = Some(RepetitionVerdict {
            loser: Color::Gote,
            reason: EndReason::PerpetualCheck,
        });
        assert_eq!(repetition_verdict(&h, Color::Sente), expected);
        assert_eq!(fourfold_verdict(&path, 6, Color::Sente), expected);
        let last = *h.last().unwrap();
        assert_eq!(
            repetition_verdict_after(&h[..6], last, Color::Sente),
            expected
        );
        assert_eq!(
            projected_verdict(&path, 6, 0, None, Color::Sente, None),
            expected.map(Projection::Decided)
        );
        // The second occurrence already projects the same verdict, unless the ply limit comes
        // first: the fourth occurrence would be at index 2 + 2 · 2 = 6.
        assert_eq!(
            projected_verdict(&path, 2, 0, None, Color::Sente, Some(6)),
            expected.map(Projection::Decided)
        );
        assert_eq!(
            projected_verdict(&path, 2, 0, None, Color::Sente, Some(5)),
            Some(Projection::Draw)
        );
        assert_eq!(
            projected_verdict(&path, 1, 0, None, Color::Gote, None),
            None
        );
        // With the root at index 1, the second occurrence (index 2) repeats only the game
        // before the search: not projected. Its third occurrence (index 4) closes a cycle
        // inside the search, and the fourth (index 6) is 千日手 wherever the root lies.
        assert_eq!(
            projected_verdict(&path, 2, 0, Some(1), Color::Sente, None),
            None
        );
        assert_eq!(
            projected_verdict(&path, 2, 0, Some(0), Color::Sente, None),
            None
        );
        assert_eq!(
            projected_verdict(&path, 4, 0, Some(1), Color::Sente, None),
            expected.map(Projection::Decided)
        );
        assert_eq!(
            projected_verdict(&path, 4, 0, Some(2), Color::Sente, None),
            None
        );
        assert_eq!(
            projected_verdict(&path, 6, 0, Some(5), Color::Sente, None),
            expected.map(Projection::Decided)
        );
    }
}
