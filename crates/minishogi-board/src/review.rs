//! The judgement of a reviewed game (issue 55's review): each move's loss in winning chances on
//! minishogi's fitted curve (`eval::win_probability_of_cp`), its mark, and each side's
//! accuracy. The searches that give the scores are the caller's; this is arithmetic on them.
//!
//! The marks are lishogi's thresholds — 0.1 / 0.2 / 0.3 on its [−1, 1] scale, i.e. a loss of
//! 5 / 10 / 15 points of win% — read on the fitted curve rather than on a curve fitted to
//! 9×9 shogi. A mate missed (the mover had one and no longer has) or allowed (the mover is now
//! mated and was not) is marked as such whatever the points. Accuracy is lichess's: a move's
//! `103.1668·e^(−0.04354·loss) − 3.1669` (loss in win% points, clamped to 0..100), a side's
//! the mean of a volatility-weighted mean and a harmonic mean of its moves' accuracies.

use serde::Serialize;

use crate::Score;
use minishogi_engine::eval::win_probability_of_cp;

/// A move's mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    Inaccuracy,
    Mistake,
    Blunder,
    /// The mover could mate and, after this move, no longer can.
    MissedMate,
    /// After this move the mover is mated, and before it was not.
    AllowedMate,
}

/// Win% points lost from which a move is an inaccuracy, a mistake, a blunder.
pub const THRESHOLDS: [f32; 3] = [5.0, 10.0, 15.0];

/// The mover's winning chances of a score from the mover's view, in % (a mate is 100 or 0).
pub fn win_percent(score: Score) -> f32 {
    match score {
        Score::Cp(cp) => 100.0 * win_probability_of_cp(cp as f32),
        Score::Mate(m) if m > 0 => 100.0,
        Score::Mate(_) => 0.0,
    }
}

/// One move judged: `before` is the best score of the position the move was played in and
/// `after` the score of the position it made, both from the mover's view.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Judged {
    /// Win% points lost (0 when the move kept or improved the chances).
    pub loss: f32,
    pub mark: Option<Mark>,
    /// lichess's move accuracy, 0..100.
    pub accuracy: f32,
}

///
/// A mate allowed in a position already lost (less than an inaccuracy's worth of chances
/// left to lose) is not marked: nothing better was there to keep.
pub fn judge(before: Score, after: Score) -> Judged {
    let loss = (win_percent(before) - win_percent(after)).max(0.0);
    let mark = match (before, after) {
        (Score::Mate(b), after) if b > 0 && !matches!(after, Score::Mate(a) if a > 0) => {
            Some(Mark::MissedMate)
        }
        (before, Score::Mate(a))
            if a <= 0 && !matches!(before, Score::Mate(b) if b <= 0) && loss >= THRESHOLDS[0] =>
        {
            Some(Mark::AllowedMate)
        }
        _ if loss >= THRESHOLDS[2] => Some(Mark::Blunder),
        _ if loss >= THRESHOLDS[1] => Some(Mark::Mistake),
        _ if loss >= THRESHOLDS[0] => Some(Mark::Inaccuracy),
        _ => None,
    };
    Judged {
        loss,
        mark,
        accuracy: move_accuracy(loss),
    }
}

/// lichess's accuracy of a move that lost `loss` win% points.
pub fn move_accuracy(loss: f32) -> f32 {
    (103.1668 * (-0.04354 * loss).exp() - 3.1669).clamp(0.0, 100.0)
}

/// A side's accuracy over its moves, lichess's way: `wins` are the win% of every position of
/// the game from sente's view (the start first, one after each move), `accuracies` that
/// side's moves' accuracies with the index of the move in the game (0 = the first move).
/// Each move is weighted by the volatility (standard deviation) of the win% in a window
/// around it, so that a slip in a sharp phase counts more; the harmonic mean punishes the
/// worst moves. `None` when the side made no move.
pub fn game_accuracy(wins: &[f32], accuracies: &[(usize, f32)]) -> Option<f32> {
    if accuracies.is_empty() {
        return None;
    }
    // lichess: a window of a tenth of the game, 2 to 8 positions.
    let window = (wins.len() / 10).clamp(2, 8);
    let volatility = |i: usize| {
        let end = (i + window).min(wins.len());
        let start = end.saturating_sub(window);
        let part = &wins[start..end];
        let mean = part.iter().sum::<f32>() / part.len() as f32;
        let variance = part.iter().map(|w| (w - mean).powi(2)).sum::<f32>() / part.len() as f32;
        variance.sqrt().clamp(0.5, 12.0)
    };
    let (weighted, weights) = accuracies
        .iter()
        .map(|&(i, a)| (a * volatility(i), volatility(i)))
        .fold((0.0, 0.0), |(s, w), (x, v)| (s + x, w + v));
    let harmonic = accuracies.len() as f32
        / accuracies
            .iter()
            .map(|&(_, a)| 1.0 / a.max(1e-3))
            .sum::<f32>();
    Some((weighted / weights + harmonic) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn losses_are_marked_on_the_fitted_curve() {
        // An even position kept even: no mark, full accuracy.
        let kept = judge(Score::Cp(0), Score::Cp(0));
        assert_eq!((kept.loss, kept.mark), (0.0, None));
        assert!(kept.accuracy > 99.9);
        // A better move than the search saw loses nothing.
        assert_eq!(judge(Score::Cp(0), Score::Cp(300)).loss, 0.0);
        // On k = 500: 0 → −110 cp loses 5.5 points, → −210 cp 10.3, → −320 cp 15.5.
        assert_eq!(
            judge(Score::Cp(0), Score::Cp(-110)).mark,
            Some(Mark::Inaccuracy)
        );
        assert_eq!(
            judge(Score::Cp(0), Score::Cp(-210)).mark,
            Some(Mark::Mistake)
        );
        assert_eq!(
            judge(Score::Cp(0), Score::Cp(-320)).mark,
            Some(Mark::Blunder)
        );
        assert_eq!(judge(Score::Cp(0), Score::Cp(-90)).mark, None);
        // Mates.
        assert_eq!(
            judge(Score::Mate(3), Score::Cp(2500)).mark,
            Some(Mark::MissedMate)
        );
        assert_eq!(judge(Score::Mate(3), Score::Mate(2)).mark, None);
        assert_eq!(
            judge(Score::Cp(100), Score::Mate(-2)).mark,
            Some(Mark::AllowedMate)
        );
        assert_eq!(
            judge(Score::Mate(-4), Score::Mate(-3)).mark,
            None,
            "already lost"
        );
        assert!(judge(Score::Cp(0), Score::Mate(-1)).accuracy < 10.0);
        // Lost already: a mate allowed at −3000 cp loses under a point and is not marked.
        assert_eq!(judge(Score::Cp(-3000), Score::Mate(-2)).mark, None);
        assert_eq!(
            judge(Score::Cp(-1000), Score::Mate(-2)).mark,
            Some(Mark::AllowedMate)
        );
    }

    #[test]
    fn a_side_that_blunders_is_less_accurate() {
        // Sente plays well throughout; gote's third move throws the game away.
        let wins = [50.0, 52.0, 51.0, 53.0, 52.0, 54.0, 90.0, 91.0, 93.0];
        let sente: Vec<(usize, f32)> = [0, 2, 4, 6]
            .iter()
            .map(|&i| (i, move_accuracy(1.0)))
            .collect();
        let gote: Vec<(usize, f32)> = [(1, 1.0), (3, 1.0), (5, 36.0), (7, 2.0)]
            .iter()
            .map(|&(i, loss)| (i, move_accuracy(loss)))
            .collect();
        let (s, g) = (
            game_accuracy(&wins, &sente).unwrap(),
            game_accuracy(&wins, &gote).unwrap(),
        );
        assert!(s > 90.0 && g < s - 20.0, "sente {s}, gote {g}");
        assert_eq!(game_accuracy(&wins, &[]), None);
    }
}

/// A review under way or done: each position of a line searched in turn by the analyser.
#[derive(Clone, Debug)]
pub(crate) struct ReviewRun {
    pub(crate) game: u64,
    /// The line reviewed, the start's node first.
    pub(crate) nodes: Vec<usize>,
    /// The `go` line of every search.
    pub(crate) go: String,
    /// For each node of the line, once known: what its search found.
    pub(crate) found: Vec<Option<Found>>,
    /// The index searched now, and the last score and line its search reported.
    pub(crate) current: Option<usize>,
    pub(crate) last: Option<(Score, Vec<String>)>,
}

/// A reviewed position's search: its score from the side to move's view and the engine's
/// line there (empty where the rules decided the game).
#[derive(Clone, Debug)]
pub(crate) struct Found {
    pub(crate) score: Score,
    pub(crate) line: Vec<String>,
}

/// What a review spends on each position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Nodes(u64),
    Millis(u64),
}

impl Budget {
    /// The budget's `go` line, or what is wrong with it.
    pub fn go(self) -> Result<String, String> {
        match self {
            Budget::Nodes(n) if (100..=100_000_000).contains(&n) => Ok(format!("go nodes {n}")),
            Budget::Nodes(n) => Err(format!("review: {n} nodes a position: 100 to 100,000,000")),
            Budget::Millis(ms) if (1..=600_000).contains(&ms) => Ok(format!("go movetime {ms}")),
            Budget::Millis(ms) => Err(format!("review: {ms} ms a position: 1 to 600,000")),
        }
    }
}

impl ReviewRun {
    pub(crate) fn new(game: u64, nodes: Vec<usize>, go: String) -> ReviewRun {
        let found = vec![None; nodes.len()];
        ReviewRun {
            game,
            nodes,
            go,
            found,
            current: None,
            last: None,
        }
    }

    /// The next index to search, if any is left.
    pub(crate) fn next(&self) -> Option<usize> {
        self.found.iter().position(Option::is_none)
    }

    pub(crate) fn done(&self) -> bool {
        self.next().is_none()
    }
}

/// A score from the other side's view.
pub fn flip(score: Score) -> Score {
    match score {
        Score::Cp(cp) => Score::Cp(-cp),
        Score::Mate(m) => Score::Mate(-m),
    }
}
