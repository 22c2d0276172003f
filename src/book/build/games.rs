//! `engine book from-games`: a book of the moves played in game records, each with how often
//! it was played and how the games through it ended.
//!
//! A move's count is the number of games that played it in that position (a position reached
//! twice in one game counts twice). Its value is the result of those games for the side that
//! played it, on the engine's centipawn scale: `cp_from_probability(p)` (600·ln(p/(1−p))) with
//! `p = (wins + draws/2 + 1) / (decided + 2)` — Laplace's rule of succession, so that one won
//! game reads as a good move (+416 cp) rather than a mate. Games without a result (an
//! interrupted record, a bare position line that does not end the game) count in `count` but
//! not in the value. The depth is 0 (no search behind the value); the ponder move is the most
//! played reply in the book, if the reply's position is in it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::book::choice::game_ply;
use crate::book::format::{Book, BookMove};
use crate::eval::cp_from_probability;
use crate::records::{self, Format};
use crate::shogi::{Color, Move, Position};
use crate::train::datagen::format::{GameRecord, Side, read_shard};

/// How a game ended, as far as its record says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Win(Color),
    Draw,
    /// Interrupted, unfinished, or not recorded.
    Unknown,
}

impl GameResult {
    /// Points for `mover`: 1 won, ½ drawn, 0 lost; `None` without a result.
    fn points_for(self, mover: Color) -> Option<f64> {
        match self {
            GameResult::Win(winner) if winner == mover => Some(1.0),
            GameResult::Win(_) => Some(0.0),
            GameResult::Draw => Some(0.5),
            GameResult::Unknown => None,
        }
    }
}

/// What the games say of one move in one position.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct MoveTally {
    count: u64,
    /// Games with a result, and the points of the side that played the move in them.
    decided: u64,
    points: f64,
}

/// The moves played in each position (keyed by the book's position key), in the order first
/// seen; each position keeps the move number it was first seen with.
#[derive(Default)]
pub struct Tally {
    positions: BTreeMap<String, (Position, Vec<(Move, MoveTally)>)>,
    /// Games and positions-with-a-move counted, for the report.
    pub games: u64,
    pub moves: u64,
}

impl Tally {
    /// Counts `mv` played in `pos` in a game that ended with `result`.
    pub fn add(&mut self, pos: &Position, mv: Move, result: GameResult) {
        let key = crate::book::format::position_key(pos);
        let (_, moves) = self
            .positions
            .entry(key)
            .or_insert_with(|| (pos.clone(), Vec::new()));
        let tally = match moves.iter_mut().find(|(m, _)| *m == mv) {
            Some((_, tally)) => tally,
            None => {
                moves.push((mv, MoveTally::default()));
                &mut moves.last_mut().expect("just pushed").1
            }
        };
        tally.count += 1;
        if let Some(points) = result.points_for(pos.side_to_move()) {
            tally.decided += 1;
            tally.points += points;
        }
        self.moves += 1;
    }

    /// Counts the moves of a game from `start` at game plies below `max_ply`.
    pub fn add_game(&mut self, start: &Position, moves: &[Move], result: GameResult, max_ply: u32) {
        let mut pos = start.clone();
        for &mv in moves {
            if game_ply(&pos) >= max_ply {
                break;
            }
            self.add(&pos, mv, result);
            pos.make_move(mv);
        }
        self.games += 1;
    }

    /// The book: moves played at least `min_count` times, most played first (then by value,
    /// then by their USI text, so that the book does not depend on the order of the games);
    /// positions left without moves are dropped.
    pub fn into_book(self, min_count: u64) -> Book {
        let mut book = Book::new();
        for (pos, moves) in self.positions.into_values() {
            let mut kept: Vec<BookMove> = moves
                .into_iter()
                .filter(|(_, t)| t.count >= min_count)
                .map(|(mv, t)| BookMove {
                    mv,
                    ponder: None,
                    value: value_of(&t),
                    depth: 0,
                    count: t.count,
                })
                .collect();
            if kept.is_empty() {
                continue;
            }
            kept.sort_by(|a, b| {
                (b.count, b.value)
                    .cmp(&(a.count, a.value))
                    .then_with(|| a.mv.to_string().cmp(&b.mv.to_string()))
            });
            book.entry_mut(&pos).moves = kept;
        }
        set_ponder_moves(&mut book);
        book
    }
}

/// The value of a move from its games (see the module's comment).
fn value_of(t: &MoveTally) -> i32 {
    let p = (t.points + 1.0) / (t.decided as f64 + 2.0);
    cp_from_probability(p as f32)
}

/// Each move's ponder move: the first move of the reply's position in the book (the most
/// played, as the moves are sorted), if that position is in the book.
pub fn set_ponder_moves(book: &mut Book) {
    // Each entry's ponder moves, in the order of its moves (found first: the book is read).
    let replies: Vec<Vec<Option<Move>>> = book
        .iter()
        .map(|(key, entry)| {
            let pos = Book::position_of(key, entry);
            entry
                .moves
                .iter()
                .map(|m| {
                    let after = pos.after(m.mv);
                    book.get(&after).and_then(|e| e.moves.first()).map(|r| r.mv)
                })
                .collect()
        })
        .collect();
    for ((_, entry), replies) in book.iter_mut().zip(replies) {
        for (m, reply) in entry.moves.iter_mut().zip(replies) {
            m.ponder = reply;
        }
    }
}

/// The result of a record: its winner, a draw, or unknown (no ending, or interrupted).
fn record_result(record: &records::Record) -> GameResult {
    match (record.ending, record.winner) {
        (_, Some(winner)) => GameResult::Win(winner),
        (None | Some(records::Ending::Interrupted), None) => GameResult::Unknown,
        (Some(_), None) => GameResult::Draw,
    }
}

/// One line of a games file: a `games.txt` line of `engine match`
/// ([`crate::matches::read_games_line`] reads it) or a bare position line, whose result is the
/// rules' verdict on its last position (unknown if the game is not over).
fn add_games_line(tally: &mut Tally, line: &str, max_ply: u32) -> Result<(), String> {
    let (game_text, result) = match crate::matches::read_games_line(line) {
        Some(g) => {
            let result = match g.result {
                "1-0" => GameResult::Win(Color::Sente),
                "0-1" => GameResult::Win(Color::Gote),
                _ => GameResult::Draw,
            };
            (g.position, Some(result))
        }
        None => (line, None),
    };
    // Engine names may hold `#`, so comments are cut from the game part only.
    let game_text = game_text.split('#').next().unwrap_or("").trim();
    if game_text.is_empty() {
        return Ok(());
    }
    let game = records::usi::parse_position(game_text).map_err(|e| e.to_string())?;
    let result = match result {
        Some(result) => result,
        None => match game.status() {
            crate::shogi::GameStatus::Ongoing => GameResult::Unknown,
            crate::shogi::GameStatus::Draw(_) => GameResult::Draw,
            crate::shogi::GameStatus::Win { winner, .. } => GameResult::Win(winner),
        },
    };
    tally.add_game(game.start_position(), game.moves(), result, max_ply);
    Ok(())
}

/// The moves of a datagen game: each searched position with the move played, at its ply since
/// the opening (the random plies before the first searched position are not stored).
fn add_datagen_game(tally: &mut Tally, game: &GameRecord, max_ply: u32) -> Result<(), String> {
    let result = match game.winner {
        None => GameResult::Draw,
        Some(Side::Sente) => GameResult::Win(Color::Sente),
        Some(Side::Gote) => GameResult::Win(Color::Gote),
    };
    for record in &game.positions {
        if u32::from(record.ply) >= max_ply {
            break;
        }
        let mut pos = record
            .position
            .unpack()
            .ok_or_else(|| format!("game {}: a corrupt position", game.index))?;
        pos.set_move_number(u32::from(record.ply) + 1);
        let mv = record.best_move();
        if !pos.is_legal(mv) {
            log::warn!(
                "game {}: move {mv} is not legal in {}; left out",
                game.index,
                pos.to_sfen()
            );
            continue;
        }
        tally.add(&pos, mv, result);
    }
    tally.games += 1;
    Ok(())
}

/// The datagen shards a path names: the file, or the `.dgn` files of a folder in name order.
fn shard_files(path: &Path) -> Result<Vec<PathBuf>, String> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "dgn"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("{}: a folder without .dgn shards", path.display()));
    }
    Ok(files)
}

/// Adds the games of one file (or folder of shards): `.dgn` shards and folders of them, KIF
/// (`.kif`, `.kifu`) and CSA (`.csa`) records, and files of position lines (`games.txt`,
/// `.usi`, `.sfen`, anything else). Errors name the file and, where there is one, the line.
pub fn add_file(tally: &mut Tally, path: &Path, max_ply: u32) -> Result<(), String> {
    let is_shard = path.is_dir() || path.extension().is_some_and(|e| e == "dgn");
    if is_shard {
        for file in shard_files(path)? {
            let shard = read_shard(&file).map_err(|e| e.to_string())?;
            if shard.torn_bytes > 0 {
                log::warn!(
                    "{}: {} bytes of an unfinished game at the end; left out",
                    file.display(),
                    shard.torn_bytes
                );
            }
            for game in &shard.games {
                add_datagen_game(tally, game, max_ply)
                    .map_err(|e| format!("{}: {e}", file.display()))?;
            }
        }
        return Ok(());
    }
    let bytes = crate::fileio::read_regular(path).map_err(|e| format!("cannot read {e}"))?;
    match Format::from_path(path) {
        Some(format @ (Format::Kif | Format::Kifu | Format::Csa)) => {
            let record = records::read(&bytes, format).map_err(|e| match e.line {
                0 => format!("{}: {}", path.display(), e.message),
                line => format!("{}:{line}: {}", path.display(), e.message),
            })?;
            tally.add_game(
                &record.start,
                &record.moves,
                record_result(&record),
                max_ply,
            );
        }
        _ => {
            let text = records::text::decode(&bytes)
                .map_err(|e| format!("{}: {}", path.display(), e.message))?;
            for (index, line) in text.lines().enumerate() {
                add_games_line(tally, line.trim(), max_ply)
                    .map_err(|e| format!("{}:{}: {e}", path.display(), index + 1))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally_of(lines: &str, max_ply: u32) -> Tally {
        let mut tally = Tally::default();
        for line in lines.lines() {
            add_games_line(&mut tally, line, max_ply).unwrap();
        }
        tally
    }

    #[test]
    fn counts_and_results_of_games_lines() {
        let tally = tally_of(
            "1 a vs b: 1-0 checkmate; position startpos moves 3e3d 3a3b 4e4d\n\
             2 b vs a: 0-1 resignation; position startpos moves 3e3d 1a2b\n\
             3 a vs b: 1/2-1/2 max plies; position sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 5e4d\n\
             position startpos moves 3e3d # no result\n\
             \n",
            2,
        );
        assert_eq!((tally.games, tally.moves), (4, 6));
        let book = tally.into_book(1);
        let start = book.get(&Position::startpos()).unwrap();
        let summary: Vec<(String, u64, i32)> = start
            .moves
            .iter()
            .map(|m| (m.mv.to_string(), m.count, m.value))
            .collect();
        // 3e3d: played 3 times, won 1 of the 2 decided (p = 2/4); 5e4d: a draw (p = 1.5/3).
        assert_eq!(summary, vec![("3e3d".into(), 3, 0), ("5e4d".into(), 1, 0)]);
        // The reply first in the book (most played, then best) is the ponder move.
        assert_eq!(
            start.moves[0].ponder.map(|m| m.to_string()).as_deref(),
            Some("1a2b")
        );
        let after = Position::startpos().after(start.moves[0].mv);
        let replies = &book.get(&after).unwrap().moves;
        // 3a3b: gote lost the one game (p = 1/3); 1a2b: gote won (p = 2/3).
        assert_eq!(replies[0].mv.to_string(), "1a2b");
        assert_eq!(replies[0].value, cp_from_probability(2.0 / 3.0));
        assert_eq!(replies[1].value, -replies[0].value);
        // Ply 2 (4e4d) is beyond --max-ply 2.
        assert_eq!(book.len(), 2);
    }

    #[test]
    fn min_count_drops_rare_moves_and_empty_positions() {
        let lines = "position startpos moves 3e3d 3a3b\nposition startpos moves 3e3d 1a2b\n";
        let book = tally_of(lines, 10).into_book(2);
        assert_eq!(book.len(), 1);
        assert_eq!(book.move_count(), 1);
    }

    #[test]
    fn bad_lines_name_the_move() {
        let mut tally = Tally::default();
        let err = add_games_line(
            &mut tally,
            "1 a vs b: 1-0 x; position startpos moves 3e3d 3e3d",
            9,
        )
        .unwrap_err();
        assert!(err.contains("move 2"), "{err}");
    }
}
