//! Mate in one: a legal move after which the opponent is in check with no legal reply.
//!
//! The search asks this at interior and quiescence nodes, where a mating drop is the commonest
//! tactic of a drop game and the cheapest to find: only checking moves are tried, and each is
//! refuted by the first legal evasion found. 打ち歩詰め needs no care here, because the move
//! generator never produces a mating pawn drop.

use super::bitboard;
use super::movegen::MoveList;
use super::position::Position;
use super::types::{Move, PieceKind};

impl Position {
    /// Whether the legal move `mv` leaves the opponent with no legal reply (the position is
    /// restored).
    fn leaves_no_reply(&mut self, mv: Move) -> bool {
        let undo = self.make_move(mv);
        let mated = !self.has_legal_move();
        self.unmake_move(mv, undo);
        mated
    }

    /// A move of `moves` (the legal moves of this position) that checkmates at once, if any;
    /// the first such in list order. The position is restored before returning.
    pub fn mate_in_one_among(&mut self, moves: &MoveList) -> Option<Move> {
        let them = !self.side_to_move();
        // Without a king to mate there is no mate in one.
        self.king_square(them)?;
        moves
            .iter()
            .copied()
            .find(|&mv| self.gives_check(mv) && self.leaves_no_reply(mv))
    }

    /// A drop that checkmates at once, if any: the commonest mate of a drop game, found
    /// without generating the other moves (only drops next to, or in line with, the king are
    /// tried). Pawn drops are never tried: a mating one is illegal (打ち歩詰め). The side to
    /// move must not be in check (then a drop's legality is never in question).
    pub fn drop_mate_in_one(&mut self) -> Option<Move> {
        debug_assert!(!self.in_check());
        let us = self.side_to_move();
        let them = !us;
        let king = self.king_square(them)?;
        const DROPPABLE: [PieceKind; 4] = [
            PieceKind::Gold,
            PieceKind::Silver,
            PieceKind::Bishop,
            PieceKind::Rook,
        ];
        let empty = !self.occupied();
        for kind in DROPPABLE {
            if self.hand(us).count(kind) == 0 {
                continue;
            }
            // The squares a piece of ours attacks the king from: its attacks seen from the
            // king by a piece of theirs.
            for to in bitboard::attacks(them, kind, king, self.occupied()) & empty {
                let mv = Move::drop(kind, to);
                if self.leaves_no_reply(mv) {
                    return Some(mv);
                }
            }
        }
        None
    }

    /// A move that checkmates at once, if any (generates the legal moves itself).
    pub fn mate_in_one(&mut self) -> Option<Move> {
        let moves = self.legal_moves();
        self.mate_in_one_among(&moves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every legal move, made and judged by the generator: the brute-force answer.
    fn mating_moves(pos: &Position) -> Vec<Move> {
        pos.legal_moves()
            .iter()
            .copied()
            .filter(|&mv| pos.after(mv).is_checkmate())
            .collect()
    }

    #[test]
    fn finds_a_mating_drop() {
        // Gote's king in the corner, sente's gold on 2b... a gold drop on 1b mates.
        let mut pos = Position::from_sfen("4k/5/3G1/5/K4 b G 1").unwrap();
        let mv = pos.mate_in_one().expect("a mate in one");
        assert!(pos.after(mv).is_checkmate(), "{mv:?}");
        // The position is unchanged.
        assert_eq!(pos, Position::from_sfen("4k/5/3G1/5/K4 b G 1").unwrap());
    }

    #[test]
    fn agrees_with_brute_force_on_random_positions_with_drops() {
        let mut with_mate = 0;
        for mut pos in crate::testing::random_positions_with_drops(17, 4000) {
            let expected = mating_moves(&pos);
            let before = pos.clone();
            let found = pos.mate_in_one();
            assert_eq!(pos, before, "position changed");
            // The first mating move in generation order, or none.
            let first = pos
                .legal_moves()
                .iter()
                .copied()
                .find(|m| expected.contains(m));
            assert_eq!(found, first, "{}", pos.to_sfen());
            with_mate += usize::from(found.is_some());
        }
        // The sample must exercise both answers.
        assert!(
            with_mate > 100,
            "only {with_mate} positions with a mate in one"
        );
    }

    #[test]
    fn drop_mates_agree_with_brute_force() {
        let mut with_mate = 0;
        for mut pos in crate::testing::random_positions_with_drops(23, 4000) {
            if pos.in_check() {
                continue;
            }
            let mating_drops: Vec<Move> = mating_moves(&pos)
                .into_iter()
                .filter(|m| m.is_drop())
                .collect();
            let before = pos.clone();
            let found = pos.drop_mate_in_one();
            assert_eq!(pos, before, "position changed");
            match found {
                Some(mv) => {
                    assert!(mating_drops.contains(&mv), "{} {mv:?}", pos.to_sfen());
                    with_mate += 1;
                }
                None => assert!(mating_drops.is_empty(), "{}", pos.to_sfen()),
            }
        }
        assert!(
            with_mate > 50,
            "only {with_mate} positions with a mating drop"
        );
    }
}
