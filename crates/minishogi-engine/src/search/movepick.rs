//! The staged move picker: a node's moves one at a time, each with its kind, in stages so that
//! a cut-off early in the list saves the scoring of the rest.
//!
//! Main search: the TT move, good captures and promotions (by [`tactical_score`], SEE tested
//! lazily as each comes up: a loser is set aside), the killers and the counter-move, quiet moves
//! and drops by history ([`quiet_score`], scored only when the stage is reached), the captures
//! and promotions SEE judged losing. Quiescence and ProbCut: the TT move, good then bad
//! tactical moves; in check every evasion ([`evasion_score`]).
//!
//! The TT move is tried before anything is generated, once the rules core's legality test
//! ([`Position::generates`], exact for any move value, so a collision's garbage is refused)
//! passes it: a cut-off by it saves the generation. The rules core generates the other moves in
//! one pass (it has no staged generator), with the TT move taken out in place so that the rest
//! keep their order; what the later stages save is the scoring and SEE. The searches ask a
//! move's [`MoveKind`] instead of reading score bands. [`ScoredMoves`] is the list with its
//! scores, for an ordering of its own (the mate solver's).

use super::heuristics::{CONTINUATION_PLIES, Heuristics};
use super::ordering::{evasion_score, is_quiet, quiet_score, tactical_score, wins_exchange};
use super::params::SearchParams;
use crate::mcts::policy;
use crate::shogi::{GenKind, MAX_MOVES, Move, MoveList, Position};

/// What a picked move is, which is also why it came when it did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MoveKind {
    /// The transposition table's move (legal here), tried first.
    Tt,
    /// A capture or promotion that static exchange evaluation does not judge losing.
    GoodTactical,
    /// One of this ply's two killers: a quiet move that cut off at a sibling node.
    Killer,
    /// The quiet move that last refuted the opponent's previous move.
    CounterMove,
    /// Any other quiet move or drop; its score is its history.
    Quiet,
    /// A capture or promotion that SEE judges losing.
    BadTactical,
    /// A check evasion in quiescence (tactical ones first, then by history).
    Evasion,
}

/// A picked move, its kind and its ordering score (for a quiet move, its history).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Picked {
    pub mv: Move,
    pub kind: MoveKind,
    pub score: i32,
}

/// Moves with their ordering scores, taken best first.
pub struct ScoredMoves {
    moves: MoveList,
    scores: [i32; MAX_MOVES],
}

impl Default for ScoredMoves {
    fn default() -> Self {
        ScoredMoves::new()
    }
}

impl ScoredMoves {
    pub fn new() -> ScoredMoves {
        ScoredMoves {
            moves: MoveList::new(),
            scores: [0; MAX_MOVES],
        }
    }

    pub fn push(&mut self, mv: Move, score: i32) {
        self.scores[self.moves.len()] = score;
        self.moves.push(mv);
    }

    /// Sorts best first, equal scores keeping their order (insertion sort: lists are short).
    pub fn sort(&mut self) {
        let moves = self.moves.as_mut_slice();
        for i in 1..moves.len() {
            let mut j = i;
            while j > 0 && self.scores[j - 1] < self.scores[j] {
                self.scores.swap(j - 1, j);
                moves.swap(j - 1, j);
                j -= 1;
            }
        }
    }

    pub fn moves(&self) -> &[Move] {
        self.moves.as_slice()
    }

    /// Brings the best-scored move of `from..end` to `from`, the first of equal ones, the
    /// others keeping their order (selection: cut-offs usually come early).
    #[inline(always)]
    fn select(&mut self, from: usize, end: usize) -> (Move, i32) {
        // The best score kept in a register and one bounds check for the slice: the scan is
        // a third of the picker's time, and compiles to conditional moves this way.
        let scores = &self.scores[from..end];
        let (mut best, mut best_score) = (0, scores[0]);
        for (i, &score) in scores.iter().enumerate().skip(1) {
            if score > best_score {
                best = i;
                best_score = score;
            }
        }
        self.lift(from + best, from);
        (self.moves[from], self.scores[from])
    }

    /// Moves entry `i` to `to <= i`, shifting `to..i` up one.
    #[inline(always)]
    fn lift(&mut self, i: usize, to: usize) {
        if i != to {
            self.moves.as_mut_slice()[to..=i].rotate_right(1);
            self.scores[to..=i].rotate_right(1);
        }
    }

    /// Removes entry `i` of the live `..end`, shifting the rest down one; returns the new end.
    #[inline(always)]
    fn remove(&mut self, i: usize, end: usize) -> usize {
        self.moves.as_mut_slice().copy_within(i + 1..end, i);
        self.scores.copy_within(i + 1..end, i);
        end - 1
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stage {
    Tt,
    ScoreTactical,
    GoodTactical,
    Refutations,
    ScoreQuiet,
    Quiet,
    ScoreBadTactical,
    BadTactical,
    ScoreEvasions,
    Evasions,
    Done,
}

/// Yields every generated move once, the TT move first (see the module header for the order).
pub struct MovePicker {
    list: ScoredMoves,
    stage: Stage,
    /// Which moves the list holds once generated.
    gen_kind: GenKind,
    /// The TT move if it is legal here (and of `gen_kind`), else null; taken out of the list.
    tt_move: Move,
    /// Killers, then the counter-move; tried in this order if still in the quiet moves.
    refutations: [Move; 3],
    refutation: usize,
    continuation: [Option<usize>; CONTINUATION_PLIES],
    capture_history: bool,
    /// Whether the quiet stages (refutations, quiet moves) come between good and bad tactics.
    quiets: bool,
    /// Whether the moves are quiescence's check evasions, ordered in one stage.
    evasions: bool,
    /// How many moves were generated (the TT move among them); `None` until they are.
    generated: Option<usize>,
    /// The live part of the list is `..end`: the TT move is taken out of it, and so are
    /// killers and counter-moves as they are yielded.
    end: usize,
    /// The next move to look at; moves before it have been yielded or set aside.
    cur: usize,
    /// Captures and promotions are `..tactical_end` once partitioned, the quiet moves after.
    tactical_end: usize,
    /// Losing tactical moves set aside so far, at `..bad_end` (always `<= cur`).
    bad_end: usize,
    /// The learned move policy's logit times this is added to each quiet move's history for
    /// the order alone (`policy_ordering`); 0 = not used.
    policy_weight: i32,
}

impl MovePicker {
    /// The main search's picker: every legal move. `continuation` holds the
    /// continuation-history indices of the moves one and two plies back, where used;
    /// `capture_history` adds capture history to the scores of captures.
    pub fn main(
        pos: &Position,
        tt_move: Move,
        killers: [Move; 2],
        counter: Move,
        continuation: [Option<usize>; CONTINUATION_PLIES],
        capture_history: bool,
    ) -> MovePicker {
        let mut picker = MovePicker::new(pos, GenKind::All, tt_move, capture_history);
        picker.refutations = [killers[0], killers[1], counter];
        picker.continuation = continuation;
        picker.quiets = true;
        picker
    }

    /// Orders the quiet moves by history plus `weight` times the learned move policy's logit
    /// (`mcts::policy`); the scores yielded stay the history, for pruning and reductions.
    pub fn with_policy(mut self, weight: i32) -> MovePicker {
        self.policy_weight = weight;
        self
    }

    /// Quiescence's and ProbCut's picker: captures and promotions, or every evasion in check.
    pub fn tactical(pos: &Position, tt_move: Move, capture_history: bool) -> MovePicker {
        let mut picker = MovePicker::new(pos, GenKind::Tactical, tt_move, capture_history);
        if pos.in_check() {
            picker.evasions = true;
            if picker.stage != Stage::Tt {
                picker.stage = Stage::ScoreEvasions;
            }
        }
        picker
    }

    /// Generates nothing when the TT move is legal: it comes first, and may cut off.
    fn new(pos: &Position, gen_kind: GenKind, tt_move: Move, capture_history: bool) -> Self {
        let tt_legal = !tt_move.is_null() && pos.generates(gen_kind, tt_move);
        let mut picker = MovePicker {
            list: ScoredMoves::new(),
            stage: if tt_legal {
                Stage::Tt
            } else {
                Stage::ScoreTactical
            },
            gen_kind,
            tt_move: if tt_legal { tt_move } else { Move::NULL },
            refutations: [Move::NULL; 3],
            refutation: 0,
            continuation: [None; CONTINUATION_PLIES],
            capture_history,
            quiets: false,
            evasions: false,
            generated: None,
            end: 0,
            cur: 0,
            tactical_end: 0,
            bad_end: 0,
            policy_weight: 0,
        };
        if !tt_legal {
            picker.generate(pos);
        }
        picker
    }

    /// Generates the moves once, taking the TT move out where it stands.
    fn generate(&mut self, pos: &Position) {
        if self.generated.is_some() {
            return;
        }
        pos.generate(self.gen_kind, &mut self.list.moves);
        let generated = self.list.moves.len();
        self.generated = Some(generated);
        self.end = generated;
        if !self.tt_move.is_null() {
            let tt_index = self.list.moves.iter().position(|&mv| mv == self.tt_move);
            debug_assert!(tt_index.is_some(), "a legal TT move is generated");
            if let Some(i) = tt_index {
                self.end = self.list.remove(i, self.end);
            }
        }
    }

    /// Whether there is no move to yield at all (mate, or no legal move): known without
    /// generating when the TT move is legal.
    pub fn is_empty(&self) -> bool {
        self.generated == Some(0)
    }

    /// How many moves there are (all legal ones, or the tactical ones), generating them if
    /// that has not been done yet.
    pub fn count(&mut self, pos: &Position) -> usize {
        self.generate(pos);
        self.generated.expect("just generated")
    }

    /// The stage after the TT move.
    fn after_tt(&self) -> Stage {
        if self.evasions {
            Stage::ScoreEvasions
        } else {
            Stage::ScoreTactical
        }
    }

    /// The next move, or `None` once every move has been yielded. The history tables are read
    /// when a stage is scored, so moves searched before then have already taught them.
    pub fn next(
        &mut self,
        pos: &Position,
        heur: &Heuristics,
        params: &SearchParams,
    ) -> Option<Picked> {
        loop {
            match self.stage {
                Stage::Tt => {
                    self.stage = self.after_tt();
                    return Some(Picked {
                        mv: self.tt_move,
                        kind: MoveKind::Tt,
                        score: 0,
                    });
                }
                Stage::ScoreTactical => {
                    self.generate(pos);
                    // Captures and promotions to the front; each part keeps generation order.
                    let mut tactical = 0;
                    for i in 0..self.end {
                        let mv = self.list.moves[i];
                        if !is_quiet(pos, mv) {
                            self.list.lift(i, tactical);
                            self.list.scores[tactical] =
                                tactical_score(pos, mv, heur, params, self.capture_history);
                            tactical += 1;
                        }
                    }
                    self.tactical_end = tactical;
                    self.stage = Stage::GoodTactical;
                }
                Stage::GoodTactical => {
                    while self.cur < self.tactical_end {
                        let (mv, score) = self.list.select(self.cur, self.tactical_end);
                        self.cur += 1;
                        if wins_exchange(pos, mv) {
                            return Some(Picked {
                                mv,
                                kind: MoveKind::GoodTactical,
                                score,
                            });
                        }
                        // Set aside where a yielded move was.
                        self.list.moves.as_mut_slice()[self.bad_end] = mv;
                        self.list.scores[self.bad_end] = score;
                        self.bad_end += 1;
                    }
                    self.stage = if self.quiets {
                        Stage::Refutations
                    } else {
                        Stage::ScoreBadTactical
                    };
                }
                Stage::Refutations => {
                    while self.refutation < self.refutations.len() {
                        let mv = self.refutations[self.refutation];
                        self.refutation += 1;
                        if mv.is_null() {
                            continue;
                        }
                        let quiets = &self.list.moves.as_slice()[self.tactical_end..self.end];
                        if let Some(i) = quiets.iter().position(|&q| q == mv) {
                            self.end = self.list.remove(self.tactical_end + i, self.end);
                            let kind = if self.refutation <= 2 {
                                MoveKind::Killer
                            } else {
                                MoveKind::CounterMove
                            };
                            return Some(Picked { mv, kind, score: 0 });
                        }
                    }
                    self.stage = Stage::ScoreQuiet;
                }
                Stage::ScoreQuiet => {
                    let side = pos.side_to_move();
                    let policy = (self.policy_weight != 0 && self.end > self.tactical_end + 1)
                        .then(|| (policy::MovePolicy::shared(), policy::PositionContext::new(pos)));
                    for i in self.tactical_end..self.end {
                        let mv = self.list.moves[i];
                        let mut score = quiet_score(pos, side, mv, self.continuation, heur);
                        if let Some((policy, context)) = &policy {
                            let logit = policy.logit(&policy::move_features(pos, context, mv));
                            score += (logit * self.policy_weight as f32) as i32;
                        }
                        self.list.scores[i] = score;
                    }
                    self.cur = self.tactical_end;
                    self.stage = Stage::Quiet;
                }
                Stage::Quiet => {
                    if self.cur < self.end {
                        let (mv, mut score) = self.list.select(self.cur, self.end);
                        self.cur += 1;
                        if self.policy_weight != 0 {
                            let side = pos.side_to_move();
                            score = quiet_score(pos, side, mv, self.continuation, heur);
                        }
                        return Some(Picked {
                            mv,
                            kind: MoveKind::Quiet,
                            score,
                        });
                    }
                    self.stage = Stage::ScoreBadTactical;
                }
                Stage::ScoreBadTactical => {
                    // Already scored when set aside.
                    self.cur = 0;
                    self.end = self.bad_end;
                    self.stage = Stage::BadTactical;
                }
                Stage::BadTactical => {
                    if self.cur < self.end {
                        let (mv, score) = self.list.select(self.cur, self.end);
                        self.cur += 1;
                        return Some(Picked {
                            mv,
                            kind: MoveKind::BadTactical,
                            score,
                        });
                    }
                    self.stage = Stage::Done;
                }
                Stage::ScoreEvasions => {
                    self.generate(pos);
                    for i in 0..self.end {
                        let mv = self.list.moves[i];
                        self.list.scores[i] =
                            evasion_score(pos, mv, heur, params, self.capture_history);
                    }
                    self.stage = Stage::Evasions;
                }
                Stage::Evasions => {
                    if self.cur < self.end {
                        let (mv, score) = self.list.select(self.cur, self.end);
                        self.cur += 1;
                        return Some(Picked {
                            mv,
                            kind: MoveKind::Evasion,
                            score,
                        });
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests;
