//! The option table's tests.

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
        &"option name Evaluator type combo default network var network var classical var material"
            .to_string()
    ));
    assert!(lines.contains(&"option name ClassicalFile type string default <empty>".to_string()));
    assert!(
        lines.contains(
            &"option name USI_Variant type combo default minishogi var minishogi var 5x5+5_shogi"
                .to_string()
        )
    );
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
fn evaluator_options_parse() {
    let o = options();
    assert_eq!(
        o.parse("evaluator", Some("Classical")),
        Ok(Setting::Evaluator("classical"))
    );
    assert_eq!(
        o.parse("Evaluator", Some("material")),
        Ok(Setting::Evaluator("material"))
    );
    assert_eq!(
        o.parse("Evaluator", Some("nnue")),
        Err(OptionError(
            "option Evaluator is one of network, classical, material, not 'nnue'".to_string()
        ))
    );
    assert!(o.parse("Evaluator", None).is_err());
    assert_eq!(
        o.parse("ClassicalFile", Some("a b.params")),
        Ok(Setting::ClassicalFile("a b.params".into()))
    );
    assert_eq!(
        o.parse("ClassicalFile", Some("<empty>")),
        Ok(Setting::ClassicalFile(String::new()))
    );
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
    let spec = crate::search::SearchParams::SPECS[0];
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

#[test]
fn search_lists_the_players_and_refuses_other_names() {
    let lines = options().usi_lines();
    assert!(
        lines.contains(
            &"option name Search type combo default alphabeta var alphabeta var mcts var uct"
                .to_string()
        ),
        "{lines:?}"
    );
    assert_eq!(
        options().parse("search", Some("AlphaBeta")),
        Ok(Setting::Search("alphabeta"))
    );
    assert_eq!(
        options().parse("Search", Some("MCTS")),
        Ok(Setting::Search("mcts"))
    );
    assert_eq!(
        options().parse("Search", Some("minimax")).unwrap_err().0,
        "option Search is one of alphabeta, mcts, uct, not 'minimax'"
    );
}
