//! Where puzzles come from: the games read (datagen shards, KIF/KIFU/CSA records, files of USI
//! position lines such as `engine match`'s games.txt) and the positions in them worth trying,
//! by lichess-puzzler's rules: a mate within reach for the side to move, or a swing in the
//! winning chances — the opponent's last move turned a game the side to move was not winning
//! into one it wins. The scores are the search's: the shards keep theirs; records are searched
//! first ([`RecordGame`], scored by the caller).

use std::path::{Path, PathBuf};

use crate::eval::{EVAL_LIMIT, win_probability_of_cp};
use crate::fileio;
use crate::records::{self, Format};
use crate::search::score::{MATE, is_stored_mate};
use crate::shogi::Position;
use crate::train::datagen::format::read_shard;

/// A swing starts from a position the side to move was winning less often than this.
pub const SWING_BEFORE: f32 = 0.60;
/// …and ends in one it wins at least this often (the fitted curve,
/// `eval::win_probability_of_cp`).
pub const SWING_AFTER: f32 = 0.85;

/// What the scores promise of a candidate position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hint {
    /// The search saw a mate in this many moves.
    Mate(u32),
    /// A swing to a winning position.
    Advantage,
}

/// A position to try.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub pos: Position,
    /// Where it is, for the puzzle's `source`.
    pub source: String,
    /// The game it is from, numbered over all the inputs (one puzzle per game).
    pub game: usize,
    pub hint: Hint,
}

/// A game of a record file, its positions still to be searched.
pub struct RecordGame {
    /// The game, for the sources: `games.txt game 3`, `a.kif`.
    pub label: String,
    /// Every position, the start first; each one's move number is its ply + 1.
    pub positions: Vec<Position>,
}

/// All the inputs read: shards' candidates found at once, records' games to be scored.
#[derive(Default)]
pub struct Inputs {
    pub candidates: Vec<Candidate>,
    pub record_games: Vec<RecordGame>,
    pub shards: usize,
    pub shard_games: usize,
    pub shard_positions: usize,
    pub files: usize,
    /// Games numbered so far (shards' and records').
    pub games: usize,
}

/// The candidates of one game from the search's score of each position (the stored scale,
/// `search::score::to_stored`, for the side to move): index and hint. Every position with a
/// mate for the side to move within `max_mate_moves` (a game played out to mate has the mate's
/// last moves too: the mates in one and two of the set); a swing where the opponent's last move
/// gave it.
pub fn game_candidates(scores: &[i32], max_mate_moves: u32) -> Vec<(usize, Hint)> {
    let mut found = Vec::new();
    for (i, &score) in scores.iter().enumerate() {
        let previous = i.checked_sub(1).map(|j| scores[j]);
        if is_stored_mate(score) {
            let plies = (MATE - score.abs()) as u32;
            if score > 0 && plies < 2 * max_mate_moves {
                found.push((i, Hint::Mate(plies.div_ceil(2))));
            }
            continue;
        }
        let Some(previous) = previous else { continue };
        if score.abs() > EVAL_LIMIT || previous.abs() > EVAL_LIMIT {
            continue;
        }
        let before = 1.0 - win_probability_of_cp(previous as f32);
        let after = win_probability_of_cp(score as f32);
        if before < SWING_BEFORE && after >= SWING_AFTER {
            found.push((i, Hint::Advantage));
        }
    }
    found
}

/// The files a path names: itself, or a folder's files (and its folders') in name order; each
/// with its name for the sources, from the folder named on (`data/levels/games.txt`) or the
/// file's own name.
fn files_of(path: &Path, name: &str, out: &mut Vec<(PathBuf, String)>) -> Result<(), String> {
    if !path.is_dir() {
        out.push((path.to_path_buf(), name.to_string()));
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for entry in entries {
        let name = format!("{name}/{}", file_name(&entry));
        if entry.is_dir() {
            files_of(&entry, &name, out)?;
        } else if is_input(&entry) {
            out.push((entry, name));
        }
    }
    Ok(())
}

/// The files of a folder that are read: shards and records (other files are passed over).
fn is_input(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "dgn") || Format::from_path(path).is_some()
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Reads every input: files or folders of shards and records.
pub fn read(paths: &[PathBuf], max_mate_moves: u32) -> Result<Inputs, String> {
    let mut files = Vec::new();
    for path in paths {
        if !path.exists() {
            return Err(format!("{}: no such file or folder", path.display()));
        }
        files_of(path, &file_name(path), &mut files)?;
    }
    if files.is_empty() {
        return Err("no shard or record among the inputs".into());
    }
    let mut inputs = Inputs::default();
    for (file, name) in &files {
        if file.extension().is_some_and(|e| e == "dgn") {
            read_shard_file(file, max_mate_moves, &mut inputs)?;
        } else {
            read_record_file(file, name, &mut inputs)?;
        }
        inputs.files += 1;
    }
    Ok(inputs)
}

/// A shard's candidates, by its stored scores (positions unpacked only for candidates).
fn read_shard_file(file: &Path, max_mate_moves: u32, inputs: &mut Inputs) -> Result<(), String> {
    let shard = read_shard(file).map_err(|e| e.to_string())?;
    if shard.torn_bytes > 0 {
        log::warn!(
            "{}: {} bytes of an unfinished game at the end; left out",
            file.display(),
            shard.torn_bytes
        );
    }
    let generation = file
        .parent()
        .and_then(Path::file_name)
        .map_or_else(|| ".".to_string(), |n| n.to_string_lossy().into_owned());
    inputs.shards += 1;
    for game in &shard.games {
        let game_number = inputs.games;
        inputs.games += 1;
        inputs.shard_games += 1;
        inputs.shard_positions += game.positions.len();
        let scores: Vec<i32> = game.positions.iter().map(|p| p.score).collect();
        for (i, hint) in game_candidates(&scores, max_mate_moves) {
            let record = &game.positions[i];
            let Some(mut pos) = record.position.unpack() else {
                return Err(format!(
                    "{}: game {}: a corrupt position",
                    file.display(),
                    game.index
                ));
            };
            // A swing is the opponent's move: the position before must lead to this one.
            if hint == Hint::Advantage {
                let before = &game.positions[i - 1];
                let follows = before.position.unpack().is_some_and(|b| {
                    b.is_legal(before.best_move()) && b.after(before.best_move()).key() == pos.key()
                });
                if !follows {
                    continue;
                }
            }
            pos.set_move_number(u32::from(record.ply) + 1);
            inputs.candidates.push(Candidate {
                pos,
                source: format!(
                    "selfplay {generation} shard {} game {} ply {}",
                    shard.header.shard, game.index, record.ply
                ),
                game: game_number,
                hint,
            });
        }
    }
    Ok(())
}

/// A record file's games: one KIF/KIFU/CSA record, or a file of USI position lines (one game
/// a line: games.txt's `N sente vs gote: result …; position …` or a bare position line).
fn read_record_file(file: &Path, name: &str, inputs: &mut Inputs) -> Result<(), String> {
    let bytes = fileio::read_regular(file).map_err(|e| format!("cannot read {e}"))?;
    let format = Format::from_path(file).unwrap_or_else(|| records::detect_format(&bytes));
    if format != Format::Usi {
        let record = records::read(&bytes, format).map_err(|e| match e.line {
            0 => format!("{}: {}", file.display(), e.message),
            line => format!("{}:{line}: {}", file.display(), e.message),
        })?;
        push_game(inputs, name.to_string(), &record.start, &record.moves);
        return Ok(());
    }
    let text =
        records::text::decode(&bytes).map_err(|e| format!("{}: {}", file.display(), e.message))?;
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        let position = match crate::matches::read_games_line(line) {
            Some(games_line) => games_line.position,
            None => line,
        };
        // Engine names may hold `#`: comments are cut from the position part only.
        let position = position.split('#').next().unwrap_or("").trim();
        if position.is_empty() {
            continue;
        }
        let game = records::usi::parse_position(position)
            .map_err(|e| format!("{}:{}: {e}", file.display(), index + 1))?;
        let label = format!("{name} game {}", index + 1);
        push_game(inputs, label, game.start_position(), game.moves());
    }
    Ok(())
}

fn push_game(inputs: &mut Inputs, label: String, start: &Position, moves: &[crate::shogi::Move]) {
    let mut pos = start.clone();
    let first = pos.move_number().max(1);
    pos.set_move_number(first);
    let mut positions = vec![pos.clone()];
    for (i, &mv) in moves.iter().enumerate() {
        pos.make_move(mv);
        pos.set_move_number(first + i as u32 + 1);
        positions.push(pos.clone());
    }
    inputs.games += 1;
    inputs.record_games.push(RecordGame { label, positions });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Score;
    use crate::search::score::to_stored;

    #[test]
    fn every_mate_within_reach_and_swings_by_the_opponents_move() {
        let mate = |n| to_stored(Score::Mate(n));
        // Even, equal, a blunder (+1200 for the side to move), then a mate in 3 plies, the
        // loser's view, the same mate shorter.
        let scores = [0, 50, -60, 1200, -1000, mate(3), mate(-2), mate(1)];
        let found = game_candidates(&scores, 5);
        let expected = vec![(3, Hint::Advantage), (5, Hint::Mate(2)), (7, Hint::Mate(1))];
        assert_eq!(found, expected);
        // A mate longer than asked for is not one.
        assert!(game_candidates(&[0, mate(11)], 5).is_empty());
        // Already winning before is no swing.
        assert!(game_candidates(&[-900, 1200], 5).is_empty());
    }
}
