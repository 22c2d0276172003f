//! The USI options: how `usi` lists them and how a `setoption` value is checked and turned into
//! a [`Setting`] for the session to apply.

use std::fmt;
use std::time::Duration;

use crate::book::{DEFAULT_MAX_PLY, MoveChoice};
use crate::players::{self, PlayerParams};
use crate::search::skill::{self, MAX_LEVEL};
use crate::search::{SearchFeatures, SearchOptions, Skill};

use super::command::quoted;
use super::evaluator;

/// The only variant this engine plays.
pub const VARIANT: &str = "minishogi";

/// The names `USI_Variant` and `UCI_Variant` accept for it: `minishogi` (Lishogi, Fairy-Stockfish,
/// cutechess) and XBoard's `5x5+5_shogi` (a 5×5 board with 5 kinds in hand), which uci2wb sends.
pub const VARIANT_NAMES: [&str; 2] = [VARIANT, "5x5+5_shogi"];

/// The options whose UCI name differs from the USI one: `(USI, UCI)`. UCI's own names (the UCI
/// specification's `Hash`, `Ponder`, `OwnBook`, `UCI_LimitStrength`, `UCI_Elo`); every other
/// option has one name in both dialects.
pub const UCI_NAMES: [(&str, &str); 5] = [
    ("USI_Hash", "Hash"),
    ("USI_Ponder", "Ponder"),
    ("USI_OwnBook", "OwnBook"),
    ("USI_LimitStrength", "UCI_LimitStrength"),
    ("USI_Elo", "UCI_Elo"),
];

/// The USI name of the option a UCI GUI calls `uci_name` (case-insensitively), if it differs.
pub fn usi_name_of(uci_name: &str) -> Option<&'static str> {
    UCI_NAMES
        .iter()
        .find(|(_, uci)| uci.eq_ignore_ascii_case(uci_name))
        .map(|(usi, _)| *usi)
}

/// A checked option value, ready to apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setting {
    HashMb(usize),
    Threads(usize),
    MultiPv(usize),
    /// Path of the network weights; empty means the built-in evaluation.
    EvalFile(String),
    /// `Evaluator`: which evaluator the search uses (`evaluator::KINDS`).
    Evaluator(&'static str),
    /// Path of the classical evaluator's parameters file; empty means the shipped ones.
    ClassicalFile(String),
    /// Path of MCTS's move policy file (`mcts::policy`); empty means the shipped one.
    PolicyFile(String),
    /// Path of a search parameters file (`search::params_file`); empty means the defaults.
    ParamsFile(String),
    Ponder(bool),
    /// `USI_Variant` or `UCI_Variant` set to minishogi: nothing to change.
    Variant,
    /// Draw after this many plies; `None` = no limit.
    MaxPly(Option<u32>),
    MoveOverhead(Duration),
    /// `Skill_Level` 0–20 (20: full strength).
    SkillLevel(u32),
    /// `USI_LimitStrength`: play at `USI_Elo` rather than at `Skill_Level`.
    LimitStrength(bool),
    /// `USI_Elo`, within the calibrated range.
    Elo(i32),
    /// `Skill_Seed` (hidden): the seed of a weakened level's random choices; `None` (0) = the
    /// one drawn when the engine started.
    SkillSeed(Option<u64>),
    /// A search parameter (`search::SearchParams`), by its name: hidden options for tuners,
    /// not listed by `usi`.
    SearchParam(&'static str, i32),
    /// A selective technique switched on or off (`search::SearchFeatures`): hidden options for
    /// A/B matches.
    SearchFeature(&'static str, bool),
    /// `USI_OwnBook`: whether `go` plays from the book.
    OwnBook(bool),
    /// Path of the opening book; empty means none.
    BookFile(String),
    /// The book is used while the game's ply is below this.
    BookMaxPly(u32),
    BookMoveChoice(MoveChoice),
    /// `Search`: which player searches (`players::new_player`'s names), checked against them.
    Search(&'static str),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError(pub String);

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OptionError {}

#[derive(Clone, Copy)]
enum Kind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    Text {
        default: &'static str,
    },
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
}

#[derive(Clone, Copy)]
enum Name {
    Hash,
    Threads,
    MultiPv,
    EvalFile,
    Evaluator,
    ClassicalFile,
    PolicyFile,
    ParamsFile,
    Ponder,
    UsiVariant,
    UciVariant,
    MaxPly,
    MoveOverhead,
    OwnBook,
    BookFile,
    BookMaxPly,
    BookMoveChoice,
    SkillLevel,
    LimitStrength,
    UsiElo,
    SkillSeed,
    Search,
}

#[derive(Clone, Copy)]
struct Spec {
    option: Name,
    usi_name: &'static str,
    kind: Kind,
    /// Not listed by `usi` (for tests and matches), but set like the others.
    hidden: bool,
}

impl Spec {
    /// `option name <name> type …`, the same in USI and UCI.
    fn line(&self, name: &str) -> String {
        let kind = match self.kind {
            Kind::Spin { default, min, max } => {
                format!("spin default {default} min {min} max {max}")
            }
            Kind::Check { default } => format!("check default {default}"),
            Kind::Text { default } => format!("string default {}", or_empty(default)),
            Kind::Combo { default, vars } => {
                let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
                format!("combo default {default}{vars}")
            }
        };
        format!("option name {name} type {kind}")
    }
}

/// The strength options together, as the session holds them: which [`Skill`] they ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strength {
    pub level: u32,
    pub limit_strength: bool,
    pub elo: i32,
    /// The seed of the weakened levels' choices.
    pub seed: u64,
}

impl Strength {
    /// The options' defaults (full strength), choosing with `seed`.
    pub fn new(seed: u64) -> Strength {
        Strength {
            level: MAX_LEVEL,
            limit_strength: false,
            elo: skill::elo_range().0,
            seed,
        }
    }

    /// `USI_LimitStrength` makes `USI_Elo` choose the level (as in Stockfish), else
    /// `Skill_Level` does.
    pub fn skill(&self) -> Skill {
        if self.limit_strength {
            Skill::from_elo(self.elo, self.seed)
        } else {
            Skill::level(self.level, self.seed)
        }
    }
}

/// The option table, its defaults taken from the search's own defaults so the two agree.
pub struct UsiOptions {
    specs: Vec<Spec>,
}

impl UsiOptions {
    pub fn new(defaults: &SearchOptions) -> UsiOptions {
        let spin = |default: usize, min: i64, max: i64| Kind::Spin {
            default: default as i64,
            min,
            max,
        };
        let variant = Kind::Combo {
            default: VARIANT,
            vars: &VARIANT_NAMES,
        };
        const CHOICES: [&str; MoveChoice::ALL.len()] = {
            let mut names = [""; MoveChoice::ALL.len()];
            let mut i = 0;
            while i < names.len() {
                names[i] = MoveChoice::ALL[i].name();
                i += 1;
            }
            names
        };
        let spec = |option, usi_name, kind| Spec {
            option,
            usi_name,
            kind,
            hidden: false,
        };
        let (lowest_elo, highest_elo) = skill::elo_range();
        UsiOptions {
            specs: vec![
                spec(
                    Name::Hash,
                    "USI_Hash",
                    spin(defaults.hash_mb, 1, crate::platform::MAX_HASH_MB as i64),
                ),
                spec(
                    Name::Threads,
                    "Threads",
                    spin(defaults.threads, 1, crate::platform::MAX_THREADS as i64),
                ),
                spec(Name::MultiPv, "MultiPV", spin(defaults.multipv, 1, 128)),
                spec(Name::EvalFile, "EvalFile", Kind::Text { default: "" }),
                spec(
                    Name::Evaluator,
                    "Evaluator",
                    Kind::Combo {
                        default: evaluator::KINDS[0],
                        vars: evaluator::KINDS,
                    },
                ),
                spec(
                    Name::ClassicalFile,
                    "ClassicalFile",
                    Kind::Text { default: "" },
                ),
                spec(Name::PolicyFile, "PolicyFile", Kind::Text { default: "" }),
                spec(Name::ParamsFile, "ParamsFile", Kind::Text { default: "" }),
                spec(Name::Ponder, "USI_Ponder", Kind::Check { default: false }),
                spec(Name::UsiVariant, "USI_Variant", variant),
                spec(Name::UciVariant, "UCI_Variant", variant),
                spec(
                    Name::MaxPly,
                    "MaxPly",
                    // 0: no draw limit, as a new `Game` has.
                    spin(0, 0, 1_000_000),
                ),
                spec(
                    Name::MoveOverhead,
                    "MoveOverhead",
                    spin(defaults.move_overhead.as_millis() as usize, 0, 10_000),
                ),
                // On by default: the book is used once a BookFile is set.
                spec(Name::OwnBook, "USI_OwnBook", Kind::Check { default: true }),
                spec(Name::BookFile, "BookFile", Kind::Text { default: "" }),
                spec(
                    Name::BookMaxPly,
                    "BookMaxPly",
                    spin(DEFAULT_MAX_PLY as usize, 0, 1_000),
                ),
                spec(
                    Name::BookMoveChoice,
                    "BookMoveChoice",
                    Kind::Combo {
                        default: MoveChoice::DEFAULT.name(),
                        vars: &CHOICES,
                    },
                ),
                spec(
                    Name::SkillLevel,
                    "Skill_Level",
                    spin(MAX_LEVEL as usize, 0, MAX_LEVEL as i64),
                ),
                spec(
                    Name::LimitStrength,
                    "USI_LimitStrength",
                    Kind::Check { default: false },
                ),
                spec(
                    Name::UsiElo,
                    "USI_Elo",
                    // The weakest by default, as in Stockfish: switching USI_LimitStrength on
                    // alone gives the easiest opponent.
                    spin(lowest_elo as usize, lowest_elo as i64, highest_elo as i64),
                ),
                spec(
                    Name::Search,
                    "Search",
                    Kind::Combo {
                        default: players::NAMES[0],
                        vars: players::NAMES,
                    },
                ),
                Spec {
                    hidden: true,
                    // 0: the seed drawn when the engine started.
                    ..spec(Name::SkillSeed, "Skill_Seed", spin(0, 0, u32::MAX as i64))
                },
            ],
        }
    }

    /// The `option name …` lines of the `usi` answer.
    pub fn usi_lines(&self) -> Vec<String> {
        self.specs
            .iter()
            .filter(|spec| !spec.hidden)
            .map(|spec| spec.line(spec.usi_name))
            .collect()
    }

    /// The `option name …` lines of the `uci` answer: UCI's names (`Hash`, `Ponder`, …), and
    /// `UCI_Variant` offering only `minishogi`, the name UCI tools know.
    pub fn uci_lines(&self) -> Vec<String> {
        self.specs
            .iter()
            .filter(|spec| !spec.hidden && !matches!(spec.option, Name::UsiVariant))
            .map(|spec| {
                let name = UCI_NAMES
                    .iter()
                    .find(|(usi, _)| *usi == spec.usi_name)
                    .map_or(spec.usi_name, |(_, uci)| uci);
                match spec.option {
                    Name::UciVariant => Spec {
                        kind: Kind::Combo {
                            default: VARIANT,
                            vars: &[VARIANT],
                        },
                        ..*spec
                    }
                    .line(name),
                    _ => spec.line(name),
                }
            })
            .collect()
    }

    /// Checks `setoption name <name> value <value>`. Names match case-insensitively.
    pub fn parse(&self, name: &str, value: Option<&str>) -> Result<Setting, OptionError> {
        let Some(spec) = self
            .specs
            .iter()
            .find(|s| s.usi_name.eq_ignore_ascii_case(name))
        else {
            return search_param(name, value);
        };
        let name = spec.usi_name;
        let missing = || OptionError(format!("option {name} needs a value"));
        let int = |v: i64| v as usize;
        Ok(match (spec.option, spec.kind) {
            (option, Kind::Spin { min, max, .. }) => {
                let text = value.ok_or_else(missing)?;
                let n: i64 = text.parse().map_err(|_| {
                    OptionError(format!(
                        "option {name} needs an integer, got {}",
                        quoted(text)
                    ))
                })?;
                if !(min..=max).contains(&n) {
                    return Err(OptionError(format!(
                        "option {name} must be between {min} and {max}, got {n}"
                    )));
                }
                match option {
                    Name::Hash => Setting::HashMb(int(n)),
                    Name::Threads => Setting::Threads(int(n)),
                    Name::MultiPv => Setting::MultiPv(int(n)),
                    Name::MaxPly => Setting::MaxPly((n > 0).then_some(n as u32)),
                    Name::BookMaxPly => Setting::BookMaxPly(n as u32),
                    Name::SkillLevel => Setting::SkillLevel(n as u32),
                    Name::UsiElo => Setting::Elo(n as i32),
                    Name::SkillSeed => Setting::SkillSeed((n > 0).then_some(n as u64)),
                    _ => Setting::MoveOverhead(Duration::from_millis(n as u64)),
                }
            }
            (option, Kind::Check { .. }) => {
                let on = match value.ok_or_else(missing)? {
                    "true" => true,
                    "false" => false,
                    // uci2wb sends XBoard's `hard`/`easy` as `USI_Ponder` 1/0.
                    "1" if matches!(option, Name::Ponder) => true,
                    "0" if matches!(option, Name::Ponder) => false,
                    other => {
                        return Err(OptionError(format!(
                            "option {name} needs 'true' or 'false', got {}",
                            quoted(other)
                        )));
                    }
                };
                match option {
                    Name::OwnBook => Setting::OwnBook(on),
                    Name::LimitStrength => Setting::LimitStrength(on),
                    _ => Setting::Ponder(on),
                }
            }
            (option, Kind::Text { .. }) => {
                let text = value.unwrap_or("");
                let path = if text == "<empty>" { "" } else { text }.to_string();
                match option {
                    Name::ParamsFile => Setting::ParamsFile(path),
                    Name::ClassicalFile => Setting::ClassicalFile(path),
                    Name::PolicyFile => Setting::PolicyFile(path),
                    Name::BookFile => Setting::BookFile(path),
                    _ => Setting::EvalFile(path),
                }
            }
            (Name::BookMoveChoice, Kind::Combo { vars, .. }) => {
                let text = value.ok_or_else(missing)?;
                let choice = MoveChoice::from_name(text).ok_or_else(|| {
                    OptionError(format!(
                        "option {name} is one of {}, not {}",
                        vars.join(", "),
                        quoted(text)
                    ))
                })?;
                Setting::BookMoveChoice(choice)
            }
            (option @ (Name::Search | Name::Evaluator), Kind::Combo { vars, .. }) => {
                let text = value.ok_or_else(missing)?;
                let name = vars
                    .iter()
                    .find(|v| v.eq_ignore_ascii_case(text))
                    .ok_or_else(|| {
                        OptionError(format!(
                            "option {name} is one of {}, not {}",
                            vars.join(", "),
                            quoted(text)
                        ))
                    })?;
                match option {
                    Name::Evaluator => Setting::Evaluator(name),
                    _ => Setting::Search(name),
                }
            }
            (_, Kind::Combo { vars, .. }) => {
                let text = value.ok_or_else(missing)?;
                if !vars.iter().any(|v| v.eq_ignore_ascii_case(text)) {
                    return Err(OptionError(format!(
                        "option {name}: this engine plays only {VARIANT} (also called {}), not {}",
                        VARIANT_NAMES[1..].join(", "),
                        quoted(text)
                    )));
                }
                Setting::Variant
            }
        })
    }
}

/// `setoption name <parameter> value <n>` for a hidden search parameter, or `… value
/// true|false` for a hidden search technique switch.
fn search_param(name: &str, value: Option<&str>) -> Result<Setting, OptionError> {
    if let Some(feature) = SearchFeatures::NAMES
        .iter()
        .find(|n| n.eq_ignore_ascii_case(name))
    {
        return match value {
            Some("true") => Ok(Setting::SearchFeature(feature, true)),
            Some("false") => Ok(Setting::SearchFeature(feature, false)),
            _ => Err(OptionError(format!(
                "option {feature} needs 'true' or 'false'"
            ))),
        };
    }
    let spec = PlayerParams::specs()
        .find(|s| s.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| OptionError(format!("unknown option {}", quoted(name))))?;
    let text = value.ok_or_else(|| OptionError(format!("option {} needs a value", spec.name)))?;
    let n: i32 = text.parse().map_err(|_| {
        OptionError(format!(
            "option {} needs an integer, got {}",
            spec.name,
            quoted(text)
        ))
    })?;
    if !(spec.min..=spec.max).contains(&n) {
        return Err(OptionError(format!(
            "option {} must be between {} and {}, got {n}",
            spec.name, spec.min, spec.max
        )));
    }
    Ok(Setting::SearchParam(spec.name, n))
}

/// USI writes an empty string default as `<empty>`.
fn or_empty(text: &str) -> &str {
    if text.is_empty() { "<empty>" } else { text }
}

#[cfg(test)]
mod tests;
