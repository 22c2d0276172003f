use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::params::{self, COUNT, SPECS};
use super::*;
use crate::eval::MaterialEvaluator;
use crate::shogi::testing::random_positions_with_drops;

/// Parameters with every number random (within ±300 of the untuned ones), so that no term
/// hides behind a zero.
fn random_params(seed: u64) -> ClassicalParams {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut p = ClassicalParams::untuned();
    for (v, spec) in p.values.iter_mut().zip(SPECS.iter()) {
        *v = (*v + rng.gen_range(-300..=300)).clamp(spec.min, spec.max);
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

#[test]
fn params_files_round_trip() {
    assert_eq!(SPECS.len(), COUNT);
    assert_eq!(COUNT, 9 + 5 + 250 + 1);
    let p = random_params(19);
    let text = p.params_file("random\nparameters");
    assert!(text.starts_with("# random\n# parameters\n"), "{text}");
    assert!(text.contains("\nmap_gold_3c "), "{text}");
    assert_eq!(ClassicalParams::from_text(&text).unwrap(), p);
    // The tuner's space reads it too, every line tunable.
    let space =
        crate::tune::space::Space::from_text_with(&text, params::WHAT, params::spec).unwrap();
    assert_eq!(space.dims(), COUNT);
    // A file of a few lines sets those and leaves the rest untuned.
    let few = ClassicalParams::from_text("piece_pawn 90\nmap_king_5e 30 -300 300 10\n").unwrap();
    let mut expected = ClassicalParams::untuned();
    expected.values[params::piece_index(PieceKind::Pawn).unwrap()] = 90;
    expected.values[params::map_index(PieceKind::King, Square::new(5, 4))] = 30;
    assert_eq!(few, expected);
    // The shipped file reads.
    let _ = ClassicalParams::shipped();
}

#[test]
fn bad_params_files_are_refused_with_the_line() {
    let err = |text: &str| ClassicalParams::from_text(text).unwrap_err().to_string();
    assert_eq!(
        err("piece_pawn 100\nmap_pawn_6a 3\n"),
        "line 2: unknown classical parameter 'map_pawn_6a'"
    );
    assert_eq!(
        err("rfp_margin 100\n"),
        "line 1: unknown classical parameter 'rfp_margin'"
    );
    assert_eq!(
        err("tempo 9000\n"),
        "line 1: tempo: value 9000 is outside the parameter's range -500..=500"
    );
    assert_eq!(
        err("piece_gold x\n"),
        "line 1: piece_gold: value 'x' is not a number"
    );
    assert_eq!(err("tempo 1\ntempo 2\n"), "line 2: tempo is given twice");
}

/// `weights/classical-untuned.params`, the tuner's start: the untuned values with their
/// ranges. `WRITE_CLASSICAL_START=1 cargo test` writes it anew.
#[test]
fn the_untuned_start_file_is_the_untuned_parameters() {
    let text = ClassicalParams::untuned().params_file(
        "The untuned classical evaluation (material values, hands +10 %, a zero map): the\n\
         start of engine tune --target classical. Written by ClassicalParams::params_file.",
    );
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/weights/classical-untuned.params"
    );
    if std::env::var_os("WRITE_CLASSICAL_START").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    assert_eq!(std::fs::read_to_string(path).unwrap(), text);
    assert_eq!(
        ClassicalParams::from_text(&text).unwrap(),
        ClassicalParams::untuned()
    );
}
