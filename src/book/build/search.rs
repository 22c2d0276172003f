//! `engine book search`: a book made by the engine's own search. From each root (the start
//! position, or every position of an openings file) the tree of book moves is grown breadth
//! first for `depth_plies` plies: each position is searched with MultiPV `width` at a fixed
//! node budget, and its best lines — those within `max_loss` centipawns of the best — become
//! its book moves (value = the line's score for the side to move, mates as ±(32000 − plies), the
//! stored score scale of `search::score::to_stored`; depth = the completed iteration's depth; ponder = the line's reply; count = 1 for the moves
//! within `play_loss` of the best, so that the weighted choice plays those alike, and 0 for the
//! others, which the engine never plays but an opponent may: they are in the book so that its
//! replies to them are). Each book move's position is searched in turn at the next ply.
//!
//! Deterministic: every position is searched by a fresh single-threaded searcher with a node
//! limit, so its lines depend only on the position and the settings, and positions are
//! expanded in a fixed order; `threads` only spreads the searches of a ply over cores.

use std::collections::HashSet;
use std::sync::Arc;

use rayon::prelude::*;

use crate::book::format::{Book, BookEntry, BookMove, position_key};
use crate::eval::Evaluator;
use crate::players::{ALPHABETA, new_player};
use crate::search::score::to_stored;
use crate::search::{
    Limits, ScoreBound, SearchControl, SearchEvent, SearchInfo, SearchOptions, THREAD_STACK,
};
use crate::shogi::{Game, Position};

/// What a book search does, besides its roots.
#[derive(Clone, Debug)]
pub struct SearchSettings {
    /// Plies of book from each root: positions fewer plies from a root than this are searched.
    pub depth_plies: u32,
    /// Node limit of each position's search.
    pub nodes: u64,
    /// Lines searched (MultiPV) and most moves kept per position.
    pub width: usize,
    /// Lines scoring more than this many centipawns below the best are left out.
    pub max_loss: i32,
    /// Lines scoring more than this below the best are kept with count 0 (not played).
    pub play_loss: i32,
    /// Transposition table of each search, MiB.
    pub hash_mb: usize,
}

/// The lines of `pos`'s search: those of the last completed iteration, best first.
pub fn search_lines(
    pos: &Position,
    settings: &SearchSettings,
    evaluator: &Arc<dyn Evaluator>,
) -> Vec<SearchInfo> {
    // A fresh searcher: nothing of another position's search may change this one's result.
    let options = SearchOptions {
        hash_mb: settings.hash_mb,
        threads: 1,
        multipv: settings.width,
        ..SearchOptions::default()
    };
    let mut searcher = new_player(ALPHABETA, options).expect("the default search is known");
    searcher.set_evaluator(evaluator.clone());
    let limits = Limits {
        nodes: Some(settings.nodes),
        ..Limits::default()
    };
    let expected = settings.width.min(pos.legal_moves().len());
    let mut current: Vec<SearchInfo> = Vec::new();
    let mut complete: Vec<SearchInfo> = Vec::new();
    // A game of one position: no history, no ply limit.
    let game = Game::new(pos.clone());
    searcher.search(&game, &limits, &SearchControl::default(), &mut |event| {
        let SearchEvent::Iteration(info) = event else {
            return;
        };
        if info.bound != ScoreBound::Exact || info.pv.is_empty() {
            return;
        }
        // An iteration reports its lines 1, 2, …; a lone line 1 after the last iteration (an
        // interrupted one found a better move) is not a whole set and is passed over.
        if info.multipv == 1 {
            current.clear();
        }
        current.push(info.clone());
        if current.len() == expected {
            complete = std::mem::take(&mut current);
        }
    });
    complete.sort_by_key(|info| std::cmp::Reverse(to_stored(info.score)));
    complete
}

/// The book moves of a position from its search lines: those within `max_loss` of the best,
/// of count 1 within `play_loss` of it and 0 beyond.
pub fn book_moves(
    pos: &Position,
    lines: &[SearchInfo],
    max_loss: i32,
    play_loss: i32,
) -> Vec<BookMove> {
    let Some(best) = lines.first().map(|l| to_stored(l.score)) else {
        return Vec::new();
    };
    lines
        .iter()
        .filter(|l| to_stored(l.score) >= best.saturating_sub(max_loss))
        .filter(|l| pos.is_legal(l.pv[0]))
        .map(|l| {
            let mv = l.pv[0];
            let ponder = l.pv.get(1).copied().filter(|&r| pos.after(mv).is_legal(r));
            let value = to_stored(l.score);
            BookMove {
                mv,
                ponder,
                value,
                depth: l.depth as i32,
                count: u64::from(value >= best.saturating_sub(play_loss)),
            }
        })
        .collect()
}

/// What a book search reports as it goes.
pub struct Progress<'a> {
    /// After each position's search: the ply being built (0-based), the positions searched so
    /// far and the positions known so far (searched or waiting).
    pub searched: &'a (dyn Fn(u32, u64, u64) + Sync),
    /// After each ply: the ply (0-based) and the book's positions so far.
    pub ply_done: &'a dyn Fn(u32, usize),
}

/// Builds the book from `roots`.
pub fn build(
    roots: &[Position],
    settings: &SearchSettings,
    evaluator: &Arc<dyn Evaluator>,
    threads: usize,
    progress: &Progress,
) -> Result<Book, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        // The search's main worker runs on the calling thread, which needs its deep stack.
        .stack_size(THREAD_STACK)
        .build()
        .map_err(|e| format!("cannot start the search threads: {e}"))?;
    let mut book = Book::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut frontier: Vec<Position> = Vec::new();
    for root in roots {
        if root.has_legal_move() && seen.insert(position_key(root)) {
            frontier.push(root.clone());
        }
    }
    let searched = std::sync::atomic::AtomicU64::new(0);
    for ply in 0..settings.depth_plies {
        if frontier.is_empty() {
            break;
        }
        let known = seen.len() as u64;
        let lines: Vec<Vec<SearchInfo>> = pool.install(|| {
            frontier
                .par_iter()
                .map(|pos| {
                    let lines = search_lines(pos, settings, evaluator);
                    let done = searched.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    (progress.searched)(ply, done, known);
                    lines
                })
                .collect()
        });
        let mut next = Vec::new();
        for (pos, lines) in frontier.iter().zip(&lines) {
            let moves = book_moves(pos, lines, settings.max_loss, settings.play_loss);
            for m in &moves {
                let child = pos.after(m.mv);
                if child.has_legal_move() && seen.insert(position_key(&child)) {
                    next.push(child);
                }
            }
            *book.entry_mut(pos) = BookEntry {
                move_number: Some(pos.move_number()),
                moves,
            };
        }
        frontier = next;
        (progress.ply_done)(ply, book.len());
    }
    Ok(book)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(depth_plies: u32, width: usize) -> SearchSettings {
        SearchSettings {
            depth_plies,
            nodes: 600,
            width,
            max_loss: 10_000,
            play_loss: 10_000,
            hash_mb: 1,
        }
    }

    #[test]
    fn lines_are_a_whole_iteration_best_first() {
        let evaluator = crate::nn::engine_evaluator();
        let pos = Position::startpos();
        let lines = search_lines(&pos, &settings(1, 3), &evaluator);
        assert_eq!(lines.len(), 3);
        assert!(
            lines
                .iter()
                .all(|l| l.depth == lines[0].depth && l.depth >= 1)
        );
        let moves = book_moves(&pos, &lines, 10_000, 10_000);
        assert_eq!(moves.len(), 3);
        assert!(moves.windows(2).all(|w| w[0].value >= w[1].value));
        assert!(moves.iter().all(|m| m.count == 1 && m.ponder.is_some()));
        // A margin of 0 keeps the best (and any equal to it).
        let best = book_moves(&pos, &lines, 0, 0);
        assert!(!best.is_empty() && best.iter().all(|m| m.value == moves[0].value));
        // Kept but not to be played: count 0.
        let kept = book_moves(&pos, &lines, 10_000, 0);
        assert_eq!(kept.len(), 3);
        for m in &kept {
            assert_eq!(m.count, u64::from(m.value == moves[0].value), "{m:?}");
        }
    }

    #[test]
    fn books_are_the_same_at_any_thread_count() {
        let evaluator = crate::nn::engine_evaluator();
        let roots = [Position::startpos()];
        let silent = Progress {
            searched: &|_, _, _| {},
            ply_done: &|_, _| {},
        };
        let one = build(&roots, &settings(2, 2), &evaluator, 1, &silent).unwrap();
        let two = build(&roots, &settings(2, 2), &evaluator, 2, &silent).unwrap();
        assert_eq!(one, two);
        // The start position and its two book moves' positions.
        assert_eq!(one.len(), 3);
        assert_eq!(one.get(&roots[0]).unwrap().moves.len(), 2);
    }
}
