//! The summary's figures and text, games.txt lines, names told apart.

use super::*;
use stats::Pentanomial;
use std::collections::BTreeMap;

fn summary(pentanomial: [u64; 5]) -> MatchSummary {
    let spec = |name: &str| EngineSpec {
        name: name.to_string(),
        command: format!("{name} usi"),
        options: vec![],
        go_limits: vec![],
        movetime_go: false,
        swap_clocks: false,
        time_control: None,
    };
    let pentanomial = Pentanomial(pentanomial);
    let games = 2 * pentanomial.pairs() as usize;
    let points: f64 = (0..5)
        .map(|i| pentanomial.0[i] as f64 * i as f64 / 2.0)
        .sum();
    MatchSummary {
        engines: [spec("a"), spec("b")],
        names: ["Engine A 1.0".to_string(), "b".to_string()],
        time_control: "1 s a move".to_string(),
        games,
        wins: points as u64,
        losses: (games as f64 - points) as u64,
        draws: 0,
        points,
        pentanomial,
        elo: pentanomial.elo(),
        sprt: None,
        terminations: BTreeMap::new(),
        colours: ColourResults::default(),
        move_times: [MoveTimes::default(); 2],
        clock_left: [ClocksLeft::default(); 2],
        game_list: Vec::new(),
    }
}

#[test]
fn the_report_shows_no_infinity_nan_or_negative_zero() {
    // No game, one even pair, all won, all lost, pairs all even, a spread reaching 0%.
    let cases = [
        ([0, 0, 0, 0, 0], "n/a (no complete pair)"),
        ([0, 0, 1, 0, 0], "+0.0 (95% interval n/a: too few pairs)"),
        ([0, 0, 0, 0, 3], "n/a (score 100%)"),
        ([3, 0, 0, 0, 0], "n/a (score 0%)"),
        ([0, 0, 5, 0, 0], "+0.0 (95% interval n/a: too few pairs)"),
        ([1, 0, 0, 0, 1], "+0.0 (95% interval n/a: too few pairs)"),
    ];
    for (counts, elo) in cases {
        let s = summary(counts);
        let report = s.report();
        for bad in ["inf", "NaN", "-0.0"] {
            assert!(!report.contains(bad), "{bad}: {report}");
            assert!(!s.standing().contains(bad), "{bad}: {}", s.standing());
        }
        assert!(
            report.contains(&format!("Elo difference: {elo}\n")),
            "{counts:?}: {report}"
        );
        // Engines go by the names the match found (their USI id name unless given one).
        assert!(
            report.starts_with("Engine 1: Engine A 1.0 (a usi)\n"),
            "{report}"
        );
    }
}

#[test]
fn games_lines_read_back() {
    let game = GameSummary {
        number: 4,
        opening: 2,
        sente: "Engine A 1.0".to_string(),
        gote: "z".to_string(),
        result: "1-0".to_string(),
        engine1_score: 0.0,
        termination: "checkmate".to_string(),
        plies: 9,
        usi: "position startpos moves 2e2d".to_string(),
    };
    let (number, names, points) = parse_games_line(game.games_line().trim_end()).unwrap();
    // Game 4: engine 1 is gote, and sente won.
    assert_eq!((number, points), (4, 0.0));
    assert_eq!(names, ["Engine A 1.0".to_string(), "z".to_string()]);
    assert_eq!(parse_games_line("x a vs b: 1-0 c; d"), None);
    assert_eq!(parse_games_line("1 a vs b: 2-0 c; d"), None);
    let line = game.games_line();
    let read = read_games_line(&line).unwrap();
    assert_eq!(read.position, "position startpos moves 2e2d");
    assert_eq!((read.result, read.sente_points()), ("1-0", 1.0));
    // A line without its position part is not a games.txt line.
    assert_eq!(read_games_line("1 a vs b: 1-0 checkmate"), None);
}
