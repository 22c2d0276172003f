//! Notation round trips on the reference positions and the course protocol's sample game.

use crate::perft_entries;
use minishogi_rules::{Game, Position};

/// Hand field as sorted (letter, count) pairs, so that `Gb` and `bG` compare equal.
fn hand_multiset(field: &str) -> Vec<(char, u32)> {
    if field == "-" {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut count = String::new();
    for c in field.chars() {
        if c.is_ascii_digit() {
            count.push(c);
        } else {
            out.push((c, count.parse().unwrap_or(1)));
            count.clear();
        }
    }
    out.sort();
    out
}

#[test]
fn sfen_prints_what_it_parsed() {
    for entry in perft_entries() {
        let pos = Position::from_sfen(entry.sfen).unwrap();
        let printed = pos.to_sfen();
        let original: Vec<&str> = entry.sfen.split_whitespace().collect();
        let again: Vec<&str> = printed.split_whitespace().collect();
        // Board, side and move number verbatim; the hand in the printer's canonical order
        // (R B G S P, sente first), which some reference lines do not use.
        assert_eq!(original.len(), 4, "{}", entry.name);
        assert_eq!(again.len(), 4, "{printed}");
        assert_eq!(
            (original[0], original[1], original[3]),
            (again[0], again[1], again[3])
        );
        assert_eq!(
            hand_multiset(original[2]),
            hand_multiset(again[2]),
            "{}",
            entry.name
        );
        let canonical_hand = entry.sfen == printed;
        assert_eq!(
            canonical_hand,
            original[2] == again[2],
            "{} differs outside the hand",
            entry.name
        );
        assert_eq!(Position::from_sfen(&printed).unwrap(), pos);
        assert_eq!(Position::from_sfen(&printed).unwrap().to_sfen(), printed);
    }
}

#[test]
fn every_legal_move_round_trips_through_both_notations() {
    for entry in perft_entries() {
        let pos = Position::from_sfen(entry.sfen).unwrap();
        for &mv in pos.legal_moves().iter() {
            let usi = mv.to_string();
            let course = mv.course();
            assert_eq!(pos.parse_usi_move(&usi), Ok(mv), "{} {usi}", entry.name);
            assert_eq!(
                pos.parse_course_move(&course),
                Ok(mv),
                "{} {course}",
                entry.name
            );
            assert_eq!(pos.parse_move(&usi), Ok(mv));
            assert_eq!(pos.parse_move(&course), Ok(mv));
        }
    }
}

#[test]
fn course_sample_game_leaves_one_reply() {
    let mut game = Game::startpos();
    for text in "1B2B 5B4C 2B3B 4C3D 3B2B 5C4B 2B2C 5A5C 2C3D 5C1CN".split_whitespace() {
        let mv = game.position().parse_course_move(text).unwrap();
        assert_eq!(mv.course(), text);
        game.play(mv).unwrap();
    }
    let replies = game.position().legal_moves();
    assert_eq!(replies.len(), 1, "{:?}", replies.to_vec());
    assert_eq!(replies[0].course(), "1BKK");
    assert_eq!(replies[0].to_string(), "B*4e");
    assert!(!game.status().is_over());
}
