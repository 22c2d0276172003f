//! What the pages are sent (`docs/gui.md`): the session drawn as `State`, a position as
//! `BoardView`, the engines' reports as `InfoEvent` and `MateEvent`, with the moves in both
//! notations and the scores on the engine's probability scale. Transports serialize them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::clock::Clock;
use crate::puzzle::{Hint, PuzzleStatus};
use crate::review::Mark;
use crate::shogi::{Color, PieceKind, Position, Square};
use crate::{Info, Score};

/// An event for the pages.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "name", content = "data", rename_all = "lowercase")]
pub enum Event {
    /// The whole state, after every change.
    State(Box<State>),
    /// A search report of the analyser or the playing engine.
    Info(Box<InfoEvent>),
    /// A mate search's answer.
    Mate(MateEvent),
}

impl Event {
    /// The event's name (`state`, `info`, `mate`), as server-sent events name it.
    pub fn name(&self) -> &'static str {
        match self {
            Event::State(_) => "state",
            Event::Info(_) => "info",
            Event::Mate(_) => "mate",
        }
    }
}

/// Who plays a side: a person at the page or the session's engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    Human,
    Engine,
}

/// A side, as the pages name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Sente,
    Gote,
}

impl From<Color> for Side {
    fn from(color: Color) -> Side {
        match color {
            Color::Sente => Side::Sente,
            Color::Gote => Side::Gote,
        }
    }
}

/// A position as the page draws it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardView {
    pub sfen: String,
    /// 5 rows, rank a (top) to e; each row file 5 (left) to 1 (right); SFEN letters, `+` =
    /// promoted, upper case sente; `""` empty.
    pub board: Vec<Vec<String>>,
    pub hands: Hands,
    pub side_to_move: Side,
    /// The move that led here, if known.
    pub last_move: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hands {
    pub sente: BTreeMap<char, u8>,
    pub gote: BTreeMap<char, u8>,
}

impl BoardView {
    pub fn of(pos: &Position, last_move: Option<String>) -> BoardView {
        let board = (0..5u8)
            .map(|rank| {
                (1..=5u8)
                    .rev()
                    .map(|file| {
                        pos.piece_at(Square::new(file, rank))
                            .map_or(String::new(), |p| p.sfen())
                    })
                    .collect()
            })
            .collect();
        let hand = |color: Color| {
            let hand = pos.hand(color);
            PieceKind::HAND
                .iter()
                .map(|&kind| (kind.usi_letter(), hand.count(kind)))
                .collect()
        };
        BoardView {
            sfen: pos.to_sfen(),
            board,
            hands: Hands {
                sente: hand(Color::Sente),
                gote: hand(Color::Gote),
            },
            side_to_move: pos.side_to_move().into(),
            last_move,
        }
    }
}

/// A move of the line as the move list shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LineMove {
    pub node: usize,
    pub usi: String,
    pub ja: String,
    pub en: String,
    /// The other moves played from the same position; absent in the variations themselves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variations: Option<Vec<LineMove>>,
}

/// A score from sente's view, with its win probability.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Eval {
    pub cp: Option<i32>,
    pub mate: Option<i32>,
    pub win: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameResult {
    pub winner: Option<Side>,
    pub reason: &'static str,
    pub ply: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ClockView {
    pub sente_ms: u64,
    pub gote_ms: u64,
    pub byoyomi_ms: u64,
    pub increment_ms: u64,
    pub running: Option<Side>,
}

impl ClockView {
    pub(crate) fn of(clock: &Clock) -> ClockView {
        ClockView {
            sente_ms: clock.left_now(Color::Sente),
            gote_ms: clock.left_now(Color::Gote),
            byoyomi_ms: clock.settings.byoyomi_ms,
            increment_ms: clock.settings.increment_ms,
            running: clock.running.map(|(color, _)| color.into()),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Players {
    pub sente: Player,
    pub gote: Player,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AnalysisView {
    pub on: bool,
    pub multipv: u32,
}

/// The `State` of `docs/gui.md`: the session and the engines the page may choose from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct State {
    /// Counts the states sent; a page keeps the highest.
    pub version: u64,
    /// Which game this is (a new game, a record loaded, a move taken back): node numbers
    /// and what the engines said about them belong to one game.
    pub game: u64,
    #[serde(flatten)]
    pub position: BoardView,
    pub in_check: bool,
    /// At the cursor (empty if the game is over there).
    pub legal_moves: Vec<String>,
    /// Node id of the cursor (0 = the start).
    pub cursor: usize,
    pub ply: usize,
    /// The line through the cursor, from the start to its end.
    pub line: Vec<LineMove>,
    /// Per ply of the line (0 = start), from sente's view, where an engine gave one.
    pub evals: Vec<Option<Eval>>,
    pub result: Option<GameResult>,
    pub players: Players,
    pub engine: String,
    pub engines: Vec<String>,
    pub level: Option<u32>,
    pub elo: Option<i32>,
    /// What the level played is worth on the `USI_Elo` scale (`skill::elo_of_level`; level
    /// 20 when none is chosen), for the page to show; `None` when `elo` is chosen or the
    /// engine is another program (the scale is this engine's).
    pub level_elo: Option<i32>,
    pub elo_range: (i32, i32),
    pub clock: Option<ClockView>,
    /// The engine is searching for its move.
    pub thinking: bool,
    pub analysis: AnalysisView,
    /// The last engine error, for the page.
    pub error: Option<String>,
    /// The review of the line, while one runs and once done.
    pub review: Option<ReviewView>,
    /// The puzzle, while one is solved and once over (until another game).
    pub puzzle: Option<PuzzleView>,
}

/// A puzzle as the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PuzzleView {
    pub id: String,
    pub status: PuzzleStatus,
    /// The side that solves.
    pub solver: Side,
    /// The solver's moves played right, and how many the solution has.
    pub done: usize,
    pub total: usize,
    /// The node where the solver is to move (or was, when the puzzle ended).
    pub node: usize,
    /// Where the next move starts, once asked for (while solving).
    pub hint: Option<Hint>,
    /// Hints asked for in this puzzle.
    pub hints: u32,
    /// The move that failed the puzzle, if one did.
    pub wrong: Option<String>,
    /// Once over: the solution in USI and in both notations.
    pub solution: Option<Vec<String>>,
    pub solution_ja: Option<Vec<String>>,
    pub solution_en: Option<Vec<String>>,
}

/// A review of the line: each move's loss and mark, the better move, each side's accuracy.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReviewView {
    /// Whether every position has been searched.
    pub done: bool,
    pub searched: usize,
    pub total: usize,
    /// The moves judged so far, in the line's order.
    pub moves: Vec<ReviewedMove>,
    /// Once done: each side's accuracy (none for a side that made no move).
    pub accuracy: Option<Accuracy>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReviewedMove {
    /// The node the move led to.
    pub node: usize,
    pub mover: Side,
    /// Win% points lost, on the fitted curve.
    pub loss: f32,
    pub mark: Option<Mark>,
    /// The scores, from the mover's view, of the position the move was played in (its best
    /// line's) and of the one it made.
    pub before: Score,
    pub after: Score,
    /// The engine's best move where this one was played (USI and both notations).
    pub best: Option<String>,
    pub best_ja: Option<String>,
    pub best_en: Option<String>,
    /// The engine's line from where the move was played, the best move first (USI).
    pub line: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Accuracy {
    pub sente: Option<f32>,
    pub gote: Option<f32>,
}

/// Where a search report came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Analysis,
    Opponent,
}

/// An `info` event: the engine's line with the PV in both notations and the score's win
/// probability, from the side to move's view at `node`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InfoEvent {
    pub source: Source,
    pub node: usize,
    #[serde(flatten)]
    pub info: Info,
    pub pv_ja: Vec<String>,
    pub pv_en: Vec<String>,
    pub win: Option<f32>,
}

/// A `mate` event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MateEvent {
    pub node: usize,
    /// `mate`, `nomate`, `timeout` or `notimplemented`.
    pub result: &'static str,
    pub pv: Vec<String>,
    pub pv_ja: Vec<String>,
    pub pv_en: Vec<String>,
}

/// The win probability of a score, from the same side's view: the curve fitted on the
/// engine's games (`eval::win_probability_of_cp`, docs/winrate.md); a mate is certain.
pub fn win_probability(score: Score) -> f32 {
    match score {
        Score::Cp(cp) => minishogi_engine::eval::win_probability_of_cp(cp as f32),
        Score::Mate(m) if m > 0 => 1.0,
        Score::Mate(_) => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minishogi_engine::eval;

    /// The bar and the graph read a score by the curve fitted on the engine's games, not by the
    /// search's 600 cp a logit.
    #[test]
    fn a_score_reads_by_the_fitted_curve() {
        for cp in [-2000, -300, 0, 1, 500, 4000] {
            assert_eq!(
                win_probability(Score::Cp(cp)),
                eval::win_probability_of_cp(cp as f32)
            );
        }
        assert!((win_probability(Score::Cp(500)) - 0.7311).abs() < 1e-4);
        assert_ne!(
            win_probability(Score::Cp(500)),
            eval::probability_from_cp(500.0)
        );
        assert_eq!(win_probability(Score::Mate(3)), 1.0);
        assert_eq!(win_probability(Score::Mate(-2)), 0.0);
    }
}
