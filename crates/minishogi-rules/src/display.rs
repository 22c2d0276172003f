//! Human-readable board: `{}` draws kanji with a `v` before gote's pieces (the KIF
//! convention), `{:#}` draws ASCII SFEN letters (uppercase sente, lowercase gote, `+` promoted).
//! Both show files 5..1 left to right, ranks a..e top to bottom (gote at the top), both hands and
//! the side to move.

use super::position::Position;
use super::types::{Color, Hand, Piece, PieceKind, Square};
use std::fmt;

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ascii = f.alternate();
        writeln!(
            f,
            "gote hand:  {}",
            hand_text(self.hand(Color::Gote), ascii)
        )?;
        writeln!(f, "  5  4  3  2  1")?;
        writeln!(f, "+---------------+")?;
        let cell = if ascii { ascii_cell } else { kanji_cell };
        for (rank, row) in board_rows(self, cell).iter().enumerate() {
            writeln!(f, "|{row}| {}", (b'a' + rank as u8) as char)?;
        }
        writeln!(f, "+---------------+")?;
        writeln!(
            f,
            "sente hand: {}",
            hand_text(self.hand(Color::Sente), ascii)
        )?;
        let side = match self.side_to_move() {
            Color::Sente => "sente (先手)",
            Color::Gote => "gote (後手)",
        };
        write!(f, "{side} to move, move {}", self.move_number())
    }
}

/// The five ranks from gote's side (a) to sente's (e), each the cells of files 5 to 1 drawn by
/// `cell`: the grid walk that every board drawing (this one, KIF, the course's) shares.
pub fn board_rows(pos: &Position, cell: impl Fn(Option<Piece>) -> String) -> [String; 5] {
    std::array::from_fn(|rank| {
        (1..=5u8)
            .rev()
            .map(|file| cell(pos.piece_at(Square::new(file, rank as u8))))
            .collect()
    })
}

/// A cell as shogi diagrams draw it: ` ・` when empty, else the kanji with `v` before gote's.
pub fn kanji_cell(piece: Option<Piece>) -> String {
    match piece {
        None => " ・".to_string(),
        Some(piece) => {
            let marker = if piece.color == Color::Gote { 'v' } else { ' ' };
            format!("{marker}{}", piece.kind.kanji())
        }
    }
}

/// A cell in SFEN letters, three columns wide: `  .` when empty.
pub fn ascii_cell(piece: Option<Piece>) -> String {
    match piece {
        None => "  .".to_string(),
        Some(piece) => format!("{:>3}", piece.sfen()),
    }
}

/// Hand contents such as `飛 歩x2` (or `R Px2`), or `-` when empty.
fn hand_text(hand: &Hand, ascii: bool) -> String {
    if hand.is_empty() {
        return "-".to_string();
    }
    // Strongest first, as hands are usually written.
    let mut parts = Vec::new();
    for kind in PieceKind::HAND.iter().rev() {
        let n = hand.count(*kind);
        if n == 0 {
            continue;
        }
        let name = if ascii {
            kind.usi_letter().to_string()
        } else {
            kind.kanji().to_string()
        };
        parts.push(if n == 1 { name } else { format!("{name}x{n}") });
    }
    parts.join(" ")
}

impl Position {
    /// The kanji board as a string (same as `to_string()`).
    pub fn pretty(&self) -> String {
        self.to_string()
    }

    /// The ASCII board as a string (same as `format!("{:#}", pos)`).
    pub fn pretty_ascii(&self) -> String {
        format!("{self:#}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Piece;

    #[test]
    fn startpos_kanji_board() {
        let text = Position::startpos().pretty();
        let expected = "\
gote hand:  -
  5  4  3  2  1
+---------------+
|v飛v角v銀v金v玉| a
| ・ ・ ・ ・v歩| b
| ・ ・ ・ ・ ・| c
| 歩 ・ ・ ・ ・| d
| 玉 金 銀 角 飛| e
+---------------+
sente hand: -
sente (先手) to move, move 1";
        assert_eq!(text, expected);
    }

    #[test]
    fn ascii_board_with_hands_and_promoted_pieces() {
        let mut pos = Position::empty();
        pos.put_piece(Square::new(1, 0), Piece::new(Color::Gote, PieceKind::King));
        pos.put_piece(Square::new(5, 4), Piece::new(Color::Sente, PieceKind::King));
        pos.put_piece(
            Square::new(3, 2),
            Piece::new(Color::Gote, PieceKind::Dragon),
        );
        pos.put_piece(
            Square::new(2, 3),
            Piece::new(Color::Sente, PieceKind::ProPawn),
        );
        pos.set_hand_count(Color::Sente, PieceKind::Pawn, 2);
        pos.set_hand_count(Color::Sente, PieceKind::Rook, 1);
        pos.set_side_to_move(Color::Gote);
        let expected = "\
gote hand:  -
  5  4  3  2  1
+---------------+
|  .  .  .  .  k| a
|  .  .  .  .  .| b
|  .  . +r  .  .| c
|  .  .  . +P  .| d
|  K  .  .  .  .| e
+---------------+
sente hand: R Px2
gote (後手) to move, move 1";
        assert_eq!(pos.pretty_ascii(), expected);
        assert!(pos.pretty().contains(" ・v玉| a"));
        assert!(pos.pretty().contains("sente hand: 飛 歩x2"));
        assert!(pos.pretty().contains("v龍"));
        assert!(pos.pretty().contains(" と"));
    }
}
