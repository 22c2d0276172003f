//! Thousands of random games (fixed seed), checking at every position: the legal move list
//! against the reference generator, make/unmake, incremental keys, gives_check, tactical
//! generation, notation and SFEN round trips, and the Game's bookkeeping.

use crate::{perft_entries, reference};
use minishogi_rules::testing::TestRng;
use minishogi_rules::{Game, GameStatus, GenKind, Move, MoveList, Position};
use std::collections::HashSet;

const GAMES: usize = 2000;
const MAX_PLIES: usize = 120;

/// USI texts, sorted, so that differences read as moves.
fn sorted_usi(moves: &[Move]) -> Vec<String> {
    let mut texts: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    texts.sort_unstable();
    texts
}

fn check_position(pos: &Position, rng: &mut TestRng) {
    let sfen = pos.to_sfen();
    let legal = pos.legal_moves();
    assert_eq!(
        sorted_usi(&legal),
        sorted_usi(&reference::legal_moves(pos)),
        "legal moves (left) differ from the reference (right) in {sfen}"
    );
    let unique: HashSet<Move> = legal.iter().copied().collect();
    assert_eq!(unique.len(), legal.len(), "duplicate moves in {sfen}");
    assert_eq!(pos.count_legal_moves(), legal.len());
    assert_eq!(pos.has_legal_move(), !legal.is_empty());
    assert_eq!(pos.is_checkmate(), pos.in_check() && legal.is_empty());
    assert_eq!(pos.key(), pos.compute_key(), "{sfen}");
    assert_eq!(Position::from_sfen(&sfen).as_ref(), Ok(pos), "{sfen}");
    assert_eq!(pos.flipped().count_legal_moves(), legal.len(), "{sfen}");

    // Tactical moves: captures and promotions when not in check, all evasions in check.
    let mut tactical = MoveList::new();
    pos.generate(GenKind::Tactical, &mut tactical);
    let expected: Vec<Move> = if pos.in_check() {
        legal.to_vec()
    } else {
        legal
            .iter()
            .copied()
            .filter(|m| m.is_promotion() || pos.piece_at(m.to()).is_some())
            .collect()
    };
    assert_eq!(
        sorted_usi(&tactical),
        sorted_usi(&expected),
        "tactical in {sfen}"
    );

    let mut scratch = pos.clone();
    for &mv in legal.iter() {
        assert!(pos.is_legal(mv));
        let undo = scratch.make_move(mv);
        assert_eq!(scratch.key(), scratch.compute_key(), "{sfen} {mv}");
        assert_eq!(
            pos.gives_check(mv),
            scratch.in_check(),
            "gives_check of {mv} in {sfen}"
        );
        scratch.unmake_move(mv, undo);
        assert_eq!(&scratch, pos, "unmake of {mv} in {sfen}");
        assert_eq!(pos.parse_usi_move(&mv.to_string()), Ok(mv));
        assert_eq!(pos.parse_course_move(&mv.course()), Ok(mv));
    }
    // Arbitrary 16-bit moves are legal exactly when listed.
    for _ in 0..8 {
        let raw = Move::from_raw(rng.next_u64() as u16 & 0x0fff);
        assert_eq!(pos.is_legal(raw), legal.contains(raw), "{raw:?} in {sfen}");
    }
    if !pos.in_check() {
        let mut passed = pos.clone();
        passed.make_null_move();
        assert_eq!(passed.key(), passed.compute_key());
        passed.unmake_null_move();
        assert_eq!(&passed, pos);
    }
}

#[test]
fn random_games_agree_with_the_reference() {
    let mut starts = vec![Position::startpos()];
    starts.extend(
        perft_entries()
            .iter()
            .map(|e| Position::from_sfen(e.sfen).unwrap()),
    );
    // The rules' own generator: the crate has no dependencies, not even for its tests.
    let mut rng = TestRng::new(0x5eed_0005_5555);
    let mut positions = 0usize;
    let mut finished = 0usize;
    for game_index in 0..GAMES {
        let mut game = Game::new(starts[game_index % starts.len()].clone());
        for _ in 0..MAX_PLIES {
            let pos = game.position().clone();
            check_position(&pos, &mut rng);
            positions += 1;
            let status = game.status();
            let legal = pos.legal_moves();
            if legal.is_empty() {
                assert!(
                    matches!(status, GameStatus::Win { winner, .. } if winner != pos.side_to_move())
                );
            }
            if status.is_over() {
                finished += 1;
                break;
            }
            let mv = legal[rng.below(legal.len())];
            game.play(mv).unwrap();
            assert_eq!(game.position(), &pos.after(mv));
            assert_eq!(game.history().len(), game.moves().len() + 1);
            assert_eq!(
                game.history().last().unwrap().in_check,
                game.position().in_check()
            );
        }
    }
    eprintln!("{GAMES} games, {positions} positions checked, {finished} finished by the rules");
    // The games must actually exercise the code: many positions, some finished games.
    assert!(positions > GAMES * 20, "{positions} positions");
    assert!(finished > 0);
}
