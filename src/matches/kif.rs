//! KIF game records (the common Japanese text format) for 5五将棋: header with
//! `手合割：5五将棋`, a board diagram when the game did not start from the initial position,
//! move lines such as `   1 ２四歩(25)   ( 0:01/00:00:01)`, and the ending.

use std::fmt::Write as _;
use std::time::Duration;

use crate::shogi::display;
use crate::shogi::{Color, Hand, Move, PieceKind, Position, Square};

/// How a recorded game ended, in KIF's vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KifEnding {
    /// The side to move had no legal move (詰み).
    Checkmate,
    /// 投了.
    Resignation,
    /// 千日手 (including perpetual check).
    Repetition,
    /// A draw by the ply limit (recorded as 持将棋).
    PlyLimit,
    /// The side to move lost by an illegal move or unusable output (反則負け).
    Foul,
    /// The side to move ran out of time (切れ負け).
    TimeForfeit,
    /// The game was stopped (中断).
    Interrupted,
}

impl KifEnding {
    fn word(self) -> &'static str {
        match self {
            KifEnding::Checkmate => "詰み",
            KifEnding::Resignation => "投了",
            KifEnding::Repetition => "千日手",
            KifEnding::PlyLimit => "持将棋",
            KifEnding::Foul => "反則負け",
            KifEnding::TimeForfeit => "切れ負け",
            KifEnding::Interrupted => "中断",
        }
    }
}

/// What a KIF record is made of.
pub struct KifGame<'a> {
    pub start: &'a Position,
    pub moves: &'a [Move],
    /// Thinking time per move (missing entries count as zero).
    pub times: &'a [Duration],
    pub sente: &'a str,
    pub gote: &'a str,
    pub ending: KifEnding,
    /// `None` for a draw or an interrupted game.
    pub winner: Option<Color>,
    /// Free text written as a comment line after the ending (e.g. the referee's reason).
    pub comment: Option<&'a str>,
}

const FULL_WIDTH_DIGITS: [char; 6] = ['０', '１', '２', '３', '４', '５'];
const KANJI_NUMERALS: [&str; 19] = [
    "", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三", "十四",
    "十五", "十六", "十七", "十八",
];

/// The piece names KIF uses in move lines (promoted silver takes two characters).
fn piece_name(kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::Pawn => "歩",
        PieceKind::Silver => "銀",
        PieceKind::Gold => "金",
        PieceKind::Bishop => "角",
        PieceKind::Rook => "飛",
        PieceKind::King => "玉",
        PieceKind::ProPawn => "と",
        PieceKind::ProSilver => "成銀",
        PieceKind::Horse => "馬",
        PieceKind::Dragon => "龍",
    }
}

/// Rank as a kanji numeral: USI rank `a` is 一.
fn rank_kanji(sq: Square) -> &'static str {
    KANJI_NUMERALS[sq.rank() as usize + 1]
}

/// The move in KIF notation, given the position before it and the previous move's
/// destination (for 同).
pub fn kif_move(pos: &Position, mv: Move, previous_to: Option<Square>) -> String {
    let to = mv.to();
    let mut s = if previous_to == Some(to) {
        "同　".to_string()
    } else {
        format!(
            "{}{}",
            FULL_WIDTH_DIGITS[to.file() as usize],
            rank_kanji(to)
        )
    };
    match (mv.dropped(), mv.from()) {
        (Some(kind), _) => {
            s.push_str(piece_name(kind));
            s.push('打');
        }
        (None, Some(from)) => {
            let kind = pos.piece_at(from).map_or(PieceKind::Pawn, |p| p.kind);
            s.push_str(piece_name(kind));
            let zone = pos.side_to_move().promotion_rank();
            if mv.is_promotion() {
                s.push('成');
            } else if kind.can_promote() && (from.rank() == zone || to.rank() == zone) {
                s.push_str("不成");
            }
            let _ = write!(s, "({}{})", from.file(), from.rank() + 1);
        }
        (None, None) => unreachable!("a move is a drop or has an origin"),
    }
    s
}

fn hand_kif(hand: &Hand) -> String {
    let mut parts = Vec::new();
    for kind in PieceKind::HAND.iter().rev() {
        let n = hand.count(*kind) as usize;
        if n > 0 {
            let count = if n == 1 { "" } else { KANJI_NUMERALS[n] };
            parts.push(format!("{}{count}", piece_name(*kind)));
        }
    }
    if parts.is_empty() {
        "なし".to_string()
    } else {
        parts.join("　")
    }
}

/// The KIF board diagram (BOD) of a position.
pub fn board_diagram(pos: &Position) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "後手の持駒：{}", hand_kif(pos.hand(Color::Gote)));
    s.push_str("  ５ ４ ３ ２ １\n+---------------+\n");
    // One character per piece (promoted silver is 全), as the diagram format wants.
    for (rank, row) in display::board_rows(pos, display::kanji_cell)
        .iter()
        .enumerate()
    {
        let _ = writeln!(s, "|{row}|{}", KANJI_NUMERALS[rank + 1]);
    }
    s.push_str("+---------------+\n");
    let _ = writeln!(s, "先手の持駒：{}", hand_kif(pos.hand(Color::Sente)));
    if pos.side_to_move() == Color::Gote {
        s.push_str("後手番\n");
    }
    s
}

/// `text` padded with spaces to `columns` terminal columns (Japanese characters take two).
fn padded(text: &str, columns: usize) -> String {
    let width: usize = text.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
    format!("{text}{}", " ".repeat(columns.saturating_sub(width) + 1))
}

fn clock_text(per_move: Duration, total: Duration) -> String {
    let m = per_move.as_secs();
    let t = total.as_secs();
    format!(
        "({:>2}:{:02}/{:02}:{:02}:{:02})",
        m / 60,
        m % 60,
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

/// The whole record as KIF text.
pub fn write_kif(game: &KifGame) -> String {
    let mut s = String::new();
    s.push_str("#KIF version=2.0 encoding=UTF-8\n");
    s.push_str("手合割：5五将棋\n");
    if *game.start != Position::startpos() {
        s.push_str(&board_diagram(game.start));
    }
    let _ = writeln!(s, "先手：{}", game.sente);
    let _ = writeln!(s, "後手：{}", game.gote);
    s.push_str("手数----指手---------消費時間--\n");
    let mut pos = game.start.clone();
    let mut previous_to = None;
    let mut totals = [Duration::ZERO; 2];
    for (i, &mv) in game.moves.iter().enumerate() {
        let spent = game.times.get(i).copied().unwrap_or_default();
        let side = pos.side_to_move().index();
        totals[side] += spent;
        let text = kif_move(&pos, mv, previous_to);
        let _ = writeln!(
            s,
            "{:>4} {}{}",
            i + 1,
            padded(&text, 13),
            clock_text(spent, totals[side])
        );
        pos.make_move(mv);
        previous_to = Some(mv.to());
    }
    let plies = game.moves.len();
    let _ = writeln!(
        s,
        "{:>4} {}{}",
        plies + 1,
        padded(game.ending.word(), 13),
        clock_text(Duration::ZERO, totals[pos.side_to_move().index()])
    );
    if let Some(comment) = game.comment {
        let _ = writeln!(s, "*{comment}");
    }
    let _ = match (game.winner, game.ending) {
        (Some(winner), _) => writeln!(
            s,
            "まで{plies}手で{}の勝ち",
            if winner == Color::Sente {
                "先手"
            } else {
                "後手"
            }
        ),
        (None, KifEnding::Interrupted) => writeln!(s, "まで{plies}手で中断"),
        (None, KifEnding::Repetition) => writeln!(s, "まで{plies}手で千日手"),
        (None, _) => writeln!(s, "まで{plies}手で持将棋"),
    };
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usi_moves(pos: &Position, text: &str) -> Vec<Move> {
        let mut pos = pos.clone();
        text.split_whitespace()
            .map(|t| {
                let mv = pos.parse_usi_move(t).unwrap();
                pos.make_move(mv);
                mv
            })
            .collect()
    }

    #[test]
    fn move_names_in_japanese_notation() {
        let start = Position::startpos();
        let moves = usi_moves(&start, "2e1d 4a5b 1d2c 5b4c 2c1b 2a1b");
        let mut pos = start.clone();
        let mut prev = None;
        let mut names = Vec::new();
        for &mv in &moves {
            names.push(kif_move(&pos, mv, prev));
            pos.make_move(mv);
            prev = Some(mv.to());
        }
        assert_eq!(
            names,
            [
                "１四角(25)",
                "５二角(41)",
                "２三角(14)",
                "４三角(52)",
                "１二角(23)",
                "同　金(21)"
            ]
        );
        // A drop and a declined promotion.
        let pos = Position::from_sfen("4k/5/5/5/K4 b S 1").unwrap();
        let drop = pos.parse_usi_move("S*3b").unwrap();
        assert_eq!(kif_move(&pos, drop, None), "３二銀打");
        let pos = Position::from_sfen("4k/5/2S2/5/K4 b - 1").unwrap();
        let stay = pos.parse_usi_move("3c3b").unwrap();
        assert_eq!(kif_move(&pos, stay, None), "３二銀(33)");
        let pos = Position::from_sfen("4k/2S2/5/5/K4 b - 1").unwrap();
        let into = pos.parse_usi_move("3b3a").unwrap();
        assert_eq!(kif_move(&pos, into, None), "３一銀不成(32)");
        let promote = pos.parse_usi_move("3b3a+").unwrap();
        assert_eq!(kif_move(&pos, promote, None), "３一銀成(32)");
    }

    #[test]
    fn record_has_header_moves_and_ending() {
        let start = Position::startpos();
        let moves = usi_moves(&start, "2e1d 4a5b");
        let times = [Duration::from_millis(1500), Duration::from_secs(61)];
        let kif = write_kif(&KifGame {
            start: &start,
            moves: &moves,
            times: &times,
            sente: "alpha",
            gote: "beta",
            ending: KifEnding::Resignation,
            winner: Some(Color::Gote),
            comment: None,
        });
        let lines: Vec<&str> = kif.lines().collect();
        assert!(lines.contains(&"手合割：5五将棋"));
        assert!(lines.contains(&"先手：alpha"));
        assert!(lines.contains(&"後手：beta"));
        assert!(
            !kif.contains("後手の持駒"),
            "no diagram for the initial position"
        );
        assert!(
            lines.contains(&"   1 １四角(25)    ( 0:01/00:00:01)"),
            "{kif}"
        );
        assert!(
            lines.contains(&"   2 ５二角(41)    ( 1:01/00:01:01)"),
            "{kif}"
        );
        assert!(
            lines.contains(&"   3 投了          ( 0:00/00:00:01)"),
            "{kif}"
        );
        assert_eq!(lines.last(), Some(&"まで2手で後手の勝ち"));
    }

    #[test]
    fn other_start_positions_get_a_diagram() {
        let start = Position::from_sfen("4k/5/5/P4/K4 w Gp 1").unwrap();
        let diagram = board_diagram(&start);
        assert_eq!(
            diagram,
            "後手の持駒：歩\n  ５ ４ ３ ２ １\n+---------------+\n| ・ ・ ・ ・v玉|一\n\
             | ・ ・ ・ ・ ・|二\n| ・ ・ ・ ・ ・|三\n| 歩 ・ ・ ・ ・|四\n| 玉 ・ ・ ・ ・|五\n\
             +---------------+\n先手の持駒：金\n後手番\n"
        );
        let kif = write_kif(&KifGame {
            start: &start,
            moves: &[],
            times: &[],
            sente: "a",
            gote: "b",
            ending: KifEnding::PlyLimit,
            winner: None,
            comment: Some("ply limit"),
        });
        assert!(kif.contains(&diagram));
        assert!(
            kif.ends_with("   1 持将棋        ( 0:00/00:00:00)\n*ply limit\nまで0手で持将棋\n")
        );
    }
}
