//! TEMPORARY STAND-IN, written on branch `usi` only so that the USI protocol compiles and its
//! tests run before the real search is merged. It implements the agreed interface with the
//! least behaviour that lets the protocol be exercised: a plain alpha-beta on material that
//! honours the limits, `stop` and pondering, and a small depth-limited mate search. The real module from branch
//! `search` replaces this whole directory at merge.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::shogi::game::Game;
use crate::shogi::{Move, PieceKind, Position};

/// Static evaluation in centipawns from the side to move's point of view.
pub trait Evaluator: Send + Sync {
    fn evaluate(&self, pos: &Position) -> i32;
}

/// Material balance, board and hands.
pub struct MaterialEvaluator;

impl Evaluator for MaterialEvaluator {
    fn evaluate(&self, pos: &Position) -> i32 {
        let us = pos.side_to_move();
        let mut score = 0;
        for sq in crate::shogi::Square::all() {
            if let Some(piece) = pos.piece_at(sq).filter(|p| p.kind != PieceKind::King) {
                let v = piece.kind.value();
                score += if piece.color == us { v } else { -v };
            }
        }
        for kind in PieceKind::HAND {
            score += kind.value() * i32::from(pos.hand(us).count(kind));
            score -= kind.value() * i32::from(pos.hand(!us).count(kind));
        }
        score
    }
}

pub struct ClockLimits {
    pub remaining: Duration,
    pub increment: Duration,
    pub byoyomi: Duration,
}

pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
    pub clock: Option<ClockLimits>,
    pub infinite: bool,
}

#[derive(Default)]
pub struct SearchControl {
    pub stop: AtomicBool,
    pub ponder: AtomicBool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    pub multipv: u32,
    pub score: Score,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    pub hashfull: u32,
    pub pv: Vec<Move>,
}

pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
}

#[derive(Clone, Debug)]
pub struct SearchOptions {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub max_plies: Option<u32>,
    pub move_overhead: Duration,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            max_plies: None,
            move_overhead: Duration::from_millis(10),
        }
    }
}

pub enum MateResult {
    Mate(Vec<Move>),
    NoMate,
    Timeout,
}

pub struct Searcher {
    options: SearchOptions,
    evaluator: Arc<dyn Evaluator>,
}

impl Searcher {
    pub fn new(options: SearchOptions) -> Searcher {
        Searcher {
            options,
            evaluator: Arc::new(MaterialEvaluator),
        }
    }

    pub fn options_mut(&mut self) -> &mut SearchOptions {
        &mut self.options
    }

    pub fn set_evaluator(&mut self, evaluator: Arc<dyn Evaluator>) {
        self.evaluator = evaluator;
    }

    pub fn clear(&mut self) {}

    /// Iterative-deepening alpha-beta on material, enough to honour every limit, `stop` and
    /// pondering the way the real search will.
    pub fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let mut pos = game.position().clone();
        let budget = limits.movetime.or_else(|| {
            limits.clock.as_ref().map(|c| {
                (c.remaining / 20 + c.increment / 2 + c.byoyomi)
                    .saturating_sub(self.options.move_overhead)
                    .max(Duration::from_millis(1))
            })
        });
        let mut walk = Walk {
            evaluator: &*self.evaluator,
            control,
            started: Instant::now(),
            budget_start: None,
            budget: if limits.infinite { None } else { budget },
            node_limit: limits.nodes,
            nodes: 0,
            aborted: false,
        };
        let mut result = SearchResult {
            best: pos.legal_moves().first().copied(),
            ponder: None,
            score: Score::Cp(0),
            depth: 0,
            nodes: 0,
        };
        for depth in 1..=limits.depth.unwrap_or(64) {
            let mut pv = Vec::new();
            let score = walk.negamax(&mut pos, depth, -INF, INF, &mut pv);
            if walk.aborted || pv.is_empty() {
                break;
            }
            let elapsed = walk.started.elapsed();
            result = SearchResult {
                best: pv.first().copied(),
                ponder: pv.get(1).copied(),
                score: Score::Cp(score),
                depth,
                nodes: walk.nodes,
            };
            on_info(&SearchInfo {
                depth,
                seldepth: depth,
                multipv: 1,
                score: result.score,
                nodes: walk.nodes,
                nps: (walk.nodes as f64 / elapsed.as_secs_f64().max(1e-6)) as u64,
                time_ms: elapsed.as_millis() as u64,
                hashfull: 0,
                pv,
            });
        }
        result.nodes = walk.nodes;
        result
    }

    pub fn mate_search(
        &mut self,
        pos: &Position,
        time: Option<Duration>,
        control: &SearchControl,
    ) -> MateResult {
        const MAX_PLIES: u32 = 7;
        let deadline = time.map(|t| Instant::now() + t);
        let mut pos = pos.clone();
        for plies in (1..=MAX_PLIES).step_by(2) {
            let mut pv = Vec::new();
            match attack(&mut pos, plies, &mut pv, deadline, control) {
                Some(true) => return MateResult::Mate(pv),
                Some(false) => {}
                None => return MateResult::Timeout,
            }
        }
        MateResult::NoMate
    }
}

const INF: i32 = 1_000_000;

struct Walk<'a> {
    evaluator: &'a dyn Evaluator,
    control: &'a SearchControl,
    started: Instant,
    /// When the time budget started: at the start, or at `ponderhit`.
    budget_start: Option<Instant>,
    budget: Option<Duration>,
    node_limit: Option<u64>,
    nodes: u64,
    aborted: bool,
}

impl Walk<'_> {
    fn should_stop(&mut self) -> bool {
        if self.control.stop.load(Ordering::Relaxed)
            || self.node_limit.is_some_and(|n| self.nodes >= n)
        {
            return true;
        }
        if self.control.ponder.load(Ordering::Relaxed) {
            return false;
        }
        let start = *self.budget_start.get_or_insert_with(Instant::now);
        self.budget.is_some_and(|b| start.elapsed() >= b)
    }

    fn negamax(
        &mut self,
        pos: &mut Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        pv: &mut Vec<Move>,
    ) -> i32 {
        self.nodes += 1;
        if self.aborted || self.should_stop() {
            self.aborted = true;
            return 0;
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return -INF + 1;
        }
        if depth == 0 {
            return self.evaluator.evaluate(pos);
        }
        for &mv in moves.iter() {
            let undo = pos.make_move(mv);
            let mut line = Vec::new();
            let score = -self.negamax(pos, depth - 1, -beta, -alpha, &mut line);
            pos.unmake_move(mv, undo);
            if self.aborted {
                return 0;
            }
            if score > alpha {
                alpha = score;
                pv.clear();
                pv.push(mv);
                pv.extend(line);
                if alpha >= beta {
                    break;
                }
            }
        }
        alpha
    }
}

fn out_of_time(deadline: Option<Instant>, control: &SearchControl) -> bool {
    control.stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d)
}

/// Whether the side to move mates within `plies` by checks; `None` when stopped.
fn attack(
    pos: &mut Position,
    plies: u32,
    pv: &mut Vec<Move>,
    deadline: Option<Instant>,
    control: &SearchControl,
) -> Option<bool> {
    if out_of_time(deadline, control) {
        return None;
    }
    for &mv in pos.legal_moves().iter() {
        if !pos.gives_check(mv) {
            continue;
        }
        let undo = pos.make_move(mv);
        let mut line = vec![mv];
        let mated = defend(pos, plies - 1, &mut line, deadline, control);
        pos.unmake_move(mv, undo);
        if mated? {
            *pv = line;
            return Some(true);
        }
    }
    Some(false)
}

fn defend(
    pos: &mut Position,
    plies: u32,
    pv: &mut Vec<Move>,
    deadline: Option<Instant>,
    control: &SearchControl,
) -> Option<bool> {
    let replies = pos.legal_moves();
    if replies.is_empty() {
        return Some(true);
    }
    if plies == 0 {
        return Some(false);
    }
    let mut longest = Vec::new();
    for &mv in replies.iter() {
        let undo = pos.make_move(mv);
        let mut line = vec![mv];
        let mated = attack(pos, plies - 1, &mut line, deadline, control);
        pos.unmake_move(mv, undo);
        if !mated? {
            return Some(false);
        }
        if line.len() > longest.len() {
            longest = line;
        }
    }
    pv.extend(longest);
    Some(true)
}
