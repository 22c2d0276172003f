//! The session behind the page, as `Board` keeps it: the game tree, who plays, the clocks,
//! the engines at work and what they found, and the rules read from them (the result,
//! whether the game is over, the engine's `position` and `go` lines).

use std::collections::HashMap;

use crate::Score;
use crate::clock::Clock;
use crate::notation;
use crate::port::{Command, Job, Role};
use crate::puzzle::Puzzle;
use crate::records;
use crate::review::{self, ReviewRun};
use crate::shogi::{Color, EndReason, GameStatus, Position};
use crate::tree::Tree;
use crate::view::{
    Accuracy, AnalysisView, BoardView, ClockView, Eval, GameResult, InfoEvent, LineMove, Player,
    Players, PuzzleView, ReviewView, ReviewedMove, Side, State, win_probability,
};
use minishogi_engine::search::skill;

/// The name the engine itself has in the page's list (its levels' Elo are its own).
pub const SELF_ENGINE: &str = "minishogi-engine";

/// A game ended other than by the rules' verdict on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ended {
    pub(super) winner: Option<Color>,
    pub(super) reason: &'static str,
    /// The node where it ended.
    pub(super) node: usize,
}

/// An engine at work for the page, with what it was started with.
pub(super) struct Slot {
    /// Which start this is: reports of an engine since replaced are ignored.
    pub(super) serial: u64,
    pub(super) options: Vec<(String, String)>,
}

/// The session state.
pub(super) struct Session {
    pub(super) tree: Tree,
    pub(super) players: [Player; 2],
    pub(super) engine: String,
    pub(super) level: Option<u32>,
    pub(super) elo: Option<i32>,
    pub(super) clock: Option<Clock>,
    pub(super) movetime_ms: u64,
    pub(super) ended: Option<Ended>,
    /// Which game this is: the engine's answers for an earlier game are ignored.
    pub(super) game_id: u64,
    pub(super) opponent: Option<Slot>,
    /// The node the opponent searches, while it does.
    pub(super) thinking: Option<usize>,
    pub(super) analyser: Option<Slot>,
    pub(super) analysis_on: bool,
    pub(super) multipv: u32,
    /// The node being analysed (or mate-searched), while one is.
    pub(super) analysing: Option<usize>,
    /// The review of the line, while one runs and once done.
    pub(super) review: Option<ReviewRun>,
    /// The puzzle, while one is solved and once over (until another game).
    pub(super) puzzle: Option<Puzzle>,
    /// The latest line of each search running (by source, node and `multipv`), for a page
    /// that starts listening while it runs.
    pub(super) lines: Vec<InfoEvent>,
    /// The best score seen for each node, from sente's view.
    pub(super) evals: HashMap<usize, (Score, u32)>,
    pub(super) error: Option<String>,
    pub(super) serial: u64,
    /// Counts the states sent: a page keeps the highest it has seen.
    pub(super) version: u64,
    /// What the transport is to do, in order, since it last took them.
    pub(super) commands: Vec<Command>,
}

impl Session {
    pub(super) fn new_game_id(&mut self) {
        self.game_id += 1;
        self.ended = None;
        self.thinking = None;
        // Node numbers start again: what ran for the old game is for the old game.
        self.analysing = None;
        self.review = None;
        self.lines.clear();
        self.evals.clear();
        if self.opponent.is_some() {
            self.send(Role::Opponent, Job::Stop);
        }
        self.error = None;
    }

    /// Whether a review is under way: it has the analyser until it is done.
    pub(super) fn reviewing(&self) -> bool {
        self.review.as_ref().is_some_and(|r| !r.done())
    }

    /// Whether a puzzle is being solved: no engine may play or analyse then.
    pub(super) fn solving(&self) -> bool {
        self.puzzle.as_ref().is_some_and(Puzzle::solving)
    }

    /// A job for the engine in `role`.
    pub(super) fn send(&mut self, role: Role, job: Job) {
        self.commands.push(Command::Job { role, job });
    }

    /// The engine in `role`, if any.
    pub(super) fn slot(&mut self, role: Role) -> &mut Option<Slot> {
        match role {
            Role::Opponent => &mut self.opponent,
            Role::Analyser => &mut self.analyser,
        }
    }

    /// Ends the engine in `role`, if there is one.
    pub(super) fn close(&mut self, role: Role) {
        if self.slot(role).take().is_some() {
            self.commands.push(Command::Close { role });
        }
    }

    pub(super) fn stop_clock(&mut self, moved: bool) {
        if let Some(clock) = &mut self.clock {
            clock.stop(moved);
        }
    }

    pub(super) fn end(&mut self, winner: Option<Color>, reason: &'static str) {
        self.ended = Some(Ended {
            winner,
            reason,
            node: self.tree.cursor(),
        });
    }

    /// The result at the end of the line: (winner, reason, ply).
    pub(super) fn result(&self) -> Option<(Option<Color>, &'static str, usize)> {
        let end = self.tree.line_end();
        let ply = self.tree.node(end).map_or(0, |n| n.ply);
        if let Some(ended) = self.ended.filter(|e| e.node == end) {
            return Some((ended.winner, ended.reason, ply));
        }
        if !self.tree.at_line_end() {
            // The rules' verdict is known at the cursor only; the page asks at the end.
            return None;
        }
        match self.tree.status() {
            GameStatus::Ongoing => None,
            GameStatus::Win { winner, reason } => Some((Some(winner), reason.name(), ply)),
            GameStatus::Draw(reason) => Some((None, reason.name(), ply)),
        }
    }

    /// Why the game is over at the cursor, if it is.
    pub(super) fn game_over_reason(&self) -> Option<&'static str> {
        if let Some(ended) = self.ended.filter(|e| e.node == self.tree.cursor()) {
            return Some(ended.reason);
        }
        match self.tree.status() {
            GameStatus::Ongoing => None,
            GameStatus::Win { reason, .. } | GameStatus::Draw(reason) => Some(reason.name()),
        }
    }

    pub(super) fn position_at(&self, node: usize) -> Position {
        let mut pos = self.tree.position_before(node);
        if let Some(mv) = self.tree.node(node).and_then(|n| n.mv) {
            pos.make_move(mv);
        }
        pos
    }

    /// The USI `position` line of the cursor.
    pub(super) fn position_line(&self) -> String {
        let game = self.tree.game();
        records::usi::position_command(game.start_position(), game.moves())
    }

    /// The `go` line for the engine to move.
    pub(super) fn go_line(&self) -> String {
        match &self.clock {
            Some(clock) => {
                let c = &clock.settings;
                let mut go = format!(
                    "go btime {} wtime {}",
                    clock.left_now(Color::Sente),
                    clock.left_now(Color::Gote)
                );
                if c.increment_ms > 0 {
                    go += &format!(" binc {} winc {}", c.increment_ms, c.increment_ms);
                }
                if c.byoyomi_ms > 0 || c.increment_ms == 0 {
                    go += &format!(" byoyomi {}", c.byoyomi_ms);
                }
                go
            }
            None => format!("go movetime {}", self.movetime_ms),
        }
    }
}

impl Session {
    /// The session as the pages are sent it, with the engines they may choose from.
    pub(super) fn view(&self, engines: &[String]) -> State {
        let s = self;
        let pos = s.tree.position();
        let over = s.game_over_reason().is_some() && s.tree.at_line_end();
        // While a puzzle is solved, moves are played at its position only.
        let elsewhere = s
            .puzzle
            .as_ref()
            .is_some_and(|p| p.solving() && p.node != s.tree.cursor());
        let legal_moves = if over || elsewhere {
            Vec::new()
        } else {
            pos.legal_moves().iter().map(|m| m.to_string()).collect()
        };
        let entry = |id: usize| {
            let node = s.tree.node(id).expect("line nodes exist");
            let mv = node.mv.expect("only the root has no move");
            let before = s.tree.position_before(id);
            let previous_to = node
                .parent
                .and_then(|p| s.tree.node(p))
                .and_then(|p| p.mv)
                .map(|m| m.to());
            LineMove {
                node: id,
                usi: mv.to_string(),
                ja: notation::ja(&before, mv, previous_to),
                en: notation::en(&before, mv),
                variations: None,
            }
        };
        let line = s
            .tree
            .line()
            .into_iter()
            .map(|id| LineMove {
                variations: Some(s.tree.siblings(id).into_iter().map(entry).collect()),
                ..entry(id)
            })
            .collect();
        // Where the rules have decided the game at the line's end, that position's value is
        // the verdict, not a search's: a mate is scored mate 0 for the winner.
        let verdict = match s.tree.status() {
            GameStatus::Win { winner, reason } if s.tree.at_line_end() => {
                let mated = matches!(reason, EndReason::Checkmate | EndReason::NoLegalMove);
                Some((s.tree.cursor(), winner, mated))
            }
            _ => None,
        };
        let evals = std::iter::once(0)
            .chain(s.tree.line())
            .map(|id| {
                if let Some((node, winner, mated)) = verdict
                    && node == id
                {
                    return Some(Eval {
                        cp: None,
                        mate: mated.then_some(0),
                        win: if winner == Color::Sente { 1.0 } else { 0.0 },
                    });
                }
                s.evals.get(&id).map(|&(score, _)| {
                    let (cp, mate) = match score {
                        Score::Cp(cp) => (Some(cp), None),
                        Score::Mate(m) => (None, Some(m)),
                    };
                    Eval {
                        cp,
                        mate,
                        win: win_probability(score),
                    }
                })
            })
            .collect();
        let last_move = s
            .tree
            .node(s.tree.cursor())
            .and_then(|n| n.mv)
            .map(|m| m.to_string());
        State {
            version: s.version,
            game: s.game_id,
            position: BoardView::of(pos, last_move),
            in_check: pos.in_check(),
            legal_moves,
            cursor: s.tree.cursor(),
            ply: s.tree.node(s.tree.cursor()).map_or(0, |n| n.ply),
            line,
            evals,
            result: s.result().map(|(winner, reason, ply)| GameResult {
                winner: winner.map(Side::from),
                reason,
                ply,
            }),
            players: Players {
                sente: s.players[0],
                gote: s.players[1],
            },
            engine: s.engine.clone(),
            engines: engines.to_vec(),
            level: s.level,
            elo: s.elo,
            level_elo: (s.elo.is_none() && s.engine == SELF_ENGINE)
                .then(|| skill::elo_of_level(s.level.unwrap_or(skill::MAX_LEVEL))),
            elo_range: skill::elo_range(),
            clock: s.clock.as_ref().map(ClockView::of),
            thinking: s.thinking.is_some(),
            analysis: AnalysisView {
                on: s.analysis_on,
                multipv: s.multipv,
            },
            error: s.error.clone(),
            review: s.review.as_ref().map(|run| s.review_view(run)),
            puzzle: s.puzzle.as_ref().map(puzzle_view),
        }
    }
}

/// A puzzle as the pages are sent it: the solution only once it is over.
fn puzzle_view(p: &Puzzle) -> PuzzleView {
    let (total, done) = p.solver_moves();
    let over = !p.solving();
    let solution: Vec<String> = p.solution.iter().map(|m| m.to_string()).collect();
    PuzzleView {
        id: p.id.clone(),
        status: p.status,
        solver: p.solver().into(),
        done,
        total,
        node: p.node,
        hint: p.hint_shown.then(|| p.hint()).flatten(),
        hints: p.hints,
        wrong: p.wrong.map(|m| m.to_string()),
        solution_ja: over.then(|| notation::kif_line(&p.start, &solution)),
        solution_en: over.then(|| notation::en_line(&p.start, &solution)),
        solution: over.then_some(solution),
    }
}

impl Session {
    /// What a review has found so far, as the pages are sent it.
    fn review_view(&self, run: &ReviewRun) -> ReviewView {
        let mut moves = Vec::new();
        let mut wins = Vec::new(); // sente's win% at each node, while known from the start
        let mut accuracies = [Vec::new(), Vec::new()];
        for (i, found) in run.found.iter().enumerate() {
            let Some(found) = found else { break };
            let side = self.position_at(run.nodes[i]).side_to_move();
            let win = review::win_percent(found.score);
            wins.push(if side == Color::Sente {
                win
            } else {
                100.0 - win
            });
            if i == 0 {
                continue;
            }
            let Some(searched) = &run.found[i - 1] else {
                break;
            };
            let position = self.position_at(run.nodes[i - 1]);
            let played = self.tree.node(run.nodes[i]).and_then(|n| n.mv);
            let best_move = searched
                .line
                .first()
                .and_then(|b| position.parse_usi_move(b).ok());
            let (before, after) = (searched.score, review::flip(found.score));
            // The reviewer's own choice loses nothing, whatever the next search says: two
            // searches of a budget differ by more than a mark's width in sharp positions.
            let judged = if played.is_some() && played == best_move {
                review::judge(before, before)
            } else {
                review::judge(before, after)
            };
            let mover = side.flip();
            accuracies[mover.index()].push((i - 1, judged.accuracy));
            moves.push(ReviewedMove {
                node: run.nodes[i],
                mover: mover.into(),
                loss: judged.loss,
                mark: judged.mark,
                before,
                after,
                best: searched.line.first().cloned(),
                best_ja: best_move.map(|m| {
                    let previous_to = self
                        .tree
                        .node(run.nodes[i - 1])
                        .and_then(|n| n.mv)
                        .map(|m| m.to());
                    notation::ja(&position, m, previous_to)
                }),
                best_en: best_move.map(|m| notation::en(&position, m)),
                line: searched.line.clone(),
            });
        }
        let done = run.done();
        ReviewView {
            done,
            searched: run.found.iter().filter(|f| f.is_some()).count(),
            total: run.found.len(),
            moves,
            accuracy: done.then(|| Accuracy {
                sente: review::game_accuracy(&wins, &accuracies[0]),
                gote: review::game_accuracy(&wins, &accuracies[1]),
            }),
        }
    }
}
