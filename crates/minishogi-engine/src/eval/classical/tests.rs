use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::params::{self, names_and_bounds};
use super::*;
use crate::eval::MaterialEvaluator;
use crate::shogi::testing::random_positions_with_drops;

/// Parameters with every number random (within ±300 of the untuned ones), so that no term
/// hides behind a zero.
pub(crate) fn random_params(seed: u64) -> ClassicalParams {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut p = ClassicalParams::untuned();
    for (v, (_, min, max)) in p.values.iter_mut().zip(names_and_bounds()) {
        *v = (*v + rng.gen_range(-300..=300)).clamp(min, max);
    }
    p
}

#[test]
fn untuned_scores_as_the_material_evaluator() {
    let e = ClassicalEvaluator::new(&ClassicalParams::untuned());
    for pos in random_positions_with_drops(3, 200) {
        let material = MaterialEvaluator::material(&pos);
        assert_eq!(e.evaluate_cp(&pos), material.clamp(-EVAL_LIMIT, EVAL_LIMIT));
    }
}

#[test]
fn a_position_and_its_colour_flipped_mirror_score_the_same() {
    let e = ClassicalEvaluator::new(&random_params(7));
    let mut nonzero = 0;
    for pos in random_positions_with_drops(5, 300) {
        let cp = e.evaluate_cp(&pos);
        assert_eq!(cp, e.evaluate_cp(&pos.flipped()), "{}", pos.to_sfen());
        nonzero += usize::from(cp != 0);
    }
    assert!(nonzero > 250, "{nonzero}");
}

#[test]
fn the_map_is_read_from_the_owners_view() {
    // A sente gold on 2d, and a gote gold on 2d rotated (4b): the same map value for each.
    let mut p = ClassicalParams::untuned();
    let sq = Square::new(2, 3); // 2d, sente's view
    p.values[params::map_index(PieceKind::Gold, sq)] = 50;
    let e = ClassicalEvaluator::new(&p);
    let mut pos = Position::empty();
    pos.put_piece(Square::new(5, 4), Piece::new(Color::Sente, PieceKind::King));
    pos.put_piece(Square::new(1, 0), Piece::new(Color::Gote, PieceKind::King));
    pos.put_piece(sq, Piece::new(Color::Sente, PieceKind::Gold));
    assert_eq!(e.evaluate_cp(&pos), 600 + 50);
    let mut gote = Position::empty();
    gote.put_piece(Square::new(5, 4), Piece::new(Color::Sente, PieceKind::King));
    gote.put_piece(Square::new(1, 0), Piece::new(Color::Gote, PieceKind::King));
    gote.put_piece(sq.flip(), Piece::new(Color::Gote, PieceKind::Gold));
    gote.set_side_to_move(Color::Gote);
    assert_eq!(e.evaluate_cp(&gote), 600 + 50);
}

#[test]
fn incremental_sums_equal_full_ones_along_random_games() {
    let e = ClassicalEvaluator::new(&random_params(11));
    let mut rng = StdRng::seed_from_u64(5);
    for root in random_positions_with_drops(9, 30) {
        let mut state = e.path_state(&root).expect("a path state");
        let mut pos = root.clone();
        let mut made = Vec::new();
        for _ in 0..40 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            if rng.gen_bool(0.1) {
                pos.make_null_move();
                state.on_null_move(&pos, true);
                assert_eq!(state.evaluate_cp(&pos), e.evaluate_cp(&pos));
                pos.unmake_null_move();
                state.on_null_move(&pos, false);
            }
            let mv = moves.as_slice()[rng.gen_range(0..moves.len())];
            let undo = pos.make_move(mv);
            state.on_make(&pos, mv);
            assert_eq!(
                state.evaluate_cp(&pos),
                e.evaluate_cp(&pos),
                "{}",
                pos.to_sfen()
            );
            made.push((mv, undo));
            // Now and then take a few back.
            if rng.gen_bool(0.2) {
                for _ in 0..rng.gen_range(1..=made.len()) {
                    let (mv, undo) = made.pop().unwrap();
                    pos.unmake_move(mv, undo);
                    state.on_unmake(&pos, mv);
                    assert_eq!(state.evaluate_cp(&pos), e.evaluate_cp(&pos));
                }
            }
        }
    }
}

#[test]
fn features_dot_the_parameters_are_the_evaluation() {
    let p = random_params(13);
    let e = ClassicalEvaluator::new(&p);
    let mut f = Vec::new();
    for pos in random_positions_with_drops(17, 200) {
        features(&pos, &mut f);
        let dot: i32 = f
            .iter()
            .map(|&(i, c)| i32::from(c) * p.values[usize::from(i)])
            .sum();
        assert_eq!(dot.clamp(-EVAL_LIMIT, EVAL_LIMIT), e.evaluate_cp(&pos));
    }
}
