//! Which book move to play: when the book is consulted at all (the game's ply), and how one of
//! a position's moves is chosen. Depends only on the rules core (and the book's types).

use rand::Rng;

use super::format::{BookEntry, BookMove};
use crate::shogi::Position;

/// The book is used while the game's ply is below this (USI `BookMaxPly`'s default): the
/// opening proper of a 5五将棋 game, after which the search knows better than a book.
pub const DEFAULT_MAX_PLY: u32 = 16;

/// How a move is chosen among a position's book moves (USI `BookMoveChoice`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveChoice {
    /// The highest value; among equal values the highest count; then the first in the book.
    Best,
    /// At random, each move as likely as its count (moves of count 0 are never drawn).
    Weighted,
}

impl MoveChoice {
    /// Weighted by default: a book's counts say how often each move was chosen (by players,
    /// or as near-best by the search), and playing them alike varies the engine's games.
    pub const DEFAULT: MoveChoice = MoveChoice::Weighted;

    /// Every choice, the default first.
    pub const ALL: [MoveChoice; 2] = [MoveChoice::DEFAULT, MoveChoice::Best];

    pub const fn name(self) -> &'static str {
        match self {
            MoveChoice::Best => "best",
            MoveChoice::Weighted => "weighted",
        }
    }

    /// From its name, in any case.
    pub fn from_name(name: &str) -> Option<MoveChoice> {
        MoveChoice::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }
}

/// Plies played before `pos` in its game: its SFEN move number less one (0 at the start).
pub fn game_ply(pos: &Position) -> u32 {
    pos.move_number().saturating_sub(1)
}

/// Whether the book applies at `pos`: its game ply is below `max_ply`.
pub fn within_book_plies(pos: &Position, max_ply: u32) -> bool {
    game_ply(pos) < max_ply
}

/// The move to play among `entry`'s moves that `playable` accepts, or `None` if there is none.
/// [`MoveChoice::Weighted`] falls back to the best move when every candidate has count 0.
pub fn choose<'a>(
    entry: &'a BookEntry,
    choice: MoveChoice,
    playable: impl Fn(&BookMove) -> bool,
    rng: &mut impl Rng,
) -> Option<&'a BookMove> {
    let candidates: Vec<&BookMove> = entry.moves.iter().filter(|m| playable(m)).collect();
    let best = || {
        candidates
            .iter()
            .copied()
            .fold(None, |best: Option<&BookMove>, m| match best {
                Some(b) if (b.value, b.count) >= (m.value, m.count) => Some(b),
                _ => Some(m),
            })
    };
    match choice {
        MoveChoice::Best => best(),
        MoveChoice::Weighted => {
            // Counts summed as u128: a book's counts may be anything up to u64::MAX.
            let total: u128 = candidates.iter().map(|m| u128::from(m.count)).sum();
            if total == 0 {
                return best();
            }
            let mut draw = rng.gen_range(0..total);
            for m in &candidates {
                let count = u128::from(m.count);
                if draw < count {
                    return Some(m);
                }
                draw -= count;
            }
            unreachable!("the draw is below the total of the counts")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::format::read;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    fn entry(lines: &str) -> BookEntry {
        let text = format!("sfen rbsgk/4p/5/P4/KGSBR b - 1\n{lines}");
        read(&text)
            .unwrap()
            .book
            .get(&Position::startpos())
            .unwrap()
            .clone()
    }

    fn name(m: Option<&BookMove>) -> String {
        m.map_or("-".to_string(), |m| m.mv.to_string())
    }

    #[test]
    fn best_is_the_highest_value_then_count_then_the_first() {
        let mut rng = SmallRng::seed_from_u64(1);
        let all = |_: &BookMove| true;
        let e = entry("3e3d none 10 0 1\n5e4d none 30 0 1\n4e4d none 30 0 5\n1e1d none 30 0 5\n");
        assert_eq!(name(choose(&e, MoveChoice::Best, all, &mut rng)), "4e4d");
        let not_4e4d = |m: &BookMove| m.mv.to_string() != "4e4d";
        assert_eq!(
            name(choose(&e, MoveChoice::Best, not_4e4d, &mut rng)),
            "1e1d"
        );
        assert_eq!(name(choose(&e, MoveChoice::Best, |_| false, &mut rng)), "-");
    }

    #[test]
    fn weighted_draws_by_count() {
        let mut rng = SmallRng::seed_from_u64(7);
        let e = entry("3e3d none -50 0 3\n5e4d none 90 0 1\n4e4d none 99 0 0\n");
        let mut drawn = std::collections::BTreeMap::new();
        for _ in 0..4000 {
            let m = choose(&e, MoveChoice::Weighted, |_| true, &mut rng);
            *drawn.entry(name(m)).or_insert(0) += 1;
        }
        assert_eq!(drawn.len(), 2, "{drawn:?}");
        let share = f64::from(drawn["3e3d"]) / 4000.0;
        assert!((share - 0.75).abs() < 0.03, "{drawn:?}");
        // All counts 0: the best move.
        let e = entry("3e3d none -50 0 0\n5e4d none 90 0 0\n");
        assert_eq!(
            name(choose(&e, MoveChoice::Weighted, |_| true, &mut rng)),
            "5e4d"
        );
        let huge = entry(&format!(
            "3e3d none 0 0 {}\n5e4d none 0 0 {}\n",
            u64::MAX,
            u64::MAX
        ));
        assert!(choose(&huge, MoveChoice::Weighted, |_| true, &mut rng).is_some());
    }

    #[test]
    fn names_and_plies() {
        assert_eq!(MoveChoice::from_name("BEST"), Some(MoveChoice::Best));
        assert_eq!(
            MoveChoice::from_name("weighted"),
            Some(MoveChoice::Weighted)
        );
        assert_eq!(MoveChoice::from_name("random"), None);
        let mut pos = Position::startpos();
        assert_eq!(game_ply(&pos), 0);
        assert!(within_book_plies(&pos, 1) && !within_book_plies(&pos, 0));
        pos.set_move_number(17);
        assert!(within_book_plies(&pos, 17) && !within_book_plies(&pos, 16));
    }
}
