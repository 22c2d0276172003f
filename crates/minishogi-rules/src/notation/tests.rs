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
    assert_eq!(
        e,
        SfenError::PawnOnLastRank {
            color: Color::Sente,
            file: 5
        }
    );
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

#[test]
fn pieces_read_from_their_sfen_tokens() {
    use crate::types::Piece;
    for kind in PieceKind::ALL {
        for color in Color::ALL {
            let piece = Piece::new(color, kind);
            assert_eq!(Piece::from_sfen(&piece.sfen()), Some(piece));
        }
    }
    for bad in ["", "+", "+G", "+K", "+k", "X", "PP", "++P", "+P+", " P"] {
        assert_eq!(Piece::from_sfen(bad), None, "{bad:?}");
    }
}

/// A position set up piece by piece: the same as its SFEN, and every way it can be wrong
/// named (an editor shows why its position cannot be played).
#[test]
fn setups_are_checked_as_sfen_is() {
    use crate::types::{Hand, Piece};
    let piece = |t: &str| Piece::from_sfen(t).unwrap();
    let at = |name: &str| Square::new(name.as_bytes()[0] - b'0', name.as_bytes()[1] - b'a');
    let setup = |pieces: &[(&str, &str)], sente_hand: &[(PieceKind, u8)], side: Color| {
        let pieces: Vec<(Square, Piece)> = pieces.iter().map(|&(s, p)| (at(s), piece(p))).collect();
        let mut hands = [Hand::default(); 2];
        for &(kind, n) in sente_hand {
            hands[0].set(kind, n);
        }
        Position::from_setup(&pieces, hands, side)
    };
    // The start position, piece by piece.
    let start: Vec<(String, String)> = Square::all()
        .filter_map(|sq| {
            Position::startpos()
                .piece_at(sq)
                .map(|p| (sq.to_string(), p.sfen()))
        })
        .collect();
    let start: Vec<(&str, &str)> = start
        .iter()
        .map(|(s, p)| (s.as_str(), p.as_str()))
        .collect();
    assert_eq!(
        setup(&start, &[], Color::Sente).unwrap(),
        Position::startpos()
    );
    // Promoted pieces, a hand, gote to move.
    let pos = setup(
        &[("5e", "K"), ("1a", "k"), ("3c", "+R"), ("2b", "+p")],
        &[(PieceKind::Gold, 2), (PieceKind::Pawn, 1)],
        Color::Gote,
    )
    .unwrap();
    assert_eq!(pos.to_sfen(), "4k/3+p1/2+R2/5/K4 w 2GP 1");
    assert_eq!(Position::from_sfen(&pos.to_sfen()).unwrap(), pos);

    let kings = [("5e", "K"), ("1a", "k")];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut v = kings.to_vec();
        v.extend_from_slice(extra);
        v
    };
    assert_eq!(
        setup(&[("5e", "K")], &[], Color::Sente).unwrap_err(),
        SfenError::KingCount {
            color: Color::Gote,
            count: 0
        }
    );
    // A second king of a side is named so (not as a third king of the game's two).
    assert_eq!(
        setup(&with(&[("3c", "K")]), &[], Color::Sente).unwrap_err(),
        SfenError::KingCount {
            color: Color::Sente,
            count: 2
        }
    );
    assert_eq!(
        setup(&with(&[("4e", "k")]), &[], Color::Sente).unwrap_err(),
        SfenError::KingCount {
            color: Color::Gote,
            count: 2
        }
    );
    assert_eq!(
        setup(&with(&[("3a", "P")]), &[], Color::Sente).unwrap_err(),
        SfenError::PawnOnLastRank {
            color: Color::Sente,
            file: 3
        }
    );
    assert_eq!(
        setup(&with(&[("3e", "p")]), &[], Color::Sente).unwrap_err(),
        SfenError::PawnOnLastRank {
            color: Color::Gote,
            file: 3
        }
    );
    // A promoted pawn on the last rank is a piece like any other.
    assert!(setup(&with(&[("3a", "+P")]), &[], Color::Sente).is_ok());
    assert_eq!(
        setup(&with(&[("2c", "P"), ("2d", "P")]), &[], Color::Sente).unwrap_err(),
        SfenError::TwoPawnsOnFile {
            color: Color::Sente,
            file: 2
        }
    );
    assert!(setup(&with(&[("2c", "P"), ("2d", "+P")]), &[], Color::Sente).is_ok());
    assert!(setup(&with(&[("2c", "P"), ("2b", "p")]), &[], Color::Sente).is_ok());
    // Sente's rook gives check with gote to move: fine; with sente to move, gote's king could
    // be taken.
    assert!(setup(&with(&[("1e", "R")]), &[], Color::Gote).is_ok());
    assert_eq!(
        setup(&with(&[("1e", "R")]), &[], Color::Sente).unwrap_err(),
        SfenError::NotToMoveInCheck { color: Color::Gote }
    );
    assert_eq!(
        setup(
            &with(&[("3c", "G"), ("2c", "g")]),
            &[(PieceKind::Gold, 1)],
            Color::Sente
        )
        .unwrap_err(),
        SfenError::TooManyPieces {
            kind: 'G',
            count: 3
        }
    );
    assert_eq!(
        setup(&kings, &[(PieceKind::Rook, 3)], Color::Sente).unwrap_err(),
        SfenError::TooManyPieces {
            kind: 'R',
            count: 3
        }
    );
    assert_eq!(
        setup(&with(&[("5e", "G")]), &[], Color::Sente).unwrap_err(),
        SfenError::SquareTwice(at("5e"))
    );
    for e in [
        SfenError::PawnOnLastRank {
            color: Color::Sente,
            file: 3,
        },
        SfenError::NotToMoveInCheck { color: Color::Gote },
        SfenError::SquareTwice(at("5e")),
    ] {
        assert!(!e.to_string().is_empty());
    }
}
