//! The shard file of `engine datagen`: a header, then one framed record per finished game.
//!
//! ```text
//! header   magic "MS55DGN\n", format version (u32 LE), header length (u64 LE),
//!          FNV-1a of the header payload (u64 LE), header payload (bincode ShardHeader)
//! record   payload length (u32 LE), FNV-1a of the payload (u64 LE), payload (bincode GameRecord)
//! ```
//!
//! The header is written atomically (temporary file, rename) when the shard is created; each
//! game is appended whole and synced. A run killed while appending leaves at most one torn
//! record at the end: readers stop before it (with a warning) and a resumed run cuts it off
//! before appending, so every game in a shard is complete, and the games are exactly the
//! shard's game indices `0, 1, 2, …` in order.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fileio::{self, FileError};
use crate::search::score;
use crate::shogi::{Color, Move};
use crate::train::packed::PackedPosition;

pub const MAGIC: &[u8; 8] = b"MS55DGN\n";
pub const VERSION: u32 = 2;
/// Shards of version 1 (generations 1–13's data) predate [`GameSettings::soft_rule`]: their
/// searches all followed [`SoftRule::Started`]. They are read as such.
const VERSION_1: u32 = 1;
const HEADER_PREFIX: usize = 8 + 4 + 8 + 8;
const RECORD_PREFIX: usize = 4 + 8;
/// A record longer than this is corruption, not a game (a game of 1,000 plies is ~30 kB).
const MAX_RECORD: usize = 1 << 22;

/// What a shard is: which one of how many, and the settings every game in it was played with.
/// A resumed run must have the same header, so a shard never mixes settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardHeader {
    pub shard: u32,
    pub shards: u32,
    pub seed: u64,
    pub settings: GameSettings,
    /// FNV-1a of the evaluator's weights file (0 for the embedded network's bytes as well:
    /// it is the checksum of those bytes).
    pub network_checksum: u64,
    /// FNV-1a of the openings file's text (0 = the start position).
    pub openings_checksum: u64,
}

/// How each game is played; part of the shard header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSettings {
    /// Soft node limit of a move: no new iteration starts past it (and see `soft_rule`).
    pub soft_nodes: u64,
    pub soft_rule: SoftRule,
    /// Hard node limit of a move: the search stops there, mid-iteration.
    pub hard_nodes: u64,
    /// Uniformly random plies played from the opening position before searching starts.
    pub random_plies: u32,
    /// The opening (after the random plies) is drawn again while the search's |score| of its
    /// first position exceeds this (cp).
    pub max_opening_score: i32,
    /// A game is adjudicated won once |score| ≥ this (cp) for `adjudicate_plies` plies in a
    /// row, in agreement with the winner; 0 = never.
    pub adjudicate_score: i32,
    pub adjudicate_plies: u32,
    /// A game reaching this many plies (from the opening position) is a draw.
    pub max_plies: u32,
    /// Transposition table of each game's searcher, MiB.
    pub hash_mb: u32,
}

/// How a search keeps to the soft node limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
pub enum SoftRule {
    /// No new iteration starts once the limit is used; the one under way finishes, so a
    /// search ends up to an iteration (1.5–2× its nodes) past the limit.
    Started,
    /// Nor does one start that is predicted to end past the limit (its cost estimated from
    /// the last two iterations'): a search ends near or below the limit.
    Predicted,
}

/// A version-1 header, as stored.
#[derive(Serialize, Deserialize)]
struct ShardHeaderV1 {
    shard: u32,
    shards: u32,
    seed: u64,
    settings: GameSettingsV1,
    network_checksum: u64,
    openings_checksum: u64,
}

#[derive(Serialize, Deserialize)]
struct GameSettingsV1 {
    soft_nodes: u64,
    hard_nodes: u64,
    random_plies: u32,
    max_opening_score: i32,
    adjudicate_score: i32,
    adjudicate_plies: u32,
    max_plies: u32,
    hash_mb: u32,
}

impl From<ShardHeaderV1> for ShardHeader {
    fn from(h: ShardHeaderV1) -> ShardHeader {
        let s = h.settings;
        ShardHeader {
            shard: h.shard,
            shards: h.shards,
            seed: h.seed,
            settings: GameSettings {
                soft_nodes: s.soft_nodes,
                soft_rule: SoftRule::Started,
                hard_nodes: s.hard_nodes,
                random_plies: s.random_plies,
                max_opening_score: s.max_opening_score,
                adjudicate_score: s.adjudicate_score,
                adjudicate_plies: s.adjudicate_plies,
                max_plies: s.max_plies,
                hash_mb: s.hash_mb,
            },
            network_checksum: h.network_checksum,
            openings_checksum: h.openings_checksum,
        }
    }
}

/// Decodes a header of either version (`bytes` ends where the header does).
fn decode_header(path: &Path, bytes: &[u8]) -> Result<ShardHeader, FileError> {
    let version = bytes
        .get(8..12)
        .map(|v| u32::from_le_bytes(v.try_into().expect("4 bytes")));
    if bytes.starts_with(MAGIC) && version == Some(VERSION_1) {
        return fileio::decode::<ShardHeaderV1>(path, MAGIC, VERSION_1, bytes).map(Into::into);
    }
    fileio::decode(path, MAGIC, VERSION, bytes)
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ending {
    /// By the rules: mate, no legal move, 千日手, perpetual check.
    Rules,
    /// The search announced a mate.
    SearchMate,
    /// |score| stayed above the adjudication threshold.
    Score,
    /// The ply limit (a draw).
    MaxPlies,
}

/// One searched position of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionRecord {
    /// The position (side to move included).
    pub position: PackedPosition,
    /// The search's score for the side to move, on the stored score scale: centipawns, or
    /// ±(MATE − plies) for a mate (`search::score::to_stored`).
    pub score: i32,
    /// The move played: the search's best move (`Move::raw`).
    pub best_move: u16,
    /// Plies since the opening position (the random plies included).
    pub ply: u16,
    pub in_check: bool,
    /// Whether the best move captures.
    pub best_is_capture: bool,
}

impl PositionRecord {
    pub fn best_move(&self) -> Move {
        Move::from_raw(self.best_move)
    }

    /// Whether the score is a mate score.
    pub fn is_mate_score(&self) -> bool {
        score::is_stored_mate(self.score)
    }
}

/// A player, as stored (the rules core stays free of serialisation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    Sente,
    Gote,
}

impl From<Color> for Side {
    fn from(c: Color) -> Side {
        match c {
            Color::Sente => Side::Sente,
            Color::Gote => Side::Gote,
        }
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Game index within the shard (0, 1, 2, …).
    pub index: u64,
    /// The winner (`None` = draw).
    pub winner: Option<Side>,
    pub ending: Ending,
    /// Every searched position, in order.
    pub positions: Vec<PositionRecord>,
}

impl GameRecord {
    /// The game's result for the side to move in `record`: 1 won, 0 lost, ½ drawn.
    pub fn result_for(&self, record: &PositionRecord) -> f32 {
        let mover = if record.position.gote_to_move() {
            Side::Gote
        } else {
            Side::Sente
        };
        match self.winner {
            None => 0.5,
            Some(w) if w == mover => 1.0,
            Some(_) => 0.0,
        }
    }
}

/// The file name of shard `shard` of `shards` in its folder.
pub fn shard_file_name(shard: u32, shards: u32) -> String {
    format!("shard-{shard:05}-of-{shards:05}.dgn")
}

fn encode_header(header: &ShardHeader) -> Result<Vec<u8>, FileError> {
    fileio::encode(MAGIC, VERSION, header)
}

fn encode_record(game: &GameRecord) -> Result<Vec<u8>, FileError> {
    let payload =
        bincode::serde::encode_to_vec(game, bincode::config::standard()).map_err(|e| {
            FileError::Encode {
                error: e.to_string(),
            }
        })?;
    let mut out = Vec::with_capacity(RECORD_PREFIX + payload.len());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&fileio::fnv1a(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// A shard as read: its header, its complete games, and where the complete part ends.
#[derive(Debug)]
pub struct ShardContents {
    pub header: ShardHeader,
    pub games: Vec<GameRecord>,
    /// Bytes of the header and the complete records.
    pub valid_len: u64,
    /// Bytes after them (a torn last record), 0 for a clean file.
    pub torn_bytes: u64,
}

impl ShardContents {
    pub fn positions(&self) -> usize {
        self.games.iter().map(|g| g.positions.len()).sum()
    }
}

/// Reads a shard file: the header must be whole and valid; records are read up to the first
/// one that is incomplete or fails its checksum (the torn end of a killed run), which is
/// reported in `torn_bytes`, not as an error. A record out of order is an error.
pub fn read_shard(path: &Path) -> Result<ShardContents, FileError> {
    let bytes = fileio::read_regular(path)?;
    if bytes.len() < HEADER_PREFIX {
        // Let decode produce the right error (wrong kind or truncated).
        decode_header(path, &bytes)?;
    }
    let header_len = if bytes.len() >= HEADER_PREFIX {
        u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"))
    } else {
        0
    };
    let header_end = HEADER_PREFIX
        .saturating_add(usize::try_from(header_len).unwrap_or(usize::MAX))
        .min(bytes.len());
    let header = decode_header(path, &bytes[..header_end])?;
    let mut games = Vec::new();
    let mut at = header_end;
    while at < bytes.len() {
        let Some(record) = next_record(&bytes[at..]) else {
            break;
        };
        let (game, len) = record.map_err(|error| FileError::Decode {
            path: path.to_path_buf(),
            error: format!("game record at byte {at}: {error}"),
        })?;
        if game.index != games.len() as u64 {
            return Err(FileError::Decode {
                path: path.to_path_buf(),
                error: format!(
                    "game record at byte {at} is game {} where game {} was expected",
                    game.index,
                    games.len()
                ),
            });
        }
        games.push(game);
        at += len;
    }
    Ok(ShardContents {
        header,
        games,
        valid_len: at as u64,
        torn_bytes: (bytes.len() - at) as u64,
    })
}

/// The record at the start of `bytes` and its length; `None` if it is incomplete or its
/// checksum fails (a torn write); `Some(Err)` if it is whole and checksummed but does not
/// decode (a different program wrote it).
fn next_record(bytes: &[u8]) -> Option<Result<(GameRecord, usize), String>> {
    if bytes.len() < RECORD_PREFIX {
        return None;
    }
    let len = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes")) as usize;
    let sum = u64::from_le_bytes(bytes[4..12].try_into().expect("8 bytes"));
    if len > MAX_RECORD || bytes.len() < RECORD_PREFIX + len {
        return None;
    }
    let payload = &bytes[RECORD_PREFIX..RECORD_PREFIX + len];
    if fileio::fnv1a(payload) != sum {
        return None;
    }
    Some(
        bincode::serde::decode_from_slice(payload, bincode::config::standard())
            .map(|(game, _)| (game, RECORD_PREFIX + len))
            .map_err(|e| e.to_string()),
    )
}

/// A shard open for appending games.
pub struct ShardWriter {
    file: File,
    path: PathBuf,
}

impl ShardWriter {
    /// Creates the shard with its header (atomically: the file is whole or absent).
    pub fn create(path: &Path, header: &ShardHeader) -> Result<ShardWriter, FileError> {
        fileio::write_atomic(path, &encode_header(header)?)?;
        Self::open_at(path, None)
    }

    /// Opens an existing shard for appending after its first `valid_len` bytes, cutting off a
    /// torn record if there is one.
    pub fn resume(path: &Path, valid_len: u64) -> Result<ShardWriter, FileError> {
        Self::open_at(path, Some(valid_len))
    }

    fn open_at(path: &Path, valid_len: Option<u64>) -> Result<ShardWriter, FileError> {
        let io = |e| FileError::Io {
            path: path.to_path_buf(),
            error: e,
        };
        let mut file = OpenOptions::new().write(true).open(path).map_err(io)?;
        if let Some(len) = valid_len {
            file.set_len(len).map_err(io)?;
        }
        file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok(ShardWriter {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Appends one game and syncs it to disk.
    pub fn append(&mut self, game: &GameRecord) -> Result<(), FileError> {
        let bytes = encode_record(game)?;
        self.file
            .write_all(&bytes)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| FileError::Io {
                path: self.path.clone(),
                error: e,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::Position;

    fn header() -> ShardHeader {
        ShardHeader {
            shard: 1,
            shards: 4,
            seed: 7,
            settings: GameSettings {
                soft_nodes: 5000,
                soft_rule: SoftRule::Predicted,
                hard_nodes: 50000,
                random_plies: 8,
                max_opening_score: 600,
                adjudicate_score: 3000,
                adjudicate_plies: 6,
                max_plies: 300,
                hash_mb: 8,
            },
            network_checksum: 1,
            openings_checksum: 0,
        }
    }

    fn game(index: u64, n: usize) -> GameRecord {
        let pos = Position::startpos();
        let record = PositionRecord {
            position: PackedPosition::pack(&pos),
            score: 12,
            best_move: pos.legal_moves()[0].raw(),
            ply: 0,
            in_check: false,
            best_is_capture: false,
        };
        GameRecord {
            index,
            winner: Some(Side::Gote),
            ending: Ending::Rules,
            positions: vec![record; n],
        }
    }

    /// Generations 1–13's shards (version 1, before the soft rule) read as played: `Started`.
    #[test]
    fn a_version_1_shard_reads_with_the_rule_it_was_played_by() {
        let dir = std::env::temp_dir().join(format!("dgn-v1-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(shard_file_name(1, 4));
        let h = header();
        let s = &h.settings;
        let v1 = ShardHeaderV1 {
            shard: h.shard,
            shards: h.shards,
            seed: h.seed,
            settings: GameSettingsV1 {
                soft_nodes: s.soft_nodes,
                hard_nodes: s.hard_nodes,
                random_plies: s.random_plies,
                max_opening_score: s.max_opening_score,
                adjudicate_score: s.adjudicate_score,
                adjudicate_plies: s.adjudicate_plies,
                max_plies: s.max_plies,
                hash_mb: s.hash_mb,
            },
            network_checksum: h.network_checksum,
            openings_checksum: h.openings_checksum,
        };
        let mut bytes = fileio::encode(MAGIC, VERSION_1, &v1).unwrap();
        bytes.extend(encode_record(&game(0, 3)).unwrap());
        std::fs::write(&path, &bytes).unwrap();
        let read = read_shard(&path).unwrap();
        let mut expected = header();
        expected.settings.soft_rule = SoftRule::Started;
        assert_eq!(read.header, expected);
        assert_eq!(read.games, vec![game(0, 3)]);
        // The current version keeps the rule it is given; an unknown version is refused.
        let path2 = dir.join(shard_file_name(2, 4));
        drop(ShardWriter::create(&path2, &header()).unwrap());
        assert_eq!(read_shard(&path2).unwrap().header, header());
        bytes[8..12].copy_from_slice(&3u32.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let err = read_shard(&path).unwrap_err().to_string();
        assert!(err.contains('3'), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn torn_records_are_cut_off_and_resumed_over() {
        let dir = std::env::temp_dir().join(format!("dgn-format-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(shard_file_name(1, 4));
        let mut w = ShardWriter::create(&path, &header()).unwrap();
        w.append(&game(0, 3)).unwrap();
        w.append(&game(1, 5)).unwrap();
        drop(w);
        let clean = read_shard(&path).unwrap();
        assert_eq!(clean.header, header());
        assert_eq!(clean.games, vec![game(0, 3), game(1, 5)]);
        assert_eq!(clean.torn_bytes, 0);
        assert_eq!(clean.positions(), 8);

        // A kill in the middle of the third record: its first bytes only.
        let full = std::fs::read(&path).unwrap();
        let third = encode_record(&game(2, 4)).unwrap();
        for cut in [1, 11, 12, third.len() - 1] {
            let mut torn = full.clone();
            torn.extend_from_slice(&third[..cut]);
            std::fs::write(&path, &torn).unwrap();
            let read = read_shard(&path).unwrap();
            assert_eq!(read.games.len(), 2, "cut {cut}");
            assert_eq!(read.torn_bytes, cut as u64);
            let mut w = ShardWriter::resume(&path, read.valid_len).unwrap();
            w.append(&game(2, 4)).unwrap();
            drop(w);
            let resumed = read_shard(&path).unwrap();
            assert_eq!(resumed.games, vec![game(0, 3), game(1, 5), game(2, 4)]);
            assert_eq!(resumed.torn_bytes, 0);
            std::fs::write(&path, &full).unwrap();
        }

        // A flipped bit in a record's payload stops reading there; one in the header is an error.
        let mut corrupt = full.clone();
        let last = corrupt.len() - 2;
        corrupt[last] ^= 1;
        std::fs::write(&path, &corrupt).unwrap();
        assert_eq!(read_shard(&path).unwrap().games.len(), 1);
        let mut corrupt = full.clone();
        corrupt[HEADER_PREFIX + 1] ^= 1;
        std::fs::write(&path, &corrupt).unwrap();
        assert!(matches!(
            read_shard(&path),
            Err(FileError::ChecksumMismatch { .. })
        ));
        std::fs::write(&path, b"not a shard").unwrap();
        assert!(matches!(
            read_shard(&path),
            Err(FileError::WrongKind { .. })
        ));

        // Records out of order are refused.
        let mut w = ShardWriter::create(&path, &header()).unwrap();
        w.append(&game(1, 1)).unwrap();
        drop(w);
        let err = read_shard(&path).unwrap_err().to_string();
        assert!(err.contains("is game 1 where game 0"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
