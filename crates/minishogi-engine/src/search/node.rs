//! The alpha-beta node search of one `Worker`: principal variation search (null windows
//! after the first move, re-searched at full width when they rise above alpha) with the
//! repetition rules and mate distance pruning first, then a TT cut-off, the static evaluation
//! with its correction history, reverse futility pruning, null-move pruning, ProbCut,
//! internal iterative reduction (PV nodes and cut nodes without a TT move), the moves from the
//! staged picker (`movepick`; pruning and reductions ask each move's kind), late-move,
//! history, futility and SEE pruning, singular extensions (with multi-cut and the
//! negative extension), check extensions, late move reductions, and the updates of history,
//! continuation history, capture history, killers, counter-moves and correction history.

use super::heuristics::CorrectionKey;
use super::movepick::{MoveKind, MovePicker, Picked};
use super::ordering::{capture_history_index, continuation_index, is_quiet, see_ge};
use super::params::SearchParams;
use super::score::*;
use super::tt::Bound;
use super::worker::{REP_FILTER, Worker, store_result, tt_cutoff};
use crate::shogi::Move;

impl Worker<'_> {
    pub(super) fn search<const PV: bool>(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        if PV {
            // Before any early return: a parent copies this node's PV whatever it returns.
            self.pv_len[ply] = 0;
        }
        // Repetition first, also for nodes about to drop into quiescence.
        let key = self.pos.key();
        let index = self.root_index + ply;
        self.keys[index] = key;
        if self.rep_filter[key as usize % REP_FILTER] != 0 {
            self.checks[index] = self.pos.in_check();
            if let Some(score) = self.repetition_score(index, ply) {
                return score;
            }
        }
        if depth <= 0 {
            return self.qsearch::<PV>(alpha, beta, ply);
        }
        if self.count_node_and_check() {
            return 0;
        }
        if PV {
            self.seldepth = self.seldepth.max(ply);
        }
        let in_check = self.pos.in_check();
        self.checks[index] = in_check;
        if self.at_ply_limit(ply) {
            return if self.pos.has_legal_move() {
                DRAW
            } else {
                mated_in(ply)
            };
        }
        if ply >= MAX_PLY - 4 {
            return if in_check { DRAW } else { self.evaluate() };
        }
        // Mate distance pruning: no line from here can beat a mate already found nearer.
        alpha = alpha.max(mated_in(ply));
        beta = beta.min(mate_in(ply + 1));
        if alpha >= beta {
            return alpha;
        }
        self.enter_path(key);
        let score = self.search_node::<PV>(alpha, beta, depth, ply, cut_node, key, in_check);
        self.leave_path(key);
        score
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn search_node<const PV: bool>(
        &mut self,
        mut alpha: i32,
        beta: i32,
        mut depth: i32,
        ply: usize,
        cut_node: bool,
        key: u64,
        in_check: bool,
    ) -> i32 {
        let tt = self.shared.tt;
        let features = self.shared.features;
        let shared = self.shared;
        let p: &SearchParams = &shared.params;
        let excluded = self.excluded[ply];
        let singular_search = !excluded.is_null();
        let tt_hit = tt.probe(key);
        let tt_move = tt_hit.map_or(Move::NULL, |e| e.mv);
        if let Some(e) = tt_hit
            && !PV
            && !singular_search
            && let Some(score) = tt_cutoff(&e, depth, ply, alpha, beta)
        {
            return score;
        }

        let raw_eval = if in_check {
            -INFINITE
        } else {
            tt_hit.map_or_else(|| self.evaluate(), |e| e.eval)
        };
        let side = self.pos.side_to_move();
        let previous = self.current_move[ply - 1];
        let previous_piece_square = self.previous_piece_square(previous);
        self.arrival[ply] = previous_piece_square;
        let (correction_key, eval) = if features.correction_history && !in_check {
            let key = self.correction_key(ply);
            (key, self.corrected_eval(raw_eval, key))
        } else {
            (CorrectionKey::default(), raw_eval)
        };
        self.static_eval[ply] = eval;
        let improving = !in_check && ply >= 2 && eval > self.static_eval[ply - 2];

        if !PV && !in_check && features.shallow_pruning && !singular_search {
            // Reverse futility: far above beta at low depth, assume a cut-off.
            let margin = p.rfp_margin * depth - if improving { p.rfp_improving } else { 0 };
            if depth <= p.rfp_max_depth && eval - margin >= beta && !is_decided(beta) {
                return eval;
            }
        }

        if !PV
            && !in_check
            && features.null_move
            && depth >= p.nmp_min_depth
            && eval >= beta
            && !is_decided(beta)
            && ply >= 1
            && !self.current_move[ply - 1].is_null()
            && !singular_search
        {
            let r = p.nmp_base
                + depth / p.nmp_depth_divisor
                + ((eval - beta) / p.nmp_eval_divisor).min(p.nmp_eval_max);
            self.current_move[ply] = Move::NULL;
            let saved_floor = self.scan_floor;
            self.scan_floor = self.root_index + ply + 1;
            self.make_null_move();
            let score = -self.search::<false>(-beta, -beta + 1, depth - r, ply + 1, !cut_node);
            self.unmake_null_move();
            self.scan_floor = saved_floor;
            if self.stopped {
                return 0;
            }
            if score >= beta {
                return if is_decided(score) { beta } else { score };
            }
        }

        // ProbCut: a good capture whose reduced search clears beta by a margin cuts the node.
        if features.probcut
            && !PV
            && !in_check
            && !singular_search
            && depth >= p.probcut_min_depth
            && !is_decided(beta)
        {
            let probcut_beta = beta + p.probcut_margin;
            let table_says_no = tt_hit.is_some_and(|e| {
                e.depth >= depth - 3
                    && e.bound != Bound::Lower
                    && from_tt(e.score, ply) < probcut_beta
            });
            if !table_says_no
                && let Some(score) = self.probcut(probcut_beta, depth, ply, cut_node, eval, tt_move)
            {
                let window = (probcut_beta - 1, probcut_beta);
                let mv = self.current_move[ply];
                store_result(
                    tt,
                    key,
                    ply,
                    depth - 3,
                    mv,
                    score,
                    window,
                    false,
                    Some(raw_eval),
                );
                return score;
            }
            if self.stopped {
                return 0;
            }
        }

        // Without a TT move, a PV node searches a little shallower to find one cheaply.
        if PV && tt_move.is_null() && depth >= p.iid_min_depth {
            depth -= 1;
        }
        // The same at cut nodes: a node the table knows nothing of is rarely worth full depth.
        if features.iir_cut && cut_node && tt_move.is_null() && depth >= p.iir_cut_min_depth {
            depth -= 1;
        }

        let killers = self.heur.killers(ply);
        let counter = if previous.is_null() {
            Move::NULL
        } else {
            self.heur.counter(side, previous)
        };
        let continuation = [
            previous_piece_square.filter(|_| features.cont_history),
            self.arrival[ply - 1].filter(|_| features.follow_up_history),
        ];
        let mut picker = MovePicker::main(
            &self.pos,
            tt_move,
            killers,
            counter,
            continuation,
            features.capture_history,
        );
        if picker.is_empty() {
            // Checkmate, or no legal move at all: either way the side to move loses.
            return mated_in(ply);
        }
        if in_check
            && !singular_search
            && self.check_ext_candidate[ply]
            && picker.count(&self.pos) <= p.check_ext_max_replies as usize
        {
            // A forcing check: few replies, so extending it costs little.
            depth += 1;
        }
        let tt_move_tactical = !tt_move.is_null() && !is_quiet(&self.pos, tt_move);

        let original_alpha = alpha;
        let mut best_score = -INFINITE;
        let mut best_move = Move::NULL;
        let mut move_count = 0usize;
        let mut quiets_tried = [Move::NULL; 64];
        let mut quiet_count = 0usize;
        let mut captures_tried = [0usize; 32];
        let mut capture_count = 0usize;
        let lmp_limit = (p.lmp_base + depth * depth) as usize / if improving { 1 } else { 2 };
        while let Some(Picked {
            mv,
            kind,
            score: order_score,
        }) = picker.next(&self.pos, self.heur, p)
        {
            if mv == excluded {
                continue;
            }
            move_count += 1;
            let quiet = is_quiet(&self.pos, mv);
            let gives_check = self.pos.gives_check(mv);
            let safe_check = gives_check && see_ge(&self.pos, mv, 0);
            // A check that loses material may be treated like any other move.
            let forcing = gives_check && (safe_check || !features.reduce_losing_checks);

            if features.shallow_pruning
                && !PV
                && !in_check
                && !forcing
                && best_score > -RULE_WIN_IN_MAX_PLY
            {
                if quiet {
                    if depth <= p.lmp_max_depth && move_count > lmp_limit {
                        continue;
                    }
                    if features.history_pruning
                        && kind == MoveKind::Quiet
                        && depth <= p.history_prune_max_depth
                        && order_score < -p.history_prune_margin * depth
                    {
                        continue;
                    }
                    if depth <= p.futility_max_depth
                        && eval + p.futility_base + p.futility_margin * depth <= alpha
                    {
                        continue;
                    }
                } else if depth <= p.see_prune_max_depth
                    && !see_ge(&self.pos, mv, -p.see_prune_margin * depth)
                {
                    continue;
                }
            }

            let extend = safe_check
                && features.check_extension
                && (ply as i32) < p.check_ext_ply_factor * self.root_depth;
            let mut singular = false;
            let mut negative_extension = 0;
            if features.singular
                && mv == tt_move
                && !singular_search
                && depth >= p.se_min_depth
                && (p.se_ply_factor == 0 || (ply as i32) < p.se_ply_factor * self.root_depth)
                && let Some(e) = tt_hit
                && matches!(e.bound, Bound::Lower | Bound::Exact)
                && e.depth >= depth - p.se_tt_depth_slack
                && !is_decided(from_tt(e.score, ply))
            {
                let singular_beta = from_tt(e.score, ply) - p.se_margin * depth;
                self.excluded[ply] = mv;
                let score = self.search::<false>(
                    singular_beta - 1,
                    singular_beta,
                    (depth - 1) / 2,
                    ply,
                    cut_node,
                );
                self.excluded[ply] = Move::NULL;
                if self.stopped {
                    return 0;
                }
                if score < singular_beta {
                    singular = true;
                } else if singular_beta >= beta {
                    // Multi-cut: another move also beats beta.
                    return singular_beta;
                } else if features.se_negative && from_tt(e.score, ply) >= beta {
                    // Not singular, and the TT move is expected to fail high anyway.
                    negative_extension = 1;
                }
            }
            // After the singular search, which marks this ply's children for its own moves.
            // A singular move's extension stands for a check's.
            let extension = if singular {
                self.check_extension(ply + 1, false) + 1
            } else {
                self.check_extension(ply + 1, extend)
            };
            let new_depth = depth - 1 + extension - negative_extension;
            self.current_move[ply] = mv;
            let undo = self.make_move(mv);
            tt.prefetch(self.pos.key());

            let mut score;
            let full_depth_null_window;
            if features.lmr
                && depth >= p.lmr_min_depth
                && move_count > 1 + usize::from(PV)
                && quiet
                && (!forcing || features.lmr_safe_checks)
            {
                let mut r = self.lmr[(depth as usize).min(63)][move_count.min(63)] as i32;
                r -= i32::from(forcing);
                r += i32::from(cut_node);
                r -= i32::from(PV) + i32::from(in_check);
                r += i32::from(features.lmr_improving && !improving);
                r += i32::from(features.lmr_tt_tactical && tt_move_tactical);
                if matches!(
                    kind,
                    MoveKind::Tt | MoveKind::Killer | MoveKind::CounterMove
                ) {
                    // A killer or counter-move: a ply less, and at most one more for being
                    // one, not the whole history reach.
                    r -= 1 + p.lmr_history_max_plies.min(1);
                } else {
                    let reach = p.lmr_history_divisor * p.lmr_history_max_plies;
                    r -= order_score.clamp(-reach, reach) / p.lmr_history_divisor;
                }
                let d = (new_depth - r.max(0)).clamp(1, new_depth.max(1));
                score = -self.search::<false>(-alpha - 1, -alpha, d, ply + 1, true);
                full_depth_null_window = score > alpha && d < new_depth;
            } else {
                score = 0;
                full_depth_null_window = !PV || move_count > 1;
            }
            if full_depth_null_window {
                score = -self.search::<false>(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
            }
            if PV && (move_count == 1 || score > alpha) {
                score = -self.search::<true>(-beta, -alpha, new_depth, ply + 1, false);
            }
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
            if quiet && quiet_count < quiets_tried.len() {
                quiets_tried[quiet_count] = mv;
                quiet_count += 1;
            } else if features.capture_history
                && capture_count < captures_tried.len()
                && let Some(i) = capture_history_index(&self.pos, mv)
            {
                captures_tried[capture_count] = i;
                capture_count += 1;
            }
        }

        if best_score == -INFINITE {
            // Every move was pruned (possible only when they all lose): fail low.
            return alpha;
        }
        if best_score >= beta && is_quiet(&self.pos, best_move) {
            let bonus = p.history_bonus(depth);
            self.heur.update_history(side, best_move, bonus);
            for &q in &quiets_tried[..quiet_count] {
                self.heur.update_history(side, q, -bonus);
            }
            let best = continuation_index(&self.pos, best_move);
            for (back, earlier) in continuation.into_iter().enumerate() {
                let Some(earlier) = earlier else { continue };
                self.heur.update_continuation(back, earlier, best, bonus);
                for &q in &quiets_tried[..quiet_count] {
                    let q = continuation_index(&self.pos, q);
                    self.heur.update_continuation(back, earlier, q, -bonus);
                }
            }
            self.heur.record_cutoff(side, ply, best_move, previous);
        }
        if best_score >= beta && features.capture_history {
            let bonus = p.history_bonus(depth);
            if let Some(i) = capture_history_index(&self.pos, best_move) {
                self.heur.update_capture(i, bonus);
            }
            for &i in &captures_tried[..capture_count] {
                self.heur.update_capture(i, -bonus);
            }
        }
        if !singular_search {
            if features.correction_history
                && !in_check
                && (best_move.is_null() || is_quiet(&self.pos, best_move))
                && !is_decided(best_score)
                && !(best_score >= beta && best_score <= eval)
                && !(best_score <= original_alpha && best_score >= eval)
            {
                self.heur
                    .update_correction(side, correction_key, best_score - eval, depth);
            }
            let eval = (!in_check).then_some(raw_eval);
            let window = (original_alpha, beta);
            store_result(tt, key, ply, depth, best_move, best_score, window, PV, eval);
        }
        best_score
    }
}
