//! Fairy-Stockfish's notation for minishogi, which UCI tools speak (cutechess-cli, Fairy-Stockfish
//! itself): FEN positions such as `rbsgk/4p/5/P4/KGSBR[-] w - - 0 1` and moves in chess
//! coordinates (`a2a3`, `a4a5+`, `P@c3`).
//!
//! - The board field is SFEN's: rows from gote's back rank down, files 5 to 1 from left to right,
//!   uppercase for sente, `+` before a promoted piece.
//! - The hands follow in brackets, one letter a piece (`[GPpp]`; `[-]` or `[]` when empty).
//! - The side to move is `w` for sente (who moves first, chess's "white") and `b` for gote.
//! - Then optional fields: `-` for castling and en passant, a halfmove clock (ignored) and the
//!   full move number (sente's ply and gote's reply make one move). Fairy-Stockfish writes
//!   `w - - 0 1`, cutechess `w - 1`: a single number is the full move number.
//! - Squares: files `a`–`e` are USI files 5–1, ranks `1`–`5` are USI ranks e–a (rank 1 is
//!   sente's back rank), so USI `5d5c` is `a2a3`. Drops are `P@c3` (uppercase for either side),
//!   promotions end in `+`.
//!
//! Every malformed input is a typed error naming the bad part; a move that parses but is illegal
//! is [`MoveError::Illegal`], as in USI notation.

use std::fmt;

use super::notation::{HAND_ORDER, MoveError, RawMove, SfenError, parse_board, validate};
use super::position::Position;
use super::types::{Color, Move, Piece, PieceKind, Square};

/// What was wrong with a FEN string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// A required field is absent (`board`, `side to move`).
    MissingField(&'static str),
    /// The board or the position as a whole (piece counts, kings, pawns): the SFEN error, told
    /// with FEN's rank numbers.
    Board(SfenError),
    /// The bracketed hands: what was wrong with them.
    BadHand(String),
    BadSide(String),
    /// A field after the side to move that is neither `-` nor a number.
    BadField(String),
    /// More fields than FEN has.
    TrailingInput(String),
}

/// FEN's rank number (`'5'` for the top row) of an SFEN rank letter (`'a'`).
fn fen_rank(sfen_rank: char) -> char {
    (b'5' - (sfen_rank as u8).saturating_sub(b'a')) as char
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::MissingField(what) => write!(f, "fen is missing the {what} field"),
            FenError::Board(e) => match e {
                SfenError::RankCount(n) => write!(f, "fen board has {n} ranks, expected 5"),
                SfenError::RankWidth { rank, squares } => write!(
                    f,
                    "fen rank {} has {squares} squares, expected 5",
                    fen_rank(*rank)
                ),
                SfenError::BadBoardToken { rank, token } => {
                    write!(f, "bad piece '{token}' in fen rank {}", fen_rank(*rank))
                }
                SfenError::TooManyPieces { kind, count } => write!(
                    f,
                    "fen has {count} pieces of kind '{kind}', at most 2 exist"
                ),
                SfenError::KingCount { color, count } => {
                    write!(f, "fen has {count} {color:?} kings, expected 1")
                }
                other => write!(f, "{other}"),
            },
            FenError::BadHand(why) => write!(f, "bad pieces in hand: {why}"),
            FenError::BadSide(s) => write!(
                f,
                "bad side to move '{s}', expected 'w' (sente) or 'b' (gote)"
            ),
            FenError::BadField(s) => write!(
                f,
                "bad fen field '{s}', expected '-' or a number after the side to move"
            ),
            FenError::TrailingInput(s) => write!(f, "unexpected text after fen: '{s}'"),
        }
    }
}

impl std::error::Error for FenError {}

/// The bracketed hands (without the brackets): `-` or nothing for none, else one letter a piece.
fn parse_hands(pos: &mut Position, field: &str) -> Result<(), FenError> {
    if field == "-" || field.is_empty() {
        return Ok(());
    }
    let mut counts = [[0u8; 5]; 2];
    for letter in field.chars() {
        let kind = PieceKind::from_usi_letter(letter)
            .filter(|k| k.index() < 5 && letter.is_ascii_alphabetic())
            .ok_or_else(|| FenError::BadHand(format!("'{letter}' is not a piece to hold")))?;
        let color = if letter.is_ascii_uppercase() {
            Color::Sente
        } else {
            Color::Gote
        };
        let count = &mut counts[color.index()][kind.index()];
        *count += 1;
        if *count > 2 {
            return Err(FenError::Board(SfenError::TooManyPieces {
                kind: kind.usi_letter(),
                count: 3,
            }));
        }
    }
    for color in Color::ALL {
        for kind in HAND_ORDER {
            pos.set_hand_count(color, kind, counts[color.index()][kind.index()]);
        }
    }
    Ok(())
}

impl Position {
    /// Parses Fairy-Stockfish's minishogi FEN, e.g. `rbsgk/4p/5/P4/KGSBR[-] w - - 0 1`.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let mut fields = fen.split_whitespace();
        let first = fields.next().ok_or(FenError::MissingField("board"))?;
        let (board, hands) = match first.split_once('[') {
            Some((board, rest)) => {
                let hands = rest
                    .strip_suffix(']')
                    .ok_or_else(|| FenError::BadHand(format!("'[{rest}' does not end with ']'")))?;
                (board, hands)
            }
            None => (first, ""),
        };
        let side = fields
            .next()
            .ok_or(FenError::MissingField("side to move"))?;
        let mut numbers = Vec::new();
        for (i, field) in fields.enumerate() {
            if i >= 4 {
                return Err(FenError::TrailingInput(field.to_string()));
            }
            if field == "-" {
                continue;
            }
            let n: u32 = field
                .parse()
                .map_err(|_| FenError::BadField(field.to_string()))?;
            if numbers.len() == 2 {
                return Err(FenError::TrailingInput(field.to_string()));
            }
            numbers.push(n);
        }
        // Move 0 is read as 1, as chess programs do.
        let full_move = numbers.last().copied().unwrap_or(1).max(1);
        let mut pos = Position::empty();
        parse_board(&mut pos, board).map_err(FenError::Board)?;
        let color = match side {
            "w" => Color::Sente,
            "b" => Color::Gote,
            other => return Err(FenError::BadSide(other.to_string())),
        };
        pos.set_side_to_move(color);
        parse_hands(&mut pos, hands)?;
        let ply = full_move.saturating_mul(2).saturating_sub(1);
        pos.set_move_number(ply.saturating_add(u32::from(color == Color::Gote)));
        validate(&pos).map_err(FenError::Board)?;
        Ok(pos)
    }

    /// Fairy-Stockfish's FEN: `rbsgk/4p/5/P4/KGSBR[-] w - - 0 1`, hands in the order R B G S P,
    /// sente first. The halfmove clock is not kept, so it is written as 0.
    pub fn to_fen(&self) -> String {
        let mut hands = String::new();
        for color in Color::ALL {
            for kind in HAND_ORDER {
                for _ in 0..self.hand(color).count(kind) {
                    hands.push_str(&Piece::new(color, kind).sfen());
                }
            }
        }
        if hands.is_empty() {
            hands.push('-');
        }
        let side = match self.side_to_move() {
            Color::Sente => 'w',
            Color::Gote => 'b',
        };
        let full_move = self.move_number().div_ceil(2).max(1);
        format!("{}[{hands}] {side} - - 0 {full_move}", self.board_field())
    }

    /// Parses a move in UCI notation (`a2a3`, `a4a5+`, `P@c3`) and checks that it is legal here.
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, MoveError> {
        let raw = parse_uci_raw(text)?;
        self.legal_from_raw(text, raw)
    }
}

/// The square's name in chess coordinates: USI `5e` is `a1`, `1a` is `e5`.
pub fn uci_square(sq: Square) -> String {
    let file = (b'a' + 5 - sq.file()) as char;
    let rank = (b'5' - sq.rank()) as char;
    format!("{file}{rank}")
}

fn parse_uci_square(whole: &str, file: char, rank: char) -> Result<Square, MoveError> {
    if !('a'..='e').contains(&file) {
        return Err(MoveError::syntax(
            whole,
            format!("file '{file}' out of range (a to e)"),
        ));
    }
    if !('1'..='5').contains(&rank) {
        return Err(MoveError::syntax(
            whole,
            format!("rank '{rank}' out of range (1 to 5)"),
        ));
    }
    Ok(Square::new(5 - (file as u8 - b'a'), b'5' - rank as u8))
}

fn parse_uci_raw(input: &str) -> Result<RawMove, MoveError> {
    let chars: Vec<char> = input.chars().collect();
    if chars.len() < 4 {
        return Err(MoveError::syntax(input, "too short for a UCI move"));
    }
    if chars[1] == '@' {
        let letter = chars[0];
        let kind = PieceKind::from_usi_letter(letter)
            .filter(|k| k.index() < 5 && letter.is_ascii_alphabetic())
            .ok_or_else(|| MoveError::syntax(input, format!("unknown piece '{letter}' to drop")))?;
        let to = parse_uci_square(input, chars[2], chars[3])?;
        if chars.len() > 4 {
            let extra: String = chars[4..].iter().collect();
            return Err(MoveError::syntax(
                input,
                format!("unexpected '{extra}' after the drop"),
            ));
        }
        return Ok(RawMove::Drop { kind, to });
    }
    let from = parse_uci_square(input, chars[0], chars[1])?;
    let to = parse_uci_square(input, chars[2], chars[3])?;
    let promote = match &chars[4..] {
        [] => false,
        ['+'] => true,
        extra => {
            let extra: String = extra.iter().collect();
            return Err(MoveError::syntax(
                input,
                format!("unexpected '{extra}' after the move (only '+' for promotion)"),
            ));
        }
    };
    if from == to {
        return Err(MoveError::syntax(input, "origin equals destination"));
    }
    Ok(RawMove::Board { from, to, promote })
}

impl Move {
    /// UCI notation as Fairy-Stockfish writes it: `a2a3`, `a4a5+`, `P@c3`; `0000` for the null
    /// move.
    pub fn uci(self) -> String {
        if self.is_null() {
            return "0000".to_string();
        }
        match self.dropped() {
            Some(kind) => format!("{}@{}", kind.usi_letter(), uci_square(self.to())),
            None => format!(
                "{}{}{}",
                uci_square(self.from_unchecked()),
                uci_square(self.to()),
                if self.is_promotion() { "+" } else { "" }
            ),
        }
    }
}

/// A USI move's text in UCI notation (`5d5c` → `a2a3`, `P*3c` → `P@c3`), by its form alone: the
/// move is not checked against a position.
pub fn usi_to_uci(text: &str) -> Result<String, MoveError> {
    Ok(raw_move(super::notation::parse_usi_raw(text)?).uci())
}

/// A UCI move's text in USI notation (`a2a3` → `5d5c`), by its form alone.
pub fn uci_to_usi(text: &str) -> Result<String, MoveError> {
    Ok(raw_move(parse_uci_raw(text)?).to_string())
}

fn raw_move(raw: RawMove) -> Move {
    match raw {
        RawMove::Board { from, to, promote } => Move::board(from, to, promote),
        RawMove::Drop { kind, to } => Move::drop(kind, to),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START_FEN: &str = "rbsgk/4p/5/P4/KGSBR[-] w - - 0 1";

    fn fen(text: &str) -> Position {
        Position::from_fen(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn the_start_position_in_each_tools_spelling() {
        assert_eq!(Position::startpos().to_fen(), START_FEN);
        for text in [
            START_FEN,
            // Fairy-Stockfish's `d`, its variant table, cutechess, no optional fields.
            "rbsgk/4p/5/P4/KGSBR[] w - - 0 1",
            "rbsgk/4p/5/P4/KGSBR[-] w 0 1",
            "rbsgk/4p/5/P4/KGSBR[-] w - 1",
            "rbsgk/4p/5/P4/KGSBR[-] w",
            "rbsgk/4p/5/P4/KGSBR w",
        ] {
            assert_eq!(fen(text), Position::startpos(), "{text}");
        }
    }

    /// Positions as Fairy-Stockfish 11.1 (`position fen …`, `d`) shows them, with the SFEN it
    /// prints beside each: hands of both sides, promoted pieces, either side to move.
    #[test]
    fn agrees_with_fairy_stockfish() {
        for (fen_text, sfen) in [
            (
                "4k/1+Ps2/5/P2S1/KG1R1[GBb] w - - 0 7",
                "4k/1+Ps2/5/P2S1/KG1R1 b GBb 13",
            ),
            (
                "4k/1+Ps2/5/P2S1/KG1R1[GBb] b - - 0 7",
                "4k/1+Ps2/5/P2S1/KG1R1 w GBb 14",
            ),
            ("4k/5/1S3/5/K4[GPBpr] w - - 0 7", "4k/5/1S3/5/K4 b GPBpr 13"),
            (
                "+Pbsgk/5/5/4p/KGSBR[R] b - - 0 3",
                "+Pbsgk/5/5/4p/KGSBR w R 6",
            ),
            (
                "1+S3/4k/5/5/K4[GPBpr] b - - 3 8",
                "1+S3/4k/5/5/K4 w GPBpr 16",
            ),
        ] {
            let pos = fen(fen_text);
            assert_eq!(pos, Position::from_sfen(sfen).unwrap(), "{fen_text}");
            // Our own spelling (hands in R B G S P order) reads back the same.
            assert_eq!(fen(&pos.to_fen()), pos, "{fen_text}");
            assert_eq!(pos.to_fen().split(' ').nth(1), fen_text.split(' ').nth(1));
        }
        assert_eq!(
            fen("4k/5/1S3/5/K4[pBGPr] w - - 0 7").to_fen(),
            "4k/5/1S3/5/K4[BGPrp] w - - 0 7"
        );
    }

    #[test]
    fn round_trips_through_sfen_and_fen() {
        for sfen in [
            "rbsgk/4p/5/P4/KGSBR b - 1",
            "4k/1bsrp/5/P2S1/KG1R1 b Gb 13",
            "2k2/5/5/5/2K2 w RBGSPrbgsp 40",
            "3k1/2b1p/2S2/r4/KB3 b 2Grsp 39",
            "+P+S+B+Rk/5/5/5/K4 w - 2",
        ] {
            let pos = Position::from_sfen(sfen).unwrap();
            assert_eq!(fen(&pos.to_fen()), pos, "{sfen}");
            assert_eq!(fen(&pos.to_fen()).to_sfen(), sfen);
        }
    }

    #[test]
    fn fen_errors_name_the_problem() {
        let err = |text: &str| Position::from_fen(text).unwrap_err().to_string();
        assert_eq!(err(""), "fen is missing the board field");
        assert_eq!(
            err("rbsgk/4p/5/P4/KGSBR[-]"),
            "fen is missing the side to move field"
        );
        assert_eq!(
            err("rbsgk/4p/5/P4/KGSBR[-] x - - 0 1"),
            "bad side to move 'x', expected 'w' (sente) or 'b' (gote)"
        );
        assert_eq!(
            err("rbsgk/4p/4/P4/KGSBR[-] w - - 0 1"),
            "fen rank 3 has 4 squares, expected 5"
        );
        assert_eq!(
            err("rbsgk/4p/5/P4/KGSXR[-] w - - 0 1"),
            "bad piece 'X' in fen rank 1"
        );
        assert_eq!(
            err("rbsgk/4p/5/P4[-] w - - 0 1"),
            "fen board has 4 ranks, expected 5"
        );
        assert_eq!(
            err("rbsgk/4p/5/P4/KGSBR[Q] w - - 0 1"),
            "bad pieces in hand: 'Q' is not a piece to hold"
        );
        assert_eq!(
            err("rbsgk/4p/5/P4/KGSBR[K] w - - 0 1"),
            "bad pieces in hand: 'K' is not a piece to hold"
        );
        assert_eq!(
            err("rbsgk/4p/5/P4/KGSBR[P w - - 0 1"),
            "bad pieces in hand: '[P' does not end with ']'"
        );
        assert_eq!(
            err("rbsgk/4p/5/P4/KGSBR[PPP] w - - 0 1"),
            "fen has 3 pieces of kind 'P', at most 2 exist"
        );
        assert_eq!(
            err("rbsgk/4p/5/P4/KGSBR[-] w - - x 1"),
            "bad fen field 'x', expected '-' or a number after the side to move"
        );
        assert_eq!(
            err("rbsgk/4p/5/P4/KGSBR[-] w - - 0 1 2"),
            "unexpected text after fen: '2'"
        );
        assert_eq!(
            err("4k/5/5/5/5[-] w - - 0 1"),
            "fen has 0 Sente kings, expected 1"
        );
        assert!(
            err("P3k/5/5/5/K4[-] w - - 0 1").starts_with("illegal position: "),
            "a pawn on its last rank"
        );
    }

    #[test]
    fn uci_moves_match_usi_moves() {
        let pos = Position::startpos();
        for (uci, usi) in [
            ("a2a3", "5d5c"),
            ("e1e4", "1e1b"),
            ("d1a4", "2e5b"),
            ("c1b2", "3e4d"),
        ] {
            let mv = pos.parse_uci_move(uci).unwrap();
            assert_eq!(mv.to_string(), usi);
            assert_eq!(mv.uci(), uci);
            assert_eq!(usi_to_uci(usi).unwrap(), uci);
            assert_eq!(uci_to_usi(uci).unwrap(), usi);
        }
        // Every legal move of a position with drops and promotions round-trips.
        let pos = fen("4k/1P3/1S3/5/K4[GBpr] w - - 0 7");
        for mv in pos.legal_moves().iter() {
            assert_eq!(pos.parse_uci_move(&mv.uci()).unwrap(), *mv, "{mv}");
            assert_eq!(usi_to_uci(&mv.to_string()).unwrap(), mv.uci());
        }
        let promotion = pos.parse_uci_move("b4b5+").unwrap();
        assert_eq!(promotion.to_string(), "4b4a+");
        let drop = pos.parse_uci_move("B@c3").unwrap();
        assert_eq!(drop.to_string(), "B*3c");
        assert_eq!(drop.uci(), "B@c3");
        // Gote drops are written in uppercase too, as Fairy-Stockfish does.
        let gote = fen("4k/5/1S3/5/K4[GBpr] b - - 0 7");
        assert_eq!(gote.parse_uci_move("P@a2").unwrap().to_string(), "P*5d");
    }

    #[test]
    fn uci_move_errors_name_the_problem() {
        let pos = Position::startpos();
        let err = |text: &str| pos.parse_uci_move(text).unwrap_err();
        assert_eq!(
            err("f2f3").to_string(),
            "file 'f' out of range (a to e) in 'f2f3'"
        );
        assert_eq!(
            err("a2a6").to_string(),
            "rank '6' out of range (1 to 5) in 'a2a6'"
        );
        assert_eq!(err("a2").to_string(), "too short for a UCI move in 'a2'");
        assert_eq!(
            err("a2a3=").to_string(),
            "unexpected '=' after the move (only '+' for promotion) in 'a2a3='"
        );
        assert_eq!(
            err("K@c3").to_string(),
            "unknown piece 'K' to drop in 'K@c3'"
        );
        assert_eq!(
            err("P@c3x").to_string(),
            "unexpected 'x' after the drop in 'P@c3x'"
        );
        assert_eq!(
            err("a2a2").to_string(),
            "origin equals destination in 'a2a2'"
        );
        let illegal = err("a2a4");
        assert!(illegal.is_illegal(), "{illegal}");
        assert!(err("P@c3").to_string().contains("no Pawn in hand"));
        // USI text is not UCI text, and the other way round.
        assert!(pos.parse_uci_move("5d5c").is_err());
        assert!(uci_to_usi("5d5c").is_err());
        assert!(usi_to_uci("a2a3").is_err());
    }
}
