//! The USI options: how `usi` lists them and how a `setoption` value is checked and turned into
//! a [`Setting`] for the session to apply.

use std::fmt;
use std::time::Duration;

use crate::book::{DEFAULT_MAX_PLY, MoveChoice};
use crate::search::skill::{self, MAX_LEVEL};
use crate::search::{SearchFeatures, SearchOptions, SearchParams, Skill};

use super::command::quoted;

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
                spec(Name::Hash, "USI_Hash", spin(defaults.hash_mb, 1, 65536)),
                spec(Name::Threads, "Threads", spin(defaults.threads, 1, 256)),
                spec(Name::MultiPv, "MultiPV", spin(defaults.multipv, 1, 128)),
                spec(Name::EvalFile, "EvalFile", Kind::Text { default: "" }),
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
    let spec = SearchParams::SPECS
        .iter()
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
mod tests {
    use super::*;

    fn options() -> UsiOptions {
        UsiOptions::new(&SearchOptions::default())
    }

    #[test]
    fn lists_every_option_with_its_type() {
        let lines = options().usi_lines();
        for name in [
            "USI_Hash",
            "Threads",
            "MultiPV",
            "EvalFile",
            "USI_Ponder",
            "USI_Variant",
            "UCI_Variant",
            "MaxPly",
            "MoveOverhead",
            "USI_OwnBook",
            "BookFile",
            "BookMaxPly",
            "BookMoveChoice",
            "Skill_Level",
            "USI_LimitStrength",
            "USI_Elo",
        ] {
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with(&format!("option name {name} type "))),
                "{name} missing from {lines:?}"
            );
        }
        assert!(lines.contains(&"option name EvalFile type string default <empty>".to_string()));
        assert!(lines.contains(&"option name ParamsFile type string default <empty>".to_string()));
        assert!(lines.contains(
            &"option name USI_Variant type combo default minishogi var minishogi var 5x5+5_shogi"
                .to_string()
        ));
        for line in [
            "option name USI_OwnBook type check default true",
            "option name BookFile type string default <empty>",
            "option name BookMaxPly type spin default 16 min 0 max 1000",
            "option name BookMoveChoice type combo default weighted var weighted var best",
        ] {
            assert!(
                lines.contains(&line.to_string()),
                "{line} missing from {lines:?}"
            );
        }
    }

    #[test]
    fn variant_options_take_every_name_of_minishogi() {
        let o = options();
        for (name, value) in [
            ("USI_Variant", "minishogi"),
            ("UCI_Variant", "minishogi"),
            // What uci2wb sends for XBoard's 5×5 shogi.
            ("UCI_Variant", "5x5+5_shogi"),
            ("USI_Variant", "5x5+5_Shogi"),
        ] {
            assert_eq!(o.parse(name, Some(value)), Ok(Setting::Variant), "{value}");
        }
        for refused in ["shogi", "5x5+5", "5x5+5_shogi minishogi", ""] {
            assert!(o.parse("UCI_Variant", Some(refused)).is_err(), "{refused}");
        }
    }

    #[test]
    fn uci_lines_use_uci_names() {
        let usi = options().usi_lines();
        let uci = options().uci_lines();
        for line in [
            "option name Hash type spin default 64 min 1 max 65536",
            "option name Ponder type check default false",
            "option name OwnBook type check default true",
            "option name UCI_LimitStrength type check default false",
            "option name UCI_Variant type combo default minishogi var minishogi",
            "option name Threads type spin default 1 min 1 max 256",
            "option name EvalFile type string default <empty>",
        ] {
            assert!(
                uci.contains(&line.to_string()),
                "{line} missing from {uci:?}"
            );
        }
        assert!(
            uci.iter()
                .any(|l| l.starts_with("option name UCI_Elo type spin "))
        );
        // No USI name is left, and nothing else is lost.
        assert!(uci.iter().all(|l| !l.contains(" USI_")), "{uci:?}");
        assert_eq!(uci.len(), usi.len() - 1, "all but USI_Variant");
        assert_eq!(usi_name_of("hash"), Some("USI_Hash"));
        assert_eq!(usi_name_of("UCI_Elo"), Some("USI_Elo"));
        assert_eq!(usi_name_of("Threads"), None);
    }

    #[test]
    fn parses_good_values() {
        let o = options();
        assert_eq!(o.parse("usi_hash", Some("64")), Ok(Setting::HashMb(64)));
        assert_eq!(o.parse("Threads", Some("2")), Ok(Setting::Threads(2)));
        assert_eq!(o.parse("MultiPV", Some("3")), Ok(Setting::MultiPv(3)));
        assert_eq!(o.parse("MaxPly", Some("0")), Ok(Setting::MaxPly(None)));
        assert_eq!(
            o.parse("MaxPly", Some("150")),
            Ok(Setting::MaxPly(Some(150)))
        );
        assert_eq!(
            o.parse("MoveOverhead", Some("50")),
            Ok(Setting::MoveOverhead(Duration::from_millis(50)))
        );
        assert_eq!(
            o.parse("USI_Ponder", Some("true")),
            Ok(Setting::Ponder(true))
        );
        // As uci2wb sends it for XBoard's hard and easy.
        assert_eq!(o.parse("USI_Ponder", Some("1")), Ok(Setting::Ponder(true)));
        assert_eq!(o.parse("USI_Ponder", Some("0")), Ok(Setting::Ponder(false)));
        assert!(o.parse("USI_Ponder", Some("2")).is_err());
        assert_eq!(
            o.parse("UCI_Variant", Some("minishogi")),
            Ok(Setting::Variant)
        );
        assert_eq!(
            o.parse("EvalFile", Some("<empty>")),
            Ok(Setting::EvalFile(String::new()))
        );
        assert_eq!(
            o.parse("EvalFile", Some("a b.bin")),
            Ok(Setting::EvalFile("a b.bin".into()))
        );
        assert_eq!(
            o.parse("paramsfile", Some("tuned.params")),
            Ok(Setting::ParamsFile("tuned.params".into()))
        );
        assert_eq!(
            o.parse("ParamsFile", Some("<empty>")),
            Ok(Setting::ParamsFile(String::new()))
        );
        assert_eq!(
            o.parse("USI_OwnBook", Some("false")),
            Ok(Setting::OwnBook(false))
        );
        assert_eq!(
            o.parse("BookFile", Some("books/default.db")),
            Ok(Setting::BookFile("books/default.db".into()))
        );
        assert_eq!(
            o.parse("BookFile", Some("<empty>")),
            Ok(Setting::BookFile(String::new()))
        );
        assert_eq!(o.parse("BookMaxPly", Some("0")), Ok(Setting::BookMaxPly(0)));
        assert_eq!(
            o.parse("bookmovechoice", Some("Best")),
            Ok(Setting::BookMoveChoice(MoveChoice::Best))
        );
    }

    #[test]
    fn strength_options_are_listed_with_the_calibrated_range() {
        let lines = options().usi_lines();
        let (low, high) = skill::elo_range();
        for line in [
            "option name Skill_Level type spin default 20 min 0 max 20".to_string(),
            "option name USI_LimitStrength type check default false".to_string(),
            format!("option name USI_Elo type spin default {low} min {low} max {high}"),
        ] {
            assert!(lines.contains(&line), "{line} missing from {lines:?}");
        }
        assert!(lines.iter().all(|l| !l.contains("Skill_Seed")), "hidden");
    }

    #[test]
    fn parses_strength_options() {
        let o = options();
        let (low, high) = skill::elo_range();
        assert_eq!(
            o.parse("skill_level", Some("0")),
            Ok(Setting::SkillLevel(0))
        );
        assert_eq!(
            o.parse("Skill_Level", Some("20")),
            Ok(Setting::SkillLevel(20))
        );
        assert_eq!(
            o.parse("USI_LimitStrength", Some("true")),
            Ok(Setting::LimitStrength(true))
        );
        assert_eq!(
            o.parse("USI_Elo", Some(&high.to_string())),
            Ok(Setting::Elo(high))
        );
        assert_eq!(
            o.parse("Skill_Seed", Some("0")),
            Ok(Setting::SkillSeed(None))
        );
        assert_eq!(
            o.parse("skill_seed", Some("42")),
            Ok(Setting::SkillSeed(Some(42)))
        );
        let err = |name, value: &str| o.parse(name, Some(value)).unwrap_err().0;
        assert_eq!(
            err("Skill_Level", "21"),
            "option Skill_Level must be between 0 and 20, got 21"
        );
        assert_eq!(
            err("USI_Elo", &(low - 1).to_string()),
            format!(
                "option USI_Elo must be between {low} and {high}, got {}",
                low - 1
            )
        );
        assert_eq!(
            err("USI_LimitStrength", "1"),
            "option USI_LimitStrength needs 'true' or 'false', got '1'"
        );
        assert!(o.parse("Skill_Seed", Some("-1")).is_err());
    }

    #[test]
    fn limit_strength_lets_the_elo_choose_the_level() {
        let (low, high) = skill::elo_range();
        let strength = Strength::new(9);
        assert!(strength.skill().is_full(), "full strength by default");
        let level_5 = Strength {
            level: 5,
            ..strength
        };
        assert_eq!(level_5.skill(), Skill::level(5, 9));
        // With USI_LimitStrength, USI_Elo decides whatever Skill_Level says.
        let limited = Strength {
            limit_strength: true,
            ..level_5
        };
        assert_eq!(limited.skill(), Skill::from_elo(low, 9));
        assert_eq!(limited.skill(), Skill::level(0, 9));
        let top = Strength {
            elo: high,
            ..limited
        };
        assert!(top.skill().is_full());
        let middle = Strength {
            elo: (low + high) / 2,
            ..limited
        };
        let level = middle.skill().level_value();
        assert!(0.0 < level && level < 20.0, "{level}");
    }

    #[test]
    fn search_parameters_are_hidden_options() {
        let o = options();
        let spec = SearchParams::SPECS[0];
        let lines = o.usi_lines();
        assert!(
            lines.iter().all(|l| !l.contains(spec.name)),
            "hidden: {lines:?}"
        );
        assert_eq!(
            o.parse(&spec.name.to_uppercase(), Some(&spec.max.to_string())),
            Ok(Setting::SearchParam(spec.name, spec.max))
        );
        assert_eq!(
            o.parse("Check_Extension", Some("false")),
            Ok(Setting::SearchFeature("check_extension", false))
        );
        assert!(o.parse("lmr", Some("maybe")).is_err());
        let too_big = (spec.max as i64 + 1).to_string();
        assert_eq!(
            o.parse(spec.name, Some(&too_big)).unwrap_err().0,
            format!(
                "option {} must be between {} and {}, got {too_big}",
                spec.name, spec.min, spec.max
            )
        );
    }

    #[test]
    fn rejects_bad_values_naming_them() {
        let o = options();
        let err = |name, value| o.parse(name, value).unwrap_err().0;
        assert_eq!(err("Hashh", Some("1")), "unknown option 'Hashh'");
        assert_eq!(err("USI_Hash", None), "option USI_Hash needs a value");
        assert_eq!(
            err("USI_Hash", Some("big")),
            "option USI_Hash needs an integer, got 'big'"
        );
        assert_eq!(
            err("Threads", Some("0")),
            "option Threads must be between 1 and 256, got 0"
        );
        assert_eq!(
            err("USI_Ponder", Some("yes")),
            "option USI_Ponder needs 'true' or 'false', got 'yes'"
        );
        assert_eq!(
            err("USI_Variant", Some("chess")),
            "option USI_Variant: this engine plays only minishogi (also called 5x5+5_shogi), \
             not 'chess'"
        );
        assert_eq!(
            err("BookMoveChoice", Some("random")),
            "option BookMoveChoice is one of weighted, best, not 'random'"
        );
        assert_eq!(
            err("USI_OwnBook", Some("1")),
            "option USI_OwnBook needs 'true' or 'false', got '1'"
        );
        assert_eq!(
            err("BookMaxPly", Some("-1")),
            "option BookMaxPly must be between 0 and 1000, got -1"
        );
    }
}
