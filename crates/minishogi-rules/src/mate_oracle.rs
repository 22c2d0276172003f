//! A brute-force mate checker: the test oracle for the mate solver and the generator of the
//! mate test positions (`examples/search_data.rs`). Exponential; for a few plies only.

use crate::position::Position;

/// The side to move wins within `plies` plies against any defence, over all moves (or, with
/// `checks_only`, over checking moves only; the loser is the side left without a legal move).
/// Repetitions cannot matter within 5 plies.
pub fn wins_within(pos: &Position, plies: u32, checks_only: bool) -> bool {
    if plies == 0 {
        return false;
    }
    pos.legal_moves().iter().any(|&mv| {
        if checks_only && !pos.gives_check(mv) {
            return false;
        }
        loses_within(&pos.after(mv), plies - 1, checks_only)
    })
}

/// The side to move loses within `plies` plies whatever it plays.
pub fn loses_within(pos: &Position, plies: u32, checks_only: bool) -> bool {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return true;
    }
    plies > 0
        && moves
            .iter()
            .all(|&mv| wins_within(&pos.after(mv), plies - 1, checks_only))
}

/// Shortest forced win in plies (odd, up to `max`), or None.
pub fn shortest_win(pos: &Position, max: u32, checks_only: bool) -> Option<u32> {
    (1..=max)
        .step_by(2)
        .find(|&n| wins_within(pos, n, checks_only))
}
