//! The parameters a run tunes, as a parameters file gives them (`search::params_file`): each
//! tunable line is a dimension of the search space with its start value, range and step;
//! fixed lines are played as they are by both engines. Also writes the file back with new
//! values (`params_file::write`), for the engine (`ParamsFile`) and for a next run.

use crate::players::PlayerParams;
use crate::search::ParamSpec;
use crate::search::params_file::{
    self, ParamsFileEntry, ParamsFileError, ParamsFileLine, TuneRange,
};

/// One tuned parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuned {
    pub name: &'static str,
    /// The value in the parameters file: where the run starts and what it plays against.
    pub start: f64,
    pub min: f64,
    pub max: f64,
    pub step: f64,
}

/// The parameters of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Space {
    pub tuned: Vec<Tuned>,
    /// Set for both engines, never moved: name and value (rounded when played).
    pub fixed: Vec<(&'static str, f64)>,
}

impl Space {
    /// The space of a search parameters file's text; at least one line must be tunable.
    pub fn from_text(text: &str) -> Result<Space, String> {
        Space::from_text_with(text, "search parameter", PlayerParams::spec)
    }

    /// The space of a parameters file's text whose names `lookup` knows (as
    /// `params_file::parse_with`); at least one line must be tunable.
    pub fn from_text_with(
        text: &str,
        what: &str,
        lookup: impl Fn(&str) -> Option<ParamSpec>,
    ) -> Result<Space, String> {
        let entries = params_file::parse_with(text, what, lookup)
            .map_err(|e: ParamsFileError| e.to_string())?;
        Space::from_entries(&entries).ok_or_else(|| {
            "no tunable parameter (a line 'name value min max step') in the file".to_string()
        })
    }

    fn from_entries(entries: &[ParamsFileEntry]) -> Option<Space> {
        let mut space = Space {
            tuned: Vec::new(),
            fixed: Vec::new(),
        };
        for e in entries {
            match e.range {
                Some(r) => space.tuned.push(Tuned {
                    name: e.spec.name,
                    start: e.value,
                    min: r.min,
                    max: r.max,
                    step: r.step,
                }),
                None => space.fixed.push((e.spec.name, e.value)),
            }
        }
        (!space.tuned.is_empty()).then_some(space)
    }

    pub fn dims(&self) -> usize {
        self.tuned.len()
    }

    /// The start values (the file's).
    pub fn start(&self) -> Vec<f64> {
        self.tuned.iter().map(|t| t.start).collect()
    }

    /// `x` with each value moved into its range.
    pub fn clamp(&self, x: &[f64]) -> Vec<f64> {
        x.iter()
            .zip(&self.tuned)
            .map(|(&v, t)| v.clamp(t.min, t.max))
            .collect()
    }

    /// `x` as fractions of the ranges: 0 at `min`, 1 at `max`.
    pub fn normalised(&self, x: &[f64]) -> Vec<f64> {
        x.iter()
            .zip(&self.tuned)
            .map(|(&v, t)| (v - t.min) / (t.max - t.min))
            .collect()
    }

    /// The parameters file for `x` (`params_file::write`): every line with the value the search
    /// plays (the exact value and the start in a comment), ranges and steps as given, `header`
    /// as comments on top.
    pub fn params_file(&self, x: &[f64], header: &str) -> String {
        let tuned = self.tuned.iter().zip(x).map(|(t, &v)| ParamsFileLine {
            name: t.name,
            value: f64::from(params_file::round_value(v)),
            range: Some(TuneRange {
                min: t.min,
                max: t.max,
                step: t.step,
            }),
            comment: format!("{v:.3} (start {})", t.start),
        });
        let fixed = self.fixed.iter().map(|&(name, v)| ParamsFileLine {
            name,
            value: v,
            range: None,
            comment: "fixed".to_string(),
        });
        params_file::write(header, &tuned.chain(fixed).collect::<Vec<_>>())
    }

    /// Everything about the space that decides a run's results, for its settings line.
    pub fn describe(&self) -> String {
        let tuned: Vec<String> = self
            .tuned
            .iter()
            .map(|t| format!("{}={}[{},{}]/{}", t.name, t.start, t.min, t.max, t.step))
            .collect();
        let fixed: Vec<String> = self.fixed.iter().map(|(n, v)| format!("{n}={v}")).collect();
        format!("tuned {} fixed {}", tuned.join(" "), fixed.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "rfp_margin 120 40 300 10\nfutility_margin 120 0 400 20.5\n\
                        lmr_divisor_centi 240\n";

    #[test]
    fn reads_tuned_and_fixed_and_writes_back() {
        let space = Space::from_text(TEXT).unwrap();
        assert_eq!(space.dims(), 2);
        assert_eq!(space.start(), [120.0, 120.0]);
        assert_eq!(space.fixed, [("lmr_divisor_centi", 240.0)]);
        assert_eq!(space.clamp(&[0.0, 500.0]), [40.0, 400.0]);
        assert_eq!(space.normalised(&[40.0, 100.0]), [0.0, 0.25]);
        // The written file reads back as the same space with the new (rounded) values.
        let written = space.params_file(&[130.5, 99.4], "tuned by a test\nsecond line");
        assert!(
            written.starts_with("# tuned by a test\n# second line\n"),
            "{written}"
        );
        assert_eq!(
            written,
            "# tuned by a test\n# second line\n# name value min max step\n\
             rfp_margin        131 40 300 10  # 130.500 (start 120)\n\
             futility_margin   99 0 400 20.5  # 99.400 (start 120)\n\
             lmr_divisor_centi 240  # fixed\n"
        );
        let again = Space::from_text(&written).unwrap();
        assert_eq!(again.start(), [131.0, 99.0]);
        assert_eq!(again.fixed, space.fixed);
        assert_eq!(
            (again.tuned[1].min, again.tuned[1].max, again.tuned[1].step),
            (0.0, 400.0, 20.5)
        );
        let params = params_file::params_from_text(&written).unwrap();
        assert_eq!(
            (
                params.rfp_margin,
                params.futility_margin,
                params.lmr_divisor_centi
            ),
            (131, 99, 240)
        );
    }

    #[test]
    fn a_file_without_tunable_lines_is_refused() {
        let err = Space::from_text("# c\nrfp_margin 100\n").unwrap_err();
        assert_eq!(
            err,
            "no tunable parameter (a line 'name value min max step') in the file"
        );
        assert_eq!(
            Space::from_text("rfp_margin 1 0 10 1\nx 3\n").unwrap_err(),
            "line 2: unknown search parameter 'x'"
        );
    }

    /// The classical evaluator's parameters file, as `ClassicalParams::params_file` writes
    /// it, reads as a space with every line tunable.
    #[test]
    fn the_classical_parameters_file_is_a_space() {
        use crate::search::eval_params::{self, WHAT, spec};
        let text = eval_params::params_file(&crate::eval::ClassicalParams::untuned(), "start");
        let space = Space::from_text_with(&text, WHAT, spec).unwrap();
        assert_eq!(space.dims(), eval_params::SPECS.len());
    }
}
