//! SFEN round trips and errors, both move notations, the reasons a move is illegal.

use super::*;
use crate::position::Position;
use crate::types::{Color, Move, PieceKind, Square};

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
