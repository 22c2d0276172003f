//! The search parameters file: values for [`SearchParams`] by name, and for a tuner the range
//! and step of each parameter it may move. Read by the USI option `ParamsFile` and by
//! `engine tune` (which also writes its results in this format).
//!
//! ```text
//! # name            value  min  max  step
//! futility_margin   120    40   300  10
//! rfp_margin        120    40   300  10
//! lmr_divisor_centi 250          # a fixed value: set, never tuned
//! ```
//!
//! One parameter a line, fields separated by whitespace; `#` starts a comment; blank lines are
//! skipped. A line holds either `name value` (the parameter is set to the value) or `name value
//! min max step` (set, and tunable within `min..=max`, perturbed by about `step`). Names are
//! those of [`SearchParams::SPECS`]; each may appear once. `value` may have decimals (a tuner
//! keeps fractional values): the search rounds it to the nearest integer ([`round_value`]).
//! `min` and `max` are integers within the parameter's own range with `min < max`, `value`
//! lies between them, and `step` is a positive number. [`write`] writes the format (for
//! `engine tune`), [`parse`] reads it.

use std::fmt;
use std::fmt::Write as _;

use super::params::{ParamSpec, SearchParams};

/// A parameter's tuning range: `min..=max`, perturbed by about `step`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TuneRange {
    pub min: f64,
    pub max: f64,
    pub step: f64,
}

/// One line of a parameters file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamsFileEntry {
    pub spec: ParamSpec,
    pub value: f64,
    /// `None` for a fixed value (`name value`).
    pub range: Option<TuneRange>,
}

/// A malformed line: its 1-based number and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamsFileError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParamsFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParamsFileError {}

/// The integer the search plays for a (possibly fractional) value: the nearest one, halves
/// away from zero (saturating at the ends of `i32`).
pub fn round_value(value: f64) -> i32 {
    value.round() as i32
}

/// Parses a search parameters file's text (see the module documentation).
pub fn parse(text: &str) -> Result<Vec<ParamsFileEntry>, ParamsFileError> {
    parse_with(text, "search parameter", SearchParams::spec)
}

/// Parses a parameters file's text whose names `lookup` knows (`what` names them in errors,
/// e.g. `search parameter`): the same format for every parameter set, e.g. the classical
/// evaluator's (`eval::classical`).
pub fn parse_with(
    text: &str,
    what: &str,
    lookup: impl Fn(&str) -> Option<ParamSpec>,
) -> Result<Vec<ParamsFileEntry>, ParamsFileError> {
    let mut entries: Vec<ParamsFileEntry> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let error = |message: String| ParamsFileError { line, message };
        let code = raw.split('#').next().unwrap_or("");
        let fields: Vec<&str> = code.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        if fields.len() != 2 && fields.len() != 5 {
            return Err(error(format!(
                "expected 'name value' or 'name value min max step', got {} field{}",
                fields.len(),
                if fields.len() == 1 { "" } else { "s" }
            )));
        }
        let name = fields[0];
        let spec = lookup(name).ok_or_else(|| error(format!("unknown {what} '{name}'")))?;
        if entries.iter().any(|e| e.spec.name == spec.name) {
            return Err(error(format!("{name} is given twice")));
        }
        let number = |what: &str, text: &str| -> Result<f64, ParamsFileError> {
            text.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| error(format!("{name}: {what} '{text}' is not a number")))
        };
        let value = number("value", fields[1])?;
        let (lo, hi) = (f64::from(spec.min), f64::from(spec.max));
        let range = if fields.len() == 5 {
            let bound = |what: &str, text: &str| -> Result<f64, ParamsFileError> {
                let x = number(what, text)?;
                if x.fract() != 0.0 {
                    return Err(error(format!("{name}: {what} {text} is not an integer")));
                }
                if !(lo..=hi).contains(&x) {
                    return Err(error(format!(
                        "{name}: {what} {text} is outside the parameter's range {}..={}",
                        spec.min, spec.max
                    )));
                }
                Ok(x)
            };
            let min = bound("min", fields[2])?;
            let max = bound("max", fields[3])?;
            if min >= max {
                return Err(error(format!("{name}: min {min} must be below max {max}")));
            }
            let step = number("step", fields[4])?;
            if step <= 0.0 {
                return Err(error(format!("{name}: step {step} must be positive")));
            }
            if !(min..=max).contains(&value) {
                return Err(error(format!(
                    "{name}: value {value} is outside min..=max {min}..={max}"
                )));
            }
            Some(TuneRange { min, max, step })
        } else {
            None
        };
        let rounded = f64::from(round_value(value));
        if !(lo..=hi).contains(&rounded) {
            return Err(error(format!(
                "{name}: value {value} is outside the parameter's range {}..={}",
                spec.min, spec.max
            )));
        }
        entries.push(ParamsFileEntry { spec, value, range });
    }
    Ok(entries)
}

/// One line of a parameters file to [`write`].
#[derive(Clone, Debug, PartialEq)]
pub struct ParamsFileLine<'a> {
    pub name: &'a str,
    pub value: f64,
    /// `None` for a fixed value (`name value`).
    pub range: Option<TuneRange>,
    /// Written after the fields as `# comment`; empty for none.
    pub comment: String,
}

/// A parameters file's text: `header`'s lines as comments on top, a `# name value min max step`
/// line, then every line, names padded to one width. [`parse`] reads it back.
pub fn write(header: &str, lines: &[ParamsFileLine]) -> String {
    let mut s = String::new();
    for line in header.lines() {
        let _ = writeln!(s, "# {line}");
    }
    let _ = writeln!(s, "# name value min max step");
    let width = lines.iter().map(|l| l.name.len()).max().unwrap_or(0);
    for l in lines {
        let _ = write!(s, "{:width$} {}", l.name, l.value);
        if let Some(r) = l.range {
            let _ = write!(s, " {} {} {}", r.min, r.max, r.step);
        }
        if !l.comment.is_empty() {
            let _ = write!(s, "  # {}", l.comment);
        }
        s.push('\n');
    }
    s
}

/// Sets every parameter of `entries` in `params` (rounded, see [`round_value`]).
pub fn apply(entries: &[ParamsFileEntry], params: &mut SearchParams) {
    for entry in entries {
        params
            .set(entry.spec.name, round_value(entry.value))
            .expect("parse checked the name and range");
    }
}

/// The parameters a file's text gives: the defaults with the file's values set.
pub fn params_from_text(text: &str) -> Result<SearchParams, ParamsFileError> {
    let mut params = SearchParams::DEFAULT;
    apply(&parse(text)?, &mut params);
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_files_read_back() {
        let range = TuneRange {
            min: 40.0,
            max: 300.0,
            step: 12.5,
        };
        let lines = [
            ParamsFileLine {
                name: "rfp_margin",
                value: 131.0,
                range: Some(range),
                comment: "130.500 (start 120)".to_string(),
            },
            ParamsFileLine {
                name: "lmr_divisor_centi",
                value: 240.5,
                range: None,
                comment: String::new(),
            },
        ];
        let text = write("a header\nof two lines", &lines);
        assert_eq!(
            text,
            "# a header\n# of two lines\n# name value min max step\n\
             rfp_margin        131 40 300 12.5  # 130.500 (start 120)\n\
             lmr_divisor_centi 240.5\n"
        );
        let entries = parse(&text).unwrap();
        assert_eq!(entries.len(), 2);
        for (entry, line) in entries.iter().zip(&lines) {
            assert_eq!(
                (entry.spec.name, entry.value, entry.range),
                (line.name, line.value, line.range)
            );
        }
    }

    #[test]
    fn parses_fixed_and_tunable_lines_with_comments() {
        let text = "# header\n\n  rfp_margin 130.4 40 300 12.5  # tuned\nlmr_divisor_centi\t200\n";
        let entries = parse(text).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].spec.name, "rfp_margin");
        assert_eq!(entries[0].value, 130.4);
        assert_eq!(
            entries[0].range,
            Some(TuneRange {
                min: 40.0,
                max: 300.0,
                step: 12.5
            })
        );
        assert_eq!(entries[1].range, None);
        let params = params_from_text(text).unwrap();
        assert_eq!(params.rfp_margin, 130);
        assert_eq!(params.lmr_divisor_centi, 200);
        assert_eq!(
            params.futility_margin,
            SearchParams::DEFAULT.futility_margin
        );
        assert_eq!(round_value(2.5), 3);
        assert_eq!(round_value(-2.5), -3);
        assert_eq!(parse("").unwrap(), []);
    }

    #[test]
    fn malformed_lines_are_named() {
        let err = |text: &str| parse(text).unwrap_err().to_string();
        assert_eq!(
            err("rfp_margin 1\nnope 3\n"),
            "line 2: unknown search parameter 'nope'"
        );
        assert_eq!(
            err("rfp_margin 1 2\n"),
            "line 1: expected 'name value' or 'name value min max step', got 3 fields"
        );
        assert_eq!(
            err("rfp_margin\n"),
            "line 1: expected 'name value' or 'name value min max step', got 1 field"
        );
        assert_eq!(
            err("rfp_margin x\n"),
            "line 1: rfp_margin: value 'x' is not a number"
        );
        assert_eq!(
            err("rfp_margin NaN\n"),
            "line 1: rfp_margin: value 'NaN' is not a number"
        );
        assert_eq!(
            err("rfp_margin 1001\n"),
            "line 1: rfp_margin: value 1001 is outside the parameter's range 0..=1000"
        );
        assert_eq!(
            err("rfp_margin 100 0 2000 10\n"),
            "line 1: rfp_margin: max 2000 is outside the parameter's range 0..=1000"
        );
        assert_eq!(
            err("rfp_margin 100 0.5 200 10\n"),
            "line 1: rfp_margin: min 0.5 is not an integer"
        );
        assert_eq!(
            err("rfp_margin 100 200 200 10\n"),
            "line 1: rfp_margin: min 200 must be below max 200"
        );
        assert_eq!(
            err("rfp_margin 100 0 200 0\n"),
            "line 1: rfp_margin: step 0 must be positive"
        );
        assert_eq!(
            err("rfp_margin 300 0 200 5\n"),
            "line 1: rfp_margin: value 300 is outside min..=max 0..=200"
        );
        assert_eq!(
            err("rfp_margin 1\n# c\nrfp_margin 2\n"),
            "line 3: rfp_margin is given twice"
        );
    }
}
