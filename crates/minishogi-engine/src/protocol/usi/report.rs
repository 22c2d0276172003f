//! The lines that report a search: `info …`, `bestmove …` and `checkmate …`. Moves are checked
//! against the position before they are printed, so a GUI never sees an illegal move.

use crate::search::{MateResult, Score, ScoreBound, SearchEvent, SearchInfo, SearchResult};
use crate::shogi::{Move, Position};

/// The longest prefix of `moves` that is legal when played from `root`.
pub fn legal_prefix(root: &Position, moves: &[Move]) -> Vec<Move> {
    let mut pos = root.clone();
    let mut legal = Vec::with_capacity(moves.len());
    for &mv in moves {
        if !pos.is_legal(mv) {
            break;
        }
        pos.make_move(mv);
        legal.push(mv);
    }
    legal
}

fn join(moves: &[Move]) -> String {
    moves
        .iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `info` line of what the search reported (`None` for its final answer, which is the
/// `bestmove` line).
pub fn event_line(root: &Position, event: &SearchEvent) -> Option<String> {
    Some(match event {
        SearchEvent::Finished(_) => return None,
        SearchEvent::Iteration(info) => info_line(root, info),
        SearchEvent::CurrentMove {
            depth,
            mv,
            number,
            nodes,
            time_ms,
        } => format!(
            "info depth {depth} currmove {mv} currmovenumber {number} nodes {nodes} time {time_ms}"
        ),
    })
}

pub fn info_line(root: &Position, info: &SearchInfo) -> String {
    let bound = match info.bound {
        ScoreBound::Exact => "",
        ScoreBound::Lower => " lowerbound",
        ScoreBound::Upper => " upperbound",
    };
    let score = match info.score {
        Score::Cp(cp) => format!("cp {cp}{bound}"),
        Score::Mate(plies) => format!("mate {plies}{bound}"),
    };
    let mut line = format!(
        "info depth {} seldepth {} multipv {} score {score} nodes {} nps {} time {} hashfull {}",
        info.depth, info.seldepth, info.multipv, info.nodes, info.nps, info.time_ms, info.hashfull
    );
    let pv = legal_prefix(root, &info.pv);
    if !pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&join(&pv));
    }
    line
}

/// `bestmove <move> [ponder <move>]`, or `bestmove resign` when the side to move has no legal
/// move. Should the search return no move or an illegal one while legal moves exist, the first
/// legal move is played rather than resigning a game that is not lost.
pub fn bestmove_line(root: &Position, result: &SearchResult) -> String {
    let moves: Vec<Move> = result.best.into_iter().chain(result.ponder).collect();
    match legal_prefix(root, &moves).as_slice() {
        [best, ponder] => format!("bestmove {best} ponder {ponder}"),
        [best] => format!("bestmove {best}"),
        _ => {
            if root.has_legal_move() {
                log::error!("search returned no legal best move ({:?})", result.best);
            }
            fallback_bestmove_line(root)
        }
    }
}

/// `bestmove` for the head of a principal variation (with its reply as the ponder move), if
/// that move is legal at `root`.
pub fn bestmove_from_pv(root: &Position, pv: &[Move]) -> Option<String> {
    match legal_prefix(root, &pv[..pv.len().min(2)]).as_slice() {
        [best, ponder] => Some(format!("bestmove {best} ponder {ponder}")),
        [best] => Some(format!("bestmove {best}")),
        _ => None,
    }
}

/// The first legal move, or `bestmove resign` when there is none.
pub fn fallback_bestmove_line(root: &Position) -> String {
    match root.legal_moves().first() {
        Some(mv) => format!("bestmove {mv}"),
        None => "bestmove resign".to_string(),
    }
}

pub fn checkmate_line(root: &Position, result: &MateResult) -> String {
    match result {
        MateResult::Mate(moves) => {
            let legal = legal_prefix(root, moves);
            let mut end = root.clone();
            for &mv in &legal {
                end.make_move(mv);
            }
            if legal.is_empty() || legal.len() != moves.len() || !end.is_checkmate() {
                // A mate line that does not check out is not claimed.
                log::error!("mate search returned an unsound line: {moves:?}");
                "checkmate nomate".to_string()
            } else {
                format!("checkmate {}", join(&legal))
            }
        }
        MateResult::NoMate => "checkmate nomate".to_string(),
        MateResult::Timeout => "checkmate timeout".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::Square;

    fn usi(pos: &Position, text: &str) -> Move {
        pos.parse_usi_move(text).unwrap()
    }

    #[test]
    fn pv_stops_at_the_first_illegal_move() {
        let root = Position::startpos();
        let a = usi(&root, "5d5c");
        let b = usi(&root.after(a), "1b1c");
        let bogus = Move::board(Square::new(5, 4), Square::new(1, 0), false);
        let info = SearchInfo {
            depth: 3,
            seldepth: 5,
            multipv: 1,
            score: Score::Mate(-4),
            nodes: 1000,
            nps: 20000,
            time_ms: 50,
            hashfull: 7,
            bound: ScoreBound::Exact,
            pv: vec![a, b, bogus, a],
        };
        assert_eq!(
            info_line(&root, &info),
            "info depth 3 seldepth 5 multipv 1 score mate -4 nodes 1000 nps 20000 time 50 \
             hashfull 7 pv 5d5c 1b1c"
        );
        let failed_high = SearchInfo {
            bound: ScoreBound::Lower,
            score: Score::Cp(120),
            pv: vec![a],
            ..info
        };
        assert_eq!(
            event_line(&root, &SearchEvent::Iteration(failed_high)).unwrap(),
            "info depth 3 seldepth 5 multipv 1 score cp 120 lowerbound nodes 1000 nps 20000 \
             time 50 hashfull 7 pv 5d5c"
        );
        let current = SearchEvent::CurrentMove {
            depth: 12,
            mv: a,
            number: 3,
            nodes: 5_000_000,
            time_ms: 1500,
        };
        assert_eq!(
            event_line(&root, &current).unwrap(),
            "info depth 12 currmove 5d5c currmovenumber 3 nodes 5000000 time 1500"
        );
    }

    #[test]
    fn bestmove_from_a_pv_checks_its_moves() {
        let root = Position::startpos();
        let a = usi(&root, "5d5c");
        let b = usi(&root.after(a), "1b1c");
        assert_eq!(
            bestmove_from_pv(&root, &[a, b, a]).as_deref(),
            Some("bestmove 5d5c ponder 1b1c")
        );
        assert_eq!(
            bestmove_from_pv(&root, &[a, a]).as_deref(),
            Some("bestmove 5d5c")
        );
        assert_eq!(bestmove_from_pv(&root, &[b]), None);
        assert_eq!(bestmove_from_pv(&root, &[]), None);
    }

    #[test]
    fn bestmove_checks_both_moves() {
        let root = Position::startpos();
        let a = usi(&root, "5d5c");
        let b = usi(&root.after(a), "1b1c");
        let result = |best, ponder| SearchResult {
            best,
            ponder,
            score: Score::Cp(0),
            depth: 1,
            nodes: 1,
        };
        assert_eq!(
            bestmove_line(&root, &result(Some(a), Some(b))),
            "bestmove 5d5c ponder 1b1c"
        );
        assert_eq!(
            bestmove_line(&root, &result(Some(a), Some(a))),
            "bestmove 5d5c"
        );
        let first = root.legal_moves()[0];
        assert_eq!(
            bestmove_line(&root, &result(Some(b), None)),
            format!("bestmove {first}")
        );
        let mated = Position::from_sfen("k4/G4/P4/5/4K w - 1").unwrap();
        assert!(!mated.has_legal_move());
        assert_eq!(
            bestmove_line(&mated, &result(None, None)),
            "bestmove resign"
        );
    }
}
