//! A slow, plainly written legal move generator to check the fast one against: no bitboards,
//! its own board and move application, every pseudo-legal move tried on a copy and kept if the
//! own king is not attacked afterwards, drop rules (打ち歩詰め by brute force) applied directly.

use minishogi_rules::{Color, Move, Piece, PieceKind, Position, Square};

/// Board indexed `[file - 1][rank]` (rank 0 = `a`), hands `[colour][hand kind]`.
#[derive(Clone)]
pub struct RefBoard {
    cells: [[Option<Piece>; 5]; 5],
    hands: [[u8; 5]; 2],
    side: Color,
}

const ORTHOGONAL: [(i8, i8); 4] = [(0, -1), (0, 1), (-1, 0), (1, 0)];
const DIAGONAL: [(i8, i8); 4] = [(-1, -1), (1, -1), (-1, 1), (1, 1)];
/// Step patterns as (file delta, rank delta) for sente, for whom forward is rank - 1. Every
/// piece is left-right symmetric, so gote's pattern is the same with the rank delta negated.
const SILVER: [(i8, i8); 5] = [(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)];
const GOLD: [(i8, i8); 6] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)];

fn last_rank(color: Color) -> i8 {
    match color {
        Color::Sente => 0,
        Color::Gote => 4,
    }
}

fn on_board(file: i8, rank: i8) -> bool {
    (1..=5).contains(&file) && (0..5).contains(&rank)
}

impl RefBoard {
    pub fn from_position(pos: &Position) -> RefBoard {
        let mut cells = [[None; 5]; 5];
        for (f, column) in cells.iter_mut().enumerate() {
            for (r, cell) in column.iter_mut().enumerate() {
                *cell = pos.piece_at(Square::new(f as u8 + 1, r as u8));
            }
        }
        let mut hands = [[0; 5]; 2];
        for color in Color::ALL {
            for (i, kind) in PieceKind::HAND.into_iter().enumerate() {
                hands[color.index()][i] = pos.hand(color).count(kind);
            }
        }
        RefBoard {
            cells,
            hands,
            side: pos.side_to_move(),
        }
    }

    fn at(&self, file: i8, rank: i8) -> Option<Piece> {
        self.cells[file as usize - 1][rank as usize]
    }

    fn set(&mut self, file: i8, rank: i8, piece: Option<Piece>) {
        self.cells[file as usize - 1][rank as usize] = piece;
    }

    /// Squares the piece on (file, rank) attacks, whatever stands there.
    fn attacked_from(&self, file: i8, rank: i8) -> Vec<(i8, i8)> {
        let piece = self.at(file, rank).expect("a piece");
        let forward = if piece.color == Color::Sente { 1 } else { -1 };
        let mut steps: Vec<(i8, i8)> = Vec::new();
        let mut slides: Vec<(i8, i8)> = Vec::new();
        match piece.kind {
            PieceKind::Pawn => steps.push((0, -1)),
            PieceKind::Silver => steps.extend(SILVER),
            PieceKind::Gold | PieceKind::ProPawn | PieceKind::ProSilver => steps.extend(GOLD),
            PieceKind::King => {
                steps.extend(ORTHOGONAL);
                steps.extend(DIAGONAL);
            }
            PieceKind::Bishop => slides.extend(DIAGONAL),
            PieceKind::Rook => slides.extend(ORTHOGONAL),
            PieceKind::Horse => {
                slides.extend(DIAGONAL);
                steps.extend(ORTHOGONAL);
            }
            PieceKind::Dragon => {
                slides.extend(ORTHOGONAL);
                steps.extend(DIAGONAL);
            }
        }
        let mut out = Vec::new();
        for (df, dr) in steps {
            let (f, r) = (file + df, rank + dr * forward);
            if on_board(f, r) {
                out.push((f, r));
            }
        }
        for (df, dr) in slides {
            let (mut f, mut r) = (file + df, rank + dr);
            while on_board(f, r) {
                out.push((f, r));
                if self.at(f, r).is_some() {
                    break;
                }
                f += df;
                r += dr;
            }
        }
        out
    }

    fn is_attacked(&self, file: i8, rank: i8, by: Color) -> bool {
        for f in 1..=5 {
            for r in 0..5 {
                if self.at(f, r).is_some_and(|p| p.color == by)
                    && self.attacked_from(f, r).contains(&(file, rank))
                {
                    return true;
                }
            }
        }
        false
    }

    pub fn in_check(&self, color: Color) -> bool {
        for f in 1..=5 {
            for r in 0..5 {
                if self.at(f, r) == Some(Piece::new(color, PieceKind::King)) {
                    return self.is_attacked(f, r, !color);
                }
            }
        }
        false
    }

    fn apply(&self, mv: Move) -> RefBoard {
        let mut next = self.clone();
        let us = self.side;
        let (tf, tr) = (mv.to().file() as i8, mv.to().rank() as i8);
        match mv.dropped() {
            Some(kind) => {
                next.hands[us.index()][kind.index()] -= 1;
                next.set(tf, tr, Some(Piece::new(us, kind)));
            }
            None => {
                let from = mv.from().expect("board move");
                let (ff, fr) = (from.file() as i8, from.rank() as i8);
                let mut piece = self.at(ff, fr).expect("a piece to move");
                if let Some(captured) = self.at(tf, tr) {
                    next.hands[us.index()][captured.kind.unpromote().index()] += 1;
                }
                if mv.is_promotion() {
                    piece.kind = piece.kind.promote();
                }
                next.set(ff, fr, None);
                next.set(tf, tr, Some(piece));
            }
        }
        next.side = !us;
        next
    }

    fn pseudo_legal_moves(&self) -> Vec<Move> {
        let us = self.side;
        let zone = last_rank(us);
        let mut moves = Vec::new();
        for f in 1..=5 {
            for r in 0..5 {
                let Some(piece) = self.at(f, r).filter(|p| p.color == us) else {
                    continue;
                };
                for (tf, tr) in self.attacked_from(f, r) {
                    if self.at(tf, tr).is_some_and(|p| p.color == us) {
                        continue;
                    }
                    let from = Square::new(f as u8, r as u8);
                    let to = Square::new(tf as u8, tr as u8);
                    let may_promote = matches!(
                        piece.kind,
                        PieceKind::Pawn | PieceKind::Silver | PieceKind::Bishop | PieceKind::Rook
                    ) && (r == zone || tr == zone);
                    if may_promote {
                        moves.push(Move::board(from, to, true));
                    }
                    // A pawn on its last rank could never move again.
                    if !(piece.kind == PieceKind::Pawn && tr == zone) {
                        moves.push(Move::board(from, to, false));
                    }
                }
            }
        }
        for (i, kind) in PieceKind::HAND.into_iter().enumerate() {
            if self.hands[us.index()][i] == 0 {
                continue;
            }
            for f in 1..=5 {
                for r in 0..5 {
                    if self.at(f, r).is_some() {
                        continue;
                    }
                    if kind == PieceKind::Pawn {
                        let own_pawn_on_file = (0..5)
                            .any(|rr| self.at(f, rr) == Some(Piece::new(us, PieceKind::Pawn)));
                        if r == zone || own_pawn_on_file {
                            continue;
                        }
                    }
                    moves.push(Move::drop(kind, Square::new(f as u8, r as u8)));
                }
            }
        }
        moves
    }

    /// Legal moves. With `forbid_pawn_drop_mate`, pawn drops that checkmate are removed; the
    /// inner call that decides whether a drop mates does not need it, because a pawn's check
    /// is a contact check that no drop can answer.
    pub fn legal_moves(&self, forbid_pawn_drop_mate: bool) -> Vec<Move> {
        let us = self.side;
        let mut legal = Vec::new();
        for mv in self.pseudo_legal_moves() {
            let after = self.apply(mv);
            if after.in_check(us) {
                continue;
            }
            if forbid_pawn_drop_mate
                && mv.dropped() == Some(PieceKind::Pawn)
                && after.in_check(!us)
                && after.legal_moves(false).is_empty()
            {
                continue;
            }
            legal.push(mv);
        }
        legal
    }
}

/// The reference legal moves of a position.
pub fn legal_moves(pos: &Position) -> Vec<Move> {
    RefBoard::from_position(pos).legal_moves(true)
}
