//! The picker against the generator: every move once, the TT move first, kinds and stage order
//! as the header of `movepick` says, over random positions with drops.

use super::*;
use crate::search::ordering::wins_exchange;
use crate::shogi::testing::random_positions_with_drops;

/// The stages' order, for checking that kinds come in it.
fn rank(kind: MoveKind) -> u8 {
    match kind {
        MoveKind::Tt => 0,
        MoveKind::GoodTactical => 1,
        MoveKind::Killer => 2,
        MoveKind::CounterMove => 3,
        MoveKind::Quiet => 4,
        MoveKind::BadTactical => 5,
        MoveKind::Evasion => 1,
    }
}

fn drain(picker: &mut MovePicker, pos: &Position, heur: &Heuristics) -> Vec<Picked> {
    let params = SearchParams::DEFAULT;
    std::iter::from_fn(|| picker.next(pos, heur, &params)).collect()
}

/// Some history, so that quiet scores differ: a deterministic pseudo-random bonus per move.
fn taught(positions: &[Position]) -> Box<Heuristics> {
    let mut heur = Heuristics::new();
    for (i, pos) in positions.iter().enumerate().take(200) {
        for (j, &mv) in pos.legal_moves().iter().enumerate() {
            let bonus = ((i * 31 + j * 17) % 401) as i32 - 200;
            heur.update_history(pos.side_to_move(), mv, bonus);
        }
    }
    heur
}

/// Picks a move of `list` by `salt` (or none, for a salt that says so).
fn some_move(list: &MoveList, salt: usize) -> Move {
    if list.is_empty() || salt.is_multiple_of(5) {
        Move::NULL
    } else {
        list[salt % list.len()]
    }
}

#[test]
fn main_picker_yields_every_legal_move_once_in_stage_order() {
    let positions = random_positions_with_drops(71, 600);
    let heur = taught(&positions);
    let (mut tt_tried, mut killers_tried, mut bad, mut counters) = (0, 0, 0, 0);
    for (n, pos) in positions.iter().enumerate() {
        let legal = pos.legal_moves();
        let quiets: MoveList = {
            let mut q = MoveList::new();
            for &mv in legal.iter().filter(|&&mv| is_quiet(pos, mv)) {
                q.push(mv);
            }
            q
        };
        let tt_move = some_move(&legal, n);
        let killers = [some_move(&quiets, n * 7 + 1), some_move(&legal, n * 3 + 2)];
        let counter = some_move(&quiets, n * 11 + 3);
        let mut picker = MovePicker::main(pos, tt_move, killers, counter, [None, None], false);
        assert_eq!(picker.is_empty(), legal.is_empty());
        let picked = drain(&mut picker, pos, &heur);
        // Counting generates before the TT move is tried; the order must not change for it.
        let mut counted = MovePicker::main(pos, tt_move, killers, counter, [None, None], false);
        assert_eq!(counted.count(pos), legal.len());
        assert_eq!(drain(&mut counted, pos, &heur), picked);

        let mut seen: Vec<Move> = picked.iter().map(|p| p.mv).collect();
        seen.sort_by_key(|mv| mv.raw());
        let mut expected = legal.to_vec();
        expected.sort_by_key(|mv| mv.raw());
        assert_eq!(seen, expected, "{}: every legal move once", pos.to_sfen());

        if !tt_move.is_null() {
            assert_eq!(picked[0].mv, tt_move);
            assert_eq!(picked[0].kind, MoveKind::Tt);
            tt_tried += 1;
        }
        for w in picked.windows(2) {
            assert!(
                rank(w[0].kind) <= rank(w[1].kind),
                "{:?} then {:?}",
                w[0],
                w[1]
            );
            if w[0].kind == w[1].kind && matches!(w[0].kind, MoveKind::Quiet) {
                assert!(w[0].score >= w[1].score, "quiet moves by history");
            }
            if w[0].kind == w[1].kind
                && matches!(w[0].kind, MoveKind::GoodTactical | MoveKind::BadTactical)
            {
                assert!(w[0].score >= w[1].score, "tactical moves by score");
            }
        }
        for p in &picked {
            let mv = p.mv;
            match p.kind {
                MoveKind::Tt => assert_eq!(mv, tt_move),
                MoveKind::GoodTactical => assert!(!is_quiet(pos, mv) && wins_exchange(pos, mv)),
                MoveKind::BadTactical => {
                    assert!(!is_quiet(pos, mv) && !wins_exchange(pos, mv));
                    bad += 1;
                }
                MoveKind::Killer => {
                    assert!(is_quiet(pos, mv) && killers.contains(&mv) && mv != tt_move);
                    killers_tried += 1;
                }
                MoveKind::CounterMove => {
                    assert!(is_quiet(pos, mv) && mv == counter && !killers.contains(&mv));
                    counters += 1;
                }
                MoveKind::Quiet => {
                    assert!(is_quiet(pos, mv));
                    assert!(mv != tt_move && mv != counter && !killers.contains(&mv));
                    assert_eq!(p.score, heur.history(pos.side_to_move(), mv));
                }
                MoveKind::Evasion => panic!("no evasion kind in the main search"),
            }
        }
        // A refutation that is a legal quiet move comes as one.
        for &k in killers.iter().chain([&counter]) {
            if !k.is_null() && k != tt_move && quiets.contains(k) {
                assert!(picked.iter().any(
                    |p| p.mv == k && matches!(p.kind, MoveKind::Killer | MoveKind::CounterMove)
                ));
            }
        }
    }
    assert!(
        tt_tried > 300 && killers_tried > 300 && bad > 100 && counters > 50,
        "coverage: {tt_tried} TT moves, {killers_tried} killers, {counters} counter-moves, \
         {bad} bad tactical moves"
    );
}

#[test]
fn a_tt_move_not_legal_here_is_not_yielded() {
    let positions = random_positions_with_drops(72, 200);
    let heur = Heuristics::new();
    let mut foreign = 0;
    for pair in positions.windows(2) {
        let (pos, other) = (&pair[0], &pair[1]);
        let legal = pos.legal_moves();
        for &mv in other
            .legal_moves()
            .iter()
            .filter(|&&mv| !legal.contains(mv))
        {
            let mut picker =
                MovePicker::main(pos, mv, [Move::NULL; 2], Move::NULL, [None; 2], true);
            let picked = drain(&mut picker, pos, &heur);
            assert_eq!(picked.len(), legal.len());
            assert!(picked.iter().all(|p| p.mv != mv && p.kind != MoveKind::Tt));
            let mut picker = MovePicker::tactical(pos, mv, true);
            assert!(drain(&mut picker, pos, &heur).iter().all(|p| p.mv != mv));
            foreign += 1;
        }
    }
    assert!(foreign > 1000, "{foreign} foreign moves tried");
}

#[test]
fn tactical_picker_yields_the_tactical_moves_good_first_or_every_evasion() {
    let positions = random_positions_with_drops(73, 800);
    let heur = taught(&positions);
    let mut evasion_nodes = 0;
    for (n, pos) in positions.iter().enumerate() {
        let mut tactical = MoveList::new();
        pos.generate(GenKind::Tactical, &mut tactical);
        let tt_move = some_move(&pos.legal_moves(), n);
        let mut picker = MovePicker::tactical(pos, tt_move, true);
        assert_eq!(picker.count(pos), tactical.len());
        assert_eq!(picker.is_empty(), tactical.is_empty());
        let picked = drain(&mut picker, pos, &heur);
        let mut seen: Vec<u32> = picked.iter().map(|p| u32::from(p.mv.raw())).collect();
        seen.sort_unstable();
        let mut expected: Vec<u32> = tactical.iter().map(|mv| u32::from(mv.raw())).collect();
        expected.sort_unstable();
        assert_eq!(seen, expected);
        let tt_expected = tactical.contains(tt_move);
        assert_eq!(
            picked.first().is_some_and(|p| p.kind == MoveKind::Tt),
            tt_expected
        );
        let rest = &picked[usize::from(tt_expected)..];
        if pos.in_check() {
            evasion_nodes += 1;
            assert!(rest.iter().all(|p| p.kind == MoveKind::Evasion));
            // Captures and promotions before the other evasions.
            let first_quiet = rest.iter().position(|p| is_quiet(pos, p.mv));
            if let Some(i) = first_quiet {
                assert!(rest[i..].iter().all(|p| is_quiet(pos, p.mv)));
            }
        } else {
            for w in rest.windows(2) {
                assert!(rank(w[0].kind) <= rank(w[1].kind));
            }
            assert!(
                rest.iter()
                    .all(|p| matches!(p.kind, MoveKind::GoodTactical | MoveKind::BadTactical))
            );
        }
    }
    assert!(evasion_nodes > 20, "{evasion_nodes} positions in check");
}

#[test]
fn scored_moves_sort_best_first_keeping_ties_in_order() {
    let pos = Position::startpos();
    let mut list = ScoredMoves::new();
    let legal = pos.legal_moves();
    for (i, &mv) in legal.iter().enumerate() {
        list.push(mv, (i as i32 * 7) % 5);
    }
    list.sort();
    let order: Vec<i32> = list
        .moves()
        .iter()
        .map(|mv| legal.iter().position(|m| m == mv).unwrap() as i32)
        .collect();
    for w in order.windows(2) {
        let (a, b) = ((w[0] * 7) % 5, (w[1] * 7) % 5);
        assert!(a > b || (a == b && w[0] < w[1]));
    }
    assert_eq!(list.moves().len(), legal.len());
}
