//! Notations: SFEN positions, USI moves (`5d5c`, `3a3e+`, `P*3c`) and course moves (`2A3A`,
//! `5C1CN`, `3CFU`), parsed with nom. Every malformed input is a typed error whose message names
//! the bad part; a move that parses but is illegal in the position is a distinct error.

use std::fmt;

use nom::IResult;
use nom::branch::alt;
use nom::bytes::complete::{tag, take};
use nom::character::complete::{anychar, char, digit1, satisfy};
use nom::combinator::{all_consuming, map, opt};
use nom::sequence::{pair, tuple};

use super::bitboard;
use super::position::Position;
use super::types::{Color, Move, Piece, PieceKind, Square};

/// What was wrong with an SFEN string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SfenError {
    /// A required field is absent (`board`, `side to move`).
    MissingField(&'static str),
    /// More than the four SFEN fields.
    TrailingInput(String),
    RankCount(usize),
    /// A rank describes the wrong number of squares.
    RankWidth {
        rank: char,
        squares: usize,
    },
    /// A character or token in the board field that is not a piece or an empty-run digit.
    BadBoardToken {
        rank: char,
        token: String,
    },
    BadSide(String),
    BadHand(String),
    BadMoveNumber(String),
    /// More pieces of a kind (counting both sides, board and hands) than the game has.
    TooManyPieces {
        kind: char,
        count: usize,
    },
    /// Each side must have exactly one king.
    KingCount {
        color: Color,
        count: usize,
    },
    /// A position no legal game reaches: pawn on the last rank, two pawns on a file, the side
    /// not to move in check.
    IllegalPosition(String),
}

impl fmt::Display for SfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SfenError::MissingField(what) => write!(f, "sfen is missing the {what} field"),
            SfenError::TrailingInput(s) => write!(f, "unexpected text after sfen: '{s}'"),
            SfenError::RankCount(n) => write!(f, "sfen has {n} ranks, expected 5"),
            SfenError::RankWidth { rank, squares } => {
                write!(f, "sfen rank '{rank}' has {squares} squares, expected 5")
            }
            SfenError::BadBoardToken { rank, token } => {
                write!(f, "bad piece '{token}' in sfen rank '{rank}'")
            }
            SfenError::BadSide(s) => write!(f, "bad side to move '{s}', expected 'b' or 'w'"),
            SfenError::BadHand(s) => write!(f, "bad pieces in hand '{s}'"),
            SfenError::BadMoveNumber(s) => write!(f, "bad move number '{s}'"),
            SfenError::TooManyPieces { kind, count } => {
                write!(
                    f,
                    "sfen has {count} pieces of kind '{kind}', at most 2 exist"
                )
            }
            SfenError::KingCount { color, count } => {
                write!(f, "sfen has {count} {color:?} kings, expected 1")
            }
            SfenError::IllegalPosition(why) => write!(f, "illegal position: {why}"),
        }
    }
}

impl std::error::Error for SfenError {}

/// What was wrong with a move string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not a move in the notation: names the bad part.
    Syntax { input: String, reason: String },
    /// The text is a well-formed move that is not legal in the position.
    Illegal { input: String, reason: String },
}

impl MoveError {
    pub(super) fn syntax(input: &str, reason: impl Into<String>) -> MoveError {
        MoveError::Syntax {
            input: input.to_string(),
            reason: reason.into(),
        }
    }

    pub fn is_illegal(&self) -> bool {
        matches!(self, MoveError::Illegal { .. })
    }
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax { input, reason } => write!(f, "{reason} in '{input}'"),
            MoveError::Illegal { input, reason } => write!(f, "illegal move '{input}': {reason}"),
        }
    }
}

impl std::error::Error for MoveError {}

// ---- SFEN ------------------------------------------------------------------------------------

/// The order in which hands are written: R B G S P, as USI does.
pub(super) const HAND_ORDER: [PieceKind; 5] = [
    PieceKind::Rook,
    PieceKind::Bishop,
    PieceKind::Gold,
    PieceKind::Silver,
    PieceKind::Pawn,
];

/// One token of an SFEN rank: a run of empty squares or a (possibly promoted) piece letter.
enum BoardToken {
    Empty(usize),
    Piece { promoted: bool, letter: char },
}

fn board_token(input: &str) -> IResult<&str, BoardToken> {
    alt((
        map(digit1, |d: &str| {
            BoardToken::Empty(d.parse().unwrap_or(usize::MAX))
        }),
        map(pair(opt(char('+')), anychar), |(plus, letter)| {
            BoardToken::Piece {
                promoted: plus.is_some(),
                letter,
            }
        }),
    ))(input)
}

/// `[count]letter` in a hand field.
fn hand_token(input: &str) -> IResult<&str, (usize, char)> {
    map(
        pair(opt(digit1), satisfy(|c| c.is_ascii_alphabetic())),
        |(n, c): (Option<&str>, char)| (n.map_or(1, |d| d.parse().unwrap_or(usize::MAX)), c),
    )(input)
}

fn rank_char(rank: usize) -> char {
    (b'a' + rank as u8) as char
}

/// The board field, shared by SFEN and Fairy-Stockfish's FEN (the same rows, files 5 to 1 from
/// gote's back rank down). Errors name a rank by its SFEN letter.
pub(super) fn parse_board(pos: &mut Position, field: &str) -> Result<(), SfenError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 5 {
        return Err(SfenError::RankCount(ranks.len()));
    }
    for (r, text) in ranks.iter().enumerate() {
        let mut rest = *text;
        // Files run from 5 down to 1 within a rank.
        let mut squares = 0usize;
        while !rest.is_empty() {
            let bad = || SfenError::BadBoardToken {
                rank: rank_char(r),
                token: rest
                    .chars()
                    .take(if rest.starts_with('+') { 2 } else { 1 })
                    .collect(),
            };
            let (next, token) = board_token(rest).map_err(|_| bad())?;
            match token {
                BoardToken::Empty(n) => {
                    if n == 0 || n > 5 {
                        return Err(bad());
                    }
                    squares = squares.saturating_add(n);
                }
                BoardToken::Piece { promoted, letter } => {
                    let kind = PieceKind::from_usi_letter(letter).ok_or_else(bad)?;
                    let kind = if promoted {
                        if !kind.can_promote() {
                            return Err(bad());
                        }
                        kind.promote()
                    } else {
                        kind
                    };
                    let color = if letter.is_ascii_uppercase() {
                        Color::Sente
                    } else {
                        Color::Gote
                    };
                    if squares < 5 {
                        let sq = Square::new(5 - squares as u8, r as u8);
                        pos.put_piece(sq, Piece::new(color, kind));
                    }
                    squares += 1;
                }
            }
            rest = next;
        }
        if squares != 5 {
            return Err(SfenError::RankWidth {
                rank: rank_char(r),
                squares,
            });
        }
    }
    Ok(())
}

fn parse_hands(pos: &mut Position, field: &str) -> Result<(), SfenError> {
    if field == "-" {
        return Ok(());
    }
    let bad = || SfenError::BadHand(field.to_string());
    let mut rest = field;
    let mut seen = [[false; 5]; 2];
    while !rest.is_empty() {
        let (next, (count, letter)) = hand_token(rest).map_err(|_| bad())?;
        let kind = PieceKind::from_usi_letter(letter)
            .filter(|k| k.index() < 5)
            .ok_or_else(bad)?;
        let color = if letter.is_ascii_uppercase() {
            Color::Sente
        } else {
            Color::Gote
        };
        if count == 0 || seen[color.index()][kind.index()] {
            return Err(bad());
        }
        if count > 2 {
            return Err(SfenError::TooManyPieces {
                kind: kind.usi_letter(),
                count,
            });
        }
        seen[color.index()][kind.index()] = true;
        pos.set_hand_count(color, kind, count as u8);
        rest = next;
    }
    Ok(())
}

/// Checks piece counts and the few things no legal game can produce.
pub(super) fn validate(pos: &Position) -> Result<(), SfenError> {
    for kind in PieceKind::HAND.into_iter().chain([PieceKind::King]) {
        let on_board = (pos.pieces_of_kind(kind) | pos.pieces_of_kind(kind.promote())).count();
        let in_hand = if kind == PieceKind::King {
            0
        } else {
            Color::ALL
                .iter()
                .map(|&c| pos.hand(c).count(kind) as u32)
                .sum()
        };
        let count = (on_board + in_hand) as usize;
        if count > 2 {
            return Err(SfenError::TooManyPieces {
                kind: kind.usi_letter(),
                count,
            });
        }
    }
    for color in Color::ALL {
        let kings = pos.pieces_of(color, PieceKind::King).count() as usize;
        if kings != 1 {
            return Err(SfenError::KingCount {
                color,
                count: kings,
            });
        }
        let pawns = pos.pieces_of(color, PieceKind::Pawn);
        if (pawns & bitboard::Bitboard::rank(color.promotion_rank())).any() {
            return Err(SfenError::IllegalPosition(format!(
                "{color:?} pawn on its last rank"
            )));
        }
        for file in 1..=5 {
            if (pawns & bitboard::Bitboard::file(file)).several() {
                return Err(SfenError::IllegalPosition(format!(
                    "two {color:?} pawns on file {file}"
                )));
            }
        }
    }
    let waiting = !pos.side_to_move();
    if let Some(k) = pos.king_square(waiting)
        && pos.is_attacked(k, pos.side_to_move())
    {
        return Err(SfenError::IllegalPosition(
            "the side not to move is in check".to_string(),
        ));
    }
    Ok(())
}

impl Position {
    /// Parses `board side hands [move-number]`, e.g. `rbsgk/4p/5/P4/KGSBR b - 1`.
    pub fn from_sfen(sfen: &str) -> Result<Position, SfenError> {
        let mut fields = sfen.split_whitespace();
        let board = fields.next().ok_or(SfenError::MissingField("board"))?;
        let side = fields
            .next()
            .ok_or(SfenError::MissingField("side to move"))?;
        let hands = fields.next().unwrap_or("-");
        let number = fields.next();
        if let Some(extra) = fields.next() {
            return Err(SfenError::TrailingInput(extra.to_string()));
        }
        let mut pos = Position::empty();
        parse_board(&mut pos, board)?;
        match side {
            "b" => pos.set_side_to_move(Color::Sente),
            "w" => pos.set_side_to_move(Color::Gote),
            other => return Err(SfenError::BadSide(other.to_string())),
        }
        parse_hands(&mut pos, hands)?;
        if let Some(n) = number {
            let n: u32 = n
                .parse()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| SfenError::BadMoveNumber(n.to_string()))?;
            pos.set_move_number(n);
        }
        validate(&pos)?;
        Ok(pos)
    }

    /// SFEN text. Hands are printed in the usual USI order: R B G S P, sente first.
    pub fn to_sfen(&self) -> String {
        let mut s = self.board_field();
        s.push_str(match self.side_to_move() {
            Color::Sente => " b ",
            Color::Gote => " w ",
        });
        let mut hands = String::new();
        for color in Color::ALL {
            for kind in HAND_ORDER {
                let n = self.hand(color).count(kind);
                if n > 1 {
                    hands.push_str(&n.to_string());
                }
                if n > 0 {
                    let p = Piece::new(color, kind);
                    hands.push_str(&p.sfen());
                }
            }
        }
        if hands.is_empty() {
            hands.push('-');
        }
        s.push_str(&hands);
        s.push(' ');
        s.push_str(&self.move_number().to_string());
        s
    }

    /// The board field of SFEN (and of Fairy-Stockfish's FEN): `rbsgk/4p/5/P4/KGSBR`.
    pub(super) fn board_field(&self) -> String {
        let mut s = String::with_capacity(30);
        for rank in 0..5u8 {
            if rank > 0 {
                s.push('/');
            }
            let mut empty = 0;
            for file in (1..=5u8).rev() {
                match self.piece_at(Square::new(file, rank)) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push_str(&p.sfen());
                    }
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
        }
        s
    }
}

// ---- moves -----------------------------------------------------------------------------------

/// A move as written, before it is checked against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RawMove {
    Board {
        from: Square,
        to: Square,
        promote: bool,
    },
    Drop {
        kind: PieceKind,
        to: Square,
    },
}

fn usi_square_chars(input: &str) -> IResult<&str, (char, char)> {
    pair(anychar, anychar)(input)
}

fn usi_square(whole: &str, (f, r): (char, char)) -> Result<Square, MoveError> {
    let file = f
        .to_digit(10)
        .filter(|d| (1..=5).contains(d))
        .ok_or_else(|| MoveError::syntax(whole, format!("file '{f}' out of range")))?;
    if !('a'..='e').contains(&r) {
        return Err(MoveError::syntax(whole, format!("rank '{r}' out of range")));
    }
    Ok(Square::new(file as u8, r as u8 - b'a'))
}

pub(super) fn parse_usi_raw(input: &str) -> Result<RawMove, MoveError> {
    let short = || MoveError::syntax(input, "too short for a USI move");
    if input.len() < 4 {
        return Err(short());
    }
    // Drop: `P*3c`.
    let drop: IResult<&str, (char, char, (char, char))> =
        all_consuming(tuple((anychar, char('*'), usi_square_chars)))(input);
    if let Ok((_, (letter, _, sq))) = drop {
        let kind = PieceKind::from_usi_letter(letter)
            .filter(|k| k.index() < 5 && letter.is_ascii_uppercase())
            .ok_or_else(|| MoveError::syntax(input, format!("unknown piece '{letter}' to drop")))?;
        let to = usi_square(input, sq)?;
        return Ok(RawMove::Drop { kind, to });
    }
    type BoardMove = ((char, char), (char, char), Option<char>);
    let board: IResult<&str, BoardMove> =
        all_consuming(tuple((usi_square_chars, usi_square_chars, opt(char('+')))))(input);
    match board {
        Ok((_, (a, b, plus))) => {
            let from = usi_square(input, a)?;
            let to = usi_square(input, b)?;
            if from == to {
                return Err(MoveError::syntax(input, "origin equals destination"));
            }
            Ok(RawMove::Board {
                from,
                to,
                promote: plus.is_some(),
            })
        }
        Err(_) => Err(MoveError::syntax(
            input,
            format!(
                "unexpected '{}' after the move",
                input.get(4..).unwrap_or("").trim_start_matches('+')
            ),
        )),
    }
}

fn course_square(whole: &str, row: char, col: char) -> Result<Square, MoveError> {
    let row = row
        .to_digit(10)
        .filter(|d| (1..=5).contains(d))
        .ok_or_else(|| MoveError::syntax(whole, format!("row '{row}' out of range")))?;
    if !('A'..='E').contains(&col) {
        return Err(MoveError::syntax(
            whole,
            format!("column '{col}' out of range"),
        ));
    }
    // Row 1 is sente's back rank (USI rank e); column A is USI file 5.
    Ok(Square::new(5 - (col as u8 - b'A'), 5 - row as u8))
}

fn course_drop_code(input: &str) -> IResult<&str, PieceKind> {
    alt((
        map(tag("FU"), |_| PieceKind::Pawn),
        map(tag("GI"), |_| PieceKind::Silver),
        map(tag("KI"), |_| PieceKind::Gold),
        map(tag("KK"), |_| PieceKind::Bishop),
        map(tag("HI"), |_| PieceKind::Rook),
    ))(input)
}

fn parse_course_raw(input: &str) -> Result<RawMove, MoveError> {
    if input.len() < 4 || !input.is_ascii() {
        return Err(MoveError::syntax(
            input,
            "not a course move (e.g. 2A3A, 5C1CN, 3CFU)",
        ));
    }
    let (rest, (r1, c1)) = pair(anychar::<_, ()>, anychar)(input)
        .map_err(|_| MoveError::syntax(input, "missing square"))?;
    let first = course_square(input, r1, c1)?;
    // Drop: square then a two-letter piece code.
    let drop: IResult<&str, PieceKind> = all_consuming(course_drop_code)(rest);
    if let Ok((_, kind)) = drop {
        return Ok(RawMove::Drop { kind, to: first });
    }
    let (rest, (r2, c2)) = pair(anychar::<_, ()>, anychar)(rest)
        .map_err(|_| MoveError::syntax(input, "missing destination square"))?;
    if r2.is_ascii_alphabetic() && c2.is_ascii_alphabetic() {
        return Err(MoveError::syntax(
            input,
            format!("unknown piece code '{r2}{c2}'"),
        ));
    }
    let to = course_square(input, r2, c2)?;
    let promote: IResult<&str, Option<&str>> = all_consuming(opt(take(1usize)))(rest);
    let promote = match promote {
        Ok((_, None)) => false,
        Ok((_, Some("N"))) => true,
        _ => {
            return Err(MoveError::syntax(
                input,
                format!("unexpected '{rest}' after the move (only 'N' for promotion)"),
            ));
        }
    };
    if first == to {
        return Err(MoveError::syntax(input, "origin equals destination"));
    }
    Ok(RawMove::Board {
        from: first,
        to,
        promote,
    })
}

impl Move {
    /// Course notation: `2A3A`, `5C1CN`, `3CFU`.
    pub fn course(self) -> String {
        match self.dropped() {
            Some(kind) => format!("{}{}", self.to().course_name(), kind.course_code()),
            None => format!(
                "{}{}{}",
                self.from_unchecked().course_name(),
                self.to().course_name(),
                if self.is_promotion() { "N" } else { "" }
            ),
        }
    }
}

impl Position {
    /// Parses a USI move and checks that it is legal here.
    pub fn parse_usi_move(&self, text: &str) -> Result<Move, MoveError> {
        let raw = parse_usi_raw(text)?;
        self.legal_from_raw(text, raw)
    }

    /// Parses a course-notation move and checks that it is legal here.
    pub fn parse_course_move(&self, text: &str) -> Result<Move, MoveError> {
        let raw = parse_course_raw(text)?;
        self.legal_from_raw(text, raw)
    }

    /// Accepts either notation: course squares use an uppercase column letter, USI squares a
    /// lowercase rank letter.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let b = text.as_bytes();
        let looks_course = b.len() >= 2 && b[1].is_ascii_uppercase();
        if looks_course {
            self.parse_course_move(text)
        } else {
            self.parse_usi_move(text)
        }
    }

    pub(super) fn legal_from_raw(&self, text: &str, raw: RawMove) -> Result<Move, MoveError> {
        let mv = match raw {
            RawMove::Board { from, to, promote } => Move::board(from, to, promote),
            RawMove::Drop { kind, to } => Move::drop(kind, to),
        };
        if self.is_legal(mv) {
            Ok(mv)
        } else {
            Err(MoveError::Illegal {
                input: text.to_string(),
                reason: self.explain_illegal(mv),
            })
        }
    }

    /// Why a well-formed move is not legal here (for error messages and referees).
    pub fn explain_illegal(&self, mv: Move) -> String {
        let us = self.side_to_move();
        let to = mv.to();
        let target = self.piece_at(to);
        match mv.dropped() {
            Some(kind) => {
                if self.hand(us).count(kind) == 0 {
                    return format!("no {kind:?} in hand");
                }
                if target.is_some() {
                    return format!("square {to} is occupied");
                }
                if kind == PieceKind::Pawn {
                    if to.rank() == us.promotion_rank() {
                        return "a pawn may not be dropped on the last rank".to_string();
                    }
                    if (self.pieces_of(us, PieceKind::Pawn) & bitboard::Bitboard::file(to.file()))
                        .any()
                    {
                        return format!("二歩 (nifu): a pawn is already on file {}", to.file());
                    }
                    let after = self.after(mv);
                    if after.in_check() && !after.has_legal_move() {
                        return "打ち歩詰め (uchifuzume): a pawn drop may not checkmate"
                            .to_string();
                    }
                }
            }
            None => {
                let from = mv.from_unchecked();
                let Some(piece) = self.piece_at(from) else {
                    return format!("no piece on {from}");
                };
                if piece.color != us {
                    return format!("the piece on {from} is not the side to move's");
                }
                if target.is_some_and(|t| t.color == us) {
                    return format!("square {to} holds a piece of the side to move");
                }
                if !bitboard::attacks(us, piece.kind, from, self.occupied()).has(to) {
                    return format!("a {:?} on {from} cannot reach {to}", piece.kind);
                }
                let zone = us.promotion_rank();
                if mv.is_promotion() {
                    if !piece.kind.can_promote() {
                        return format!("a {:?} cannot promote", piece.kind);
                    }
                    if from.rank() != zone && to.rank() != zone {
                        return "promotion needs a move into or out of the last rank".to_string();
                    }
                } else if piece.kind == PieceKind::Pawn && to.rank() == zone {
                    return "a pawn reaching the last rank must promote".to_string();
                }
            }
        }
        if self.after(mv).is_attacked_king_of(us) {
            return "it leaves the king in check".to_string();
        }
        "not a legal move in this position".to_string()
    }

    fn is_attacked_king_of(&self, color: Color) -> bool {
        self.king_square(color)
            .is_some_and(|k| self.is_attacked(k, !color))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_sfen_round_trips() {
        let s = "rbsgk/4p/5/P4/KGSBR b - 1";
        let pos = Position::from_sfen(s).unwrap();
        assert_eq!(pos, Position::startpos());
        assert_eq!(pos.to_sfen(), s);
    }

    #[test]
    fn sfen_errors_name_the_problem() {
        let e = Position::from_sfen("rbsgk/4p/5/P4/KGSBR/5 b - 1").unwrap_err();
        assert_eq!(e.to_string(), "sfen has 6 ranks, expected 5");
        let e = Position::from_sfen("rbsgk/4p/6/P4/KGSBR b - 1").unwrap_err();
        assert!(e.to_string().contains("bad piece '6'"), "{e}");
        let e = Position::from_sfen("rbsgk/4p/4/P4/KGSBR b - 1").unwrap_err();
        assert_eq!(e.to_string(), "sfen rank 'c' has 4 squares, expected 5");
        let e = Position::from_sfen("rbsgk/4p/5/P4/KGSBR x - 1").unwrap_err();
        assert!(matches!(e, SfenError::BadSide(_)));
        let e = Position::from_sfen("rbsgk/4p/5/P4/KGSBR b 3P 1").unwrap_err();
        assert!(matches!(e, SfenError::TooManyPieces { .. }));
        let e = Position::from_sfen("rbsgk/4p/5/P4/KGSBR b - 0").unwrap_err();
        assert!(matches!(e, SfenError::BadMoveNumber(_)));
        let e = Position::from_sfen("rbsgk/4p/5/P4/KGSXR b - 1").unwrap_err();
        assert!(e.to_string().contains("'X'"), "{e}");
        let e = Position::from_sfen("rbsgk/4p/5/P4/KGSBR").unwrap_err();
        assert_eq!(e, SfenError::MissingField("side to move"));
        let e = Position::from_sfen("rbsgk/4p/5/P4/KGSBR b - 1 x").unwrap_err();
        assert!(matches!(e, SfenError::TrailingInput(_)));
        let e = Position::from_sfen("P3k/5/5/5/K4 b - 1").unwrap_err();
        assert!(matches!(e, SfenError::IllegalPosition(_)), "{e}");
        let e = Position::from_sfen("4k/5/5/5/5 b - 1").unwrap_err();
        assert!(matches!(e, SfenError::KingCount { .. }), "{e}");
        let e = Position::from_sfen("4k/5/5/5/+K4 b - 1").unwrap_err();
        assert!(matches!(e, SfenError::BadBoardToken { .. }), "{e}");
    }

    #[test]
    fn hands_parse_and_print() {
        let pos = Position::from_sfen("2k2/5/5/5/2K2 b GSBRPgsbrp 1").unwrap();
        for c in Color::ALL {
            for k in PieceKind::HAND {
                assert_eq!(pos.hand(c).count(k), 1);
            }
        }
        assert_eq!(pos.to_sfen(), "2k2/5/5/5/2K2 b RBGSPrbgsp 1");
        let pos = Position::from_sfen("3k1/2b1p/2S2/r4/KB3 b 2Gpsr 39").unwrap();
        assert_eq!(pos.hand(Color::Sente).count(PieceKind::Gold), 2);
        assert_eq!(pos.to_sfen(), "3k1/2b1p/2S2/r4/KB3 b 2Grsp 39");
    }

    #[test]
    fn usi_moves_parse_with_named_errors() {
        let pos = Position::startpos();
        let mv = pos.parse_usi_move("5d5c").unwrap();
        assert_eq!(mv.to_string(), "5d5c");
        assert_eq!(mv.course(), "2A3A");
        let e = pos.parse_usi_move("5f5e").unwrap_err();
        assert_eq!(e.to_string(), "rank 'f' out of range in '5f5e'");
        let e = pos.parse_usi_move("6d5c").unwrap_err();
        assert_eq!(e.to_string(), "file '6' out of range in '6d5c'");
        let e = pos.parse_usi_move("5d5").unwrap_err();
        assert!(matches!(e, MoveError::Syntax { .. }));
        let e = pos.parse_usi_move("5d5cx").unwrap_err();
        assert!(matches!(e, MoveError::Syntax { .. }), "{e}");
        let e = pos.parse_usi_move("X*3c").unwrap_err();
        assert!(e.to_string().contains("unknown piece 'X'"), "{e}");
        let e = pos.parse_usi_move("5d5b").unwrap_err();
        assert!(e.is_illegal(), "{e}");
        let e = pos.parse_usi_move("P*3c").unwrap_err();
        assert!(e.to_string().contains("no Pawn in hand"), "{e}");
    }

    #[test]
    fn course_moves_parse() {
        let pos = Position::startpos();
        let mv = pos.parse_course_move("2A3A").unwrap();
        assert_eq!(mv.to_string(), "5d5c");
        assert_eq!(pos.parse_move("2A3A").unwrap(), mv);
        assert_eq!(pos.parse_move("5d5c").unwrap(), mv);
        let e = pos.parse_course_move("6A3A").unwrap_err();
        assert_eq!(e.to_string(), "row '6' out of range in '6A3A'");
        let e = pos.parse_course_move("2F3A").unwrap_err();
        assert_eq!(e.to_string(), "column 'F' out of range in '2F3A'");
        let e = pos.parse_course_move("3CXY").unwrap_err();
        assert!(e.to_string().contains("unknown piece code 'XY'"), "{e}");
        let e = pos.parse_course_move("2A3AP").unwrap_err();
        assert!(matches!(e, MoveError::Syntax { .. }), "{e}");
        let drop = Move::drop(PieceKind::Bishop, Square::new(4, 4));
        assert_eq!(drop.course(), "1BKK");
        let promo = Move::board(Square::new(3, 2), Square::new(3, 0), true);
        assert_eq!(promo.course(), "3C5CN");
    }

    #[test]
    fn illegal_reasons() {
        // 二歩.
        let pos = Position::from_sfen("rbsg1/3k1/5/P4/KGSBR b P 1").unwrap();
        let e = pos.parse_usi_move("P*5b").unwrap_err();
        assert!(e.to_string().contains("nifu"), "{e}");
        // Uchifuzume.
        let pos = Position::from_sfen("4k/2S2/4G/5/K4 b P 1").unwrap();
        let e = pos.parse_usi_move("P*1b").unwrap_err();
        assert!(e.to_string().contains("uchifuzume"), "{e}");
        // Pawn must promote.
        let pos = Position::from_sfen("4k/1S1P1/5/5/K4 b - 1").unwrap();
        let e = pos.parse_usi_move("2b2a").unwrap_err();
        assert!(e.to_string().contains("must promote"), "{e}");
        assert!(pos.parse_usi_move("2b2a+").is_ok());
    }
}
