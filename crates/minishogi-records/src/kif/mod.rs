//! KIF game records (the common Japanese text format) for 5五将棋: a header with
//! `手合割：5五将棋`, a board diagram (BOD) when the game did not start from the initial
//! position, move lines such as `   1 ２四歩(25)   ( 0:01/00:00:01)`, the ending and a
//! `まで…` line. The reader takes what other programs write too: comments (`*`, `#`), bookmarks
//! (`&`), any header, time columns or none, `同`/`同　`, 王/竜 and the board's 全, half-width
//! digits; a variation (`変化：`) ends the main line.
//!
//! `write.rs` writes records and the move notation, `read.rs` reads them; the names of pieces,
//! endings and numerals both use are here.

mod read;
#[cfg(test)]
mod tests;
mod write;

pub use read::read;
pub use write::{board_diagram, kif_move, write};

use super::record::Ending;
use minishogi_rules::{PieceKind, Square};

/// The text encoding a KIF file is written in, named in its first line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `.kif`.
    ShiftJis,
    /// `.kifu`.
    Utf8,
}

impl Encoding {
    fn label(self) -> &'static str {
        match self {
            Encoding::ShiftJis => "Shift_JIS",
            Encoding::Utf8 => "UTF-8",
        }
    }
}

/// The 手合割 (game type) of 5五将棋 records.
pub const HANDICAP: &str = "5五将棋";

/// The words of the endings, as move lines write them; the first of a kind is written.
pub(super) const ENDINGS: [(&str, Ending); 10] = [
    ("詰み", Ending::Checkmate),
    ("投了", Ending::Resignation),
    ("千日手", Ending::Repetition),
    ("持将棋", Ending::PlyLimit),
    ("反則負け", Ending::Foul),
    ("反則勝ち", Ending::Foul),
    ("切れ負け", Ending::TimeForfeit),
    ("中断", Ending::Interrupted),
    ("時間切れ", Ending::TimeForfeit),
    ("引き分け", Ending::PlyLimit),
];

/// Piece names in move lines; the first of a kind is written (promoted silver takes two
/// characters there, 全 in diagrams).
pub(super) const PIECE_NAMES: [(&str, PieceKind); 13] = [
    ("成銀", PieceKind::ProSilver),
    ("歩", PieceKind::Pawn),
    ("銀", PieceKind::Silver),
    ("金", PieceKind::Gold),
    ("角", PieceKind::Bishop),
    ("飛", PieceKind::Rook),
    ("玉", PieceKind::King),
    ("と", PieceKind::ProPawn),
    ("馬", PieceKind::Horse),
    ("龍", PieceKind::Dragon),
    ("王", PieceKind::King),
    ("竜", PieceKind::Dragon),
    ("全", PieceKind::ProSilver),
];

/// Pieces of 9×9 shogi, named in errors.
pub(super) const OTHER_SHOGI_PIECES: [&str; 6] = ["香", "桂", "成香", "成桂", "杏", "圭"];

pub(super) const FULL_WIDTH_DIGITS: [char; 10] =
    ['０', '１', '２', '３', '４', '５', '６', '７', '８', '９'];
pub(super) const KANJI_NUMERALS: [&str; 19] = [
    "", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三", "十四",
    "十五", "十六", "十七", "十八",
];

/// The name of a kind in move lines.
pub(super) fn piece_name(kind: PieceKind) -> &'static str {
    PIECE_NAMES
        .iter()
        .find(|(_, k)| *k == kind)
        .map(|(name, _)| *name)
        .expect("every kind has a name")
}

/// Rank as a kanji numeral: USI rank `a` is 一.
pub(super) fn rank_kanji(sq: Square) -> &'static str {
    KANJI_NUMERALS[sq.rank() as usize + 1]
}
