//! The quantised network's state along one search path: each ply's inputs and accumulators,
//! computed lazily from the nearest ancestor that has them.

use super::{QuantNet, Scratch, perspective};
use crate::eval::{PathState, cp_from_logit};
use crate::nn::feature_set::Features;
use crate::shogi::{Color, Move, Position};

/// One ply of the path: its position, and once computed its sente-perspective inputs (needed
/// only where an accumulator is refreshed), the inputs that changed from
/// its parent's (the same for both perspectives, so found once), and each perspective's
/// accumulator.
#[derive(Clone)]
struct PathEntry {
    pos: Position,
    features: Features,
    has_features: bool,
    changes: Vec<(u16, i32)>,
    has_changes: bool,
    acc: [Vec<i32>; 2],
    computed: [bool; 2],
}

impl PathEntry {
    fn new(net: &QuantNet, pos: &Position) -> PathEntry {
        PathEntry {
            pos: pos.clone(),
            features: Features::for_set(net.feature_set()),
            has_features: false,
            changes: Vec::with_capacity(2 * net.feature_set().max_active()),
            has_changes: false,
            acc: [vec![0; net.width()], vec![0; net.width()]],
            computed: [false; 2],
        }
    }
}

/// The search's evaluation state along one thread's path (see [`crate::eval::PathState`]).
/// Each perspective's accumulator is computed lazily, when an evaluation needs it: from the
/// nearest ancestor where it was computed, replaying the plies between. Nodes that skip their
/// evaluation (table hits) thereby cost their children no refresh, and a leaf pays only for
/// the side to move's accumulator.
pub struct QuantPathState<'a> {
    net: &'a QuantNet,
    stack: Vec<PathEntry>,
    top: usize,
    scratch: Scratch,
    /// One perspective's rows of a ply's changes (`QuantNet::rows_changed`).
    rows: Vec<(u16, i32)>,
}

impl<'a> QuantPathState<'a> {
    pub fn new(net: &'a QuantNet, root: &Position) -> QuantPathState<'a> {
        QuantPathState {
            net,
            stack: vec![PathEntry::new(net, root)],
            top: 0,
            scratch: net.scratch(),
            rows: Vec::with_capacity(2 * net.feature_set().max_active()),
        }
    }

    fn push(&mut self, pos: &Position) {
        self.top += 1;
        if self.top == self.stack.len() {
            self.stack.push(PathEntry::new(self.net, pos));
        } else {
            let entry = &mut self.stack[self.top];
            entry.pos.clone_from(pos);
            entry.has_features = false;
            entry.has_changes = false;
            entry.computed = [false; 2];
        }
    }

    fn pop(&mut self) {
        self.top = self.top.saturating_sub(1);
    }

    fn features_at(&mut self, ply: usize) {
        let entry = &mut self.stack[ply];
        if !entry.has_features {
            entry.features.extract_perspective(&entry.pos, Color::Sente);
            entry.has_features = true;
        }
    }

    /// Brings the current ply's accumulator of perspective `p` up to date.
    fn compute(&mut self, p: usize) {
        let mut from = self.top;
        while from > 0 && !self.stack[from].computed[p] {
            from -= 1;
        }
        if !self.stack[from].computed[p] {
            self.features_at(from);
            let entry = &mut self.stack[from];
            self.net.refresh(&entry.features, p, &mut entry.acc[p]);
            entry.computed[p] = true;
        }
        // A move's changed inputs are found from the two positions (what the move touched),
        // once for both perspectives, the king-piece set's pieces too. Always an update: even
        // a king move (its block's ≤ 24 changes) changes fewer inputs than a refresh adds.
        let set = self.net.feature_set();
        for ply in from + 1..=self.top {
            let (before, rest) = self.stack.split_at_mut(ply);
            let (parent, entry) = (&before[ply - 1], &mut rest[0]);
            if !entry.has_changes {
                set.changes(&parent.pos, &entry.pos, &mut entry.changes);
                entry.has_changes = true;
            }
            self.net.rows_changed(p, &entry.changes, &mut self.rows);
            self.net
                .apply_changes(&self.rows, &parent.acc[p], &mut entry.acc[p]);
            entry.computed[p] = true;
        }
    }

    /// Output logit of the path's current position.
    pub fn logit(&mut self) -> f32 {
        let p = perspective(self.stack[self.top].pos.side_to_move());
        self.compute(p);
        self.net
            .output(&self.stack[self.top].acc[p], &mut self.scratch)
    }

    /// The current ply's accumulator for perspective `p`, computing it if needed (tests).
    pub fn accumulator(&mut self, p: usize) -> &[i32] {
        self.compute(p);
        &self.stack[self.top].acc[p]
    }
}

impl PathState for QuantPathState<'_> {
    fn on_make(&mut self, pos: &Position, _mv: Move) {
        self.push(pos);
    }

    fn on_unmake(&mut self, _pos: &Position, _mv: Move) {
        self.pop();
    }

    fn on_null_move(&mut self, pos: &Position, null: bool) {
        // The inputs do not change; the child's update finds nothing to add.
        if null {
            self.push(pos);
        } else {
            self.pop();
        }
    }

    fn evaluate_cp(&mut self, pos: &Position) -> i32 {
        debug_assert_eq!(pos.key(), self.stack[self.top].pos.key());
        cp_from_logit(self.logit())
    }
}
