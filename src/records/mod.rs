//! Game records in the formats shogi programs exchange, for 5五将棋:
//!
//! - KIF (`kif.rs`): `.kif` files in Shift_JIS (the format's own convention, what Kifu for
//!   Windows and most Japanese readers expect), `.kifu` files in UTF-8;
//! - CSA (`csa.rs`): the CSA standard file format V2.2 with the board cut to 5×5;
//! - USI (`usi.rs`): a `position sfen … moves …` line.
//!
//! Each is read into and written from one [`Record`]. Every move read is checked by the rules
//! core (`shogi::Game`); errors name the line of the record ([`RecordError`]).

pub mod csa;
pub mod kif;
pub mod text;
pub mod usi;

use std::fmt;
use std::path::Path;
use std::time::Duration;

use crate::shogi::{Color, EndReason, Game, GameStatus, Move, Position};

/// How a recorded game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The side to move had no legal move (詰み, `%TSUMI`).
    Checkmate,
    /// The side to move resigned (投了, `%TORYO`).
    Resignation,
    /// 千日手 (perpetual check included; `%SENNICHITE`). Who lost is the rules' verdict.
    Repetition,
    /// A draw by the ply limit (written 持将棋 in KIF, `%HIKIWAKE` in CSA).
    PlyLimit,
    /// A side lost by an illegal move or unusable output (反則負け / 反則勝ち, `%±ILLEGAL_ACTION`):
    /// the record's winner says which.
    Foul,
    /// The side to move ran out of time (切れ負け, `%TIME_UP`).
    TimeForfeit,
    /// The game was stopped (中断, `%CHUDAN`).
    Interrupted,
}

/// A game as the record formats hold it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub start: Position,
    /// Moves from `start`, each legal.
    pub moves: Vec<Move>,
    /// Thinking time of the moves, in order; missing entries count as zero.
    pub times: Vec<Duration>,
    /// Player names (empty when unknown).
    pub sente: String,
    pub gote: String,
    /// The event (KIF `棋戦`, CSA `$EVENT`).
    pub event: Option<String>,
    /// `None` for a game that stops without a recorded ending.
    pub ending: Option<Ending>,
    /// `None` for a draw, an interrupted or an unfinished game.
    pub winner: Option<Color>,
    /// Free text written as a comment after the ending (e.g. the referee's reason).
    pub comment: Option<String>,
}

impl Record {
    /// A record of `moves` from `start` without names, times or ending.
    pub fn new(start: Position, moves: Vec<Move>) -> Record {
        Record {
            start,
            moves,
            times: Vec::new(),
            sente: String::new(),
            gote: String::new(),
            event: None,
            ending: None,
            winner: None,
            comment: None,
        }
    }

    /// The position after every move.
    pub fn final_position(&self) -> Position {
        let mut pos = self.start.clone();
        for &mv in &self.moves {
            pos.make_move(mv);
        }
        pos
    }

    /// Thinking time of move `i` (zero when not recorded).
    pub fn time(&self, i: usize) -> Duration {
        self.times.get(i).copied().unwrap_or_default()
    }
}

/// A malformed or illegal record: what is wrong and on which line (1-based; 0 = the record as
/// a whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    pub line: usize,
    pub message: String,
}

impl RecordError {
    pub fn new(line: usize, message: impl Into<String>) -> RecordError {
        RecordError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for RecordError {}

/// The record formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// KIF in Shift_JIS (`.kif`).
    Kif,
    /// KIF in UTF-8 (`.kifu`).
    Kifu,
    /// CSA V2.2 (`.csa`).
    Csa,
    /// A USI `position sfen … moves …` line (`.usi`, `.sfen`, `.txt`).
    Usi,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Kif, Format::Kifu, Format::Csa, Format::Usi];

    pub fn name(self) -> &'static str {
        match self {
            Format::Kif => "kif",
            Format::Kifu => "kifu",
            Format::Csa => "csa",
            Format::Usi => "usi",
        }
    }

    /// The extension files of this format are written with.
    pub fn extension(self) -> &'static str {
        self.name()
    }

    /// From a name as `--from`/`--to` take it (`sfen` is another name of `usi`).
    pub fn from_name(name: &str) -> Option<Format> {
        match name.to_ascii_lowercase().as_str() {
            "kif" => Some(Format::Kif),
            "kifu" => Some(Format::Kifu),
            "csa" => Some(Format::Csa),
            "usi" | "sfen" => Some(Format::Usi),
            _ => None,
        }
    }

    /// From a file's extension (`.usi`, `.sfen` and `.txt` are USI lines).
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?;
        match ext.to_ascii_lowercase().as_str() {
            "txt" => Some(Format::Usi),
            other => Format::from_name(other),
        }
    }
}

/// Reads a record of `format` from a file's bytes (UTF-8 or Shift_JIS, whatever the format:
/// see [`text::decode`]).
pub fn read(bytes: &[u8], format: Format) -> Result<Record, RecordError> {
    let text = text::decode(bytes)?;
    match format {
        Format::Kif | Format::Kifu => kif::read(&text),
        Format::Csa => csa::read(&text),
        Format::Usi => usi::read(&text),
    }
}

/// The format a record's bytes are most likely in, for records pasted or opened without a
/// name: a USI position line or a bare SFEN (its first word `position`, `startpos` or `sfen`,
/// or a board with `/`), CSA (a line starting `V2`, `PI`, `P1` or `N+`), else KIF. Undecodable
/// bytes are taken for KIF, whose reader names the problem.
pub fn detect_format(bytes: &[u8]) -> Format {
    let Ok(text) = text::decode(bytes) else {
        return Format::Kif;
    };
    let first = text.split_whitespace().next().unwrap_or("");
    if matches!(first, "position" | "startpos" | "sfen") || first.matches('/').count() == 4 {
        return Format::Usi;
    }
    let csa = text.lines().any(|line| {
        let line = line.trim_start();
        ["V2", "PI", "P1", "N+"].iter().any(|p| line.starts_with(p))
    });
    if csa { Format::Csa } else { Format::Kifu }
}

/// A record as the bytes of a file of `format`: `.kif` and `.csa` in Shift_JIS with CR LF line
/// ends (the Windows convention of both formats), `.kifu` and USI in UTF-8 with LF.
pub fn write(record: &Record, format: Format) -> Vec<u8> {
    match format {
        Format::Kif => text::shift_jis_crlf(&kif::write(record, kif::Encoding::ShiftJis)),
        Format::Kifu => kif::write(record, kif::Encoding::Utf8).into_bytes(),
        Format::Csa => text::shift_jis_crlf(&csa::write(record)),
        Format::Usi => usi::write(record).into_bytes(),
    }
}

/// `text` on one line: line breaks and other control characters become spaces (names and
/// events come from outside and must not break a record's lines).
pub(crate) fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A position put together by a reader (board diagram, CSA board), checked as an SFEN would
/// be: piece counts, one king a side, no pawn on its last rank, 二歩, the side not to move not
/// in check. Errors name `line`, the diagram's last line.
pub(crate) fn checked_position(pos: &Position, line: usize) -> Result<Position, RecordError> {
    Position::from_sfen(&pos.to_sfen())
        .map_err(|e| RecordError::new(line, format!("impossible start position: {e}")))
}

/// A record being read: the game so far (every move checked by the rules core) and what the
/// record says about it.
pub(crate) struct Reader {
    pub game: Game,
    pub times: Vec<Duration>,
    pub sente: String,
    pub gote: String,
    pub event: Option<String>,
    /// The recorded ending with its line, and the side it names as the winner, if it does.
    pub ending: Option<(Ending, usize, Option<Color>)>,
    /// A winner stated apart from the ending (KIF's `まで…で先手の勝ち`) with its line.
    pub claimed_winner: Option<(Option<Color>, usize)>,
}

impl Reader {
    pub fn new(start: Position) -> Reader {
        Reader {
            game: Game::new(start),
            times: Vec::new(),
            sente: String::new(),
            gote: String::new(),
            event: None,
            ending: None,
            claimed_winner: None,
        }
    }

    /// Plays a move read on `line` (`text` is the move as written), refusing moves after the
    /// recorded ending and illegal moves.
    pub fn play(&mut self, mv: Move, line: usize, text: &str) -> Result<(), RecordError> {
        if let Some((_, ending_line, _)) = self.ending {
            return Err(RecordError::new(
                line,
                format!("move '{text}' after the game's end (line {ending_line})"),
            ));
        }
        self.game.play(mv).map_err(|e| {
            let reason = match e {
                crate::shogi::MoveError::Illegal { reason, .. }
                | crate::shogi::MoveError::Syntax { reason, .. } => reason,
            };
            RecordError::new(
                line,
                format!("illegal move {} '{text}': {reason}", self.game.plies() + 1),
            )
        })
    }

    /// Records the thinking time of the last move played.
    pub fn set_time(&mut self, time: Duration) {
        let plies = self.game.plies();
        if plies > 0 {
            self.times.resize(plies, Duration::ZERO);
            self.times[plies - 1] = time;
        }
    }

    /// Ends the record at `line`; a second ending is an error.
    pub fn end(
        &mut self,
        ending: Ending,
        line: usize,
        winner: Option<Color>,
    ) -> Result<(), RecordError> {
        if let Some((_, first, _)) = self.ending {
            return Err(RecordError::new(
                line,
                format!("a second ending (the first is on line {first})"),
            ));
        }
        self.ending = Some((ending, line, winner));
        Ok(())
    }

    /// The record, with the ending and winner judged: the rules' verdict where the game is
    /// over by them (mate, 千日手), else what the ending implies. A recorded checkmate or 千日手
    /// that the rules do not see, or a stated winner that is not the one judged, is an error.
    pub fn finish(self) -> Result<Record, RecordError> {
        let side = self.game.position().side_to_move();
        let by_rules = match self.game.status() {
            GameStatus::Win { winner, reason } => Some((winner, reason)),
            _ => None,
        };
        let (ending, winner) = match (self.ending, by_rules) {
            (Some((ending, _, _)), Some((winner, _))) => (Some(ending), Some(winner)),
            (None, Some((winner, reason))) => {
                let ending = match reason {
                    EndReason::Repetition | EndReason::PerpetualCheck => Ending::Repetition,
                    _ => Ending::Checkmate,
                };
                (Some(ending), Some(winner))
            }
            (Some((ending, line, named)), None) => {
                let winner = match ending {
                    Ending::Checkmate => {
                        return Err(RecordError::new(
                            line,
                            "the record ends in checkmate, but the side to move has a legal move",
                        ));
                    }
                    Ending::Repetition => {
                        return Err(RecordError::new(
                            line,
                            "the record ends in 千日手, but no position occurred four times",
                        ));
                    }
                    Ending::Resignation | Ending::TimeForfeit => Some(!side),
                    Ending::Foul => Some(named.unwrap_or(!side)),
                    Ending::PlyLimit | Ending::Interrupted => None,
                };
                (Some(ending), winner)
            }
            (None, None) => (None, None),
        };
        if let Some((claimed, line)) = self.claimed_winner
            && claimed != winner
        {
            let name = |w: Option<Color>| match w {
                Some(Color::Sente) => "sente (先手) won",
                Some(Color::Gote) => "gote (後手) won",
                None => "no winner",
            };
            return Err(RecordError::new(
                line,
                format!(
                    "the record says {}, but the moves and ending give {}",
                    name(claimed),
                    name(winner)
                ),
            ));
        }
        let moves = self.game.moves().to_vec();
        let mut times = self.times;
        if !times.is_empty() {
            times.resize(moves.len(), Duration::ZERO);
        }
        Ok(Record {
            start: self.game.start_position().clone(),
            moves,
            times,
            sente: self.sente,
            gote: self.gote,
            event: self.event,
            ending,
            winner,
            comment: None,
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// USI moves played in turn from `pos`.
    pub(crate) fn usi_moves(pos: &Position, text: &str) -> Vec<Move> {
        let mut pos = pos.clone();
        text.split_whitespace()
            .map(|t| {
                let mv = pos.parse_usi_move(t).unwrap();
                pos.make_move(mv);
                mv
            })
            .collect()
    }

    #[test]
    fn the_format_of_unnamed_records_is_detected() {
        let game = record(Position::startpos(), "2e3d 4a3b 1e1d");
        for format in Format::ALL {
            let detected = detect_format(&write(&game, format));
            let expected = if format == Format::Kif {
                Format::Kifu
            } else {
                format
            };
            assert_eq!(detected, expected, "{format:?}");
            assert_eq!(
                read(&write(&game, format), detected).unwrap().moves,
                game.moves
            );
        }
        assert_eq!(detect_format(b"rbsgk/4p/5/P4/KGSBR b - 1"), Format::Usi);
        assert_eq!(detect_format(b"startpos moves 2e3d"), Format::Usi);
    }

    /// A record of USI moves from `start`.
    pub(crate) fn record(start: Position, moves: &str) -> Record {
        let moves = usi_moves(&start, moves);
        Record::new(start, moves)
    }

    /// Random legal games (some finished by the rules), as records with names, times, an
    /// event and endings of every kind.
    pub(crate) fn random_records(n: usize, seed: u64) -> Vec<Record> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let endings = [
            Ending::Resignation,
            Ending::TimeForfeit,
            Ending::Foul,
            Ending::PlyLimit,
            Ending::Interrupted,
        ];
        (0..n)
            .map(|i| {
                // Records other than USI do not carry the move number: start at 1.
                let start = if i % 3 == 2 {
                    let mut pos =
                        crate::shogi::random::random_position(&mut |n| rng.gen_range(0..n));
                    pos.set_move_number(1);
                    pos
                } else {
                    Position::startpos()
                };
                let mut game = Game::new(start.clone());
                let plies = rng.gen_range(0..120);
                crate::shogi::random::play_random_moves(&mut game, plies, &mut |n| {
                    rng.gen_range(0..n)
                });
                let mut reader = Reader::new(start);
                reader.game = game;
                reader.sente = format!("sente {i}");
                reader.gote = "後手 gote".to_string();
                reader.event = Some("test".to_string());
                reader.times = (0..reader.game.plies())
                    .map(|_| Duration::from_secs(rng.gen_range(0..200)))
                    .collect();
                if !reader.game.status().is_over() {
                    let ending = endings[i % endings.len()];
                    let named = (ending == Ending::Foul).then(|| {
                        if rng.gen_bool(0.5) {
                            Color::Sente
                        } else {
                            Color::Gote
                        }
                    });
                    reader.end(ending, 1, named).unwrap();
                }
                reader.finish().unwrap()
            })
            .collect()
    }

    #[test]
    fn formats_by_name_and_extension() {
        assert_eq!(
            Format::from_path(Path::new("a/game.KIF")),
            Some(Format::Kif)
        );
        assert_eq!(Format::from_path(Path::new("g.kifu")), Some(Format::Kifu));
        assert_eq!(Format::from_path(Path::new("g.csa")), Some(Format::Csa));
        assert_eq!(Format::from_path(Path::new("g.txt")), Some(Format::Usi));
        assert_eq!(Format::from_path(Path::new("g.pgn")), None);
        assert_eq!(Format::from_name("sfen"), Some(Format::Usi));
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
        }
    }

    #[test]
    fn every_format_round_trips_random_games() {
        for record in random_records(30, 7) {
            for format in Format::ALL {
                let bytes = write(&record, format);
                let back = read(&bytes, format).unwrap_or_else(|e| {
                    panic!("{format:?}: {e}\n{}", text::decode(&bytes).unwrap())
                });
                assert_eq!(back.start, record.start, "{format:?}");
                assert_eq!(back.moves, record.moves, "{format:?}");
                if format == Format::Usi {
                    continue;
                }
                assert_eq!(back.sente, record.sente, "{format:?}");
                assert_eq!(back.gote, record.gote, "{format:?}");
                assert_eq!(back.ending, record.ending, "{format:?}");
                assert_eq!(back.winner, record.winner, "{format:?}");
                assert_eq!(back.times, record.times, "{format:?}");
                assert_eq!(back.event, record.event, "{format:?}");
            }
        }
    }

    /// Bad input never panics: records cut, spliced and sprinkled with characters that mean
    /// something in one of the formats are read to a record or an error.
    #[test]
    fn mangled_records_are_errors_not_panics() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let noise: Vec<char> = "0123456789+-%*PTV:：|v同成打歩玉龍全・一五九 \n,'/()"
            .chars()
            .collect();
        for record in random_records(6, 5) {
            for format in [Format::Kifu, Format::Csa, Format::Usi] {
                let text = text::decode(&write(&record, format)).unwrap();
                let chars: Vec<char> = text.chars().collect();
                for _ in 0..300 {
                    let mut mangled = chars.clone();
                    for _ in 0..rng.gen_range(1..4) {
                        let at = rng.gen_range(0..=mangled.len());
                        match rng.gen_range(0..3) {
                            0 if at < mangled.len() => {
                                mangled.remove(at);
                            }
                            1 if at < mangled.len() => {
                                mangled[at] = noise[rng.gen_range(0..noise.len())]
                            }
                            _ => mangled.insert(at, noise[rng.gen_range(0..noise.len())]),
                        }
                    }
                    let mangled: String = mangled.into_iter().collect();
                    for reader in [kif::read, csa::read, usi::read] {
                        let _ = reader(&mangled);
                    }
                }
            }
        }
    }

    #[test]
    fn judged_endings_must_agree_with_the_rules() {
        // Resigning in the start position: the side to move loses.
        let mut reader = Reader::new(Position::startpos());
        reader.end(Ending::Resignation, 3, None).unwrap();
        let record = reader.finish().unwrap();
        assert_eq!(record.winner, Some(Color::Gote));
        // A claimed mate that is not one.
        let mut reader = Reader::new(Position::startpos());
        reader.end(Ending::Checkmate, 4, None).unwrap();
        let e = reader.finish().unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.message.contains("checkmate"), "{e}");
        // A winner stated against the ending.
        let mut reader = Reader::new(Position::startpos());
        reader.end(Ending::Resignation, 3, None).unwrap();
        reader.claimed_winner = Some((Some(Color::Sente), 5));
        let e = reader.finish().unwrap_err();
        assert_eq!(e.line, 5, "{e}");
        // Two endings.
        let mut reader = Reader::new(Position::startpos());
        reader.end(Ending::Resignation, 3, None).unwrap();
        assert_eq!(
            reader.end(Ending::Interrupted, 4, None).unwrap_err().line,
            4
        );
    }
}
