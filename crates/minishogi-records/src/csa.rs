//! CSA records (the CSA standard file format V2.2, the computer-shogi exchange format) for
//! 5五将棋. The standard is written for the 9×9 board; 5五将棋 programs use it with the board
//! cut to 5×5 (as the MSK format of 5五将棋 programs and csa-rs's minishogi reader do), and so
//! does this module:
//!
//! - squares are two digits, file then rank, both 1–5: `11` is the top right corner (USI `1a`),
//!   `55` the bottom left (`5e`); `00` is the hand;
//! - the start position is always written as a board of five `P1`…`P5` lines of five cells
//!   (files 5 to 1; ` * ` empty, `+FU` sente's pawn, `-OU` gote's king), then `P+00GI` /
//!   `P-00FU` lines for the hands, then `+` or `-` for the side to move. On reading, `PI` (with
//!   pieces to remove after it, as in handicaps) stands for 5五将棋's initial position, and
//!   `P+`/`P-` lines may place pieces on the board and `00AL` give the rest to a hand;
//! - moves are `+2524KA`: the side, origin (`00` for a drop), destination and the piece *after*
//!   the move (`+3231NG` promotes a silver), codes FU GI KI KA HI OU TO NG UM RY; each followed
//!   by `T` and the seconds it took;
//! - endings: `%TSUMI` (checkmate), `%TORYO` (resignation), `%SENNICHITE` (千日手: the loser is
//!   the rules' verdict, sente unless the cycle was perpetual check), `%HIKIWAKE` (the ply
//!   limit's draw; `%JISHOGI` and V3's `%MAX_MOVES` read as the same), `%+ILLEGAL_ACTION` /
//!   `%-ILLEGAL_ACTION` (that side lost by a foul; `%ILLEGAL_MOVE` reads as the side to move's),
//!   `%TIME_UP`, `%CHUDAN` (interrupted).
//!
//! Files are written in Shift_JIS with CR LF (what a CSA file without V3's encoding line is);
//! names are the only text that may not be ASCII. A `/` line ends the first record; the rest
//! of the file is not read. `'` lines are comments; `,` separates moves and times on a line.

use std::fmt::Write as _;
use std::time::Duration;

use super::record::{Ending, Reader, Record, RecordError, checked_position, one_line};
use minishogi_rules::display;
use minishogi_rules::{Color, Move, Piece, PieceKind, Position, Square};

/// CSA's two-letter piece codes.
const CODES: [(&str, PieceKind); 10] = [
    ("FU", PieceKind::Pawn),
    ("GI", PieceKind::Silver),
    ("KI", PieceKind::Gold),
    ("KA", PieceKind::Bishop),
    ("HI", PieceKind::Rook),
    ("OU", PieceKind::King),
    ("TO", PieceKind::ProPawn),
    ("NG", PieceKind::ProSilver),
    ("UM", PieceKind::Horse),
    ("RY", PieceKind::Dragon),
];

/// Codes of 9×9 shogi pieces, named in errors.
const OTHER_SHOGI_CODES: [&str; 4] = ["KY", "KE", "NY", "NK"];

/// Endings as written (the first of a kind is written; a foul's sign is the loser's).
const ENDINGS: [(&str, Ending); 12] = [
    ("%TSUMI", Ending::Checkmate),
    ("%TORYO", Ending::Resignation),
    ("%SENNICHITE", Ending::Repetition),
    ("%HIKIWAKE", Ending::PlyLimit),
    ("%+ILLEGAL_ACTION", Ending::Foul),
    ("%TIME_UP", Ending::TimeForfeit),
    ("%CHUDAN", Ending::Interrupted),
    ("%-ILLEGAL_ACTION", Ending::Foul),
    ("%ILLEGAL_MOVE", Ending::Foul),
    ("%JISHOGI", Ending::PlyLimit),
    ("%MAX_MOVES", Ending::PlyLimit),
    ("%TIME-UP", Ending::TimeForfeit),
];

fn code(kind: PieceKind) -> &'static str {
    CODES
        .iter()
        .find(|(_, k)| *k == kind)
        .map(|(c, _)| *c)
        .expect("every kind has a code")
}

fn sign(color: Color) -> char {
    match color {
        Color::Sente => '+',
        Color::Gote => '-',
    }
}

/// A square as two digits, file then rank (rank 1 = USI `a`).
fn square_digits(sq: Square) -> String {
    format!("{}{}", sq.file(), sq.rank() + 1)
}

/// A board cell: ` * `, `+FU`, `-OU`.
fn cell(piece: Option<Piece>) -> String {
    match piece {
        None => " * ".to_string(),
        Some(p) => format!("{}{}", sign(p.color), code(p.kind)),
    }
}

/// The move in CSA notation, given the position before it.
pub fn csa_move(pos: &Position, mv: Move) -> String {
    let side = sign(pos.side_to_move());
    match (mv.dropped(), mv.from()) {
        (Some(kind), _) => format!("{side}00{}{}", square_digits(mv.to()), code(kind)),
        (None, None) => unreachable!("a move is a drop or has an origin"),
        (None, Some(from)) => {
            let kind = pos.piece_at(from).map_or(PieceKind::Pawn, |p| p.kind);
            let after = if mv.is_promotion() {
                kind.promote()
            } else {
                kind
            };
            format!(
                "{side}{}{}{}",
                square_digits(from),
                square_digits(mv.to()),
                code(after)
            )
        }
    }
}

fn ending_text(ending: Ending, winner: Option<Color>) -> &'static str {
    match (ending, winner) {
        (Ending::Foul, Some(Color::Sente)) => "%-ILLEGAL_ACTION",
        (Ending::Foul, Some(Color::Gote)) => "%+ILLEGAL_ACTION",
        (Ending::Foul, None) => "%ILLEGAL_MOVE",
        _ => ENDINGS
            .iter()
            .find(|(_, e)| *e == ending)
            .map(|(text, _)| *text)
            .expect("every ending has a text"),
    }
}

/// The whole record as CSA text (LF line ends; see [`super::write`] for the file's bytes).
pub fn write(record: &Record) -> String {
    let mut s = String::new();
    s.push_str("V2.2\n");
    s.push_str("'5五将棋 (minishogi): 5x5 board P1-P5, squares 11 (top right) to 55\n");
    let _ = writeln!(s, "N+{}", one_line(&record.sente));
    let _ = writeln!(s, "N-{}", one_line(&record.gote));
    if let Some(event) = &record.event {
        let _ = writeln!(s, "$EVENT:{}", one_line(event));
    }
    for (rank, row) in display::board_rows(&record.start, cell).iter().enumerate() {
        let _ = writeln!(s, "P{}{row}", rank + 1);
    }
    for color in Color::ALL {
        let hand = record.start.hand(color);
        let mut line = String::new();
        for kind in PieceKind::HAND.iter().rev() {
            for _ in 0..hand.count(*kind) {
                let _ = write!(line, "00{}", code(*kind));
            }
        }
        if !line.is_empty() {
            let _ = writeln!(s, "P{}{line}", sign(color));
        }
    }
    let _ = writeln!(s, "{}", sign(record.start.side_to_move()));
    let mut pos = record.start.clone();
    for (i, &mv) in record.moves.iter().enumerate() {
        let _ = writeln!(s, "{}", csa_move(&pos, mv));
        let _ = writeln!(s, "T{}", record.time(i).as_secs());
        if let Some(comment) = record.move_comment(i) {
            for line in comment.lines() {
                let _ = writeln!(s, "'*{line}");
            }
        }
        pos.make_move(mv);
    }
    if let Some(ending) = record.ending {
        let _ = writeln!(s, "{}", ending_text(ending, record.winner));
    }
    if let Some(comment) = &record.comment {
        for line in comment.lines() {
            let _ = writeln!(s, "'{line}");
        }
    }
    s
}

// ---- reading ---------------------------------------------------------------------------------

fn kind_of(code_text: &str, line: usize) -> Result<PieceKind, RecordError> {
    if let Some((_, kind)) = CODES.iter().find(|(c, _)| *c == code_text) {
        return Ok(*kind);
    }
    let why = if OTHER_SHOGI_CODES.contains(&code_text) {
        format!("piece {code_text} is not in 5五将棋")
    } else {
        format!("unknown piece code '{code_text}'")
    };
    Err(RecordError::new(line, why))
}

/// Two digits as a square of the 5×5 board, or `None` for `00` (the hand).
fn parse_square(text: &str, line: usize) -> Result<Option<Square>, RecordError> {
    let bad = || RecordError::new(line, format!("square '{text}' is not on the 5×5 board"));
    let mut digits = text.chars().map(|c| c.to_digit(10));
    match (digits.next().flatten(), digits.next().flatten()) {
        (Some(0), Some(0)) => Ok(None),
        (Some(f @ 1..=5), Some(r @ 1..=5)) => Ok(Some(Square::new(f as u8, r as u8 - 1))),
        _ => Err(bad()),
    }
}

fn color_of(c: char, line: usize) -> Result<Color, RecordError> {
    match c {
        '+' => Ok(Color::Sente),
        '-' => Ok(Color::Gote),
        other => Err(RecordError::new(
            line,
            format!("'{other}' is not a side (+ or -)"),
        )),
    }
}

/// The start position as the header builds it.
struct Setup {
    pos: Position,
    /// Whether a board (`PI` or `P1`…) was given, and on which line the last part was.
    given: bool,
    rows: [bool; 5],
    line: usize,
}

impl Setup {
    fn new() -> Setup {
        Setup {
            pos: Position::empty(),
            given: false,
            rows: [false; 5],
            line: 0,
        }
    }

    /// `PI` and the squares of the pieces it removes.
    fn initial(&mut self, rest: &str, line: usize) -> Result<(), RecordError> {
        self.pos = Position::startpos();
        self.given = true;
        self.line = line;
        for chunk in rest.as_bytes().chunks(4) {
            let item = std::str::from_utf8(chunk).unwrap_or("");
            let (Some(sq_text), Some(code_text)) = (item.get(..2), item.get(2..4)) else {
                return Err(RecordError::new(line, format!("bad PI item '{item}'")));
            };
            let sq = parse_square(sq_text, line)?
                .ok_or_else(|| RecordError::new(line, "PI removes pieces from the board"))?;
            let kind = kind_of(code_text, line)?;
            if self.pos.piece_at(sq).map(|p| p.kind) != Some(kind) {
                return Err(RecordError::new(
                    line,
                    format!("PI removes {code_text} from {sq_text}, which does not hold it"),
                ));
            }
            self.pos.remove_piece(sq);
        }
        Ok(())
    }

    /// `P1-HI-KA-GI-KI-OU`.
    fn row(&mut self, rank: usize, cells: &str, line: usize) -> Result<(), RecordError> {
        let chars: Vec<char> = cells.chars().collect();
        let count = chars.len().div_ceil(3);
        if count > 5 {
            return Err(RecordError::new(
                line,
                format!("a board row of {count} cells, expected 5 (a 9×9 shogi record?)"),
            ));
        }
        self.given = true;
        self.line = line;
        self.rows[rank] = true;
        // Editors may drop the trailing spaces of an empty last cell.
        let mut padded = chars;
        padded.resize(15, ' ');
        for (i, cell) in padded.chunks(3).enumerate() {
            let text: String = cell.iter().collect();
            let sq = Square::new(5 - i as u8, rank as u8);
            if text.trim() == "*" || text.trim().is_empty() {
                self.pos.remove_piece(sq);
                continue;
            }
            let color = color_of(cell[0], line)?;
            let kind = kind_of(&text[1..], line)?;
            self.pos.remove_piece(sq);
            self.pos.put_piece(sq, Piece::new(color, kind));
        }
        Ok(())
    }

    /// `P+00KI00FU`, `P-22KA`, `P-00AL`.
    fn placements(&mut self, color: Color, rest: &str, line: usize) -> Result<(), RecordError> {
        self.line = line;
        for chunk in rest.as_bytes().chunks(4) {
            let item = std::str::from_utf8(chunk).unwrap_or("");
            let (Some(sq_text), Some(code_text)) = (item.get(..2), item.get(2..4)) else {
                return Err(RecordError::new(line, format!("bad placement '{item}'")));
            };
            let sq = parse_square(sq_text, line)?;
            if code_text == "AL" {
                if sq.is_some() {
                    return Err(RecordError::new(line, "AL goes with 00 (the hand)"));
                }
                self.rest_to_hand(color);
                continue;
            }
            let kind = kind_of(code_text, line)?;
            match sq {
                Some(sq) => {
                    self.given = true;
                    self.pos.remove_piece(sq);
                    self.pos.put_piece(sq, Piece::new(color, kind));
                }
                None => {
                    if !PieceKind::HAND.contains(&kind) {
                        return Err(RecordError::new(
                            line,
                            format!("{code_text} cannot be in hand"),
                        ));
                    }
                    let n = self.pos.hand(color).count(kind);
                    self.pos.set_hand_count(color, kind, n.saturating_add(1));
                }
            }
        }
        Ok(())
    }

    /// `00AL`: every piece not on the board or in a hand goes to `color`'s hand (two of each
    /// kind exist).
    fn rest_to_hand(&mut self, color: Color) {
        for kind in PieceKind::HAND {
            let on_board = (self.pos.pieces_of_kind(kind) | self.pos.pieces_of_kind(kind.promote()))
                .count() as u8;
            let in_hands: u8 = Color::ALL
                .iter()
                .map(|&c| self.pos.hand(c).count(kind))
                .sum();
            let rest = 2u8.saturating_sub(on_board + in_hands);
            let n = self.pos.hand(color).count(kind);
            self.pos.set_hand_count(color, kind, n + rest);
        }
    }

    fn position(mut self, side: Color, line: usize) -> Result<Position, RecordError> {
        if !self.given {
            return Err(RecordError::new(
                line,
                "no start position before the side to move (PI or P1…P5)",
            ));
        }
        if !self.rows.iter().all(|&r| r) && self.rows.iter().any(|&r| r) {
            let missing = self.rows.iter().position(|&r| !r).unwrap_or(0) + 1;
            return Err(RecordError::new(
                self.line,
                format!("board line P{missing} is missing"),
            ));
        }
        self.pos.set_side_to_move(side);
        checked_position(&self.pos, line)
    }
}

/// Reads the first CSA record of `text`. Every move is checked by the rules core.
pub fn read(text: &str) -> Result<Record, RecordError> {
    let mut setup = Some(Setup::new());
    let mut reader: Option<Reader> = None;
    let mut sente = String::new();
    let mut gote = String::new();
    let mut event = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let text = raw.trim_end();
        if let Some(comment) = text.strip_prefix("'*") {
            if let Some(reader) = &mut reader {
                reader.comment(comment);
            }
            continue;
        }
        if text.is_empty() || text.starts_with('\'') {
            continue;
        }
        if text == "/" {
            break;
        }
        let statements: Vec<&str> = if text.starts_with(['+', '-', 'T', '%']) {
            text.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect()
        } else {
            vec![text]
        };
        for statement in statements {
            if let Some(reader) = &mut reader {
                read_move_section(reader, statement, line)?;
                continue;
            }
            let Some(board) = &mut setup else {
                unreachable!("the setup is taken when the moves begin")
            };
            if let Some(version) = statement.strip_prefix('V') {
                if !matches!(version, "2" | "2.1" | "2.2" | "3.0") {
                    return Err(RecordError::new(
                        line,
                        format!("unknown CSA version V{version}"),
                    ));
                }
            } else if let Some(name) = statement.strip_prefix("N+") {
                sente = name.to_string();
            } else if let Some(name) = statement.strip_prefix("N-") {
                gote = name.to_string();
            } else if let Some(info) = statement.strip_prefix('$') {
                if let Some(value) = info.strip_prefix("EVENT:") {
                    event = Some(value.to_string());
                }
            } else if let Some(rest) = statement.strip_prefix("PI") {
                board.initial(rest, line)?;
            } else if let Some(rest) = statement.strip_prefix("P+") {
                board.placements(Color::Sente, rest, line)?;
            } else if let Some(rest) = statement.strip_prefix("P-") {
                board.placements(Color::Gote, rest, line)?;
            } else if let Some(rest) = statement.strip_prefix('P') {
                let rank = rest.chars().next().and_then(|c| c.to_digit(10));
                match rank {
                    Some(r @ 1..=5) => board.row(r as usize - 1, &rest[1..], line)?,
                    Some(r @ 6..=9) => {
                        return Err(RecordError::new(
                            line,
                            format!("board line P{r}: 5五将棋 has 5 ranks (a 9×9 record?)"),
                        ));
                    }
                    _ => {
                        return Err(RecordError::new(
                            line,
                            format!("bad board line '{statement}'"),
                        ));
                    }
                }
            } else if statement == "+" || statement == "-" {
                let side = color_of(statement.chars().next().unwrap_or('+'), line)?;
                let start = setup.take().expect("present").position(side, line)?;
                let mut r = Reader::new(start);
                r.sente = std::mem::take(&mut sente);
                r.gote = std::mem::take(&mut gote);
                r.event = event.take();
                reader = Some(r);
                break;
            } else {
                return Err(RecordError::new(
                    line,
                    format!("'{statement}' is not a CSA header line"),
                ));
            }
        }
    }
    reader
        .ok_or_else(|| RecordError::new(0, "no side to move line (+ or -): no game"))?
        .finish()
}

/// A move, time or ending after the header.
fn read_move_section(reader: &mut Reader, statement: &str, line: usize) -> Result<(), RecordError> {
    if let Some(seconds) = statement.strip_prefix('T') {
        let time = seconds
            .parse::<f64>()
            .ok()
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .ok_or_else(|| RecordError::new(line, format!("bad time '{statement}'")))?;
        reader.set_time(time);
        return Ok(());
    }
    if statement.starts_with('%') {
        let (_, ending) = ENDINGS
            .iter()
            .find(|(text, _)| *text == statement)
            .ok_or_else(|| {
                RecordError::new(
                    line,
                    format!("ending '{statement}' is not one this reader knows"),
                )
            })?;
        let winner = match statement {
            "%+ILLEGAL_ACTION" => Some(Color::Gote),
            "%-ILLEGAL_ACTION" => Some(Color::Sente),
            _ => None,
        };
        return reader.end(*ending, line, winner);
    }
    let bad = |why: &str| RecordError::new(line, format!("bad move '{statement}': {why}"));
    if statement.len() != 7 || !statement.is_ascii() {
        return Err(bad("expected the form +2524KA"));
    }
    let color = color_of(statement.as_bytes()[0] as char, line)?;
    let pos = reader.game.position();
    if color != pos.side_to_move() {
        return Err(bad("played out of turn"));
    }
    let from = parse_square(&statement[1..3], line)?;
    let to = parse_square(&statement[3..5], line)?.ok_or_else(|| bad("no destination"))?;
    let after = kind_of(&statement[5..7], line)?;
    let mv = match from {
        None => Move::drop(after, to),
        Some(from) => {
            let promote = match pos.piece_at(from) {
                Some(piece) if piece.color == color => {
                    if after == piece.kind {
                        false
                    } else if piece.kind.can_promote() && after == piece.kind.promote() {
                        true
                    } else {
                        return Err(bad(&format!(
                            "the piece on {} is {}, it cannot become {}",
                            &statement[1..3],
                            code(piece.kind),
                            &statement[5..7]
                        )));
                    }
                }
                // The rules core explains an empty origin or an opponent's piece.
                _ => false,
            };
            Move::board(from, to, promote)
        }
    };
    reader.play(mv, line, statement)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::record;

    #[test]
    fn writes_the_board_moves_and_ending() {
        let mut game = record(Position::startpos(), "2e1d 4a5b 5d5c");
        game.sente = "alpha".to_string();
        game.gote = "beta".to_string();
        game.event = Some("match".to_string());
        game.times = vec![Duration::from_millis(1500), Duration::from_secs(61)];
        game.ending = Some(Ending::Resignation);
        game.winner = Some(Color::Sente);
        let csa = write(&game);
        let expected = "V2.2\n\
            '5五将棋 (minishogi): 5x5 board P1-P5, squares 11 (top right) to 55\n\
            N+alpha\nN-beta\n$EVENT:match\n\
            P1-HI-KA-GI-KI-OU\nP2 *  *  *  * -FU\nP3 *  *  *  *  * \nP4+FU *  *  *  * \n\
            P5+OU+KI+GI+KA+HI\n+\n\
            +2514KA\nT1\n-4152KA\nT61\n+5453FU\nT0\n%TORYO\n";
        assert_eq!(csa, expected);
    }

    #[test]
    fn promotions_drops_hands_and_fouls() {
        let start = Position::from_sfen("4k/2S2/5/5/K4 b G 1").unwrap();
        let mut game = record(start, "3b3a+ 1a2b G*3b");
        game.ending = Some(Ending::Foul);
        game.winner = Some(Color::Sente);
        let csa = write(&game);
        assert!(csa.contains("\nP+00KI\n+\n+3231NG\n"), "{csa}");
        assert!(csa.contains("\n+0032KI\n"), "{csa}");
        assert!(csa.ends_with("%-ILLEGAL_ACTION\n"), "{csa}");
        let back = read(&csa).unwrap();
        assert_eq!(back.start, game.start);
        assert_eq!(back.moves, game.moves);
        assert_eq!(back.winner, Some(Color::Sente));
    }

    #[test]
    fn reads_other_spellings() {
        // PI, moves and times on one line, comments, a handicap (PI without gote's rook),
        // trailing spaces dropped from the board.
        let text = "'a comment\nV2.2\nN+先手\nN-後手\n$START_TIME:2024/01/01 10:00:00\nPI51HI\n+\n\
                    +2514KA,T3,-4152KA\nT2.5\n'more\n%CHUDAN\n/\nV2.2\n";
        let record = read(text).unwrap();
        assert_eq!(record.start.piece_at(Square::new(5, 0)), None);
        assert_eq!(record.moves.len(), 2);
        assert_eq!(
            record.times,
            [Duration::from_secs(3), Duration::from_millis(2500)]
        );
        assert_eq!(record.ending, Some(Ending::Interrupted));
        assert_eq!(record.sente, "先手");
        let boards =
            "V2.2\nP1-HI-KA-GI-KI-OU\nP2 *  *  *  * -FU\nP3\nP4+FU\nP5+OU+KI+GI+KA+HI\n+\n";
        assert_eq!(read(boards).unwrap().start, Position::startpos());
        // Placements and 00AL.
        let placed = "V2.2\nP+55OU54FU\nP-11OU\nP+00KI\nP-00AL\n-\n";
        let start = read(placed).unwrap().start;
        assert_eq!(start.to_sfen(), "4k/5/5/P4/K4 w G2r2bg2sp 1");
    }

    #[test]
    fn malformed_records_name_the_line() {
        let err = |text: &str| read(text).unwrap_err();
        let e = err("V2.2\nPI\n+\n+2514KA\n+4152KA\n");
        assert_eq!(e.line, 5);
        assert!(e.message.contains("out of turn"), "{e}");
        let e = err("V2.2\nPI\n+\n+2513KA\n");
        assert!(e.message.contains("illegal move 1"), "{e}");
        let e = err("V2.2\nPI\n+\n+2514HI\n");
        assert!(e.message.contains("cannot become HI"), "{e}");
        let e = err("V2.2\nP1-KY-KE-GI-KI-OU-KI-GI-KE-KY\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("9×9"), "{e}");
        let e = err("V2.2\nP7 *  *  * \n");
        assert!(e.message.contains("5 ranks"), "{e}");
        let e = err("V2.2\nPI\n+\n+0033KY\n");
        assert!(e.message.contains("not in 5五将棋"), "{e}");
        let e = err("V2.2\nPI\n+\n+2514KA\nTx\n");
        assert_eq!(e.line, 5);
        let e = err("V2.2\nPI\n+\n%KACHI\n");
        assert!(e.message.contains("%KACHI"), "{e}");
        let e = err("V2.2\n+\n");
        assert!(e.message.contains("no start position"), "{e}");
        let e = err("V2.2\nPI\n");
        assert_eq!(e.line, 0);
        let e = err("V9\n");
        assert_eq!(e.line, 1);
        let e = err("V2.2\nP1-HI-KA-GI-KI-OU\n+\n");
        assert!(e.message.contains("P2 is missing"), "{e}");
        let e = err("V2.2\nP+55OU\nP-11OU54OU\n+\n");
        assert!(e.message.contains("impossible start position"), "{e}");
    }
}
