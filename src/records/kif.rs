//! KIF game records (the common Japanese text format) for 5五将棋: a header with
//! `手合割：5五将棋`, a board diagram (BOD) when the game did not start from the initial
//! position, move lines such as `   1 ２四歩(25)   ( 0:01/00:00:01)`, the ending and a
//! `まで…` line. The reader takes what other programs write too: comments (`*`, `#`), bookmarks
//! (`&`), any header, time columns or none, `同`/`同　`, 王/竜 and the board's 全, half-width
//! digits; a variation (`変化：`) ends the main line.

use std::fmt::Write as _;
use std::time::Duration;

use super::{Ending, Reader, Record, RecordError, checked_position, one_line};
use crate::shogi::display;
use crate::shogi::{Color, Hand, Move, Piece, PieceKind, Position, Square};

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
const ENDINGS: [(&str, Ending); 10] = [
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
const PIECE_NAMES: [(&str, PieceKind); 13] = [
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
const OTHER_SHOGI_PIECES: [&str; 6] = ["香", "桂", "成香", "成桂", "杏", "圭"];

const FULL_WIDTH_DIGITS: [char; 10] = ['０', '１', '２', '３', '４', '５', '６', '７', '８', '９'];
const KANJI_NUMERALS: [&str; 19] = [
    "", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三", "十四",
    "十五", "十六", "十七", "十八",
];

/// The name of a kind in move lines.
fn piece_name(kind: PieceKind) -> &'static str {
    PIECE_NAMES
        .iter()
        .find(|(_, k)| *k == kind)
        .map(|(name, _)| *name)
        .expect("every kind has a name")
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
        if trimmed.is_empty() || trimmed.starts_with(['#', '*', '&']) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::tests::{record, usi_moves};
    use crate::records::text;

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
        let mut game = record(Position::startpos(), "2e1d 4a5b");
        game.times = vec![Duration::from_millis(1500), Duration::from_secs(61)];
        game.sente = "alpha".to_string();
        game.gote = "beta".to_string();
        game.ending = Some(Ending::Resignation);
        game.winner = Some(Color::Gote);
        let kif = write(&game, Encoding::Utf8);
        let lines: Vec<&str> = kif.lines().collect();
        assert_eq!(lines[0], "#KIF version=2.0 encoding=UTF-8");
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
        assert!(
            write(&game, Encoding::ShiftJis).starts_with("#KIF version=2.0 encoding=Shift_JIS\n")
        );
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
        let mut game = Record::new(start, Vec::new());
        game.sente = "a".to_string();
        game.gote = "b".to_string();
        game.ending = Some(Ending::PlyLimit);
        game.comment = Some("ply limit".to_string());
        let kif = write(&game, Encoding::Utf8);
        assert!(kif.contains(&diagram));
        assert!(
            kif.ends_with("   1 持将棋        ( 0:00/00:00:00)\n*ply limit\nまで0手で持将棋\n")
        );
    }

    /// Every character the writer can produce, in a record that uses every piece name (on the
    /// board, in moves and in hands), every ending word, 同, 打, 成, 不成 and a diagram.
    #[test]
    fn every_character_the_writer_uses_is_in_shift_jis() {
        let mut chars: Vec<char> = Vec::new();
        let mut add = |s: &str| chars.extend(s.chars());
        PIECE_NAMES.iter().for_each(|(name, _)| add(name));
        ENDINGS.iter().for_each(|(word, _)| add(word));
        for kind in PieceKind::ALL {
            add(&kind.kanji().to_string());
        }
        FULL_WIDTH_DIGITS.iter().for_each(|&c| add(&c.to_string()));
        KANJI_NUMERALS.iter().for_each(|k| add(k));
        let start = Position::from_sfen("2k2/5/1+S3/+P1+B1+R/K4 w 2GSPr 1").unwrap();
        let mut game = record(start.clone(), "3a2a");
        game.ending = Some(Ending::Foul);
        game.winner = Some(Color::Gote);
        game.event = Some("event".to_string());
        add(&write(&game, Encoding::ShiftJis));
        let mut plain = record(Position::startpos(), "2e1d 4a5b 1d2c 5b4c 2c1b 2a1b");
        for ending in [Ending::Checkmate, Ending::Interrupted, Ending::Repetition] {
            plain.ending = Some(ending);
            add(&write(&plain, Encoding::ShiftJis));
        }
        plain.winner = Some(Color::Sente);
        add(&write(&plain, Encoding::ShiftJis));
        add(&board_diagram(&start));
        for word in ["▲", "△", "先手番", "なし", HANDICAP] {
            add(word);
        }
        let missing: Vec<char> = chars
            .iter()
            .copied()
            .filter(|&c| !text::in_shift_jis(c))
            .collect();
        assert!(missing.is_empty(), "not in Shift_JIS: {missing:?}");
        // And the Shift_JIS file reads back to the same record.
        let bytes = text::shift_jis_crlf(&write(&game, Encoding::ShiftJis));
        let back = read(&text::decode(&bytes).unwrap()).unwrap();
        assert_eq!(back.start, game.start);
        assert_eq!(back.moves, game.moves);
        assert_eq!(back.winner, Some(Color::Gote));
    }

    #[test]
    fn reads_what_other_programs_write() {
        let kif = "\
# ---- 柿木形式 ----
開始日時：2024/01/02 10:00
手合割：５五将棋
先手：佐藤
後手：鈴木
手数----指手---------消費時間--
*対局前のコメント
   1 1四角(25)   ( 0:03/00:00:03)
*コメント
   2 5二角(41)   ( 0:10/00:00:10)
&しおり
   3 2三角(14) ( 1:00/00:01:03)
   4 4三角(52)
   5 1二角(23)
   6 同 金(21)
   7 投了
まで6手で後手の勝ち
";
        let record = read(kif).unwrap();
        assert_eq!(record.sente, "佐藤");
        assert_eq!(record.gote, "鈴木");
        assert_eq!(record.moves.len(), 6);
        assert_eq!(record.moves[5].to_string(), "2a1b");
        assert_eq!(record.times[2], Duration::from_secs(60));
        assert_eq!(record.times[3], Duration::ZERO);
        assert_eq!(record.ending, Some(Ending::Resignation));
        assert_eq!(record.winner, Some(Color::Gote));
    }

    #[test]
    fn malformed_records_name_the_line() {
        let err = |text: &str| read(text).unwrap_err();
        let e = err("手合割：平手\n");
        assert_eq!(e.line, 1);
        assert!(e.message.contains("平手"), "{e}");
        let e = err("手合割：5五将棋\n   1 １四角(25)\n   2 ５二飛(41)\n");
        assert_eq!(e.line, 3);
        assert!(e.message.contains("is 角, not 飛"), "{e}");
        let e = err("   1 １四角(25)\n   3 ５二角(41)\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("expected 2"), "{e}");
        let e = err("   1 １三角(25)\n");
        assert!(e.message.contains("illegal move 1"), "{e}");
        let e = err("   1 ７六歩(77)\n");
        assert!(e.message.contains("off the 5×5 board"), "{e}");
        let e = err("   1 １四香(25)\n");
        assert!(e.message.contains("not in 5五将棋"), "{e}");
        let e = err("   1 １四角(25)\n   2 同　金(21)\n");
        assert_eq!(e.line, 2, "{e}");
        let e = err("   1 投了\n   2 １四角(25)\n");
        assert!(e.message.contains("after the game's end"), "{e}");
        let e = err("   1 １四角(25)\n   2 投了\nまで1手で後手の勝ち\n");
        assert_eq!(e.line, 3, "{e}");
        let e = err("   1 １四角(25)   ( x:01/00:00:01)\n");
        assert!(e.message.contains("bad time"), "{e}");
        let e = err("後手の持駒：なし\n| ・ ・ ・ ・ ・ ・ ・ ・ ・|一\n");
        assert!(e.message.contains("9×9"), "{e}");
        let e = err("hello\n");
        assert_eq!(e.line, 1);
        let e = err("   1 １四角(25)\nsomething\n");
        assert_eq!(e.line, 2);
    }

    #[test]
    fn diagrams_read_back() {
        for sfen in [
            "4k/5/5/P4/K4 w Gp 1",
            "2k2/5/1+S3/+P1+B1+R/K4 w 2GSPr 1",
            "rbsgk/4p/5/P4/KGSBR b - 1",
        ] {
            let start = Position::from_sfen(sfen).unwrap();
            let back = read(&write(
                &Record::new(start.clone(), Vec::new()),
                Encoding::Utf8,
            ))
            .unwrap();
            assert_eq!(back.start, start, "{sfen}");
        }
    }
}
