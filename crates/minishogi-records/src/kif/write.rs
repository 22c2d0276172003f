//! Writing KIF: the header, the board diagram of a position that is not the start, move lines
//! with times, the ending and the `まで…` line; and the move notation the page and the records
//! share (`kif_move`).

use std::fmt::Write as _;
use std::time::Duration;

use super::*;
use crate::record::{Ending, Record, one_line};
use minishogi_rules::display;
use minishogi_rules::{Color, Hand, Move, Position};

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

fn side_name(color: Color) -> &'static str {
    match color {
        Color::Sente => "先手",
        Color::Gote => "後手",
    }
}

/// The word of an ending in a move line: a foul is 反則負け when the side to move lost.
fn ending_word(ending: Ending, winner: Option<Color>, to_move: Color) -> &'static str {
    if ending == Ending::Foul && winner == Some(to_move) {
        return "反則勝ち";
    }
    ENDINGS
        .iter()
        .find(|(_, e)| *e == ending)
        .map(|(word, _)| *word)
        .expect("every ending has a word")
}

/// The whole record as KIF text, its first line naming `encoding`.
pub fn write(record: &Record, encoding: Encoding) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "#KIF version=2.0 encoding={}", encoding.label());
    let _ = writeln!(s, "手合割：{HANDICAP}");
    if let Some(event) = &record.event {
        let _ = writeln!(s, "棋戦：{}", one_line(event));
    }
    if record.start != Position::startpos() {
        s.push_str(&board_diagram(&record.start));
    }
    let _ = writeln!(s, "先手：{}", one_line(&record.sente));
    let _ = writeln!(s, "後手：{}", one_line(&record.gote));
    s.push_str("手数----指手---------消費時間--\n");
    let mut pos = record.start.clone();
    let mut previous_to = None;
    let mut totals = [Duration::ZERO; 2];
    for (i, &mv) in record.moves.iter().enumerate() {
        let spent = record.time(i);
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
        if let Some(comment) = record.move_comment(i) {
            for line in comment.lines() {
                let _ = writeln!(s, "*{line}");
            }
        }
        pos.make_move(mv);
        previous_to = Some(mv.to());
    }
    let plies = record.moves.len();
    if let Some(ending) = record.ending {
        let word = ending_word(ending, record.winner, pos.side_to_move());
        let _ = writeln!(
            s,
            "{:>4} {}{}",
            plies + 1,
            padded(word, 13),
            clock_text(Duration::ZERO, totals[pos.side_to_move().index()])
        );
    }
    if let Some(comment) = &record.comment {
        for line in comment.lines() {
            let _ = writeln!(s, "*{line}");
        }
    }
    let _ = match (record.winner, record.ending) {
        (Some(winner), _) => writeln!(s, "まで{plies}手で{}の勝ち", side_name(winner)),
        (None, Some(Ending::Interrupted)) => writeln!(s, "まで{plies}手で中断"),
        (None, Some(Ending::Repetition)) => writeln!(s, "まで{plies}手で千日手"),
        (None, Some(_)) => writeln!(s, "まで{plies}手で持将棋"),
        (None, None) => Ok(()),
    };
    s
}

// ---- reading ---------------------------------------------------------------------------------
