//! A puzzle made of a candidate position, by lichess-puzzler's rules, and checked again.
//!
//! - **Mate**: the shortest mate over all moves, `N` ≤ [`MAX_MATE_MOVES`], proven by the
//!   full-width prover ([`prove`]); at each of the solver's moves but the last, the solution is
//!   the only move that mates within the moves left (every other move proven not to); the
//!   last may be one of several mates in one (the board takes any). The defender's reply is
//!   one of those that hold out longest (proven: no shorter mate after it), the one the search
//!   prefers among them.
//! - **Advantage**: the search (MultiPV 2) finds a first move that wins — at least
//!   [`WINNING`] on the fitted curve (`eval::win_probability_of_cp`) — and the second best at
//!   least [`UNIQUE_GAP`] below it. The line goes on while the solver's move stays that clear
//!   (the defender's replies the search's best), up to `advantage_moves`; it ends when the
//!   advantage is won: no single move stands out any more.
//!
//! The themes and the difficulty come from the line and from how many nodes the search needs
//! to find the first move ([`DIFFICULTY_NODES`]). [`recheck`] checks a finished puzzle again
//! with smaller budgets: what `tests/puzzles.rs` runs over the shipped file, and what the
//! generator asks of every puzzle before keeping it.

use std::sync::Arc;

use crate::eval::{Evaluator, material_balance, win_probability_of_cp};
use crate::players::{ALPHABETA, new_player};
use crate::search::{
    Limits, MateMemory, Score, SearchControl, SearchEvent, SearchInfo, SearchOptions, mate_within,
};
use crate::shogi::{Game, Move, Position};

use super::file::{Kind, Puzzle};
use super::prove::{MAX_MATE_MOVES, OutOfBudget, Proof, Prover, captured};
use super::sources::SWING_AFTER;

/// An advantage puzzle's solver move wins at least this often (the swing's end, the same).
pub const WINNING: f32 = SWING_AFTER;
/// …and the second best move wins this much less (lichess-puzzler's 0.7 on its −1…1 scale).
pub const UNIQUE_GAP: f32 = 0.35;
/// The recheck's weaker demands at its smaller budget: the first move wins at least this often…
pub const RECHECK_WINNING: f32 = 0.75;
/// …and every solver move is this far ahead of the best other move.
pub const RECHECK_GAP: f32 = 0.20;
/// The solver is down this much material (both sides' pieces on the board and in hand at their
/// `PieceKind::value`, the engine's `material_balance`) after one of the defender's replies,
/// compared with the start: a sacrifice. (Losing a pawn counts 200: one for each side.)
pub const SACRIFICE: i32 = 300;
/// At least this many pieces in hand (both sides): an endgame (a minishogi endgame is a drop
/// fight); fewer, a middlegame.
pub const ENDGAME_IN_HAND: u32 = 4;
/// The search's nodes before it settles on the first move, at most: difficulty 1, 2, 3, 4;
/// beyond (or never, within the budget), 5.
pub const DIFFICULTY_NODES: [u64; 4] = [500, 3_000, 15_000, 60_000];

/// The budgets of making a puzzle.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Each search (MultiPV 2 at the solver's moves, the defender's replies, the difficulty).
    pub nodes: u64,
    /// The longest mate looked for, in the solver's moves.
    pub mate_moves: u32,
    /// The prover's budget for one puzzle, all its proofs together.
    pub prove_nodes: u64,
    /// The most solver moves of an advantage puzzle.
    pub advantage_moves: u32,
    /// Each search's table, MiB.
    pub hash_mb: usize,
    pub recheck: RecheckSettings,
}

/// The recheck's smaller budgets.
#[derive(Clone, Debug)]
pub struct RecheckSettings {
    /// Each search.
    pub nodes: u64,
    /// The prover, for each puzzle: mates proven (the stated length), and the negative checks
    /// (no other mate, no shorter one) as far as it goes.
    pub prove_nodes: u64,
    pub hash_mb: usize,
}

impl Default for RecheckSettings {
    fn default() -> RecheckSettings {
        RecheckSettings {
            nodes: 4_000,
            prove_nodes: 200_000,
            hash_mb: 4,
        }
    }
}

/// Why a candidate made no puzzle.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rejection {
    /// No mate within the moves allowed.
    NoMate,
    /// The prover's budget ran out.
    Budget,
    /// Another move mates as fast (at this ply of the line).
    NotUnique,
    /// The best move does not win clearly enough.
    NotWinning,
    /// The second best move is too close.
    NotClearlyBest,
    /// The win ends in a stalemate (no legal move, not in check: a loss too), not a mate.
    Stalemate,
    /// The recheck failed (its reason).
    Recheck(String),
    /// The proofs contradict each other (a bug: never seen).
    Inconsistent(&'static str),
}

impl Rejection {
    pub fn name(&self) -> &'static str {
        match self {
            Rejection::NoMate => "no mate within the moves",
            Rejection::Budget => "prover's budget",
            Rejection::NotUnique => "another move mates as fast",
            Rejection::NotWinning => "no winning move",
            Rejection::NotClearlyBest => "second best too close",
            Rejection::Stalemate => "a stalemate, not a mate",
            Rejection::Recheck(_) => "recheck",
            Rejection::Inconsistent(_) => "inconsistent proofs",
        }
    }
}

/// A puzzle made, before it gets its id.
#[derive(Clone, Debug)]
pub struct Made {
    pub puzzle: Puzzle,
    /// Other mates in one at the last move (the board takes them too).
    pub last_alternatives: usize,
    /// The search's nodes to settle on the first move (`None`: not within the budget).
    pub nodes_to_find: Option<u64>,
    /// How long its recheck took (what `tests/puzzles.rs` will spend on it).
    pub recheck_time: std::time::Duration,
}

/// The win probability of a score for the side to move: mates are certain.
pub fn win_of(score: Score) -> f32 {
    match score {
        Score::Mate(n) if n > 0 => 1.0,
        Score::Mate(_) => 0.0,
        Score::Cp(cp) => win_probability_of_cp(cp as f32),
    }
}

/// One search's outcome.
struct Searched {
    /// The last complete set of lines, best first.
    lines: Vec<SearchInfo>,
    /// Line 1 as each report had it: nodes so far and its first move.
    firsts: Vec<(u64, Move)>,
    best: Option<Move>,
}

/// A search of `pos` alone (no history) by a fresh single-threaded searcher at a node limit:
/// its result depends only on the position and the settings.
fn search(
    pos: &Position,
    evaluator: &Arc<dyn Evaluator>,
    nodes: u64,
    multipv: usize,
    searchmoves: &[Move],
    hash_mb: usize,
) -> Searched {
    let options = SearchOptions {
        hash_mb,
        threads: 1,
        multipv,
        ..SearchOptions::default()
    };
    let mut player = new_player(ALPHABETA, options).expect("the default search is known");
    player.set_evaluator(evaluator.clone());
    let limits = Limits {
        nodes: Some(nodes),
        searchmoves: searchmoves.to_vec(),
        ..Limits::default()
    };
    let roots = if searchmoves.is_empty() {
        pos.legal_moves().len()
    } else {
        searchmoves.len()
    };
    let expected = multipv.min(roots);
    let mut current: Vec<SearchInfo> = Vec::new();
    let mut lines: Vec<SearchInfo> = Vec::new();
    let mut firsts = Vec::new();
    let game = Game::new(pos.clone());
    let result = player.search(&game, &limits, &SearchControl::default(), &mut |event| {
        let SearchEvent::Iteration(info) = event else {
            return;
        };
        if info.pv.is_empty() {
            return;
        }
        if info.multipv == 1 {
            firsts.push((info.nodes, info.pv[0]));
            current.clear();
        }
        if info.bound != crate::search::ScoreBound::Exact {
            return;
        }
        current.push(info.clone());
        if current.len() == expected {
            lines = std::mem::take(&mut current);
        }
    });
    lines.sort_by(|a, b| win_of(b.score).total_cmp(&win_of(a.score)));
    Searched {
        lines,
        firsts,
        best: result.best,
    }
}

/// The nodes the search needed to settle on a move `good` says is the solution: from the
/// report where line 1 began with it and never changed after, if its answer is one.
fn nodes_to_find(searched: &Searched, good: impl Fn(Move) -> bool) -> Option<u64> {
    if !searched.best.is_some_and(&good) {
        return None;
    }
    let mut since = None;
    for &(nodes, mv) in &searched.firsts {
        if good(mv) {
            since.get_or_insert(nodes);
        } else {
            since = None;
        }
    }
    Some(since.unwrap_or(0))
}

pub fn difficulty(nodes: Option<u64>) -> u8 {
    match nodes {
        None => 5,
        Some(n) => 1 + DIFFICULTY_NODES.iter().filter(|&&t| n > t).count() as u8,
    }
}

/// A mate line: the moves, the mate's length, the other mates in one at the end.
struct MateLine {
    moves: Vec<Move>,
    mate: u32,
    last_alternatives: usize,
}

fn mate_line(
    pos: &Position,
    evaluator: &Arc<dyn Evaluator>,
    settings: &Settings,
) -> Result<MateLine, Rejection> {
    let mut prover = Prover::new(settings.prove_nodes);
    let max = settings.mate_moves.min(MAX_MATE_MOVES);
    let n = match prover.shortest_mate(pos, max) {
        Ok(Some(n)) => n,
        Ok(None) => return Err(Rejection::NoMate),
        Err(OutOfBudget) => return Err(Rejection::Budget),
    };
    let mut cur = pos.clone();
    let mut moves = Vec::new();
    let mut last_alternatives = 0;
    for left in (1..=n).rev() {
        let mating = prover
            .mating_moves(&cur, left)
            .map_err(|OutOfBudget| Rejection::Budget)?;
        if mating.is_empty() {
            return Err(Rejection::Inconsistent(
                "no mating move where one was proven",
            ));
        }
        if left > 1 && mating.len() > 1 {
            return Err(Rejection::NotUnique);
        }
        // The last move: a mate (another move may win by stalemate, which is no mate).
        let Some(&mv) = mating
            .iter()
            .find(|&&m| left > 1 || cur.after(m).is_checkmate())
        else {
            return Err(Rejection::Stalemate);
        };
        if left == 1 {
            last_alternatives = mating.len() - 1;
        }
        moves.push(mv);
        cur.make_move(mv);
        if left == 1 {
            break;
        }
        // The replies that hold out longest: after them no mate shorter than `left - 1`.
        let mut longest = Vec::new();
        for reply in cur.legal_moves().iter().copied() {
            match prover.mates_within(&cur.after(reply), left - 2) {
                Proof::No => longest.push(reply),
                Proof::Yes => {}
                Proof::Unknown => return Err(Rejection::Budget),
            }
        }
        let reply = match longest.as_slice() {
            [] => return Err(Rejection::Inconsistent("a shorter mate than the shortest")),
            [only] => *only,
            several => search(
                &cur,
                evaluator,
                settings.nodes,
                1,
                several,
                settings.hash_mb,
            )
            .best
            .filter(|m| several.contains(m))
            .unwrap_or(several[0]),
        };
        moves.push(reply);
        cur.make_move(reply);
    }
    Ok(MateLine {
        moves,
        mate: n,
        last_alternatives,
    })
}

/// An advantage line, or why none: the solver's first move clear, then on while it stays so.
fn advantage_line(
    pos: &Position,
    evaluator: &Arc<dyn Evaluator>,
    settings: &Settings,
) -> Result<Vec<Move>, Rejection> {
    let mut line = Vec::new();
    let mut cur = pos.clone();
    for i in 0..settings.advantage_moves.max(1) {
        let searched = search(&cur, evaluator, settings.nodes, 2, &[], settings.hash_mb);
        let Some(best) = searched.lines.first() else {
            break;
        };
        let mate = matches!(best.score, Score::Mate(n) if n > 0);
        let win = win_of(best.score);
        let second = searched.lines.get(1).map_or(0.0, |l| win_of(l.score));
        let clear = !mate && win >= WINNING && win - second >= UNIQUE_GAP;
        if !clear {
            if i > 0 {
                break;
            }
            return Err(if mate {
                // A mate: the mate's rules judge it, not these.
                Rejection::NoMate
            } else if win < WINNING {
                Rejection::NotWinning
            } else {
                Rejection::NotClearlyBest
            });
        }
        let mv = best.pv[0];
        line.push(mv);
        cur.make_move(mv);
        if i + 1 == settings.advantage_moves || !cur.has_legal_move() {
            break;
        }
        let Some(reply) = search(&cur, evaluator, settings.nodes, 1, &[], settings.hash_mb).best
        else {
            break;
        };
        line.push(reply);
        cur.make_move(reply);
    }
    if line.len() % 2 == 0 {
        line.pop();
    }
    Ok(line)
}

/// The themes of a line (camelCase, sorted); `tsume` as [`is_tsume`] says.
pub fn themes(
    pos: &Position,
    moves: &[Move],
    kind: Kind,
    mate: Option<u32>,
    tsume: bool,
) -> Vec<String> {
    let mut themes: Vec<&str> = Vec::new();
    let solver_moves = moves.len().div_ceil(2);
    let start_material = material_balance(pos, 0);
    let in_hand = |p: &Position| -> u32 {
        crate::shogi::Color::ALL
            .iter()
            .flat_map(|&c| crate::shogi::PieceKind::HAND.map(|k| u32::from(p.hand(c).count(k))))
            .sum()
    };
    let (mut any_check, mut drop, mut promotion, mut capture, mut sacrifice) =
        (false, false, false, false, false);
    let mut cur = pos.clone();
    for (i, &mv) in moves.iter().enumerate() {
        if i % 2 == 0 {
            any_check |= cur.gives_check(mv);
            drop |= mv.is_drop();
            promotion |= mv.is_promotion();
            capture |= captured(&cur, mv).is_some();
        }
        cur.make_move(mv);
        if i % 2 == 1 && material_balance(&cur, 0) <= start_material - SACRIFICE {
            sacrifice = true;
        }
    }
    let mate_theme;
    match kind {
        Kind::Mate => {
            let n = mate.unwrap_or(0);
            mate_theme = format!("mateIn{n}");
            themes.push("mate");
            themes.push(&mate_theme);
            if tsume {
                themes.push("tsume");
            }
        }
        Kind::Advantage => {
            themes.push("advantage");
            let first = moves[0];
            if any_check {
                themes.push("kingAttack");
            }
            if !pos.gives_check(first)
                && captured(pos, first).is_none()
                && !first.is_promotion()
                && !first.is_drop()
            {
                themes.push("quietMove");
            }
        }
    }
    if drop {
        themes.push("drop");
    }
    if promotion {
        themes.push("promotion");
    }
    if capture {
        themes.push("capture");
    }
    if sacrifice {
        themes.push("sacrifice");
    }
    themes.push(match solver_moves {
        1 => "oneMove",
        2 => "short",
        3 => "long",
        _ => "veryLong",
    });
    themes.push(if in_hand(pos) >= ENDGAME_IN_HAND {
        "endgame"
    } else {
        "middlegame"
    });
    let mut themes: Vec<String> = themes.into_iter().map(str::to_string).collect();
    themes.sort();
    themes
}

/// Whether a mate is a tsume (詰将棋's rule): every solver move gives check, and the engine's
/// mate solver, which tries checks only, proves the mate at its length within `budget` nodes —
/// checks suffice against every defence, not only against the line's.
pub fn is_tsume(pos: &Position, moves: &[Move], budget: u64) -> bool {
    let mut cur = pos.clone();
    for (i, &mv) in moves.iter().enumerate() {
        if i % 2 == 0 && !cur.gives_check(mv) {
            return false;
        }
        cur.make_move(mv);
    }
    let mut memory = MateMemory::new(16);
    mate_within(pos, [], &mut memory, moves.len() as u32, budget)
        .is_some_and(|line| line.len() == moves.len())
}

/// Makes a puzzle of `pos` (the solver to move): a mate if `mate_first` or if the search
/// finds one, else an advantage; the puzzle's id is left empty.
pub fn make(
    pos: &Position,
    mate_first: bool,
    source: &str,
    evaluator: &Arc<dyn Evaluator>,
    settings: &Settings,
) -> Result<Made, Rejection> {
    let (kind, moves, mate, last_alternatives) = if mate_first {
        let line = mate_line(pos, evaluator, settings)?;
        (
            Kind::Mate,
            line.moves,
            Some(line.mate),
            line.last_alternatives,
        )
    } else {
        match advantage_line(pos, evaluator, settings) {
            Ok(line) => (Kind::Advantage, line, None, 0),
            Err(Rejection::NoMate) => {
                let line = mate_line(pos, evaluator, settings)?;
                (
                    Kind::Mate,
                    line.moves,
                    Some(line.mate),
                    line.last_alternatives,
                )
            }
            Err(e) => return Err(e),
        }
    };
    let tsume = kind == Kind::Mate && is_tsume(pos, &moves, settings.recheck.prove_nodes);
    let themes = themes(pos, &moves, kind, mate, tsume);
    let searched = search(pos, evaluator, settings.nodes, 1, &[], settings.hash_mb);
    let first = moves[0];
    let nodes = if kind == Kind::Mate && mate == Some(1) {
        nodes_to_find(&searched, |m| pos.after(m).is_checkmate())
    } else {
        nodes_to_find(&searched, |m| m == first)
    };
    let puzzle = Puzzle {
        id: String::new(),
        sfen: pos.to_sfen(),
        moves: moves.iter().map(|m| m.to_string()).collect(),
        kind,
        mate,
        tsume: mate.map(|_| tsume),
        themes,
        difficulty: difficulty(nodes),
        source: source.to_string(),
    };
    let start = std::time::Instant::now();
    recheck(&puzzle, evaluator, &settings.recheck)
        .map_err(|e| Rejection::Recheck(format!("{e} (the line: {})", puzzle.moves.join(" "))))?;
    Ok(Made {
        puzzle,
        last_alternatives,
        nodes_to_find: nodes,
        recheck_time: start.elapsed(),
    })
}

/// A puzzle's position and moves, read and played by the rules: the position, then the
/// moves (each legal where it is played).
pub fn replay(puzzle: &Puzzle) -> Result<(Position, Vec<Move>), String> {
    let pos = Position::from_sfen(&puzzle.sfen).map_err(|e| format!("sfen: {e}"))?;
    let mut cur = pos.clone();
    let mut moves = Vec::new();
    for text in &puzzle.moves {
        let mv = cur
            .parse_usi_move(text)
            .map_err(|e| format!("move {text}: {e}"))?;
        if !cur.is_legal(mv) {
            return Err(format!("move {text} is not legal in {}", cur.to_sfen()));
        }
        cur.make_move(mv);
        moves.push(mv);
    }
    Ok((pos, moves))
}

/// Checks a puzzle again, with smaller budgets than it was made with: its fields, the line by
/// the rules, its themes; a mate proven at the stated length (the engine's mate solver for a
/// tsume, the prover otherwise), no shorter mate and no other mating move, no longer defence,
/// as far as the budget finds; an advantage's moves each ahead of every other move by
/// [`RECHECK_GAP`] at the recheck's node count.
pub fn recheck(
    puzzle: &Puzzle,
    evaluator: &Arc<dyn Evaluator>,
    settings: &RecheckSettings,
) -> Result<(), String> {
    let (pos, moves) = replay(puzzle)?;
    if moves.len() % 2 == 0 {
        return Err(format!(
            "{} moves: the line must end with the solver's",
            moves.len()
        ));
    }
    if !(1..=5).contains(&puzzle.difficulty) {
        return Err(format!("difficulty {} is not 1 to 5", puzzle.difficulty));
    }
    let tsume = puzzle.kind == Kind::Mate && is_tsume(&pos, &moves, settings.prove_nodes);
    let themes = themes(&pos, &moves, puzzle.kind, puzzle.mate, tsume);
    if themes != puzzle.themes {
        return Err(format!("themes {:?}, not {:?}", puzzle.themes, themes));
    }
    match puzzle.kind {
        Kind::Mate => recheck_mate(puzzle, &pos, &moves, tsume, settings),
        Kind::Advantage => {
            if puzzle.mate.is_some() || puzzle.tsume.is_some() {
                return Err("an advantage puzzle has no mate or tsume".into());
            }
            recheck_advantage(&pos, &moves, evaluator, settings)
        }
    }
}

fn recheck_mate(
    puzzle: &Puzzle,
    pos: &Position,
    moves: &[Move],
    tsume: bool,
    settings: &RecheckSettings,
) -> Result<(), String> {
    let n = puzzle.mate.ok_or("a mate puzzle without `mate`")?;
    if !(1..=MAX_MATE_MOVES).contains(&n) || moves.len() != 2 * n as usize - 1 {
        return Err(format!("mate in {n} with {} moves", moves.len()));
    }
    if puzzle.tsume != Some(tsume) {
        return Err(format!("tsume {:?}, the moves say {tsume}", puzzle.tsume));
    }
    let end = moves.iter().fold(pos.clone(), |p, &m| p.after(m));
    if !end.is_checkmate() {
        return Err("the line does not end in mate".into());
    }
    // A tsume's mate is the engine's solver's (`is_tsume` above); any other, the prover's.
    if !tsume && Prover::new(settings.prove_nodes).mates_within(pos, n) != Proof::Yes {
        return Err(format!("no mate in {n} proven"));
    }
    // The negative checks share one budget; what it cannot decide passes.
    let mut prover = Prover::new(settings.prove_nodes);
    if prover.mates_within(pos, n - 1) == Proof::Yes {
        return Err(format!("a mate in {} exists", n - 1));
    }
    let mut cur = pos.clone();
    for (i, &mv) in moves.iter().enumerate() {
        let left = n - (i / 2) as u32;
        if i % 2 == 0 && left > 1 {
            for alt in cur.legal_moves().iter().copied().filter(|&m| m != mv) {
                if prover.mated_within(&cur.after(alt), left - 1) == Proof::Yes {
                    return Err(format!("move {}: {alt} mates in {left} too", i + 1));
                }
            }
        }
        if i % 2 == 1 && prover.mates_within(&cur.after(mv), left - 2) == Proof::Yes {
            return Err(format!("move {}: a longer defence than {mv}", i + 1));
        }
        cur.make_move(mv);
    }
    Ok(())
}

fn recheck_advantage(
    pos: &Position,
    moves: &[Move],
    evaluator: &Arc<dyn Evaluator>,
    settings: &RecheckSettings,
) -> Result<(), String> {
    let mut cur = pos.clone();
    for (i, &mv) in moves.iter().enumerate() {
        if i % 2 == 0 {
            let others: Vec<Move> = cur
                .legal_moves()
                .iter()
                .copied()
                .filter(|&m| m != mv)
                .collect();
            let this = search(&cur, evaluator, settings.nodes, 1, &[mv], settings.hash_mb);
            let win = this.lines.first().map_or(0.0, |l| win_of(l.score));
            if i == 0 && win < RECHECK_WINNING {
                return Err(format!("move 1 wins {:.0}%", 100.0 * win));
            }
            if !others.is_empty() {
                let other = search(
                    &cur,
                    evaluator,
                    settings.nodes,
                    1,
                    &others,
                    settings.hash_mb,
                );
                let second = other.lines.first().map_or(0.0, |l| win_of(l.score));
                if win - second < RECHECK_GAP {
                    return Err(format!(
                        "move {}: {:.0}% against {:.0}% for the best other",
                        i + 1,
                        100.0 * win,
                        100.0 * second
                    ));
                }
            }
        }
        cur.make_move(mv);
    }
    Ok(())
}
