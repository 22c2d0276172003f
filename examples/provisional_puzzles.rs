//! A handful of mate puzzles for the board's puzzle mode until the full set (`engine
//! puzzles`) replaces them: self-play positions where the side to move mates by checks in 1 to
//! 3 moves — those of `tests/data/hand-rich.sfen`, then the last plies of the games of the
//! datagen shards named on the command line (one puzzle a game) — solved by the rules'
//! brute-force mate checker (`shogi::mate_oracle`), each in `web/page/puzzles/`'s format.
//!
//! Sound as the format asks: no shorter mate over all moves; before the last move, the
//! solver's move is the only check that mates within the length (for mates in two, the only
//! move at all); each reply is the defence after which the mate takes longest; at the last
//! move any mate is accepted by the board. Difficulty: 1 for a mate in one, 2–3 for a mate in
//! two and 4–5 for a mate in three, the higher where the first move has more checks beside it.
//!
//! cargo run --release --example provisional_puzzles -- [SHARD.dgn …] \
//!     > web/page/puzzles/minishogi-puzzles.json

use engine::shogi::mate_oracle::{loses_within, shortest_win, wins_within};
use engine::shogi::{Move, Position};
use engine::train::datagen::format::read_shard;
use serde_json::{Value, json};

const SOURCE: &str = "tests/data/hand-rich.sfen";
/// How many puzzles of each length (mate in 1, 2, 3).
const WANTED: [usize; 3] = [4, 6, 4];
/// The plies at a game's end looked at for a mate.
const LAST_PLIES: usize = 12;

/// The solver's moves that mate within `plies` by checks.
fn mating_checks(pos: &Position, plies: u32) -> Vec<Move> {
    pos.legal_moves()
        .iter()
        .copied()
        .filter(|&m| pos.gives_check(m) && loses_within(&pos.after(m), plies - 1, true))
        .collect()
}

/// The solution of a mate in `plies` by checks, if it is sound (see above).
fn solution(pos: &Position, plies: u32) -> Option<Vec<Move>> {
    let mut line = Vec::new();
    let mut p = pos.clone();
    let mut left = plies;
    loop {
        let mates = mating_checks(&p, left);
        if left == 1 {
            line.push(*mates.first()?);
            return Some(line);
        }
        let [mv] = mates[..] else { return None };
        if left == 3
            && p.legal_moves()
                .iter()
                .any(|&m| m != mv && loses_within(&p.after(m), 2, false))
        {
            return None;
        }
        line.push(mv);
        p.make_move(mv);
        left -= 2;
        let reply = *p.legal_moves().iter().max_by_key(|&&r| {
            let after = p.after(r);
            (1..=left)
                .step_by(2)
                .find(|&n| wins_within(&after, n, true))
        })?;
        line.push(reply);
        p.make_move(reply);
    }
}

/// The positions looked at, each with where it came from, a group (one puzzle a group).
fn positions() -> Vec<(Position, String, String)> {
    let text = std::fs::read_to_string(SOURCE).expect("tests/data/hand-rich.sfen");
    let mut all: Vec<(Position, String, String)> = text
        .lines()
        .enumerate()
        .filter_map(|(number, line)| {
            let sfen = line.strip_prefix("sfen ")?;
            let source = format!("{SOURCE} line {} (self-play)", number + 1);
            Some((
                Position::from_sfen(sfen).expect("a position"),
                source.clone(),
                source,
            ))
        })
        .collect();
    for path in std::env::args().skip(1) {
        let shard = read_shard(std::path::Path::new(&path)).expect("a datagen shard");
        for game in &shard.games {
            let from = game.positions.len().saturating_sub(LAST_PLIES);
            for record in &game.positions[from..] {
                let Some(pos) = record.position.unpack() else {
                    continue;
                };
                let source = format!("{path} game {} ply {}", game.index, record.ply);
                all.push((pos, source, format!("{path} game {}", game.index)));
            }
        }
    }
    all
}

fn main() {
    let mut found = [0usize; 3];
    let mut puzzles: Vec<Value> = Vec::new();
    let mut groups = std::collections::HashSet::new();
    for (pos, source, group) in positions() {
        if found == WANTED {
            break;
        }
        if groups.contains(&group) {
            continue;
        }
        let sfen = pos.to_sfen();
        let Some(plies) = shortest_win(&pos, 5, true) else {
            continue;
        };
        let mate = (plies as usize).div_ceil(2);
        if found[mate - 1] >= WANTED[mate - 1]
            || (plies > 1 && shortest_win(&pos, plies - 2, false).is_some())
        {
            continue;
        }
        let Some(moves) = solution(&pos, plies) else {
            continue;
        };
        found[mate - 1] += 1;
        groups.insert(group);
        let solver: Vec<Move> = moves.iter().copied().step_by(2).collect();
        let mut themes = vec![format!("mateIn{mate}"), "tsume".to_string()];
        if solver.iter().any(|m| m.is_drop()) {
            themes.push("drop".into());
        }
        if solver.iter().any(|m| m.is_promotion()) {
            themes.push("promotion".into());
        }
        // A sacrifice: the reply takes the piece the solver has just put down.
        if moves
            .chunks(2)
            .any(|pair| pair.len() == 2 && pair[1].to() == pair[0].to())
        {
            themes.push("sacrifice".into());
        }
        let checks = pos
            .legal_moves()
            .iter()
            .filter(|&&m| pos.gives_check(m))
            .count();
        let difficulty = match mate {
            1 => 1,
            2 => 2 + usize::from(checks > 4),
            _ => 4 + usize::from(checks > 6),
        };
        puzzles.push(json!({
            "sfen": sfen,
            "moves": moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "kind": "mate",
            "mate": mate,
            "tsume": true,
            "themes": themes,
            "difficulty": difficulty,
            "source": source,
        }));
    }
    // Easiest first, then as found; ids in that order.
    puzzles.sort_by_key(|p| p["mate"].as_u64());
    for (i, p) in puzzles.iter_mut().enumerate() {
        p["id"] = json!(format!("p{:04}", i + 1));
    }
    let file = json!({
        "version": 1,
        "generated_by": format!(
            "cargo run --release --example provisional_puzzles --{} (mates by checks in {SOURCE} \
             and the shards' last {LAST_PLIES} plies, solved by shogi::mate_oracle; a \
             provisional set until `engine puzzles` writes the full one)",
            std::env::args().skip(1).map(|a| format!(" {a}")).collect::<String>()
        ),
        "puzzles": puzzles,
    });
    println!("{}", serde_json::to_string_pretty(&file).expect("JSON"));
    eprintln!("mates in 1, 2, 3: {found:?}");
}
