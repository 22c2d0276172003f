//! Moves as written: USI (`5d5c`, `3a3e+`, `P*3c`) and course (`2A3A`, `5C1CN`, `3CFU`) notation,
//! parsed into a raw move and then checked against the position.

use super::MoveError;
use crate::position::Position;
use crate::types::{Move, PieceKind, Square};

// ---- moves -----------------------------------------------------------------------------------

/// A move as written, before it is checked against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RawMove {
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

pub(crate) fn parse_usi_raw(input: &str) -> Result<RawMove, MoveError> {
    if input.len() < 4 {
        return Err(MoveError::syntax(input, "too short for a USI move"));
    }
    // At most the 5 characters of a move and one more, to tell "too long" apart.
    let chars: Vec<char> = input.chars().take(6).collect();
    match *chars.as_slice() {
        // Drop: `P*3c`.
        [letter, '*', file, rank] => {
            let kind = PieceKind::from_usi_letter(letter)
                .filter(|k| k.index() < 5 && letter.is_ascii_uppercase())
                .ok_or_else(|| {
                    MoveError::syntax(input, format!("unknown piece '{letter}' to drop"))
                })?;
            let to = usi_square(input, (file, rank))?;
            Ok(RawMove::Drop { kind, to })
        }
        // Board move: `5d5c`, `3a3e+`.
        [f1, r1, f2, r2] | [f1, r1, f2, r2, '+'] => {
            let from = usi_square(input, (f1, r1))?;
            let to = usi_square(input, (f2, r2))?;
            if from == to {
                return Err(MoveError::syntax(input, "origin equals destination"));
            }
            Ok(RawMove::Board {
                from,
                to,
                promote: chars.len() == 5,
            })
        }
        _ => Err(MoveError::syntax(
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

fn course_drop_code(code: &str) -> Option<PieceKind> {
    match code {
        "FU" => Some(PieceKind::Pawn),
        "GI" => Some(PieceKind::Silver),
        "KI" => Some(PieceKind::Gold),
        "KK" => Some(PieceKind::Bishop),
        "HI" => Some(PieceKind::Rook),
        _ => None,
    }
}

fn parse_course_raw(input: &str) -> Result<RawMove, MoveError> {
    if input.len() < 4 || !input.is_ascii() {
        return Err(MoveError::syntax(
            input,
            "not a course move (e.g. 2A3A, 5C1CN, 3CFU)",
        ));
    }
    // ASCII: one byte a character.
    let b = input.as_bytes();
    let first = course_square(input, b[0] as char, b[1] as char)?;
    // Drop: square then a two-letter piece code.
    if let Some(kind) = course_drop_code(&input[2..]) {
        return Ok(RawMove::Drop { kind, to: first });
    }
    let (r2, c2) = (b[2] as char, b[3] as char);
    if r2.is_ascii_alphabetic() && c2.is_ascii_alphabetic() {
        return Err(MoveError::syntax(
            input,
            format!("unknown piece code '{r2}{c2}'"),
        ));
    }
    let to = course_square(input, r2, c2)?;
    let promote = match &input[4..] {
        "" => false,
        "N" => true,
        rest => {
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

    pub(crate) fn legal_from_raw(&self, text: &str, raw: RawMove) -> Result<Move, MoveError> {
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
