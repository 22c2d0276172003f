//! One test per (position, depth) of `tests/data/perft.txt` (a copy of the shared reference,
//! strict 打ち歩詰め convention). Cases above ~10 million nodes are ignored by default; run them
//! with `cargo test --release -- --ignored perft`.

use crate::perft_entries;
use minishogi_rules::{Position, perft, perft_divide};

fn check(name: &str, depth: u32) {
    let entry = perft_entries()
        .into_iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("{name} is not in perft.txt"));
    let expected = entry
        .counts
        .iter()
        .find(|&&(d, _)| d == depth)
        .unwrap_or_else(|| panic!("{name} has no depth {depth} in perft.txt"))
        .1;
    let mut pos = Position::from_sfen(entry.sfen).unwrap();
    let before = pos.clone();
    assert_eq!(perft(&mut pos, depth), expected, "{name} depth {depth}");
    assert_eq!(pos, before, "perft must leave the position as it found it");
}

macro_rules! perft_cases {
    ($($position:ident { $($(#[$attr:meta])* $test:ident = $depth:literal),* $(,)? })*) => {
        $(
            #[allow(non_snake_case)]
            mod $position {
                $(
                    #[test]
                    $(#[$attr])*
                    fn $test() {
                        super::check(stringify!($position), $depth);
                    }
                )*
            }
        )*
        /// Every (position, depth) that has a test above.
        const COVERED: &[(&str, u32)] = &[$($((stringify!($position), $depth),)*)*];
    };
}

perft_cases! {
    startpos {
        d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5, d6 = 6,
        #[ignore = "132 M nodes: under 1 s of CPU in release"] d7 = 7,
        #[ignore = "2.2 G nodes: 11 s of CPU in release"] d8 = 8,
    }
    uchifuzume_sente { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5 }
    uchifuzume_gote { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5 }
    pawn_must_promote { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5, d6 = 6 }
    silver_promotes_leaving_zone { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5, d6 = 6 }
    nifu_sente { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5 }
    nifu_gote { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5 }
    gote_pawn_drops { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5 }
    everything_in_hand {
        d1 = 1, d2 = 2, d3 = 3,
        #[ignore = "59 M nodes: 0.1 s of CPU in release"] d4 = 4,
    }
    promoted_pieces { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5, d6 = 6 }
    check_evasion_by_drop_interposition { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5 }
    midgame_selfplay_A_ply13 { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5 }
    midgame_selfplay_A_ply21 { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5 }
    midgame_selfplay_A_ply29 { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5 }
    midgame_selfplay_A_ply37 { d1 = 1, d2 = 2, d3 = 3, d4 = 4 }
    midgame_selfplay_B_ply22 {
        d1 = 1, d2 = 2, d3 = 3, d4 = 4,
        #[ignore = "17 M nodes: 0.1 s of CPU in release"] d5 = 5,
    }
    midgame_selfplay_B_ply46 { d1 = 1, d2 = 2, d3 = 3, d4 = 4, d5 = 5 }
    midgame_selfplay_C_ply39 { d1 = 1, d2 = 2, d3 = 3, d4 = 4 }
    midgame_selfplay_C_ply47 { d1 = 1, d2 = 2, d3 = 3, d4 = 4 }
}

#[test]
fn every_reference_count_has_a_test() {
    let mut missing = Vec::new();
    for entry in perft_entries() {
        for &(depth, _) in &entry.counts {
            if !COVERED.contains(&(entry.name, depth)) {
                missing.push(format!("{} D{depth}", entry.name));
            }
        }
    }
    assert!(missing.is_empty(), "no test for {missing:?}");
    assert_eq!(
        COVERED.len(),
        perft_entries()
            .iter()
            .map(|e| e.counts.len())
            .sum::<usize>()
    );
}

#[test]
fn divide_adds_up_to_perft() {
    for entry in perft_entries() {
        let mut pos = Position::from_sfen(entry.sfen).unwrap();
        let divide = perft_divide(&mut pos, 3);
        assert_eq!(divide.len(), pos.count_legal_moves(), "{}", entry.name);
        let total: u64 = divide.iter().map(|&(_, n)| n).sum();
        assert_eq!(total, perft(&mut pos, 3), "{}", entry.name);
    }
}
