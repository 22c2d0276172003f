//! Search parameters: every margin, reduction and ordering weight of the search in one place,
//! with its default and the range a tuner may try. Settable at run time by name
//! ([`SearchParams::set`]), so that hidden USI options or a parameters file can drive them;
//! `SearchOptions::params` carries them into a search.
//!
//! The defaults are the values the search was developed with: `engine bench` runs with them,
//! and its node count changes as soon as any of them does.

use std::fmt;

/// One tunable parameter: name, default and inclusive range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
}

/// A value refused by [`SearchParams::set`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamError {
    Unknown(String),
    OutOfRange { spec: ParamSpec, value: i32 },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::Unknown(name) => write!(f, "unknown search parameter '{name}'"),
            ParamError::OutOfRange { spec, value } => write!(
                f,
                "{} = {value} is outside {}..={}",
                spec.name, spec.min, spec.max
            ),
        }
    }
}

impl std::error::Error for ParamError {}

/// A table of tunable numbers: a struct of `i32` fields with their defaults and ranges, set
/// and read by name. The search's ([`SearchParams`]) and MCTS's (`mcts::params::MctsParams`)
/// are two tables of this one kind, so that hidden USI options and parameters files treat them
/// alike.
macro_rules! params_table {
    (
        $(#[doc = $table_doc:expr])* $table:ident;
        $( $(#[doc = $doc:expr])* $field:ident = $default:literal, $min:literal ..= $max:literal; )*
    ) => {
        $(#[doc = $table_doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $table {
            $( $(#[doc = $doc])* pub $field: i32, )*
        }

        impl $table {
            /// The defaults.
            pub const DEFAULT: $table = $table { $( $field: $default, )* };

            /// Every parameter: name, default, min, max.
            pub const SPECS: &'static [$crate::search::ParamSpec] = &[
                $( $crate::search::ParamSpec {
                    name: stringify!($field), default: $default, min: $min, max: $max,
                }, )*
            ];

            /// The current value of the parameter `name`.
            pub fn get(&self, name: &str) -> Option<i32> {
                match name {
                    $( stringify!($field) => Some(self.$field), )*
                    _ => None,
                }
            }

            fn slot(&mut self, name: &str) -> Option<&mut i32> {
                match name {
                    $( stringify!($field) => Some(&mut self.$field), )*
                    _ => None,
                }
            }

            /// Sets the parameter `name` to `value`, which must lie in its range.
            pub fn set(&mut self, name: &str, value: i32) -> Result<(), $crate::search::ParamError> {
                let spec = Self::spec(name)
                    .ok_or_else(|| $crate::search::ParamError::Unknown(name.to_string()))?;
                if !(spec.min..=spec.max).contains(&value) {
                    return Err($crate::search::ParamError::OutOfRange { spec, value });
                }
                *self.slot(name).expect("every spec names a field") = value;
                Ok(())
            }

            /// The name, default and range of the parameter `name`.
            pub fn spec(name: &str) -> Option<$crate::search::ParamSpec> {
                Self::SPECS.iter().find(|s| s.name == name).copied()
            }
        }

        impl Default for $table {
            fn default() -> Self {
                $table::DEFAULT
            }
        }
    };
}
pub(crate) use params_table;

params_table! {
    /// The search's tunable numbers (see the module documentation).
    SearchParams;
    // ---- root and aspiration windows ----
    /// Iterations from this depth on start with a window around the previous score.
    aspiration_min_depth = 4, 1..=20;
    /// Half-width of the first aspiration window (grows by half after each failure).
    aspiration_delta = 25, 1..=400;
    /// When above 0, the first half-width also grows by the previous score's size divided by
    /// this (the network's scores swing more between iterations the larger they are).
    aspiration_score_divisor = 0, 0..=4096;
    /// Past this half-width the window opens fully.
    aspiration_max_delta = 800, 50..=8000;
    // ---- selective search ----
    /// Reverse futility: applies at depths up to this.
    rfp_max_depth = 6, 0..=20;
    /// Reverse futility margin per ply of depth.
    rfp_margin = 120, 0..=1000;
    /// Taken off the reverse futility margin when the evaluation is improving.
    rfp_improving = 60, 0..=1000;
    /// Null move: minimum depth.
    nmp_min_depth = 3, 1..=20;
    /// Null move reduction: base plies.
    nmp_base = 3, 1..=10;
    /// Null move reduction: one more ply per this many plies of depth.
    nmp_depth_divisor = 4, 1..=20;
    /// Null move reduction: one more ply per this many centipawns of eval above beta...
    nmp_eval_divisor = 200, 1..=2000;
    /// ...up to this many.
    nmp_eval_max = 3, 0..=10;
    /// A PV node without a TT move at least this deep searches one ply shallower.
    iid_min_depth = 6, 1..=100;
    /// Internal iterative reduction at cut nodes (`iir_cut`): minimum depth.
    iir_cut_min_depth = 4, 1..=100;
    /// History pruning (`history_pruning`): applies at depths up to this...
    history_prune_max_depth = 3, 0..=20;
    /// ...to quiet moves whose history is below minus this per ply of depth.
    history_prune_margin = 2000, 0..=16384;
    /// ProbCut (`probcut`): minimum depth...
    probcut_min_depth = 5, 2..=20;
    /// ...and how far above beta a capture's reduced search must reach.
    probcut_margin = 200, 0..=2000;
    /// Late move pruning: applies at depths up to this.
    lmp_max_depth = 8, 0..=20;
    /// Late move pruning: quiet moves allowed are (base + depth²), halved when not improving.
    lmp_base = 3, 0..=50;
    /// Futility pruning of quiet moves: applies at depths up to this.
    futility_max_depth = 6, 0..=20;
    /// Futility margin: base centipawns...
    futility_base = 150, 0..=2000;
    /// ...plus this per ply of depth.
    futility_margin = 120, 0..=1000;
    /// SEE pruning of captures: applies at depths up to this.
    see_prune_max_depth = 6, 0..=20;
    /// SEE pruning threshold: minus this many centipawns per ply of depth.
    see_prune_margin = 120, 0..=1000;
    /// Checks are extended while the ply is below this many times the root depth.
    check_ext_ply_factor = 2, 0..=10;
    /// When above 0, a check is extended only if the side in check has at most this many
    /// legal replies (decided at the child, which generates them anyway); 0 extends every
    /// SEE-safe check.
    check_ext_max_replies = 4, 0..=64;
    /// Singular extension: minimum depth.
    se_min_depth = 6, 2..=20;
    /// Singular extension: the TT entry must be at least the node's depth minus this deep.
    se_tt_depth_slack = 3, 0..=10;
    /// Singular extension: the excluded search's bound lies this many centipawns per ply of
    /// depth below the TT score.
    se_margin = 2, 0..=50;
    /// Singular extension: only while the ply is below this many times the root depth (0: no
    /// limit), so that chains of extended moves cannot grow a line without bound.
    se_ply_factor = 0, 0..=10;
    /// Late move reductions (main search and root): minimum depth.
    lmr_min_depth = 3, 1..=20;
    /// Late move reductions: ln(depth) · ln(move number) / (this / 100).
    lmr_divisor_centi = 250, 50..=1000;
    /// Late move reductions: one ply less (more) per this much history score...
    lmr_history_divisor = 8192, 1..=16384;
    /// ...by at most this many plies either way.
    lmr_history_max_plies = 1, 0..=8;
    /// Root moves from this index after the PV move are reduced by one ply.
    root_lmr_index = 4, 1..=64;
    /// Quiescence delta pruning margin, in centipawns.
    qs_delta_margin = 200, 0..=2000;
    // ---- move ordering ----
    /// MVV-LVA: victim value times this...
    mvv_victim_weight = 16, 1..=64;
    /// ...minus the attacker's value (capped) divided by this.
    mvv_attacker_divisor = 16, 1..=256;
    /// Cap of the attacker's value in MVV-LVA.
    mvv_attacker_cap = 2000, 0..=20000;
    /// History bonus for a cut-off: this · depth² ...
    history_bonus_quad = 16, 0..=256;
    /// ... + this · depth ...
    history_bonus_linear = 32, 0..=1024;
    /// ... at most this.
    history_bonus_max = 2400, 1..=16384;
    /// Capture history's score in the ordering of captures is divided by this (with
    /// `capture_history` on): MVV-LVA steps are 16 per centipawn of the victim.
    capture_history_divisor = 4, 1..=256;
}

impl SearchParams {
    /// The late move reduction table's divisor, `lmr_divisor_centi / 100`.
    pub fn lmr_divisor(&self) -> f64 {
        self.lmr_divisor_centi as f64 / 100.0
    }

    /// History bonus for a cut-off at `depth`.
    #[inline(always)]
    pub fn history_bonus(&self, depth: i32) -> i32 {
        (depth * depth * self.history_bonus_quad + depth * self.history_bonus_linear)
            .min(self.history_bonus_max)
    }

    /// MVV-LVA score of capturing `victim` (value) with `attacker` (value).
    #[inline(always)]
    pub fn mvv_lva(&self, victim: i32, attacker: i32) -> i32 {
        victim * self.mvv_victim_weight
            - attacker.min(self.mvv_attacker_cap) / self.mvv_attacker_divisor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_cover_every_field_with_defaults_in_range() {
        let p = SearchParams::default();
        let mut names = std::collections::HashSet::new();
        for spec in SearchParams::SPECS {
            assert!(names.insert(spec.name), "{} twice", spec.name);
            assert_eq!(p.get(spec.name), Some(spec.default), "{}", spec.name);
            assert!(
                spec.min <= spec.default && spec.default <= spec.max,
                "{spec:?}"
            );
        }
        // The struct has exactly the listed fields (each is an i32).
        assert_eq!(
            std::mem::size_of::<SearchParams>(),
            4 * SearchParams::SPECS.len()
        );
        assert_eq!(p.lmr_divisor(), 2.5);
        assert_eq!(p.history_bonus(1), 48);
        assert_eq!(p.history_bonus(20), 2400);
        assert_eq!(p.mvv_lva(600, 100), 600 * 16 - 100 / 16);
    }

    #[test]
    fn set_checks_name_and_range() {
        let mut p = SearchParams::default();
        p.set("rfp_margin", 100).unwrap();
        assert_eq!(p.rfp_margin, 100);
        assert_eq!(p.get("rfp_margin"), Some(100));
        assert!(matches!(
            p.set("rfp_margin", -1),
            Err(ParamError::OutOfRange { value: -1, .. })
        ));
        assert!(matches!(p.set("nope", 1), Err(ParamError::Unknown(_))));
        assert_eq!(p.rfp_margin, 100);
        assert_ne!(p, SearchParams::DEFAULT);
    }
}
