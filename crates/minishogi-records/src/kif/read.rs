//! Reading KIF as other programs write it: comments, bookmarks, any header, time columns or
//! none, `同`, 王/竜 and 全, half-width digits; every move checked by the rules core.

use std::time::Duration;

use super::*;
use crate::record::{Ending, Reader, Record, RecordError, checked_position};
use minishogi_rules::{Color, Move, Piece, PieceKind, Position};

/// A file digit (half- or full-width) as a USI file.
fn file_of(c: char) -> Option<u32> {
    c.to_digit(10).or_else(|| {
        FULL_WIDTH_DIGITS
            .iter()
            .position(|&d| d == c)
            .map(|d| d as u32)
    })
}

/// A rank (kanji numeral, or a half- or full-width digit) as 1..=9.
fn rank_of(c: char) -> Option<u32> {
    let mut buf = [0u8; 4];
    KANJI_NUMERALS[1..10]
        .iter()
        .position(|k| *k == c.encode_utf8(&mut buf))
        .map(|i| i as u32 + 1)
        .or_else(|| file_of(c))
}

/// A square from a file and a rank (both 1-based), if on the 5×5 board.
fn square(file: u32, rank: u32) -> Option<Square> {
    ((1..=5).contains(&file) && (1..=5).contains(&rank))
        .then(|| Square::new(file as u8, rank as u8 - 1))
}

/// The piece name at the start of `text` and its length in bytes.
fn piece_prefix(text: &str, line: usize) -> Result<(PieceKind, usize), RecordError> {
    if let Some((name, kind)) = PIECE_NAMES.iter().find(|(name, _)| text.starts_with(name)) {
        return Ok((*kind, name.len()));
    }
    if let Some(name) = OTHER_SHOGI_PIECES.iter().find(|n| text.starts_with(*n)) {
        return Err(RecordError::new(
            line,
            format!("piece {name} is not in 5五将棋"),
        ));
    }
    Err(RecordError::new(line, format!("no piece name in '{text}'")))
}

/// A board-diagram cell's piece character.
fn cell_piece(c: char) -> Option<PieceKind> {
    PieceKind::ALL
        .into_iter()
        .find(|k| k.kanji() == c)
        .or(match c {
            '王' => Some(PieceKind::King),
            '竜' => Some(PieceKind::Dragon),
            _ => None,
        })
}

/// Whitespace as KIF uses it, the full-width space included.
fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// The move text of a move line, parsed and checked against `reader`'s position: a board move
/// or a drop, or an ending word.
enum MoveText {
    Move(Move),
    Ending(Ending, Option<Color>),
}

fn parse_move_text(
    text: &str,
    pos: &Position,
    previous_to: Option<Square>,
    line: usize,
) -> Result<MoveText, RecordError> {
    let text = text.trim_start_matches(['▲', '△', '☗', '☖']);
    let side = pos.side_to_move();
    if let Some((word, ending)) = ENDINGS.iter().find(|(word, _)| *word == text) {
        let winner = match *word {
            "反則勝ち" => Some(side),
            "反則負け" => Some(!side),
            _ => None,
        };
        return Ok(MoveText::Ending(*ending, winner));
    }
    let bad = |why: &str| RecordError::new(line, format!("bad move '{text}': {why}"));
    let mut rest = text;
    let to = if let Some(after) = rest.strip_prefix('同') {
        rest = after.trim_start_matches(is_space);
        previous_to.ok_or_else(|| bad("同 with no previous move"))?
    } else {
        let mut chars = rest.chars();
        let (Some(f), Some(r)) = (chars.next(), chars.next()) else {
            return Err(bad("no destination square"));
        };
        let (Some(file), Some(rank)) = (file_of(f), rank_of(r)) else {
            return Err(bad(
                "neither a destination square nor an ending this reader knows",
            ));
        };
        rest = chars.as_str();
        square(file, rank).ok_or_else(|| bad("the square is off the 5×5 board"))?
    };
    let (kind, len) = piece_prefix(rest, line)?;
    rest = &rest[len..];
    let mut promote = false;
    let mut drop = false;
    for (suffix, flag) in [("不成", 0), ("生", 0), ("成", 1), ("打", 2)] {
        if let Some(after) = rest.strip_prefix(suffix) {
            rest = after;
            match flag {
                1 => promote = true,
                2 => drop = true,
                _ => {}
            }
            break;
        }
    }
    let mv = if drop {
        if !rest.is_empty() {
            return Err(bad("unexpected text after 打"));
        }
        if !PieceKind::HAND.contains(&kind) {
            return Err(bad(
                "only unpromoted pieces other than the king are dropped",
            ));
        }
        Move::drop(kind, to)
    } else {
        let origin = rest
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .ok_or_else(|| bad("no origin square such as (25) and no 打"))?;
        let mut digits = origin.chars();
        let from = match (digits.next(), digits.next(), digits.next()) {
            (Some(f), Some(r), None) => f
                .to_digit(10)
                .zip(r.to_digit(10))
                .and_then(|(f, r)| square(f, r)),
            _ => None,
        }
        .ok_or_else(|| bad("the origin is not a square of the 5×5 board"))?;
        match pos.piece_at(from) {
            Some(Piece { color, kind: found }) if color == side && found != kind => {
                return Err(bad(&format!(
                    "the piece on {origin} is {}, not {}",
                    piece_name(found),
                    piece_name(kind)
                )));
            }
            _ => {}
        }
        Move::board(from, to, promote)
    };
    Ok(MoveText::Move(mv))
}

/// `( 0:01/00:00:01)`: the time of the move (minutes:seconds before the slash).
fn parse_time(text: &str, line: usize) -> Result<Duration, RecordError> {
    let bad = || {
        RecordError::new(
            line,
            format!("bad time '{text}', expected ( m:ss/hh:mm:ss)"),
        )
    };
    let inner = text
        .strip_prefix('(')
        .and_then(|t| t.split(')').next())
        .ok_or_else(bad)?;
    let per_move = inner.split('/').next().unwrap_or("").trim();
    let (m, s) = per_move.split_once(':').ok_or_else(bad)?;
    let m: u64 = m.trim().parse().map_err(|_| bad())?;
    let s: u64 = s.trim().parse().map_err(|_| bad())?;
    Ok(Duration::from_secs(m * 60 + s))
}

/// Splits a move line into its number, move text and the rest (the time column); `None` if the
/// line does not start with a number.
fn split_move_line(line: &str) -> Option<(usize, &str, &str)> {
    let trimmed = line.trim_start_matches(is_space);
    let digits = trimmed.len()
        - trimmed
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    if digits == 0 {
        return None;
    }
    let number = trimmed[..digits].parse().ok()?;
    let body = trimmed[digits..].trim_start_matches(is_space);
    // `同　金(21)`: the space after 同 belongs to the move.
    let skip = if let Some(after) = body.strip_prefix('同') {
        body.len() - after.trim_start_matches(is_space).len()
    } else {
        0
    };
    let end = body[skip..].find(is_space).map_or(body.len(), |i| i + skip);
    Some((number, &body[..end], body[end..].trim_matches(is_space)))
}

/// One hand of a diagram: `飛　歩二`, `なし`.
fn parse_hand(text: &str, line: usize) -> Result<[u8; 5], RecordError> {
    let mut counts = [0u8; 5];
    for item in text.split(is_space).filter(|s| !s.is_empty()) {
        if item == "なし" {
            continue;
        }
        let (kind, len) = piece_prefix(item, line)?;
        let count = &item[len..];
        let n = if count.is_empty() {
            1
        } else {
            KANJI_NUMERALS
                .iter()
                .position(|k| *k == count)
                .or_else(|| count.parse().ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    RecordError::new(line, format!("bad count '{count}' in hand '{text}'"))
                })?
        };
        let index = PieceKind::HAND
            .iter()
            .position(|k| *k == kind)
            .ok_or_else(|| RecordError::new(line, format!("{item} cannot be in hand")))?;
        counts[index] = counts[index].saturating_add(n.min(255) as u8);
    }
    Ok(counts)
}

/// One row of a diagram, `|v飛v角v銀v金v玉|一`: five cells of a marker (`v` for gote) and a
/// piece or `・`.
fn parse_row(text: &str, line: usize) -> Result<[Option<Piece>; 5], RecordError> {
    let inner = text
        .strip_prefix('|')
        .and_then(|t| t.split('|').next())
        .unwrap_or("");
    let chars: Vec<char> = inner.chars().collect();
    if chars.len() != 10 {
        return Err(RecordError::new(
            line,
            format!(
                "a board row of {} cells, expected 5 (a 9×9 shogi record?)",
                chars.len().div_ceil(2)
            ),
        ));
    }
    let mut cells = [None; 5];
    for (i, cell) in chars.chunks(2).enumerate() {
        let color = match cell[0] {
            'v' | 'V' => Color::Gote,
            ' ' | '^' => Color::Sente,
            other => {
                return Err(RecordError::new(
                    line,
                    format!("bad board cell '{other}{}'", cell[1]),
                ));
            }
        };
        if cell[1] == '・' {
            continue;
        }
        let kind = cell_piece(cell[1]).ok_or_else(|| {
            RecordError::new(line, format!("bad piece '{}' on the board", cell[1]))
        })?;
        cells[i] = Some(Piece::new(color, kind));
    }
    Ok(cells)
}

/// The diagram being read in the header.
#[derive(Default)]
struct Diagram {
    rows: Vec<[Option<Piece>; 5]>,
    hands: [[u8; 5]; 2],
    side: Option<Color>,
    /// The last line of the diagram (for errors).
    line: usize,
}

impl Diagram {
    fn is_empty(&self) -> bool {
        self.line == 0
    }

    fn position(&self) -> Result<Position, RecordError> {
        if self.rows.len() != 5 {
            return Err(RecordError::new(
                self.line,
                format!("the board diagram has {} rows, expected 5", self.rows.len()),
            ));
        }
        let mut pos = Position::empty();
        for (rank, row) in self.rows.iter().enumerate() {
            for (i, piece) in row.iter().enumerate() {
                if let Some(piece) = piece {
                    pos.put_piece(Square::new(5 - i as u8, rank as u8), *piece);
                }
            }
        }
        for color in Color::ALL {
            for (i, kind) in PieceKind::HAND.into_iter().enumerate() {
                pos.set_hand_count(color, kind, self.hands[color.index()][i]);
            }
        }
        pos.set_side_to_move(self.side.unwrap_or(Color::Sente));
        checked_position(&pos, self.line)
    }
}

/// What the header says besides the diagram.
#[derive(Default)]
struct Header {
    sente: String,
    gote: String,
    event: Option<String>,
}

impl Header {
    /// The reader of the moves, from the diagram's position or the initial one.
    fn start(&mut self, diagram: &Diagram) -> Result<Reader, RecordError> {
        let start = if diagram.is_empty() {
            Position::startpos()
        } else {
            diagram.position()?
        };
        let mut reader = Reader::new(start);
        reader.sente = std::mem::take(&mut self.sente);
        reader.gote = std::mem::take(&mut self.gote);
        reader.event = self.event.take();
        Ok(reader)
    }
}

/// Parses a `まで64手で後手の勝ち` line: the winner it states (`None` for a draw or a stop).
fn parse_summary(text: &str, line: usize, plies: usize) -> Result<Option<Color>, RecordError> {
    let rest = text.trim_start_matches("まで");
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if let Ok(n) = rest[..digits].parse::<usize>()
        && n != plies
    {
        return Err(RecordError::new(
            line,
            format!("'{text}' counts {n} moves, the record has {plies}"),
        ));
    }
    let named = [
        ("先手", Color::Sente),
        ("下手", Color::Sente),
        ("後手", Color::Gote),
        ("上手", Color::Gote),
    ]
    .into_iter()
    .find(|(word, _)| rest.contains(word))
    .map(|(_, color)| color);
    Ok(match named {
        Some(color) if rest.contains("反則負け") => Some(!color),
        Some(color) if rest.contains("勝ち") => Some(color),
        _ => None,
    })
}

/// Reads a KIF record (the main line). Every move is checked by the rules core.
pub fn read(text: &str) -> Result<Record, RecordError> {
    let mut diagram = Diagram::default();
    let mut header = Header::default();
    let mut reader: Option<Reader> = None;
    let mut previous_to = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let text = raw.trim_end_matches(is_space);
        let trimmed = text.trim_start_matches(is_space);
        if let Some(comment) = trimmed.strip_prefix('*') {
            if let Some(reader) = &mut reader {
                reader.comment(comment);
            }
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with(['#', '&']) {
            continue;
        }
        if trimmed.starts_with("変化：") || trimmed.starts_with("変化:") {
            break;
        }
        let moves_begin = split_move_line(text).is_some() || trimmed.starts_with("まで");
        if moves_begin && reader.is_none() {
            reader = Some(header.start(&diagram)?);
        }
        if let Some((number, move_text, time)) = split_move_line(text) {
            let reader = reader.as_mut().expect("started above");
            if let Some((_, end, _)) = reader.ending {
                return Err(RecordError::new(
                    line,
                    format!("'{move_text}' after the game's end (line {end})"),
                ));
            }
            let expected = reader.game.plies() + 1;
            if number != expected {
                return Err(RecordError::new(
                    line,
                    format!("move number {number}, expected {expected}"),
                ));
            }
            match parse_move_text(move_text, reader.game.position(), previous_to, line)? {
                MoveText::Move(mv) => {
                    reader.play(mv, line, move_text)?;
                    previous_to = Some(mv.to());
                    if !time.is_empty() {
                        reader.set_time(parse_time(time, line)?);
                    }
                }
                MoveText::Ending(ending, winner) => reader.end(ending, line, winner)?,
            }
            continue;
        }
        if let Some(reader) = &mut reader {
            if trimmed.starts_with("まで") {
                // Only a stated winner is checked: other programs write 千日手 for what the
                // rules of 5五将棋 give to gote.
                if let Some(winner) = parse_summary(trimmed, line, reader.game.plies())? {
                    reader.claimed_winner = Some((Some(winner), line));
                }
                continue;
            }
            return Err(RecordError::new(
                line,
                format!("'{trimmed}' is not a move line"),
            ));
        }
        // The header.
        if trimmed.starts_with("手数") {
            continue;
        }
        if trimmed.starts_with('|') {
            diagram.rows.push(parse_row(trimmed, line)?);
            diagram.line = line;
            continue;
        }
        if trimmed.starts_with('+') || trimmed.chars().all(|c| is_space(c) || file_of(c).is_some())
        {
            // The diagram's frame and file numbers.
            diagram.line = line;
            continue;
        }
        match trimmed {
            "先手番" | "下手番" => {
                diagram.side = Some(Color::Sente);
                diagram.line = line;
                continue;
            }
            "後手番" | "上手番" => {
                diagram.side = Some(Color::Gote);
                diagram.line = line;
                continue;
            }
            _ => {}
        }
        let Some((key, value)) = trimmed.split_once('：').or_else(|| trimmed.split_once(':'))
        else {
            return Err(RecordError::new(
                line,
                format!("'{trimmed}' is neither a header (key：value), a board line nor a move"),
            ));
        };
        let value = value.trim_matches(is_space);
        match key.trim_matches(is_space) {
            "手合割" if !matches!(value, "5五将棋" | "５五将棋" | "その他") => {
                return Err(RecordError::new(
                    line,
                    format!("手合割 '{value}' is not {HANDICAP}"),
                ));
            }
            "先手" | "下手" => header.sente = value.to_string(),
            "後手" | "上手" => header.gote = value.to_string(),
            "棋戦" => header.event = Some(value.to_string()),
            "先手の持駒" | "下手の持駒" => {
                diagram.hands[0] = parse_hand(value, line)?;
                diagram.line = line;
            }
            "後手の持駒" | "上手の持駒" => {
                diagram.hands[1] = parse_hand(value, line)?;
                diagram.line = line;
            }
            _ => {}
        }
    }
    match reader {
        Some(reader) => reader.finish(),
        None => header.start(&diagram)?.finish(),
    }
}
