//! Quiescence search (captures and promotions until the position is quiet, every evasion in
//! check; stand pat with the corrected evaluation, delta and SEE pruning, a test for a mating
//! drop or mate in one) and ProbCut, whose captures are tried first by quiescence.

use super::movepick::{MoveKind, MovePicker, Picked};
use super::ordering::{see_ge, tactical_gain};
use super::score::*;
use super::tt::Bound;
use super::worker::{Worker, store_result, tt_cutoff};
use crate::shogi::{GenKind, Move, MoveList};

impl Worker<'_> {
    /// The picker of tactical moves (all evasions in check).
    #[inline(always)]
    fn tactical_picker(&self, tt_move: Move) -> MovePicker {
        MovePicker::tactical(&self.pos, tt_move, self.shared.features.capture_history)
    }

    /// ProbCut's captures: the first whose quiescence and then reduced search both reach
    /// `probcut_beta` gives its score (and is left in `current_move[ply]`).
    pub(super) fn probcut(
        &mut self,
        probcut_beta: i32,
        depth: i32,
        ply: usize,
        cut_node: bool,
        eval: i32,
        tt_move: Move,
    ) -> Option<i32> {
        let mut picker = self.tactical_picker(tt_move);
        while let Some(Picked { mv, .. }) = picker.next(&self.pos, self.heur, &self.shared.params) {
            if !see_ge(&self.pos, mv, probcut_beta - eval) {
                continue;
            }
            self.current_move[ply] = mv;
            let undo = self.make_move(mv);
            let mut score = -self.qsearch::<false>(-probcut_beta, -probcut_beta + 1, ply + 1);
            if score >= probcut_beta && !self.stopped {
                score = -self.search::<false>(
                    -probcut_beta,
                    -probcut_beta + 1,
                    depth - 4,
                    ply + 1,
                    !cut_node,
                );
            }
            self.unmake_move(mv, undo);
            if self.stopped {
                return None;
            }
            if score >= probcut_beta {
                return Some(score);
            }
        }
        None
    }

    // ---- quiescence ---------------------------------------------------------------------------

    pub(super) fn qsearch<const PV: bool>(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.count_node_and_check() {
            return 0;
        }
        if PV {
            self.pv_len[ply] = 0;
            self.seldepth = self.seldepth.max(ply);
        }
        let in_check = self.pos.in_check();
        if ply >= MAX_PLY - 2 {
            return if in_check { DRAW } else { self.evaluate() };
        }
        if self.at_ply_limit(ply) {
            return if self.pos.has_legal_move() {
                DRAW
            } else {
                mated_in(ply)
            };
        }
        let tt = self.shared.tt;
        let key = self.pos.key();
        let tt_hit = tt.probe(key);
        let tt_move = tt_hit.map_or(Move::NULL, |e| e.mv);
        // Any stored depth will do for quiescence.
        if let Some(e) = tt_hit
            && !PV
            && let Some(score) = tt_cutoff(&e, i32::MIN, ply, alpha, beta)
        {
            return score;
        }
        let features = self.shared.features;
        self.arrival[ply] = self.previous_piece_square(self.current_move[ply - 1]);
        let raw_eval = if in_check {
            -INFINITE
        } else {
            tt_hit.map_or_else(|| self.evaluate(), |e| e.eval)
        };
        let stand_pat = if in_check {
            -INFINITE
        } else {
            let eval = if features.correction_history {
                self.corrected_eval(raw_eval, self.correction_key(ply))
            } else {
                raw_eval
            };
            if eval >= beta {
                if tt_hit.is_none() {
                    tt.store(
                        key,
                        Move::NULL,
                        to_tt(eval, ply),
                        raw_eval,
                        -1,
                        Bound::Lower,
                    );
                }
                return eval;
            }
            eval
        };
        if !in_check && (features.qs_mate1 || features.qs_drop_mate1) {
            let mate = if features.qs_mate1 {
                let mut all = MoveList::new();
                self.pos.generate(GenKind::All, &mut all);
                self.pos.mate_in_one_among(&all)
            } else {
                self.pos.drop_mate_in_one()
            };
            if let Some(mv) = mate {
                let score = mate_in(ply + 1);
                if PV {
                    self.pv_len[ply + 1] = 0;
                    self.update_pv(ply, mv);
                }
                tt.store(key, mv, to_tt(score, ply), raw_eval, 0, Bound::Exact);
                return score;
            }
        }
        let original_alpha = alpha;
        alpha = alpha.max(stand_pat);
        let mut best_score = stand_pat;
        let mut best_move = Move::NULL;

        let mut picker = self.tactical_picker(tt_move);
        if in_check && picker.is_empty() {
            return mated_in(ply);
        }
        while let Some(Picked { mv, kind, .. }) =
            picker.next(&self.pos, self.heur, &self.shared.params)
        {
            if !in_check {
                // Exchanges that lose material are skipped: the picker keeps them for last.
                if kind == MoveKind::BadTactical {
                    break;
                }
                // Delta pruning.
                if stand_pat + tactical_gain(&self.pos, mv) + self.shared.params.qs_delta_margin
                    <= alpha
                {
                    continue;
                }
                if kind == MoveKind::Tt && !see_ge(&self.pos, mv, 0) {
                    continue;
                }
            }
            self.current_move[ply] = mv;
            let undo = self.make_move(mv);
            let score = -self.qsearch::<PV>(-beta, -alpha, ply + 1);
            self.unmake_move(mv, undo);
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = mv;
                    if PV {
                        self.update_pv(ply, mv);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        let eval = (!in_check).then_some(raw_eval);
        let window = (original_alpha, beta);
        store_result(tt, key, ply, 0, best_move, best_score, window, PV, eval);
        best_score
    }
}
