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
mod record;
pub mod text;
pub mod usi;

use std::path::Path;

// The record and its reader are `record.rs`'s, named by every format from there; here are the
// formats' choice and dispatch, above them.
pub use record::{Ending, Record, RecordError};

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

#[cfg(test)]
pub(crate) mod tests {
    use super::record::Reader;
    use super::*;
    use minishogi_rules::{Color, Game, Move, Position};
    use std::time::Duration;

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
                        minishogi_rules::random::random_position(&mut |n| rng.gen_range(0..n));
                    pos.set_move_number(1);
                    pos
                } else {
                    Position::startpos()
                };
                let mut game = Game::new(start.clone());
                let plies = rng.gen_range(0..120);
                minishogi_rules::random::play_random_moves(&mut game, plies, &mut |n| {
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
    fn comments_on_moves_go_out_and_come_back_in_kif_and_csa() {
        let mut record = record(Position::startpos(), "2e3d 4a3b 3d2e 3b2c");
        record.move_comments = vec![
            Some("悪手: ▲２二角成 was better\nloss 18.2%".to_string()),
            None,
            Some("best".to_string()),
        ];
        for format in [Format::Kif, Format::Kifu, Format::Csa] {
            let bytes = write(&record, format);
            let text = text::decode(&bytes).unwrap();
            let back = read(&bytes, format).unwrap_or_else(|e| panic!("{format:?}: {e}\n{text}"));
            assert_eq!(back.moves, record.moves, "{format:?}");
            for i in 0..record.moves.len() {
                assert_eq!(
                    back.move_comment(i),
                    record.move_comment(i),
                    "{format:?} move {i}\n{text}"
                );
            }
        }
        // As ShogiHome writes them: `*` lines after the move, in a KIF read from outside.
        let kif = "手合割：5五将棋\n手数----指手---------消費時間--\n   1 ３四角(25)   ( 0:00/00:00:00)\n*a comment\n   2 ３二角(41)   ( 0:00/00:00:00)\n";
        let back = read(kif.as_bytes(), Format::Kifu).unwrap();
        assert_eq!(back.move_comment(0), Some("a comment"));
        assert_eq!(back.move_comment(1), None);
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
