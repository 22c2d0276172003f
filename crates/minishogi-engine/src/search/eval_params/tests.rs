use super::*;
use crate::eval::classical::params::{self, COUNT};
use crate::shogi::{PieceKind, Square};

fn random_params(seed: u64) -> ClassicalParams {
    crate::eval::classical::tests::random_params(seed)
}

#[test]
fn params_files_round_trip() {
    assert_eq!(SPECS.len(), COUNT);
    assert_eq!(COUNT, 9 + 5 + 250 + 1);
    let p = random_params(19);
    let text = params_file(&p, "random\nparameters");
    assert!(text.starts_with("# random\n# parameters\n"), "{text}");
    assert!(text.contains("\nmap_gold_3c "), "{text}");
    assert_eq!(from_text(&text).unwrap(), p);
    // A file of a few lines sets those and leaves the rest untuned.
    let few = from_text("piece_pawn 90\nmap_king_5e 30 -300 300 10\n").unwrap();
    let mut expected = ClassicalParams::untuned();
    expected.values[params::piece_index(PieceKind::Pawn).unwrap()] = 90;
    expected.values[params::map_index(PieceKind::King, Square::new(5, 4))] = 30;
    assert_eq!(few, expected);
    // The shipped file reads.
    let _ = shipped();
}

#[test]
fn bad_params_files_are_refused_with_the_line() {
    let err = |text: &str| from_text(text).unwrap_err().to_string();
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
    let text = params_file(
        &ClassicalParams::untuned(),
        "The untuned classical evaluation (material values, hands +10 %, a zero map): the\n\
         start of engine tune --target classical. Written by ClassicalParams::params_file.",
    );
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../weights/classical-untuned.params"
    );
    if std::env::var_os("WRITE_CLASSICAL_START").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    assert_eq!(std::fs::read_to_string(path).unwrap(), text);
    assert_eq!(from_text(&text).unwrap(), ClassicalParams::untuned());
}
