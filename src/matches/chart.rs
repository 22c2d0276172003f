//! The picture of a match (`elo.svg` of `engine match --out`, and `engine plot match`): engine
//! 1's Elo estimate with its 95% interval after each game pair, against the games played.
//! Pairs without an interval (too few, or a score of 0% or 100%) are left out rather than
//! drawn as infinite.

use serde::Deserialize;

use super::parse_games_line;
use super::stats::{RunningElo, running_elo};
use crate::plot::{Colour, Figure, Legend, Numbers, Panel, Point, Series};

/// Above this many pairs the estimate is a line without a marker at each pair.
const MARKED_PAIRS: usize = 60;

/// The figure of a match between `names` (engine 1 first) from its finished games as (game
/// number, engine 1's points).
pub fn figure(names: [&str; 2], games: &[(usize, f64)]) -> Figure {
    let all = running_elo(games);
    // Why there may be nothing to draw: a clean sweep so far, or too few pairs.
    let empty_note = match all.last() {
        Some(r) if !r.estimate.elo.is_finite() => format!(
            "no estimate: {} has scored {:.0}% so far",
            names[0],
            100.0 * r.estimate.score
        ),
        _ => "no estimate yet: too few game pairs".to_string(),
    };
    let run: Vec<RunningElo> = all
        .into_iter()
        .filter(|r| r.estimate.has_interval())
        .collect();
    let last = run.len().saturating_sub(1);
    let points = run
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let point =
                Point::new(2.0 * r.pairs as f64, r.estimate.elo).with_error(r.estimate.error95);
            if i == last {
                point.with_label(r.estimate.brief())
            } else {
                point
            }
        })
        .collect::<Vec<_>>();
    let mut panel = Panel::new("games played", format!("Elo of {} (± 95%)", names[0]));
    panel.x_numbers = Numbers::Whole;
    panel.reference_y = Some(0.0);
    panel.empty_note = empty_note;
    // The legend on the side of the zero line away from where the estimate ends.
    if run.last().is_some_and(|r| r.estimate.elo > 0.0) {
        panel.legend = Legend::LowerRight;
    }
    let mut series = Series::new("Elo after each pair", Colour::BLUE, points).band();
    series.markers = run.len() <= MARKED_PAIRS;
    panel.series.push(series);
    Figure::new(format!("{} vs {}", names[0], names[1]), vec![panel])
}

/// A match's finished games as the chart reads them back from its records.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchGames {
    /// Engine 1, engine 2.
    pub names: [String; 2],
    /// (game number, engine 1's points).
    pub games: Vec<(usize, f64)>,
}

impl MatchGames {
    /// From the summary.json of `engine match --out` (`source` names it in errors).
    pub fn from_summary_json(text: &str, source: &str) -> Result<MatchGames, String> {
        #[derive(Deserialize)]
        struct Game {
            number: usize,
            engine1_score: f64,
        }
        #[derive(Deserialize)]
        struct Summary {
            names: [String; 2],
            game_list: Vec<Game>,
        }
        let summary: Summary = serde_json::from_str(text)
            .map_err(|e| format!("{source}: not a match summary: {e}"))?;
        Ok(MatchGames {
            names: summary.names,
            games: summary
                .game_list
                .iter()
                .map(|g| (g.number, g.engine1_score))
                .collect(),
        })
    }

    /// From the games.txt of `engine match --out`, which grows while the match is played.
    pub fn from_games_txt(text: &str, source: &str) -> Result<MatchGames, String> {
        let mut names = None;
        let mut games = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let (number, [sente, gote], points) = parse_games_line(line).ok_or_else(|| {
                format!(
                    "{source}:{}: not a game line (N sente vs gote: result …; position …)",
                    i + 1
                )
            })?;
            // Engine 1 is sente in odd games.
            names.get_or_insert(if number % 2 == 1 {
                [sente, gote]
            } else {
                [gote, sente]
            });
            games.push((number, points));
        }
        Ok(MatchGames {
            names: names.unwrap_or_else(|| ["engine 1".to_string(), "engine 2".to_string()]),
            games,
        })
    }

    pub fn figure(&self) -> Figure {
        figure([&self.names[0], &self.names[1]], &self.games)
    }
}

/// [`figure`] as SVG.
pub fn svg(names: [&str; 2], games: &[(usize, f64)]) -> Result<String, String> {
    figure(names, games).svg()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::svg_texts;

    #[test]
    fn points_only_where_the_interval_is_defined() {
        // Pair 1 won twice (no interval), pair 2 split (the interval still reaches 100%),
        // pair 3 drawn, pair 4 lost once.
        let games = [
            (1, 1.0),
            (2, 1.0),
            (3, 1.0),
            (4, 0.0),
            (5, 0.5),
            (6, 0.5),
            (7, 0.0),
            (8, 0.5),
        ];
        let f = figure(["a", "b"], &games);
        let points = &f.panels[0].series[0].points;
        assert_eq!(points.iter().map(|p| p.x).collect::<Vec<_>>(), [6.0, 8.0]);
        assert!(points.iter().all(|p| p.error.unwrap().is_finite()));
        let svg = f.svg().unwrap();
        let texts = svg_texts(&svg);
        assert!(texts.contains(&"a vs b"), "{texts:?}");
        assert!(texts.contains(&"Elo of a (± 95%)"), "{texts:?}");
        let label = points.last().unwrap().label.clone().unwrap();
        assert!(label.contains(" ± "), "{label}");
        assert!(!svg.contains("inf") && !svg.contains("NaN"));
    }

    #[test]
    fn games_txt_and_summary_give_the_same_games() {
        let txt = "1 a b vs c: 1-0 checkmate; position startpos moves 2e2d\n\
                   2 c vs a b: 1/2-1/2 ply limit; position startpos\n\
                   3 a b vs c: 0-1 illegal move: 1-0 was sent; position startpos\n";
        let from_txt = MatchGames::from_games_txt(txt, "games.txt").unwrap();
        assert_eq!(from_txt.names, ["a b".to_string(), "c".to_string()]);
        assert_eq!(from_txt.games, [(1, 1.0), (2, 0.5), (3, 0.0)]);
        let json = r#"{"names": ["a b", "c"], "games": 3, "game_list": [
            {"number": 1, "engine1_score": 1.0}, {"number": 2, "engine1_score": 0.5},
            {"number": 3, "engine1_score": 0.0}]}"#;
        assert_eq!(
            MatchGames::from_summary_json(json, "summary.json").unwrap(),
            from_txt
        );
        let err = MatchGames::from_games_txt("1 a vs b: 1-0 x; p\nbad\n", "g.txt").unwrap_err();
        assert!(err.starts_with("g.txt:2: not a game line"), "{err}");
        let err = MatchGames::from_summary_json("{", "s.json").unwrap_err();
        assert!(err.starts_with("s.json: not a match summary"), "{err}");
        assert!(
            MatchGames::from_games_txt("", "g.txt")
                .unwrap()
                .games
                .is_empty()
        );
    }

    #[test]
    fn an_empty_chart_says_why() {
        for games in [&[][..], &[(1, 0.5), (2, 1.0)][..], &[(1, 0.5)][..]] {
            let svg = svg(["a", "b"], games).unwrap();
            let texts = svg_texts(&svg);
            assert!(
                texts.contains(&"no estimate yet: too few game pairs"),
                "{texts:?}"
            );
        }
        let swept = svg(["a", "b"], &[(1, 1.0), (2, 1.0), (3, 1.0), (4, 1.0)]).unwrap();
        let texts = svg_texts(&swept);
        assert!(
            texts.contains(&"no estimate: a has scored 100% so far"),
            "{texts:?}"
        );
    }
}
