//! Iterative deepening (one `Worker`'s loop over depths, MultiPV lines and when to stop after
//! an iteration), aspiration windows around the previous score, the root node (late root moves
//! reduced, each root move's score, selective depth and PV kept for reports and the next
//! iteration) and the main thread's reports: each iteration, and after a second the move being
//! searched and a failed aspiration window's bound.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use super::ordering::is_quiet;
use super::params::SearchParams;
use super::score::*;
use super::shared::ThreadBest;
use super::threads::skip_depth;
use super::worker::{Worker, store_result};
use super::{ScoreBound, SearchEvent, SearchInfo};
use crate::shogi::Move;

/// After this long, the main thread also reports the root move it is searching and the bound of
/// a failed aspiration window, as GUIs show them during long searches.
const DETAILED_REPORTS_AFTER: Duration = Duration::from_secs(1);

impl Worker<'_> {
    // ---- iterative deepening ----------------------------------------------------------------

    pub(super) fn iterate(&mut self) {
        let limits = self.shared.limits;
        let max_depth = limits
            .depth
            .map_or(MAX_DEPTH, |d| (d as i32).clamp(1, MAX_DEPTH));
        let multipv = if self.id == 0 {
            self.shared.multipv.min(self.root_moves.len())
        } else {
            1
        };
        let mut last_reported = Move::NULL;
        for depth in 1..=max_depth {
            if self.id > 0 && self.shared.features.helper_depth_skip && skip_depth(self.id, depth) {
                continue;
            }
            self.root_depth = depth;
            self.best_move_changes *= 0.5;
            for rm in &mut self.root_moves {
                rm.previous_score = rm.score;
            }
            for pv_index in 0..multipv {
                self.pv_index = pv_index;
                self.seldepth = 0;
                self.aspiration(depth);
                self.root_moves[..=pv_index].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                if self.stopped {
                    break;
                }
            }
            if self.stopped {
                break;
            }
            self.completed_depth = depth;
            if self.id != 0 {
                *self.shared.best[self.id].lock().expect("thread best") = Some(self.thread_best());
                continue;
            }
            if self.shared.skill.is_some() {
                self.skill_candidates = self.root_moves[..multipv].to_vec();
            }
            self.report(depth, multipv, ScoreBound::Exact);
            last_reported = self.root_moves[0].mv;
            if self.finished_after_iteration(depth) {
                break;
            }
            // A stop that arrived during depth 1 was deferred until now.
            self.poll();
            if self.stopped {
                break;
            }
        }
        // (A weakened level choosing among candidates plays from the last completed iteration.)
        let plays_root_best = self.shared.skill.is_none() || multipv == 1;
        if self.id == 0
            && plays_root_best
            && self.root_moves[0].mv != last_reported
            && self.completed_depth > 0
        {
            // An interrupted iteration found a better move: say so before bestmove.
            self.report(self.completed_depth, 1, ScoreBound::Exact);
        }
    }

    /// This thread's best root move at its last completed depth, for the vote.
    pub(super) fn thread_best(&self) -> ThreadBest {
        let best = &self.root_moves[0];
        ThreadBest {
            mv: best.mv,
            score: best.score,
            depth: self.completed_depth,
            pv: best.pv.clone(),
        }
    }

    pub(super) fn aspiration(&mut self, depth: i32) {
        let p: &SearchParams = &self.shared.params;
        let previous = self.root_moves[self.pv_index].previous_score;
        let mut delta = p.aspiration_delta
            + if p.aspiration_score_divisor > 0 {
                previous.abs().min(MATE_IN_MAX_PLY) / p.aspiration_score_divisor
            } else {
                0
            };
        let (mut alpha, mut beta) = if depth >= p.aspiration_min_depth && !is_decided(previous) {
            (
                (previous - delta).max(-INFINITE),
                (previous + delta).min(INFINITE),
            )
        } else {
            (-INFINITE, INFINITE)
        };
        loop {
            let score = self.search_root(alpha, beta, depth);
            self.root_moves[self.pv_index..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            if self.stopped {
                return;
            }
            if (score <= alpha || score >= beta) && self.shared.multipv == 1 && self.detailed() {
                let bound = if score <= alpha {
                    ScoreBound::Upper
                } else {
                    ScoreBound::Lower
                };
                self.report(depth, 1, bound);
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITE);
            } else if score >= beta {
                beta = (score + delta).min(INFINITE);
            } else {
                return;
            }
            delta += delta / 2;
            if delta > p.aspiration_max_delta {
                alpha = -INFINITE;
                beta = INFINITE;
            }
        }
    }

    fn finished_after_iteration(&mut self, depth: i32) -> bool {
        let control = self.shared.control;
        let limits = self.shared.limits;
        if limits.infinite || control.ponder.load(Relaxed) {
            return false;
        }
        if let Some(soft) = limits.soft_nodes {
            self.shared.nodes[self.id].store(self.nodes, Relaxed);
            let total = self.shared.total_nodes();
            if total >= soft {
                return true;
            }
            let [before_last, last] = self.iteration_ends;
            self.iteration_ends = [last, total];
            if limits.soft_nodes_predicted && depth >= 2 {
                // Iterations grow by a roughly steady factor: the next costs the last one
                // times the last growth (bounded, as the first depths are noisy).
                let cost = (total - last) as f64;
                let growth = (cost / (last - before_last).max(1) as f64).clamp(1.0, 4.0);
                if total as f64 + cost * growth > soft as f64 {
                    return true;
                }
            }
        }
        let Some(time) = &mut self.time else {
            return false;
        };
        if time.budget.is_none() {
            return false;
        }
        let best = self.root_moves[0].score;
        let only_move = self.root_moves.len() == 1;
        // A mate seen with plenty of depth to spare will not change. (`movetime` asks for
        // exactly that long, so it is not cut short.)
        let mate_settled = best.abs() >= MATE_IN_MAX_PLY && depth >= 2 * (MATE - best.abs()) + 4;
        if (only_move || mate_settled) && limits.movetime.is_none() && time.counting(control) {
            return true;
        }
        let instability = 1.0 + self.best_move_changes;
        time.stop_after_iteration(control, instability)
    }

    /// Whether the main thread is far enough into the search for per-move details.
    fn detailed(&self) -> bool {
        self.time
            .as_ref()
            .is_some_and(|t| t.search_start.elapsed() >= DETAILED_REPORTS_AFTER)
    }

    pub(super) fn report(&mut self, depth: i32, lines: usize, bound: ScoreBound) {
        if self.reporter.is_none() {
            return;
        }
        let shared = self.shared;
        shared.nodes[self.id].store(self.nodes, Relaxed);
        let nodes = shared.total_nodes();
        let elapsed = self
            .time
            .as_ref()
            .map_or(Duration::ZERO, |t| t.search_start.elapsed());
        let time_ms = elapsed.as_millis() as u64;
        let nps = (nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64;
        let hashfull = shared.tt.hashfull();
        for (i, rm) in self.root_moves.iter().take(lines).enumerate() {
            let event = SearchEvent::Iteration(SearchInfo {
                depth: depth as u32,
                seldepth: rm.seldepth.max(depth as usize) as u32,
                multipv: i as u32 + 1,
                score: to_public(rm.score),
                nodes,
                nps,
                time_ms,
                hashfull,
                bound,
                pv: rm.pv.clone(),
            });
            if let Some(report) = self.reporter.as_mut() {
                report(&event);
            }
        }
    }

    fn report_current_move(&mut self, mv: Move, number: usize) {
        let (Some(report), Some(time)) = (self.reporter.as_mut(), &self.time) else {
            return;
        };
        report(&SearchEvent::CurrentMove {
            depth: self.root_depth as u32,
            mv,
            number: number as u32,
            nodes: self.shared.total_nodes(),
            time_ms: time.search_start.elapsed().as_millis() as u64,
        });
    }

    // ---- root ---------------------------------------------------------------------------------

    fn search_root(&mut self, mut alpha: i32, beta: i32, depth: i32) -> i32 {
        let key = self.pos.key();
        let in_check = self.pos.in_check();
        self.keys[self.root_index] = key;
        self.checks[self.root_index] = in_check;
        self.pv_len[0] = 0;
        self.enter_path(key);
        let mut best = -INFINITE;
        let mut best_move = Move::NULL;
        let original_alpha = alpha;
        for i in self.pv_index..self.root_moves.len() {
            let mv = self.root_moves[i].mv;
            let first = i == self.pv_index;
            let quiet = is_quiet(&self.pos, mv);
            if self.id == 0 && self.detailed() {
                self.report_current_move(mv, i + 1);
            }
            self.current_move[0] = mv;
            self.seldepth = self.seldepth.max(1);
            let undo = self.make_move(mv);
            let gives_check = self.pos.in_check();
            let extend = gives_check && self.shared.features.check_extension;
            let new_depth = depth - 1 + self.check_extension(1, extend);
            let mut score;
            // Whether the child's PV is this move's: only a PV search writes one.
            let mut pv_searched = first;
            if first {
                score = -self.search::<true>(-beta, -alpha, new_depth, 1, false);
            } else {
                let reduce = self.shared.features.lmr
                    && depth >= self.shared.params.lmr_min_depth
                    && i >= self.pv_index + self.shared.params.root_lmr_index as usize
                    && quiet
                    && !gives_check
                    && !in_check;
                let r = if !reduce {
                    0
                } else if self.shared.features.root_lmr_table {
                    let number = (i - self.pv_index + 1).min(63);
                    (self.lmr[(depth as usize).min(63)][number] as i32).max(1)
                } else {
                    1
                };
                let d = (new_depth - r).max(1).min(new_depth);
                score = -self.search::<false>(-alpha - 1, -alpha, d, 1, true);
                if score > alpha && d < new_depth {
                    score = -self.search::<false>(-alpha - 1, -alpha, new_depth, 1, true);
                }
                if score > alpha && score < beta {
                    score = -self.search::<true>(-beta, -alpha, new_depth, 1, false);
                    pv_searched = true;
                }
            }
            self.unmake_move(mv, undo);
            if self.stopped {
                break;
            }
            let improved = score > alpha;
            if first || improved {
                // A null-window fail high above beta leaves the move alone in its line.
                let child_len = if pv_searched { self.pv_len[1] } else { 0 };
                let rm = &mut self.root_moves[i];
                rm.score = score;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(mv);
                rm.pv.extend_from_slice(&self.pv[1][..child_len]);
                if !first && self.pv_index == 0 {
                    self.best_move_changes += 1.0;
                }
            } else {
                self.root_moves[i].score = -INFINITE;
            }
            if score > best {
                best = score;
            }
            if improved {
                best_move = mv;
                alpha = score;
                if score >= beta {
                    break;
                }
            }
        }
        self.leave_path(key);
        if !self.stopped && self.pv_index == 0 {
            let eval = (!in_check).then(|| self.evaluate());
            let tt = self.shared.tt;
            store_result(
                tt,
                key,
                0,
                depth,
                best_move,
                best,
                (original_alpha, beta),
                true,
                eval,
            );
        }
        best
    }
}
