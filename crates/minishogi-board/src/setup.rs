//! The board editor's position: the page sends what it has set up as data (the shapes of
//! `BoardView`: 25 squares in SFEN letters, hand counts by letter, the side to move), and is
//! told the SFEN to start a game from, or why the position cannot be played. The rules crate
//! checks it (`Position::from_setup`), as it checks an SFEN; the page writes no SFEN itself.
//! Asked for `start`, it answers with the usual start position (the rules' `startpos`), so
//! that the editor need not know it either.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::shogi::{Color, Hand, Piece, PieceKind, Position, SfenError, Square};
use crate::view::{BoardView, Side};

/// A position set up in the editor (`POST /api/setup`), or `{"start": true}` for the usual
/// start position.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// The usual start position, whatever the rest says.
    #[serde(default)]
    pub start: bool,
    /// 5 rows, rank a (top) to e; each row file 5 (left) to 1 (right); SFEN letters, `+` =
    /// promoted, upper case sente; `""` empty (as `BoardView.board`).
    #[serde(default)]
    pub board: Vec<Vec<String>>,
    /// Each side's pieces in hand by upper-case letter (`R B G S P`), as `BoardView.hands`;
    /// a kind left out is none.
    #[serde(default)]
    pub hands: SetupHands,
    #[serde(default)]
    pub side_to_move: Option<Side>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupHands {
    #[serde(default)]
    pub sente: BTreeMap<String, u8>,
    #[serde(default)]
    pub gote: BTreeMap<String, u8>,
}

/// What the editor is told of its position: the SFEN to start from and the position as the
/// rules read it (`view`), or why it cannot be played (`problem`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SetupCheck {
    pub sfen: Option<String>,
    pub view: Option<BoardView>,
    pub problem: Option<SetupProblem>,
}

/// Why a position cannot be played, for the page to say in its language.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SetupProblem {
    /// `king_count` (a side with no king or two), `too_many` (more pieces of a kind than the
    /// game has: `kind`, `count`), `pawn_last_rank` (a pawn that could never move: `side`,
    /// `file`), `two_pawns` (two unpromoted pawns of `side` on `file`),
    /// `not_to_move_in_check` (the side not to move, `side`, is in check).
    pub code: &'static str,
    pub side: Option<Side>,
    /// The kind's upper-case letter.
    pub kind: Option<char>,
    pub file: Option<u8>,
    pub count: Option<usize>,
    /// The rules' words (English).
    pub text: String,
}

impl SetupCheck {
    fn of(pos: &Position) -> SetupCheck {
        SetupCheck {
            sfen: Some(pos.to_sfen()),
            view: Some(BoardView::of(pos, None)),
            problem: None,
        }
    }
}

impl SetupProblem {
    fn of(error: &SfenError) -> Option<SetupProblem> {
        let problem = |code, side: Option<Color>, kind, file, count| SetupProblem {
            code,
            side: side.map(Side::from),
            kind,
            file,
            count,
            text: error.to_string(),
        };
        Some(match *error {
            SfenError::KingCount { color, count } => {
                problem("king_count", Some(color), Some('K'), None, Some(count))
            }
            SfenError::TooManyPieces { kind, count } => {
                problem("too_many", None, Some(kind), None, Some(count))
            }
            SfenError::PawnOnLastRank { color, file } => {
                problem("pawn_last_rank", Some(color), Some('P'), Some(file), None)
            }
            SfenError::TwoPawnsOnFile { color, file } => {
                problem("two_pawns", Some(color), Some('P'), Some(file), None)
            }
            SfenError::NotToMoveInCheck { color } => {
                problem("not_to_move_in_check", Some(color), None, None, None)
            }
            _ => return None,
        })
    }
}

/// Checks a set-up position. Malformed data (not 5×5, a token that is no piece, a hand kind
/// that cannot be held) is an error; a position the rules refuse is a `SetupCheck` with its
/// problem.
pub fn check(setup: &Setup) -> Result<SetupCheck, String> {
    if setup.start {
        return Ok(SetupCheck::of(&Position::startpos()));
    }
    if setup.board.len() != 5 || setup.board.iter().any(|row| row.len() != 5) {
        return Err("setup: the board is 5 rows of 5 squares".to_string());
    }
    let mut pieces = Vec::new();
    for (rank, row) in setup.board.iter().enumerate() {
        for (col, token) in row.iter().enumerate() {
            if token.is_empty() {
                continue;
            }
            let square = Square::new(5 - col as u8, rank as u8);
            let piece = Piece::from_sfen(token)
                .ok_or_else(|| format!("setup: '{token}' on {square} is not a piece"))?;
            pieces.push((square, piece));
        }
    }
    let hand = |counts: &BTreeMap<String, u8>| -> Result<Hand, String> {
        let mut hand = Hand::default();
        for (letter, &count) in counts {
            let kind = PieceKind::HAND
                .into_iter()
                .find(|k| k.usi_letter().to_string() == *letter)
                .ok_or_else(|| {
                    format!("setup: '{letter}' in hand: the pieces held are R, B, G, S, P")
                })?;
            hand.set(kind, count);
        }
        Ok(hand)
    };
    let hands = [hand(&setup.hands.sente)?, hand(&setup.hands.gote)?];
    let side = match setup.side_to_move {
        Some(Side::Sente) => Color::Sente,
        Some(Side::Gote) => Color::Gote,
        None => return Err("setup: no side to move".to_string()),
    };
    match Position::from_setup(&pieces, hands, side) {
        Ok(pos) => Ok(SetupCheck::of(&pos)),
        Err(e) => match SetupProblem::of(&e) {
            Some(problem) => Ok(SetupCheck {
                sfen: None,
                view: None,
                problem: Some(problem),
            }),
            None => Err(format!("setup: {e}")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The editor's data of a position, as the page holds it (a `BoardView`'s board and hands).
    fn setup_of(sfen: &str) -> Setup {
        let view = BoardView::of(&Position::from_sfen(sfen).unwrap(), None);
        let hand = |h: &BTreeMap<char, u8>| h.iter().map(|(k, &n)| (k.to_string(), n)).collect();
        Setup {
            start: false,
            board: view.board,
            hands: SetupHands {
                sente: hand(&view.hands.sente),
                gote: hand(&view.hands.gote),
            },
            side_to_move: Some(view.side_to_move),
        }
    }

    #[test]
    fn a_position_set_up_comes_back_as_its_sfen() {
        for sfen in [
            "rbsgk/4p/5/P4/KGSBR b - 1",
            "4k/3+p1/2+R2/5/K4 w 2GPrs 1",
            "3k1/2b1p/2S2/r4/KB3 b 2Grsp 1",
        ] {
            let check = check(&setup_of(sfen)).unwrap();
            assert_eq!(check.sfen.as_deref(), Some(sfen));
            assert_eq!(check.view.unwrap().sfen, sfen);
            assert_eq!(check.problem, None);
        }
        // The usual start, asked for by name.
        let start = check(&Setup {
            start: true,
            ..Setup::default()
        })
        .unwrap();
        assert_eq!(start.sfen, Some(Position::startpos().to_sfen()));
        assert_eq!(start.view.unwrap().board[4][0], "K");
    }

    #[test]
    fn what_the_rules_refuse_is_named_and_bad_data_is_an_error() {
        let mut two_kings = setup_of("4k/5/5/5/K4 b - 1");
        two_kings.board[2][2] = "K".to_string();
        let problem = check(&two_kings).unwrap().problem.unwrap();
        assert_eq!(
            (problem.code, problem.side, problem.count),
            ("king_count", Some(Side::Sente), Some(2))
        );
        let mut no_king = setup_of("4k/5/5/5/K4 b - 1");
        no_king.board[0][4] = String::new();
        let problem = check(&no_king).unwrap().problem.unwrap();
        assert_eq!(
            (problem.code, problem.side, problem.count),
            ("king_count", Some(Side::Gote), Some(0))
        );
        let mut pawn = setup_of("4k/5/5/5/K4 b - 1");
        pawn.board[4][2] = "p".to_string();
        let problem = check(&pawn).unwrap().problem.unwrap();
        assert_eq!(
            (problem.code, problem.side, problem.file),
            ("pawn_last_rank", Some(Side::Gote), Some(3))
        );
        let mut pawns = setup_of("4k/5/5/5/K4 b - 1");
        pawns.board[2][0] = "P".to_string();
        pawns.board[3][0] = "P".to_string();
        let problem = check(&pawns).unwrap().problem.unwrap();
        assert_eq!(
            (problem.code, problem.side, problem.file),
            ("two_pawns", Some(Side::Sente), Some(5))
        );
        let check_given = setup_of("4k/5/5/5/K3R w - 1");
        let mut not_to_move = check_given.clone();
        not_to_move.side_to_move = Some(Side::Sente);
        assert!(check(&check_given).unwrap().sfen.is_some());
        let problem = check(&not_to_move).unwrap().problem.unwrap();
        assert_eq!(
            (problem.code, problem.side),
            ("not_to_move_in_check", Some(Side::Gote))
        );
        let mut golds = setup_of("4k/5/5/5/K4 b 2G 1");
        golds.hands.gote.insert("G".to_string(), 1);
        let problem = check(&golds).unwrap().problem.unwrap();
        assert_eq!(
            (problem.code, problem.kind, problem.count),
            ("too_many", Some('G'), Some(3))
        );
        assert!(problem.text.contains("'G'"), "{}", problem.text);

        let mut short = setup_of("4k/5/5/5/K4 b - 1");
        short.board.pop();
        assert!(check(&short).is_err());
        let mut bad = setup_of("4k/5/5/5/K4 b - 1");
        bad.board[1][1] = "+G".to_string();
        assert!(check(&bad).unwrap_err().contains("'+G'"));
        let mut king_in_hand = setup_of("4k/5/5/5/K4 b - 1");
        king_in_hand.hands.sente.insert("K".to_string(), 1);
        assert!(check(&king_in_hand).is_err());
        let mut no_side = setup_of("4k/5/5/5/K4 b - 1");
        no_side.side_to_move = None;
        assert!(check(&no_side).is_err());
    }
}
