//! Builds the review's acceptance set (issue 55): engine games with one blunder planted in
//! each, proven by the rules crate's brute-force mate oracle, never by the search under test.
//!
//! - `missed_mate`: the mover could mate within 3 plies and the planted move lets the other
//!   side mate within 3 instead;
//! - `thrown_win`: the mover stood at +1000 cp or more (a 200,000-node search) with no mate
//!   within 3 plies, and the planted move lets the other side mate within 3.
//!
//! Each game gives at most one record, cut at its first such position (from ply 10): a missed
//! mate where the game has one, else a win thrown away, 12 of each. The planted move is the
//! first, in the rules' move order, that does it; the record then ends with the other side's
//! mate as the engine plays it. Writes `OUT/planted-NN.kif` and `OUT/planted.txt` (file, the planted move's
//! index in the record, its kind).
//!
//! cargo run --release --example plant_blunders -- OUT games.txt… (from `engine match --out`)

use std::fmt::Write as _;

use engine::records::{self, Format, Record};
use engine::search::{Limits, Score, SearchControl, SearchOptions, Searcher};
use engine::shogi::mate_oracle::shortest_win;
use engine::shogi::{Game, GameStatus, Move, Position};

const WON_CP: i32 = 1000;
const PER_KIND: usize = 12;

fn search(s: &mut Searcher, pos: &Position, nodes: u64) -> (Option<Move>, Score) {
    s.clear();
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let r = s.search_position(pos, &limits, &SearchControl::default(), &mut |_| {});
    (r.best, r.score)
}

/// The first move, in the rules' order, after which the other side mates within 3 plies.
fn losing_move(pos: &Position) -> Option<Move> {
    pos.legal_moves()
        .iter()
        .copied()
        .find(|&mv| shortest_win(&pos.after(mv), 3, false).is_some())
}

/// A planted game of `kind` from `moves` played from `start`, if a position for one comes.
fn plant(
    s: &mut Searcher,
    start: &Position,
    moves: &[Move],
    kind: &str,
) -> Option<(Record, usize)> {
    let mut pos = start.clone();
    for (ply, &played) in moves.iter().enumerate() {
        if ply >= 10 {
            let wins = shortest_win(&pos, 3, false).is_some();
            let fits = match kind {
                "missed_mate" => wins,
                _ => !wins && matches!(search(s, &pos, 200_000).1, Score::Cp(cp) if cp >= WON_CP),
            };
            if fits && let Some(planted) = losing_move(&pos) {
                let mut line: Vec<Move> = moves[..ply].to_vec();
                line.push(planted);
                // The other side's mate, as the engine plays it (the oracle proved it).
                let mut game = Game::new(start.clone());
                for &mv in &line {
                    game.play(mv).ok()?;
                }
                while game.status() == GameStatus::Ongoing && line.len() < ply + 12 {
                    let (best, _) = search(s, game.position(), 200_000);
                    let mv = best?;
                    game.play(mv).ok()?;
                    line.push(mv);
                }
                if !matches!(game.status(), GameStatus::Win { .. }) {
                    return None;
                }
                return Some((Record::new(start.clone(), line), ply));
            }
        }
        pos = pos.after(played);
    }
    None
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((out, sources)) = args.split_first().filter(|(_, s)| !s.is_empty()) else {
        eprintln!("usage: plant_blunders OUT games.txt…");
        std::process::exit(2);
    };
    std::fs::create_dir_all(out).expect("create OUT");
    let mut s = Searcher::new(SearchOptions {
        hash_mb: 16,
        ..SearchOptions::default()
    });
    let mut manifest = String::from("# file, index of the planted move in the record, kind\n");
    let mut games = Vec::new();
    for source in sources {
        let text = std::fs::read_to_string(source).expect("read games");
        // `N A vs B: result; position …`
        games.extend(
            text.lines()
                .filter_map(|line| line.split_once("; "))
                .filter_map(|(_, usi)| records::read(usi.as_bytes(), Format::Usi).ok()),
        );
    }
    // Each game gives at most one record: a missed mate where it has one, else a won
    // position thrown away; PER_KIND of each kind.
    let mut used = vec![false; games.len()];
    let mut written = 0;
    for kind in ["missed_mate", "thrown_win"] {
        let mut count = 0;
        for (i, game) in games.iter().enumerate() {
            if used[i] || count == PER_KIND {
                continue;
            }
            let Some((mut record, ply)) = plant(&mut s, &game.start, &game.moves, kind) else {
                continue;
            };
            used[i] = true;
            count += 1;
            written += 1;
            let name = format!("planted-{written:02}.kif");
            record.event = Some(format!("review acceptance set: {kind} at move {}", ply + 1));
            std::fs::write(
                std::path::Path::new(out).join(&name),
                records::write(&record, Format::Kif),
            )
            .expect("write record");
            writeln!(manifest, "{name} {ply} {kind}").unwrap();
            eprintln!("{name}: {kind} at index {ply} (game {})", i + 1);
        }
    }
    std::fs::write(std::path::Path::new(out).join("planted.txt"), manifest)
        .expect("write manifest");
    eprintln!("{written} records");
}
