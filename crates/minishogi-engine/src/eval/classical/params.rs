//! The classical evaluator's numbers, in one flat vector by name:
//!
//! - `piece_<kind>`: a piece on the board (no king), centipawns;
//! - `hand_<kind>`: a piece in hand;
//! - `map_<kind>_<square>`: the value map, added for a piece of `kind` on `square` as its
//!   owner sees the board (the USI square for sente; gote's pieces are looked up on the square
//!   rotated 180°, so one map serves both sides);
//! - `tempo`: a bonus for the side to move.
//!
//! The evaluation is linear in these numbers, which is what lets Texel's method (`tune::texel`)
//! compute it as a sparse dot product. Their parameters file (the format `engine tune` reads and
//! writes) is `search::eval_params`.

use crate::shogi::{PieceKind, Square};

use super::super::HAND_BONUS_PERCENT;

/// Names of the kinds in parameter names, by `PieceKind::index`.
pub const KIND_NAMES: [&str; PieceKind::COUNT] = [
    "pawn",
    "silver",
    "gold",
    "bishop",
    "rook",
    "king",
    "propawn",
    "prosilver",
    "horse",
    "dragon",
];

/// The board kinds with a material value: every kind but the king.
const VALUED: [PieceKind; 9] = [
    PieceKind::Pawn,
    PieceKind::Silver,
    PieceKind::Gold,
    PieceKind::Bishop,
    PieceKind::Rook,
    PieceKind::ProPawn,
    PieceKind::ProSilver,
    PieceKind::Horse,
    PieceKind::Dragon,
];

/// Where each group of parameters starts in the flat vector (`ClassicalParams::values`).
pub const PIECE_AT: usize = 0;
pub const HAND_AT: usize = PIECE_AT + VALUED.len();
pub const MAP_AT: usize = HAND_AT + PieceKind::HAND.len();
pub const TEMPO_AT: usize = MAP_AT + PieceKind::COUNT * Square::COUNT;
/// The number of parameters.
pub const COUNT: usize = TEMPO_AT + 1;

/// The index of `kind`'s material parameter; `None` for the king.
pub fn piece_index(kind: PieceKind) -> Option<usize> {
    VALUED.iter().position(|&k| k == kind).map(|i| PIECE_AT + i)
}

/// The index of the map value of `kind` on `sq` (the owner's view).
pub fn map_index(kind: PieceKind, sq: Square) -> usize {
    MAP_AT + kind.index() * Square::COUNT + sq.index()
}

/// Every parameter's name and the range its value may take, in vector order.
pub fn names_and_bounds() -> Vec<(String, i32, i32)> {
    let mut out = Vec::with_capacity(COUNT);
    for kind in VALUED {
        out.push((format!("piece_{}", KIND_NAMES[kind.index()]), 0, 5000));
    }
    for kind in PieceKind::HAND {
        out.push((format!("hand_{}", KIND_NAMES[kind.index()]), 0, 5000));
    }
    for kind in PieceKind::ALL {
        for sq in Square::all() {
            out.push((
                format!("map_{}_{sq}", KIND_NAMES[kind.index()]),
                -2000,
                2000,
            ));
        }
    }
    out.push(("tempo".to_string(), -500, 500));
    out
}

/// The numbers of the classical evaluation, in the order of [`names_and_bounds`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassicalParams {
    pub values: Vec<i32>,
}

impl ClassicalParams {
    /// The untuned evaluation: the material evaluator's numbers (`PieceKind::value`, hands at
    /// +`HAND_BONUS_PERCENT` %), a zero map and no tempo. It scores every position as
    /// `MaterialEvaluator` does.
    pub fn untuned() -> ClassicalParams {
        let mut values = vec![0; COUNT];
        for (i, kind) in VALUED.iter().enumerate() {
            values[PIECE_AT + i] = kind.value();
        }
        for (i, kind) in PieceKind::HAND.iter().enumerate() {
            values[HAND_AT + i] = kind.value() * (100 + HAND_BONUS_PERCENT) / 100;
        }
        ClassicalParams { values }
    }
}
