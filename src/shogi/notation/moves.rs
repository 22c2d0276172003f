//! Moves as written: USI (`5d5c`, `3a3e+`, `P*3c`) and course (`2A3A`, `5C1CN`, `3CFU`) notation,
//! parsed into a raw move and then checked against the position.

use nom::IResult;
use nom::branch::alt;
use nom::bytes::complete::{tag, take};
use nom::character::complete::{anychar, char};
use nom::combinator::{all_consuming, map, opt};
use nom::sequence::{pair, tuple};

use super::MoveError;
use crate::shogi::position::Position;
use crate::shogi::types::{Move, PieceKind, Square};

// ---- moves -----------------------------------------------------------------------------------

/// A move as written, before it is checked against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::shogi) enum RawMove {
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

pub(in crate::shogi) fn parse_usi_raw(input: &str) -> Result<RawMove, MoveError> {
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

    pub(in crate::shogi) fn legal_from_raw(
        &self,
        text: &str,
        raw: RawMove,
    ) -> Result<Move, MoveError> {
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
}
