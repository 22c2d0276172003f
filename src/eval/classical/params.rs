//! The classical evaluator's numbers and their parameters file. Every number is a parameter
//! of the one format `engine tune` reads and writes (`search::params_file`: `name value [min
//! max step]`), by name:
//!
//! - `piece_<kind>`: a piece on the board (no king), centipawns;
//! - `hand_<kind>`: a piece in hand;
//! - `map_<kind>_<square>`: the value map, added for a piece of `kind` on `square` as its
//!   owner sees the board (the USI square for sente; gote's pieces are looked up on the square
//!   rotated 180°, so one map serves both sides);
//! - `tempo`: a bonus for the side to move.
//!
//! The evaluation is linear in these numbers, which is what lets Texel's method (`tune::texel`)
//! compute it as a sparse dot product.

use std::sync::LazyLock;

use crate::search::ParamSpec;
use crate::search::params_file::{
    self, ParamsFileEntry, ParamsFileError, ParamsFileLine, TuneRange, round_value,
};
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

/// What this parameter set is called in errors (`unknown classical parameter 'x'`).
pub const WHAT: &str = "classical parameter";

/// The index of `kind`'s material parameter; `None` for the king.
pub fn piece_index(kind: PieceKind) -> Option<usize> {
    VALUED.iter().position(|&k| k == kind).map(|i| PIECE_AT + i)
}

/// The index of the map value of `kind` on `sq` (the owner's view).
pub fn map_index(kind: PieceKind, sq: Square) -> usize {
    MAP_AT + kind.index() * Square::COUNT + sq.index()
}

/// Every parameter's name, default (the untuned value) and range, in vector order.
pub static SPECS: LazyLock<Vec<ParamSpec>> = LazyLock::new(|| {
    let untuned = ClassicalParams::untuned();
    let mut specs = Vec::with_capacity(COUNT);
    // Names live as long as the program: they are made once.
    let name = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    for kind in VALUED {
        specs.push((name(format!("piece_{}", KIND_NAMES[kind.index()])), 0, 5000));
    }
    for kind in PieceKind::HAND {
        specs.push((name(format!("hand_{}", KIND_NAMES[kind.index()])), 0, 5000));
    }
    for kind in PieceKind::ALL {
        for sq in Square::all() {
            let n = format!("map_{}_{sq}", KIND_NAMES[kind.index()]);
            specs.push((name(n), -2000, 2000));
        }
    }
    specs.push(("tempo", -500, 500));
    specs
        .into_iter()
        .enumerate()
        .map(|(i, (name, min, max))| ParamSpec {
            name,
            default: untuned.values[i],
            min,
            max,
        })
        .collect()
});

/// The spec of the parameter `name`.
pub fn spec(name: &str) -> Option<ParamSpec> {
    SPECS.iter().find(|s| s.name == name).copied()
}

fn index_of(name: &str) -> Option<usize> {
    SPECS.iter().position(|s| s.name == name)
}

/// The numbers of the classical evaluation, in the order of [`SPECS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassicalParams {
    pub values: Vec<i32>,
}

/// The shipped, tuned parameters (`weights/classical.params`), the evaluator's default.
const SHIPPED: &str = include_str!("../../../weights/classical.params");

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

    /// The shipped parameters (`weights/classical.params`, compiled in).
    pub fn shipped() -> ClassicalParams {
        static PARAMS: LazyLock<ClassicalParams> = LazyLock::new(|| {
            ClassicalParams::from_text(SHIPPED).expect("weights/classical.params is valid")
        });
        PARAMS.clone()
    }

    /// A parameters file's values set on the untuned parameters: a file may give only some
    /// numbers, the rest keep their untuned values.
    pub fn from_text(text: &str) -> Result<ClassicalParams, ParamsFileError> {
        let mut params = ClassicalParams::untuned();
        params.apply(&params_file::parse_with(text, WHAT, spec)?);
        Ok(params)
    }

    /// Sets every entry's value (rounded as the search rounds them).
    pub fn apply(&mut self, entries: &[ParamsFileEntry]) {
        for e in entries {
            let i = index_of(e.spec.name).expect("parse_with checked the name");
            self.values[i] = round_value(e.value);
        }
    }

    /// The parameters of a vector in [`SPECS`] order (as the tuner holds them), rounded.
    pub fn from_values(x: &[f64]) -> ClassicalParams {
        assert_eq!(x.len(), COUNT, "one value per classical parameter");
        ClassicalParams {
            values: x.iter().map(|&v| round_value(v)).collect(),
        }
    }

    /// The parameters file of these values with each line's tuning range (`range_of`), the
    /// header as comments on top. Reads back by [`ClassicalParams::from_text`].
    pub fn params_file(&self, header: &str) -> String {
        let lines: Vec<ParamsFileLine> = SPECS
            .iter()
            .zip(&self.values)
            .map(|(s, &v)| ParamsFileLine {
                name: s.name,
                value: f64::from(v),
                range: Some(range_of(s.name, v)),
                comment: String::new(),
            })
            .collect();
        params_file::write(header, &lines)
    }
}

/// The range a tuner may move a parameter in (around `value` for material, a fixed band for
/// the map and tempo): within the parameter's own range.
pub fn range_of(name: &str, value: i32) -> TuneRange {
    let spec = spec(name).expect("a classical parameter");
    let (min, max, step) = if name.starts_with("map_") {
        (-300, 300, 10.0)
    } else if name == "tempo" {
        (-100, 100, 5.0)
    } else {
        ((value / 3).max(spec.min), (value * 3).max(100), 20.0)
    };
    TuneRange {
        min: f64::from(min.min(value)),
        max: f64::from(max.max(value)),
        step,
    }
}
