//! Whether one move is legal, without generating the others: the search tries its
//! transposition table's move before generating anything, and that move may be garbage (a
//! collision, or a move of another position). The test answers exactly "would the generator
//! (`movegen`) produce it", by the generator's own rules: the same encodings, pins and king
//! safety, check evasions, promotions, and the pawn-drop rules (whose owner is `movegen`'s
//! `pawn_drop_squares`). The tests hold it to the generated lists over random positions.

use super::bitboard::{self, Bitboard};
use super::movegen::GenKind;
use super::position::Position;
use super::types::{Move, Piece, PieceKind, Square};

/// `Move::raw`'s fields: destination, origin or dropped kind, then the promotion and drop
/// flags; the generator never sets a bit above them.
const SQUARE_BITS: u16 = 31;
const USED_BITS: u16 = (1 << 12) - 1;

impl Position {
    /// Whether `mv` is legal here (a move from the TT, the user or a book): exactly whether
    /// [`Position::legal_moves`] contains it, for any `Move` value.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.generates(GenKind::All, mv)
    }

    /// Whether [`Position::generate`] with `kind` yields `mv`, for any `Move` value.
    pub fn generates(&self, kind: GenKind, mv: Move) -> bool {
        let raw = mv.raw();
        let to = raw & SQUARE_BITS;
        let field = (raw >> 5) & SQUARE_BITS;
        if raw & !USED_BITS != 0 || usize::from(to) >= Square::COUNT {
            return false;
        }
        let to = Square::from_index(usize::from(to));
        if mv.is_drop() {
            if mv.is_promotion() || usize::from(field) >= PieceKind::HAND.len() {
                return false;
            }
            return self.drop_generated(kind, PieceKind::HAND[usize::from(field)], to);
        }
        if usize::from(field) >= Square::COUNT {
            return false;
        }
        let from = Square::from_index(usize::from(field));
        match self.piece_at(from) {
            Some(piece) if piece.color == self.side_to_move() => {
                self.board_move_generated(kind, piece, from, to, mv.is_promotion())
            }
            _ => false,
        }
    }

    fn drop_generated(&self, kind: GenKind, dropped: PieceKind, to: Square) -> bool {
        let us = self.side_to_move();
        if self.hand(us).count(dropped) == 0 || self.occupied().has(to) {
            return false;
        }
        let target = Bitboard::from_square(to);
        let allowed = match self.king_square(us) {
            None => kind == GenKind::All,
            Some(ksq) => {
                let checkers = self.attackers_to(ksq, !us, self.occupied());
                if checkers.several() {
                    false
                } else if checkers.any() {
                    // Evasions are generated in full: a drop must block.
                    bitboard::between(ksq, checkers.first()).has(to)
                } else {
                    kind == GenKind::All
                }
            }
        };
        allowed && (dropped != PieceKind::Pawn || self.pawn_drop_squares(target).any())
    }

    fn board_move_generated(
        &self,
        kind: GenKind,
        piece: Piece,
        from: Square,
        to: Square,
        promote: bool,
    ) -> bool {
        let us = self.side_to_move();
        let them = !us;
        let own = self.pieces(us);
        let occ = self.occupied();
        let capture = self.pieces(them).has(to);
        let Some(ksq) = self.king_square(us) else {
            // No king (composed positions): every pseudo-legal move is legal.
            return self.piece_move_generated(kind, piece, from, to, promote, !own);
        };
        let checkers = self.attackers_to(ksq, them, occ);
        if from == ksq {
            // Never onto an attacked square (sliders see through the king's origin).
            return !promote
                && bitboard::king_attacks(ksq).has(to)
                && !own.has(to)
                && (kind == GenKind::All || checkers.any() || capture)
                && self
                    .attackers_to(to, them, occ ^ Bitboard::from_square(ksq))
                    .is_empty();
        }
        if checkers.several() {
            return false;
        }
        let (targets, gen_kind) = if checkers.any() {
            let block = bitboard::between(ksq, checkers.first());
            (block | checkers, GenKind::All)
        } else {
            (!own, kind)
        };
        // A pinned piece stays on the line through its king and itself.
        let pin_broken = self.pinned(us).has(from) && !bitboard::line(ksq, from).has(to);
        !pin_broken && self.piece_move_generated(gen_kind, piece, from, to, promote, targets)
    }

    /// The generator's rule for a board move of a piece other than the king, pins aside.
    fn piece_move_generated(
        &self,
        kind: GenKind,
        piece: Piece,
        from: Square,
        to: Square,
        promote: bool,
        targets: Bitboard,
    ) -> bool {
        let us = self.side_to_move();
        if !(bitboard::attacks(us, piece.kind, from, self.occupied()) & targets).has(to) {
            return false;
        }
        let zone = Bitboard::rank(us.promotion_rank());
        let promo_possible = piece.kind.can_promote() && (zone.has(from) || zone.has(to));
        let capture = self.pieces(!us).has(to);
        if kind == GenKind::Tactical && !capture && !promo_possible {
            return false;
        }
        if promote {
            promo_possible
        } else if promo_possible {
            // A pawn reaching the last rank must promote; other pieces may stay.
            piece.kind != PieceKind::Pawn && (kind == GenKind::All || capture)
        } else {
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::MoveList;
    use crate::testing::{TestRng, random_positions_with_drops};
    use crate::types::Color;

    /// A position with both of its generated lists, to judge moves against.
    struct Lists<'a> {
        pos: &'a Position,
        all: MoveList,
        tactical: MoveList,
    }

    impl Lists<'_> {
        fn of(pos: &Position) -> Lists<'_> {
            let (mut all, mut tactical) = (MoveList::new(), MoveList::new());
            pos.generate(GenKind::All, &mut all);
            pos.generate(GenKind::Tactical, &mut tactical);
            Lists { pos, all, tactical }
        }

        fn agree(&self, mv: Move) {
            let pos = self.pos;
            let what = || format!("{} raw {:#06x} ({mv})", pos.to_sfen(), mv.raw());
            assert_eq!(pos.is_legal(mv), self.all.contains(mv), "{}", what());
            assert_eq!(pos.generates(GenKind::All, mv), self.all.contains(mv));
            assert_eq!(
                pos.generates(GenKind::Tactical, mv),
                self.tactical.contains(mv),
                "tactical: {}",
                what()
            );
        }
    }

    #[test]
    fn the_legality_test_agrees_with_the_generator_for_any_move() {
        let positions = random_positions_with_drops(91, 1500);
        // Every legal move of every position is a garbage move for the others.
        let pool: Vec<Move> = positions
            .iter()
            .flat_map(|pos| pos.legal_moves().to_vec())
            .collect();
        let mut rng = TestRng::new(92);
        let (mut in_check, mut foreign_legal, mut legal) = (0, 0, 0);
        for pos in &positions {
            in_check += usize::from(pos.in_check());
            let flipped = pos.flipped();
            for pos in [pos, &flipped] {
                let lists = Lists::of(pos);
                for &mv in lists.all.iter() {
                    lists.agree(mv);
                    legal += 1;
                }
                for _ in 0..200 {
                    let mv = pool[rng.below(pool.len())];
                    lists.agree(mv);
                    foreign_legal += usize::from(lists.all.contains(mv));
                }
                // Any 16-bit value, and any value of the bits a move uses.
                for _ in 0..50 {
                    lists.agree(Move::from_raw(rng.next_u64() as u16));
                    lists.agree(Move::from_raw(rng.next_u64() as u16 & USED_BITS));
                }
            }
        }
        assert!(
            in_check > 50 && foreign_legal > 10_000 && legal > 20_000,
            "coverage: {in_check} positions in check, {legal} legal moves, {foreign_legal} \
             foreign moves legal"
        );
    }

    #[test]
    fn every_move_value_in_special_positions() {
        let sfens = [
            // 打ち歩詰め (P*1b would mate), and the same drop when it does not mate.
            "4k/2S2/4G/5/K4 b P 1",
            "4k/2S2/5/5/K4 b P 1",
            // 二歩 and the last rank; a pinned silver; check; double check.
            "k4/5/5/P4/4K b P 1",
            "k3r/5/5/4S/4K b - 1",
            "k4/5/2b2/5/4K b - 1",
            "4k/5/5/1b3/r3K b - 1",
            "rbsgk/4p/5/P4/KGSBR b - 1",
        ];
        let mut positions: Vec<Position> = sfens
            .iter()
            .map(|sfen| Position::from_sfen(sfen).expect(sfen))
            .collect();
        // No kings at all (composed positions, which SFEN refuses).
        let mut kingless = Position::empty();
        kingless.put_piece(Square::new(3, 1), Piece::new(Color::Gote, PieceKind::Rook));
        kingless.put_piece(
            Square::new(4, 3),
            Piece::new(Color::Sente, PieceKind::Silver),
        );
        kingless.put_piece(Square::new(2, 3), Piece::new(Color::Sente, PieceKind::Pawn));
        kingless.set_hand_count(Color::Sente, PieceKind::Pawn, 1);
        kingless.set_hand_count(Color::Gote, PieceKind::Bishop, 1);
        positions.push(kingless);
        for pos in positions {
            for p in [pos.clone(), pos.flipped()] {
                let lists = Lists::of(&p);
                for raw in 0..=u16::MAX {
                    lists.agree(Move::from_raw(raw));
                }
            }
        }
        assert!(!Position::startpos().is_legal(Move::NULL));
    }
}
