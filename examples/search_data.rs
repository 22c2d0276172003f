//! Generates the search's test and bench data (printed as Rust source lines to paste):
//!
//! - `mate-positions`: positions with forced mates of exact length 1, 3 and 5 plies (over all
//!   moves and over checks only, by the brute-force `shogi::mate_oracle`), from random games;
//!   the `MATES` table of `crates/minishogi-engine/src/search/tests.rs`.
//! - `bench-lines`: move lines of self-play games at depth 4 after random openings, the source
//!   of the `engine bench` positions (`crates/minishogi-engine/src/bench.rs`; changing
//!   those changes the bench
//!   signature).
//!
//! cargo run --release --example search_data -- mate-positions|bench-lines

use engine::search::{Limits, SearchControl, SearchOptions, Searcher};
use engine::shogi::Position;
use engine::shogi::mate_oracle::shortest_win;
use engine::shogi::random::random_position;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn mate_positions() {
    let mut rng = StdRng::seed_from_u64(2024);
    let mut found = [0usize; 6];
    while found[1] < 8 || found[3] < 8 || found[5] < 8 {
        let pos = random_position(&mut |n| rng.gen_range(0..n));
        if pos.in_check() {
            continue;
        }
        for n in [1, 3, 5] {
            if found[n as usize] >= 8 {
                continue;
            }
            if shortest_win(&pos, n, false) == Some(n) && shortest_win(&pos, n, true) == Some(n) {
                found[n as usize] += 1;
                println!("    ({n}, \"{}\"),", pos.to_sfen());
            }
        }
    }
}

fn bench_lines() {
    let mut rng = StdRng::seed_from_u64(55);
    let mut s = Searcher::new(SearchOptions {
        hash_mb: 4,
        ..SearchOptions::default()
    });
    let limits = Limits {
        depth: Some(4),
        ..Limits::default()
    };
    let mut lines = 0;
    let mut seen = std::collections::HashSet::new();
    seen.insert(Position::startpos().key());
    while lines < 29 {
        let mut pos = Position::startpos();
        let mut moves: Vec<String> = Vec::new();
        let opening = rng.gen_range(2..6);
        for ply in 0..40 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = if ply < opening {
                legal[rng.gen_range(0..legal.len())]
            } else {
                s.clear();
                let r = s.search_position(&pos, &limits, &SearchControl::default(), &mut |_| {});
                r.best.expect("the position has legal moves")
            };
            pos.make_move(mv);
            moves.push(mv.to_string());
            if [7, 15, 25].contains(&ply)
                && pos.has_legal_move()
                && lines < 29
                && seen.insert(pos.key())
            {
                println!("    \"{}\",", moves.join(" "));
                lines += 1;
            }
        }
    }
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("mate-positions") => mate_positions(),
        Some("bench-lines") => bench_lines(),
        _ => {
            eprintln!("usage: search_data mate-positions|bench-lines");
            std::process::exit(2);
        }
    }
}
