//! The classical evaluator's parameters file (`eval::classical::params` names its numbers): the
//! one parameters-file format (`params_file`: `name value [min max step]`) over those names,
//! the tuner's range for each, and the shipped, tuned file compiled in. It lives beside
//! `params_file`, which owns the format, because the evaluator's layer stays below it.

use std::sync::LazyLock;

use super::ParamSpec;
use super::params_file::{
    self, ParamsFileEntry, ParamsFileError, ParamsFileLine, TuneRange, round_value,
};
use crate::eval::ClassicalParams;
use crate::eval::classical::params::names_and_bounds;

/// What these parameters are called in errors (`unknown classical parameter 'x'`).
pub const WHAT: &str = "classical parameter";

/// The shipped, tuned parameters (`weights/classical.params`), the evaluator's default.
const SHIPPED: &str = include_str!("../../../../weights/classical.params");

/// Every parameter's name, default (the untuned value) and range, in vector order.
pub static SPECS: LazyLock<Vec<ParamSpec>> = LazyLock::new(|| {
    let untuned = ClassicalParams::untuned();
    names_and_bounds()
        .into_iter()
        .enumerate()
        .map(|(i, (name, min, max))| ParamSpec {
            // Made once; names live as long as the program, as `SearchParams::SPECS`' do.
            name: Box::leak(name.into_boxed_str()),
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

/// The index of the parameter `name` in `ClassicalParams::values`.
pub fn index_of(name: &str) -> Option<usize> {
    SPECS.iter().position(|s| s.name == name)
}

/// A parameters file's values set on the untuned parameters: a file may give only some
/// numbers, the rest keep their untuned values.
pub fn from_text(text: &str) -> Result<ClassicalParams, ParamsFileError> {
    let mut params = ClassicalParams::untuned();
    apply(&params_file::parse_with(text, WHAT, spec)?, &mut params);
    Ok(params)
}

/// Sets every entry's value (rounded as the search rounds them).
pub fn apply(entries: &[ParamsFileEntry], params: &mut ClassicalParams) {
    for e in entries {
        let i = index_of(e.spec.name).expect("parse_with checked the name");
        params.values[i] = round_value(e.value);
    }
}

/// The shipped parameters (`weights/classical.params`, compiled in).
pub fn shipped() -> ClassicalParams {
    static PARAMS: LazyLock<ClassicalParams> =
        LazyLock::new(|| from_text(SHIPPED).expect("weights/classical.params is valid"));
    PARAMS.clone()
}

/// The parameters file of `params` with each line's tuning range ([`range_of`]), `header` as
/// comments on top. Reads back by [`from_text`].
pub fn params_file(params: &ClassicalParams, header: &str) -> String {
    let lines: Vec<ParamsFileLine> = SPECS
        .iter()
        .zip(&params.values)
        .map(|(s, &v)| ParamsFileLine {
            name: s.name,
            value: f64::from(v),
            range: Some(range_of(s.name, v)),
            comment: String::new(),
        })
        .collect();
    params_file::write(header, &lines)
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

#[cfg(test)]
mod tests;
