//! SFEN positions: the board field (shared with Fairy-Stockfish's FEN), hands, side to move and
//! move number, read with every malformed part named, and written.

use super::SfenError;
use crate::bitboard;
use crate::position::Position;
use crate::types::{Color, Hand, Piece, PieceKind, Square};

// ---- SFEN ------------------------------------------------------------------------------------

/// The order in which hands are written: R B G S P, as USI does.
pub(crate) const HAND_ORDER: [PieceKind; 5] = [
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

/// The number written in the ASCII digits at the start of `input` (`usize::MAX` if too large;
/// `None` if there are none), and the rest.
fn leading_number(input: &str) -> (Option<usize>, &str) {
    let rest = input.trim_start_matches(|c: char| c.is_ascii_digit());
    let digits = &input[..input.len() - rest.len()];
    let number = (!digits.is_empty()).then(|| digits.parse().unwrap_or(usize::MAX));
    (number, rest)
}

/// The token at the start of a rank, and the rest; `None` for a `+` with nothing after it.
fn board_token(input: &str) -> Option<(&str, BoardToken)> {
    if let (Some(n), rest) = leading_number(input) {
        return Some((rest, BoardToken::Empty(n)));
    }
    let (promoted, rest) = match input.strip_prefix('+') {
        Some(rest) => (true, rest),
        None => (false, input),
    };
    let letter = rest.chars().next()?;
    Some((
        &rest[letter.len_utf8()..],
        BoardToken::Piece { promoted, letter },
    ))
}

/// `[count]letter` at the start of a hand field, and the rest; `None` if no letter follows.
fn hand_token(input: &str) -> Option<(&str, (usize, char))> {
    let (count, rest) = leading_number(input);
    let letter = rest.chars().next().filter(|c| c.is_ascii_alphabetic())?;
    Some((&rest[1..], (count.unwrap_or(1), letter)))
}

fn rank_char(rank: usize) -> char {
    (b'a' + rank as u8) as char
}

/// The board field, shared by SFEN and Fairy-Stockfish's FEN (the same rows, files 5 to 1 from
/// gote's back rank down). Errors name a rank by its SFEN letter.
pub(crate) fn parse_board(pos: &mut Position, field: &str) -> Result<(), SfenError> {
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
            let (next, token) = board_token(rest).ok_or_else(bad)?;
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
        let (next, (count, letter)) = hand_token(rest).ok_or_else(bad)?;
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

/// Checks piece counts and the few things no legal game can produce. A side's kings first:
/// a second king is named as such, not as one king too many of the game's two.
pub(crate) fn validate(pos: &Position) -> Result<(), SfenError> {
    for color in Color::ALL {
        let kings = pos.pieces_of(color, PieceKind::King).count() as usize;
        if kings != 1 {
            return Err(SfenError::KingCount {
                color,
                count: kings,
            });
        }
    }
    for kind in PieceKind::HAND {
        let on_board = (pos.pieces_of_kind(kind) | pos.pieces_of_kind(kind.promote())).count();
        let in_hand: u32 = Color::ALL
            .iter()
            .map(|&c| pos.hand(c).count(kind) as u32)
            .sum();
        let count = (on_board + in_hand) as usize;
        if count > 2 {
            return Err(SfenError::TooManyPieces {
                kind: kind.usi_letter(),
                count,
            });
        }
    }
    for color in Color::ALL {
        let pawns = pos.pieces_of(color, PieceKind::Pawn);
        let last = pawns & bitboard::Bitboard::rank(color.promotion_rank());
        if let Some(sq) = Square::all().find(|&sq| last.has(sq)) {
            return Err(SfenError::PawnOnLastRank {
                color,
                file: sq.file(),
            });
        }
        for file in 1..=5 {
            if (pawns & bitboard::Bitboard::file(file)).several() {
                return Err(SfenError::TwoPawnsOnFile { color, file });
            }
        }
    }
    let waiting = !pos.side_to_move();
    if let Some(k) = pos.king_square(waiting)
        && pos.is_attacked(k, pos.side_to_move())
    {
        return Err(SfenError::NotToMoveInCheck { color: waiting });
    }
    Ok(())
}

impl Piece {
    /// The piece of an SFEN token: a letter (upper case sente), `+` before a promoted one:
    /// `K`, `p`, `+R`, `+s`. `None` for anything else (`+G`, `+K`, `X`, ``).
    pub fn from_sfen(token: &str) -> Option<Piece> {
        let (promoted, letter) = match token.strip_prefix('+') {
            Some(rest) => (true, rest),
            None => (false, token),
        };
        let mut chars = letter.chars();
        let (Some(letter), None) = (chars.next(), chars.next()) else {
            return None;
        };
        let kind = PieceKind::from_usi_letter(letter)?;
        if promoted && !kind.can_promote() {
            return None;
        }
        let color = if letter.is_ascii_uppercase() {
            Color::Sente
        } else {
            Color::Gote
        };
        Some(Piece::new(
            color,
            if promoted { kind.promote() } else { kind },
        ))
    }
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

    /// A position set up piece by piece (a board editor's): `pieces` on their squares,
    /// `hands[color.index()]` each side's pieces in hand, `side` to move, move number 1;
    /// checked as an SFEN is (one king a side, at most two pieces of a kind, no pawn on its
    /// last rank, no two pawns of a side on a file, the side not to move not in check).
    pub fn from_setup(
        pieces: &[(Square, Piece)],
        hands: [Hand; 2],
        side: Color,
    ) -> Result<Position, SfenError> {
        let mut pos = Position::empty();
        for &(sq, piece) in pieces {
            if pos.piece_at(sq).is_some() {
                return Err(SfenError::SquareTwice(sq));
            }
            pos.put_piece(sq, piece);
        }
        for color in Color::ALL {
            for kind in PieceKind::HAND {
                let count = hands[color.index()].count(kind);
                // More than two is refused before it is set: the keys know counts 0..=2.
                if count > 2 {
                    return Err(SfenError::TooManyPieces {
                        kind: kind.usi_letter(),
                        count: count as usize,
                    });
                }
                pos.set_hand_count(color, kind, count);
            }
        }
        pos.set_side_to_move(side);
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
    pub(crate) fn board_field(&self) -> String {
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
