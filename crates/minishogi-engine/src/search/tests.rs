//! Behaviour tests of the search: mates found with the right sign and length (checked against
//! a brute-force solver), repetition rules, ply limit, legality over random positions, MultiPV
//! and threads, strength levels, the evaluator's path state. A test file, so longer than the
//! search's other files (about 600 lines at most).

use super::score::RULE_WIN;
use super::*;
use crate::eval::Evaluator;
use crate::shogi::game::{Game, HistoryEntry};
use crate::shogi::mate_oracle::{loses_within, shortest_win};
use crate::shogi::random::random_position;
use crate::shogi::{Color, Move, Piece, PieceKind, Square};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

// ---- helpers ------------------------------------------------------------------------------------

pub(crate) fn sfen(text: &str) -> Position {
    Position::from_sfen(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

pub(crate) fn usi(pos: &Position, text: &str) -> Move {
    pos.parse_usi_move(text)
        .unwrap_or_else(|e| panic!("{text} in {}: {e}", pos.to_sfen()))
}

/// Plays USI moves and returns the final position with the history of every position.
fn replay(start: &Position, moves: &str) -> (Position, Vec<HistoryEntry>) {
    let mut pos = start.clone();
    let mut history = vec![HistoryEntry::of(&pos)];
    for text in moves.split_whitespace() {
        let mv = usi(&pos, text);
        pos.make_move(mv);
        history.push(HistoryEntry::of(&pos));
    }
    (pos, history)
}

fn depth_limit(depth: u32) -> Limits {
    Limits {
        depth: Some(depth),
        ..Limits::default()
    }
}

fn searcher() -> Searcher {
    Searcher::new(SearchOptions {
        hash_mb: 4,
        ..SearchOptions::default()
    })
}

/// A searcher that projects every repetition to 千日手 at its second occurrence, also of a
/// position from before the root (`in_tree_repetition` off), as the search did by default
/// until that switch: the repetition tests below check the verdicts through it.
fn projecting_searcher() -> Searcher {
    let mut s = searcher();
    s.options_mut().features.in_tree_repetition = false;
    s
}

fn search(searcher: &mut Searcher, pos: &Position, depth: u32) -> (SearchResult, Vec<SearchInfo>) {
    let mut infos = Vec::new();
    let result = searcher.search_position(
        pos,
        &depth_limit(depth),
        &SearchControl::default(),
        &mut |event| infos.extend(event.iteration().cloned()),
    );
    (result, infos)
}

/// Whether every move of `pv` is legal in turn from `pos`.
fn pv_is_legal(pos: &Position, pv: &[Move]) -> bool {
    let mut p = pos.clone();
    for &mv in pv {
        if !p.is_legal(mv) {
            return false;
        }
        p.make_move(mv);
    }
    true
}

/// Positions with a forced mate, by exact length in plies, from random self-play games.
/// Verified in the tests below by the brute-force checker (`shogi::mate_oracle`) (over all moves and over checks
/// only, which agree on each of them).
const MATES: &[(u32, &str)] = &[
    (1, "1Bk1s/P3p/rGB1S/1K3/4+r b G 1"),
    (1, "2kbS/5/3bp/r1Gg1/1K2S w Rp 1"),
    (1, "2sg1/1r2p/K2Sk/P3+b/R4 w bg 1"),
    (1, "4k/3Rp/1BRG1/P1KS1/4b b GS 1"),
    (1, "G2rk/P3p/2r2/2S1+b/2Ksg w b 1"),
    (1, "R1+Rbk/K2g1/2S1p/P4/1Gs2 b B 1"),
    (1, "R1s1k/r4/2g1g/2S2/1P2K w Bbp 1"),
    (1, "rbk2/B1g1R/1GPs1/P4/K1S2 b - 1"),
    (3, "+B4/K3k/4p/P1G2/1BS+sR b Gr 1"),
    (3, "1G2k/g1Brp/BS3/K2+s1/5 b RP 1"),
    (3, "1rs1k/3s1/r2B1/1P2g/1K2B w gp 1"),
    (3, "R3g/1bs1k/P1ps1/3r1/G1K1b w - 1"),
    (3, "r2gk/4p/4s/P2G1/1K1bS w rb 1"),
    (3, "r2kg/1Sb1P/2p2/1BG1R/3KS b - 1"),
    (3, "rbs1k/4p/Pg3/2B2/KGS1R w - 1"),
    (3, "rbs2/P2s1/2g1p/KG3/2k2 w rb 1"),
    (5, "+brbGg/rS2k/5/PK3/3+s1 w p 1"),
    (5, "2s1k/P3p/r3g/1KS1r/3g1 w Bb 1"),
    (5, "5/1+RgSk/P3p/2gs1/KR+b2 b B 1"),
    (5, "G2bk/5/PSs+r1/3rp/1K1B1 w G 1"),
    (5, "S2ks/Pr1g1/4p/1R1B1/KB3 b G 1"),
    (5, "S3r/1GskP/4p/2BB1/K3g b R 1"),
    (5, "rbs2/2gk1/PG1s1/1K1B1/2P2 w r 1"),
    (5, "rr1k1/b4/S1p2/P1G1B/K4 b GS 1"),
];

// ---- mate tests ---------------------------------------------------------------------------------

#[test]
fn mate_positions_are_what_they_claim() {
    let mut counts = [0; 6];
    for &(n, text) in MATES {
        let pos = sfen(text);
        assert_eq!(pos.to_sfen(), text);
        assert_eq!(shortest_win(&pos, n, false), Some(n), "{text}");
        assert_eq!(shortest_win(&pos, n, true), Some(n), "{text}");
        counts[n as usize] += 1;
    }
    assert!(
        counts[1] >= 6 && counts[3] >= 6 && counts[5] >= 6,
        "{counts:?}"
    );
}

/// Searches `pos` afresh to depth `n + 2` and checks that it reports mate in `n` with a best
/// move after which the defender is lost within `n - 1`; returns that move and the infos.
fn mates_in(s: &mut Searcher, pos: &Position, n: u32) -> (Move, Vec<SearchInfo>) {
    let text = pos.to_sfen();
    s.clear();
    let (result, infos) = search(s, pos, n + 2);
    assert_eq!(result.score, Score::Mate(n as i32), "{text}");
    let best = result.best.expect("a move");
    assert!(
        loses_within(&pos.after(best), n - 1, false),
        "{text}: {best}"
    );
    (best, infos)
}

#[test]
fn search_finds_mates_with_length_and_sign() {
    let mut s = searcher();
    for &(n, text) in MATES {
        let pos = sfen(text);
        let (best, infos) = mates_in(&mut s, &pos, n);
        let last = infos.last().expect("info");
        assert_eq!(last.score, Score::Mate(n as i32));
        assert!(pv_is_legal(&pos, &last.pv));
        assert_eq!(last.pv[0], best);
        // The defender, after the best move, sees itself mated in n - 1.
        if n > 1 {
            let defender = pos.after(best);
            s.clear();
            let (r, _) = search(&mut s, &defender, n + 1);
            assert_eq!(r.score, Score::Mate(-(n as i32 - 1)), "{text} after {best}");
        }
    }
}

#[test]
fn mate_solver_finds_shortest_mates() {
    let mut s = searcher();
    for &(n, text) in MATES {
        let pos = sfen(text);
        match s.mate_search(&pos, None, &SearchControl::default()) {
            MateResult::Mate(pv) => {
                assert_eq!(pv.len(), n as usize, "{text}");
                assert!(pv_is_legal(&pos, &pv), "{text}");
                let mut p = pos.clone();
                for &mv in &pv {
                    p.make_move(mv);
                }
                assert!(p.is_checkmate(), "{text}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}

#[test]
fn mate_solver_lines_are_checkmates_by_checks() {
    let mut rng = StdRng::seed_from_u64(31);
    let mut s = searcher();
    let mut mates = 0;
    for _ in 0..60 {
        let pos = random_position(&mut |n| rng.gen_range(0..n));
        let limit = Some(std::time::Duration::from_millis(30));
        if let MateResult::Mate(pv) = s.mate_search(&pos, limit, &SearchControl::default()) {
            mates += 1;
            assert_eq!(pv.len() % 2, 1);
            let mut p = pos.clone();
            for (i, &mv) in pv.iter().enumerate() {
                assert!(p.is_legal(mv), "{}", pos.to_sfen());
                if i % 2 == 0 {
                    assert!(p.gives_check(mv), "{}: {mv} is no check", pos.to_sfen());
                }
                p.make_move(mv);
            }
            assert!(p.is_checkmate(), "{}", pos.to_sfen());
            // Nothing shorter exists by checks.
            if pv.len() <= 5 {
                assert_eq!(
                    shortest_win(&pos, pv.len() as u32, true),
                    Some(pv.len() as u32)
                );
            }
        }
    }
    assert!(mates > 5, "{mates}");
}

#[test]
fn mate_solver_reports_no_mate_and_timeout() {
    let mut s = searcher();
    // Bare kings and nothing in hand: no check is even possible.
    let mut bare = Position::empty();
    bare.put_piece(Square::new(5, 4), Piece::new(Color::Sente, PieceKind::King));
    bare.put_piece(Square::new(1, 0), Piece::new(Color::Gote, PieceKind::King));
    assert_eq!(
        s.mate_search(&bare, None, &SearchControl::default()),
        MateResult::NoMate
    );
    // The start position has no mate by checks in a flash: a stopped search times out.
    let control = SearchControl::default();
    control.stop.store(true, Relaxed);
    let r = s.mate_search(&Position::startpos(), None, &control);
    assert!(
        matches!(r, MateResult::Timeout | MateResult::NoMate),
        "{r:?}"
    );
}

// ---- rules inside the search --------------------------------------------------------------------

/// Kings shuffle: 5e4d 1a2b 4d5e 2b1a returns to the start position (no check anywhere).
const SHUFFLE: [&str; 4] = ["5e4d", "1a2b", "4d5e", "2b1a"];

#[test]
fn repetition_wins_for_gote() {
    // Gote to move can complete the cycle: the start position repeats, sente loses.
    let (pos, history) = replay(&Position::startpos(), &SHUFFLE[..3].join(" "));
    let mut s = projecting_searcher();
    for depth in 1..=4 {
        let result = s.search_with_history(
            &pos,
            &history,
            None,
            &depth_limit(depth),
            &SearchControl::default(),
            &mut |_| {},
        );
        assert_eq!(result.best, Some(usi(&pos, "2b1a")), "depth {depth}");
        assert_eq!(result.score, Score::Cp(RULE_WIN - 1));
    }
    // Without the history there is nothing to repeat.
    let (r, _) = search(&mut s, &pos, 1);
    assert_eq!(r.score, Score::Cp(0));
}

#[test]
fn game_history_and_ply_limit_reach_the_search() {
    let mut game = Game::startpos();
    for text in &SHUFFLE[..3] {
        game.play(usi(game.position(), text)).unwrap();
    }
    let mut s = projecting_searcher();
    let control = SearchControl::default();
    let r = s.search(&game, &depth_limit(3), &control, &mut |_| {});
    assert_eq!(r.best, Some(usi(game.position(), "2b1a")));
    assert_eq!(r.score, Score::Cp(RULE_WIN - 1));
    // The game's own ply limit applies when the option is unset: every move draws.
    game.set_max_plies(Some(4));
    let r = s.search(&game, &depth_limit(3), &control, &mut |_| {});
    assert_eq!(r.score, Score::Cp(0));
}

#[test]
fn sente_avoids_repetition() {
    // The cycle once, then 5e4d 1a2b: sente's 4d5e would repeat and lose.
    let moves = format!("{} 5e4d 1a2b", SHUFFLE.join(" "));
    let (pos, history) = replay(&Position::startpos(), &moves);
    let repeating = usi(&pos, "4d5e");
    let mut s = projecting_searcher();
    s.options_mut().multipv = 64;
    let mut infos = Vec::new();
    let result = s.search_with_history(
        &pos,
        &history,
        None,
        &depth_limit(3),
        &SearchControl::default(),
        &mut |i| infos.extend(i.iteration().cloned()),
    );
    assert_ne!(result.best, Some(repeating));
    assert!(!matches!(result.score, Score::Cp(v) if v < -10_000));
    let line = infos
        .iter()
        .rev()
        .find(|i| i.pv[0] == repeating)
        .expect("a line for every move");
    assert_eq!(line.score, Score::Cp(-(RULE_WIN - 1)));
}

/// The score of each root move at `depth`, by MultiPV over all moves.
fn root_move_scores(pos: &Position, history: &[HistoryEntry], depth: u32) -> Vec<(Move, Score)> {
    let mut s = projecting_searcher();
    s.options_mut().multipv = 256;
    let mut infos = Vec::new();
    s.search_with_history(
        pos,
        history,
        None,
        &depth_limit(depth),
        &SearchControl::default(),
        &mut |i| infos.extend(i.iteration().cloned()),
    );
    let last = infos.last().expect("infos").depth;
    infos
        .iter()
        .filter(|i| i.depth == last)
        .map(|i| (i.pv[0], i.score))
        .collect()
}

fn score_of(scores: &[(Move, Score)], mv: Move) -> Score {
    scores
        .iter()
        .find(|(m, _)| *m == mv)
        .expect("every root move has a line")
        .1
}

#[test]
fn in_tree_repetition_waits_for_the_fourth_occurrence_of_a_game_position() {
    let scores_of = |moves: &str, mv: &str, depth: u32| {
        let (pos, history) = replay(&Position::startpos(), moves);
        let mut s = searcher();
        assert!(s.options().features.in_tree_repetition, "the default");
        s.options_mut().multipv = 256;
        let mut infos = Vec::new();
        s.search_with_history(
            &pos,
            &history,
            None,
            &depth_limit(depth),
            &SearchControl::default(),
            &mut |i| infos.extend(i.iteration().cloned()),
        );
        let mv = usi(&pos, mv);
        infos
            .iter()
            .rev()
            .find(|i| i.pv[0] == mv)
            .expect("a line for every move")
            .score
    };
    // Gote's 2b1a brings back the start position a second time: the game goes on (sente
    // may leave the cycle), so it is no win yet, at any depth.
    let once = SHUFFLE[..3].join(" ");
    for depth in 1..=4 {
        let score = scores_of(&once, "2b1a", depth);
        assert!(
            matches!(score, Score::Cp(v) if v.abs() < 10_000),
            "depth {depth}: {score:?}"
        );
    }
    // Nor is sente's return to a position of the game a loss (the projecting search's
    // `sente_avoids_repetition` scores it as one).
    let score = scores_of(&format!("{} 5e4d 1a2b", SHUFFLE.join(" ")), "4d5e", 3);
    assert!(
        matches!(score, Score::Cp(v) if v.abs() < 10_000),
        "{score:?}"
    );
    // After the cycle twice more, the same move is the fourth occurrence: 千日手, sente loses.
    let thrice = format!("{} {} {}", SHUFFLE.join(" "), SHUFFLE.join(" "), once);
    assert_eq!(scores_of(&thrice, "2b1a", 2), Score::Cp(RULE_WIN - 1));
}

#[test]
fn perpetual_check_loses_for_the_checker() {
    // A rook checks a king from two squares in turn while the king steps between two squares.
    // With gote checking, the rule that sente loses a repetition is overridden.
    let win = Score::Cp(RULE_WIN - 1);
    let loss = Score::Cp(-(RULE_WIN - 1));
    for (start, cycle, checker) in [
        // Sente's rook on 1c checks gote's king on 1a.
        (
            sfen("4k/5/4R/5/K4 w - 1"),
            ["1a2a", "1c2c", "2a1a", "2c1c"],
            Color::Sente,
        ),
        // The same, colours flipped: gote's rook on 5c checks sente's king on 5e.
        (
            sfen("4k/5/4R/5/K4 w - 1").flipped(),
            ["5e4e", "5c4c", "4e5e", "4c5c"],
            Color::Gote,
        ),
    ] {
        assert!(start.in_check());
        // The checker completes the cycle with a check: it loses.
        let (pos, history) = replay(&start, &cycle[..3].join(" "));
        assert_eq!(pos.side_to_move(), checker);
        let scores = root_move_scores(&pos, &history, 2);
        assert_eq!(
            score_of(&scores, usi(&pos, cycle[3])),
            loss,
            "{checker:?} checks"
        );
        // The king completes the cycle (the second time round): the checked side wins.
        let (pos, history) = replay(
            &start,
            &format!("{} {} {}", cycle.join(" "), cycle[0], cycle[1]),
        );
        assert_eq!(pos.side_to_move(), !checker);
        let scores = root_move_scores(&pos, &history, 2);
        assert_eq!(
            score_of(&scores, usi(&pos, cycle[2])),
            win,
            "{checker:?} checks"
        );
    }
}

#[test]
fn ply_limit_scores_a_draw() {
    let mut s = searcher();
    let control = SearchControl::default();
    let mut game = Game::startpos();
    game.set_max_plies(Some(1));
    let r = s.search(&game, &depth_limit(4), &control, &mut |_| {});
    assert_eq!(r.score, Score::Cp(0));
    assert!(r.best.is_some());
    // With a history, the game's ply count is the number of earlier positions.
    let (pos, history) = replay(&Position::startpos(), "5e4d 1a2b");
    let r = s.search_with_history(
        &pos,
        &history,
        Some(3),
        &depth_limit(5),
        &control,
        &mut |_| {},
    );
    assert_eq!(r.score, Score::Cp(0));
    game.set_max_plies(Some(0));
    let r = s.search(&game, &depth_limit(3), &control, &mut |_| {});
    assert_ne!(r.depth, 0);
}

#[test]
fn no_legal_move_returns_none() {
    // Gote king on 1a, sente golds on 1b (protected by 2c) and 2b: mated.
    let pos = sfen("4k/3GG/3P1/5/K4 w - 1");
    assert!(!pos.has_legal_move());
    let mut s = searcher();
    let (r, infos) = search(&mut s, &pos, 3);
    assert_eq!(r.best, None);
    assert_eq!(r.score, Score::Mate(0));
    assert!(infos.is_empty());
}

// ---- legality, limits, MultiPV, threads ---------------------------------------------------------

#[test]
fn never_returns_an_illegal_move() {
    let mut rng = StdRng::seed_from_u64(7);
    let mut s = searcher();
    for i in 0..150 {
        let pos = random_position(&mut |n| rng.gen_range(0..n));
        let limits = Limits {
            depth: Some(1 + i % 5),
            nodes: Some(3000),
            ..Limits::default()
        };
        let mut infos = Vec::new();
        let r = s.search_position(&pos, &limits, &SearchControl::default(), &mut |i| {
            infos.extend(i.iteration().cloned())
        });
        let best = r.best.expect("a move");
        assert!(pos.is_legal(best), "{} {best}", pos.to_sfen());
        if let Some(p) = r.ponder {
            assert!(pos.after(best).is_legal(p));
        }
        for info in &infos {
            assert!(pv_is_legal(&pos, &info.pv), "{}", pos.to_sfen());
        }
    }
}

#[test]
fn node_limit_is_exact_enough() {
    let mut s = searcher();
    let limits = Limits {
        nodes: Some(20_000),
        ..Limits::default()
    };
    let r = s.search_position(
        &Position::startpos(),
        &limits,
        &SearchControl::default(),
        &mut |_| {},
    );
    assert!(r.nodes >= 20_000 && r.nodes <= 20_001, "{}", r.nodes);
    assert!(r.best.is_some());
}

/// A predicted soft limit only ever stops earlier: the search is the same up to where it stops,
/// so it answers what the search that finishes its iterations reported at that depth.
#[test]
fn a_predicted_soft_limit_stops_at_an_earlier_or_the_same_iteration() {
    let mut rng = StdRng::seed_from_u64(11);
    let (mut started_nodes, mut predicted_nodes, mut earlier) = (0, 0, 0);
    for _ in 0..12 {
        let pos = random_position(&mut |n| rng.gen_range(0..n));
        let run = |predicted: bool| {
            let limits = Limits {
                nodes: Some(100_000),
                soft_nodes: Some(3000),
                soft_nodes_predicted: predicted,
                ..Limits::default()
            };
            let mut infos = Vec::new();
            let r =
                searcher().search_position(&pos, &limits, &SearchControl::default(), &mut |e| {
                    infos.extend(e.iteration().cloned())
                });
            (r, infos)
        };
        let (started, started_infos) = run(false);
        let (predicted, _) = run(true);
        if started.best.is_none() {
            continue;
        }
        assert!(started.nodes >= 3000 || started.depth as i32 == score::MAX_DEPTH);
        assert!(predicted.depth <= started.depth && predicted.nodes <= started.nodes);
        assert!(predicted.depth >= 2.min(started.depth));
        let at_depth = started_infos
            .iter()
            .rfind(|i| i.depth == predicted.depth && i.bound == ScoreBound::Exact)
            .expect("the started search reported that depth");
        assert_eq!(predicted.best, at_depth.pv.first().copied());
        assert_eq!(predicted.score, at_depth.score);
        assert_eq!(predicted.nodes, at_depth.nodes);
        started_nodes += started.nodes;
        predicted_nodes += predicted.nodes;
        earlier += usize::from(predicted.depth < started.depth);
    }
    assert!(
        earlier >= 6,
        "only {earlier} of 12 searches stopped earlier"
    );
    assert!(
        predicted_nodes < started_nodes * 3 / 4,
        "{predicted_nodes} vs {started_nodes}"
    );
}

#[test]
fn stop_before_start_still_gives_a_move() {
    let mut s = searcher();
    let control = SearchControl::default();
    control.stop.store(true, Relaxed);
    let r = s.search_position(
        &Position::startpos(),
        &Limits::default(),
        &control,
        &mut |_| {},
    );
    assert!(Position::startpos().is_legal(r.best.unwrap()));
    assert_eq!(r.depth, 1);
}

/// Runs a search on another thread; returns its handle and a flag set when it has returned.
fn spawn_search(
    limits: Limits,
    control: std::sync::Arc<SearchControl>,
) -> (
    std::thread::JoinHandle<SearchResult>,
    std::sync::Arc<std::sync::atomic::AtomicBool>,
) {
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = done.clone();
    let handle = std::thread::spawn(move || {
        let mut s = searcher();
        let r = s.search_position(&Position::startpos(), &limits, &control, &mut |_| {});
        flag.store(true, Relaxed);
        r
    });
    (handle, done)
}

#[test]
fn infinite_search_waits_for_stop() {
    let control = std::sync::Arc::new(SearchControl::default());
    // Depth 2 finishes at once, but bestmove must wait for stop.
    let limits = Limits {
        depth: Some(2),
        infinite: true,
        ..Limits::default()
    };
    let (handle, done) = spawn_search(limits, control.clone());
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(!done.load(Relaxed), "returned before stop");
    control.stop.store(true, Relaxed);
    let r = handle.join().unwrap();
    assert!(Position::startpos().is_legal(r.best.unwrap()));
    assert_eq!(r.depth, 2);
}

#[test]
fn ponder_ignores_time_until_ponderhit() {
    let control = std::sync::Arc::new(SearchControl::default());
    control.ponder.store(true, Relaxed);
    let limits = Limits {
        movetime: Some(std::time::Duration::from_millis(1)),
        ..Limits::default()
    };
    let (handle, done) = spawn_search(limits, control.clone());
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(!done.load(Relaxed), "time limit applied while pondering");
    // Ponderhit: the 1 ms budget starts now.
    control.ponder.store(false, Relaxed);
    let r = handle.join().unwrap();
    assert!(Position::startpos().is_legal(r.best.unwrap()));
    assert!(!control.stop.load(Relaxed));
}

#[test]
fn multipv_reports_distinct_sorted_lines() {
    let mut s = searcher();
    s.options_mut().multipv = 3;
    let (r, infos) = search(&mut s, &Position::startpos(), 4);
    let last: Vec<_> = infos.iter().filter(|i| i.depth == 4).collect();
    assert_eq!(last.len(), 3);
    assert_eq!(
        last.iter().map(|i| i.multipv).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    assert_eq!(last[0].pv[0], r.best.unwrap());
    assert_ne!(last[0].pv[0], last[1].pv[0]);
    assert_ne!(last[1].pv[0], last[2].pv[0]);
    let cp = |s: Score| match s {
        Score::Cp(v) => v,
        Score::Mate(n) => {
            if n > 0 {
                100_000 - n
            } else {
                -100_000 - n
            }
        }
    };
    assert!(cp(last[0].score) >= cp(last[1].score));
    assert!(cp(last[1].score) >= cp(last[2].score));
}

// ---- strength levels ----------------------------------------------------------------------------

/// Searches `pos` at `skill` with `limits`; the result and the reported lines.
fn search_at(skill: Skill, pos: &Position, limits: &Limits) -> (SearchResult, Vec<SearchInfo>) {
    search_controlled(skill, pos, limits, &SearchControl::default())
}

fn search_controlled(
    skill: Skill,
    pos: &Position,
    limits: &Limits,
    control: &SearchControl,
) -> (SearchResult, Vec<SearchInfo>) {
    let mut s = searcher();
    s.options_mut().skill = skill;
    let mut infos = Vec::new();
    let r = s.search_position(pos, limits, control, &mut |e| {
        infos.extend(e.iteration().cloned())
    });
    (r, infos)
}

#[test]
fn every_level_plays_legal_moves_within_its_budget() {
    let mut rng = StdRng::seed_from_u64(11);
    for i in 0..240u32 {
        let pos = random_position(&mut |n| rng.gen_range(0..n));
        let level = i % skill::MAX_LEVEL;
        let skill = Skill::level(level, i as u64);
        let params = skill.params().expect("below 20 a level is weakened");
        let (r, infos) = search_at(skill, &pos, &Limits::default());
        let best = r.best.expect("a move");
        assert!(
            pos.is_legal(best),
            "level {level}: {} {best}",
            pos.to_sfen()
        );
        if let Some(p) = r.ponder {
            assert!(pos.after(best).is_legal(p), "{}", pos.to_sfen());
        }
        // Depth 1 is always completed; beyond it the budget holds.
        if r.depth > 1 {
            assert!(
                r.nodes <= params.nodes + 1,
                "level {level}: {} nodes",
                r.nodes
            );
        }
        // Each completed iteration reports the level's candidates (or every move, if fewer).
        let lines = params.multipv.min(pos.legal_moves().len()) as u32;
        let first: Vec<_> = infos.iter().filter(|info| info.depth == 1).collect();
        assert_eq!(
            first.len() as u32,
            lines,
            "level {level}: {}",
            pos.to_sfen()
        );
        // The move played is one of the last completed iteration's candidates.
        let candidates: Vec<Move> = infos
            .iter()
            .filter(|info| info.depth == r.depth)
            .map(|info| info.pv[0])
            .collect();
        assert!(
            candidates.contains(&best),
            "level {level}: {best} not in {candidates:?}"
        );
        for info in &infos {
            assert!(pv_is_legal(&pos, &info.pv), "{}", pos.to_sfen());
        }
    }
}

#[test]
fn a_level_limits_even_an_unlimited_search_and_full_strength_does_not() {
    let pos = Position::startpos();
    let depth_8 = depth_limit(8);
    let (weak, _) = search_at(Skill::level(10, 1), &pos, &depth_8);
    assert!(weak.nodes <= skill::LEVELS[10].nodes + 1, "{}", weak.nodes);
    assert!(weak.depth < 8, "depth {}", weak.depth);
    // A limit below the level's budget still applies.
    let tight = Limits {
        nodes: Some(50),
        ..Limits::default()
    };
    let (weak, _) = search_at(Skill::level(19, 1), &pos, &tight);
    assert_eq!(weak.depth, 1);
    let (full, infos) = search_at(Skill::level(20, 1), &pos, &depth_8);
    assert_eq!(full.depth, 8);
    assert!(infos.iter().all(|info| info.multipv == 1));
}

#[test]
fn a_level_chooses_the_same_move_for_the_same_seed_and_varies_with_it() {
    let mut rng = StdRng::seed_from_u64(5);
    let positions: Vec<Position> = (0..30)
        .map(|_| random_position(&mut |n| rng.gen_range(0..n)))
        .collect();
    let moves = |seed| -> Vec<Option<Move>> {
        positions
            .iter()
            .map(|pos| {
                search_at(Skill::level(0, seed), pos, &Limits::default())
                    .0
                    .best
            })
            .collect()
    };
    assert_eq!(moves(1), moves(1));
    assert_ne!(moves(1), moves(2));
}

#[test]
fn the_weakest_level_still_mates_in_one() {
    for &(_, text) in MATES.iter().filter(|(plies, _)| *plies == 1) {
        let pos = sfen(text);
        for seed in 0..8 {
            // It may pick a longer mate among its candidates, never a move that lets go.
            let (r, _) = search_at(Skill::level(0, seed), &pos, &Limits::default());
            let best = r.best.expect("a move");
            let Score::Mate(plies @ 1..) = r.score else {
                panic!("{text} seed {seed}: {r:?}");
            };
            assert!(
                loses_within(&pos.after(best), plies as u32 - 1, false),
                "{text} seed {seed}: {best}"
            );
        }
    }
}

#[test]
fn a_weakened_infinite_search_waits_for_stop() {
    let control = std::sync::Arc::new(SearchControl::default());
    let thread_control = control.clone();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = done.clone();
    let handle = std::thread::spawn(move || {
        let limits = Limits {
            infinite: true,
            ..Limits::default()
        };
        let r = search_controlled(
            Skill::level(0, 1),
            &Position::startpos(),
            &limits,
            &thread_control,
        );
        flag.store(true, Relaxed);
        r.0
    });
    std::thread::sleep(std::time::Duration::from_millis(50));
    // Level 0 is done with depth 1 at once, but bestmove waits for stop.
    assert!(!done.load(Relaxed), "returned before stop");
    control.stop.store(true, Relaxed);
    let r = handle.join().unwrap();
    assert!(Position::startpos().is_legal(r.best.unwrap()));
}

#[test]
fn threads_search_in_parallel() {
    let mut s = searcher();
    s.options_mut().threads = 3;
    let pos = Position::startpos();
    let (_, per_thread) = s.search_counting_threads(&pos, &depth_limit(7));
    assert_eq!(per_thread.len(), 3);
    assert!(per_thread.iter().all(|&n| n > 0), "{per_thread:?}");
    // Threads can be reduced again and the result stays legal.
    s.options_mut().threads = 1;
    let (r, _) = search(&mut s, &pos, 5);
    assert!(pos.is_legal(r.best.unwrap()));
}

#[test]
fn wild_evaluators_cannot_fake_decided_scores() {
    struct Wild;
    impl Evaluator for Wild {
        fn win_probability(&self, _: &Position) -> f32 {
            f32::NAN
        }
        fn evaluate_cp(&self, pos: &Position) -> i32 {
            if pos.side_to_move() == Color::Sente {
                i32::MAX
            } else {
                i32::MIN
            }
        }
    }
    let mut s = searcher();
    s.set_evaluator(std::sync::Arc::new(Wild));
    let (r, _) = search(&mut s, &Position::startpos(), 4);
    assert!(Position::startpos().is_legal(r.best.unwrap()));
    assert!(
        matches!(r.score, Score::Cp(v) if v.abs() <= score::EVAL_LIMIT),
        "{:?}",
        r.score
    );
}

use std::sync::atomic::Ordering::Relaxed;

// ---- evaluator path state ------------------------------------------------------------------

/// An evaluator whose per-thread state follows the search path through the hooks alone: it
/// replays every move on its own copy of the position and checks it against the search's.
struct Follower;

struct FollowerState {
    pos: Position,
    undo: Vec<(Move, crate::shogi::Undo)>,
    calls: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl crate::eval::PathState for FollowerState {
    fn on_make(&mut self, pos: &Position, mv: Move) {
        let undo = self.pos.make_move(mv);
        self.undo.push((mv, undo));
        assert_eq!(self.pos.key(), pos.key());
    }

    fn on_unmake(&mut self, pos: &Position, mv: Move) {
        let (made, undo) = self.undo.pop().expect("unmake follows a make");
        assert_eq!(made, mv);
        self.pos.unmake_move(mv, undo);
        assert_eq!(self.pos.key(), pos.key());
    }

    fn on_null_move(&mut self, pos: &Position, null: bool) {
        if null {
            self.pos.make_null_move();
        } else {
            self.pos.unmake_null_move();
        }
        assert_eq!(self.pos.key(), pos.key());
    }

    fn evaluate_cp(&mut self, pos: &Position) -> i32 {
        assert_eq!(self.pos.key(), pos.key());
        self.calls.fetch_add(1, Relaxed);
        crate::eval::MaterialEvaluator.evaluate_cp(&self.pos)
    }
}

static FOLLOWER_CALLS: std::sync::OnceLock<std::sync::Arc<std::sync::atomic::AtomicU64>> =
    std::sync::OnceLock::new();

impl Evaluator for Follower {
    fn win_probability(&self, pos: &Position) -> f32 {
        crate::eval::MaterialEvaluator.win_probability(pos)
    }

    fn path_state(&self, root: &Position) -> Option<Box<dyn crate::eval::PathState + '_>> {
        Some(Box::new(FollowerState {
            pos: root.clone(),
            undo: Vec::new(),
            calls: FOLLOWER_CALLS.get_or_init(Default::default).clone(),
        }))
    }
}

#[test]
fn evaluator_path_state_follows_the_search_and_changes_nothing() {
    let pos = Position::from_sfen("rbs2/3kp/5/PK3/2SBR b Gg 9").unwrap();
    let mut plain = searcher();
    let (a, _) = search(&mut plain, &pos, 6);
    let mut following = searcher();
    following.set_evaluator(std::sync::Arc::new(Follower));
    let (b, _) = search(&mut following, &pos, 6);
    assert_eq!((a.best, a.score, a.nodes), (b.best, b.score, b.nodes));
    assert!(FOLLOWER_CALLS.get().unwrap().load(Relaxed) > 0);
}

/// Every switch on and the parameters that only switches read moved off their defaults: the
/// experimental paths still find every mate with its length and play only legal moves.
#[test]
fn every_switch_on_still_finds_mates_and_plays_legal_moves() {
    let mut features = SearchFeatures::default();
    for name in SearchFeatures::NAMES {
        assert!(features.set(name, true), "{name}");
    }
    let mut s = searcher();
    s.options_mut().features = features;
    for (name, value) in [
        ("lmr_history_max_plies", 3),
        ("aspiration_score_divisor", 256),
        ("se_ply_factor", 2),
    ] {
        s.options_mut().params.set(name, value).unwrap();
    }
    for &(n, text) in MATES {
        mates_in(&mut s, &sfen(text), n);
    }
    let mut rng = StdRng::seed_from_u64(11);
    for i in 0..60 {
        let pos = random_position(&mut |n| rng.gen_range(0..n));
        let (result, infos) = search(&mut s, &pos, 3 + i % 6);
        let best = result.best.expect("a move");
        assert!(pos.is_legal(best), "{} {best}", pos.to_sfen());
        for info in &infos {
            assert!(pv_is_legal(&pos, &info.pv), "{}", pos.to_sfen());
        }
    }
}

#[test]
fn features_switch_by_name() {
    let mut features = SearchFeatures::default();
    for name in SearchFeatures::NAMES {
        assert!(features.set(name, false), "{name}");
    }
    let off = features;
    for name in SearchFeatures::NAMES {
        // Each name switches exactly one technique.
        assert!(features.set(name, true));
        assert_ne!(features, off, "{name}");
        assert!(features.set(name, false));
        assert_eq!(features, off, "{name}");
    }
    assert_eq!(
        std::mem::size_of::<SearchFeatures>(),
        SearchFeatures::NAMES.len()
    );
    assert!(!features.set("razoring", true));
}

/// A wide network evaluated without its path state: every evaluation a full refresh.
struct RefreshOnly(crate::nn::NetworkEvaluator);

impl Evaluator for RefreshOnly {
    fn win_probability(&self, pos: &Position) -> f32 {
        self.0.evaluate(pos)
    }
    fn evaluate_cp(&self, pos: &Position) -> i32 {
        self.0.evaluate_cp(pos)
    }
}

#[test]
fn incremental_wide_network_searches_exactly_as_refreshing_it() {
    // Generation 3: 256 units, searched by the quantised incremental path.
    let wide = crate::nn::load_from_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../weights/gen3.bin"
    ))
    .unwrap();
    let ev = crate::nn::NetworkEvaluator::new(wide, "wide").unwrap();
    assert!(ev.quant().is_some());
    for sfen in [
        "rbs2/3kp/5/PK3/2SBR b Gg 9",
        "rbsgk/4p/5/P4/KGSBR b - 1",
        "2k2/5/2P2/5/2K2 b RBGSrbgsp 1",
    ] {
        let pos = Position::from_sfen(sfen).unwrap();
        let mut incremental = searcher();
        incremental.set_evaluator(std::sync::Arc::new(ev.clone()));
        let (a, _) = search(&mut incremental, &pos, 7);
        let mut refreshing = searcher();
        refreshing.set_evaluator(std::sync::Arc::new(RefreshOnly(ev.clone())));
        let (b, _) = search(&mut refreshing, &pos, 7);
        assert_eq!(
            (a.best, a.score, a.nodes),
            (b.best, b.score, b.nodes),
            "{sfen}"
        );
    }
}
