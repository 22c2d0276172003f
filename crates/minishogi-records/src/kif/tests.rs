//! Tests of KIF: the notation, records written and read back, other programs' records.

use super::read::*;
use super::write::*;
use super::*;
use std::time::Duration;

use crate::tests::{record, usi_moves};
use crate::text;
use crate::{Ending, Record};
use minishogi_rules::{Color, PieceKind, Position};

#[test]
fn move_names_in_japanese_notation() {
    let start = Position::startpos();
    let moves = usi_moves(&start, "2e1d 4a5b 1d2c 5b4c 2c1b 2a1b");
    let mut pos = start.clone();
    let mut prev = None;
    let mut names = Vec::new();
    for &mv in &moves {
        names.push(kif_move(&pos, mv, prev));
        pos.make_move(mv);
        prev = Some(mv.to());
    }
    assert_eq!(
        names,
        [
            "１四角(25)",
            "５二角(41)",
            "２三角(14)",
            "４三角(52)",
            "１二角(23)",
            "同　金(21)"
        ]
    );
    // A drop and a declined promotion.
    let pos = Position::from_sfen("4k/5/5/5/K4 b S 1").unwrap();
    let drop = pos.parse_usi_move("S*3b").unwrap();
    assert_eq!(kif_move(&pos, drop, None), "３二銀打");
    let pos = Position::from_sfen("4k/5/2S2/5/K4 b - 1").unwrap();
    let stay = pos.parse_usi_move("3c3b").unwrap();
    assert_eq!(kif_move(&pos, stay, None), "３二銀(33)");
    let pos = Position::from_sfen("4k/2S2/5/5/K4 b - 1").unwrap();
    let into = pos.parse_usi_move("3b3a").unwrap();
    assert_eq!(kif_move(&pos, into, None), "３一銀不成(32)");
    let promote = pos.parse_usi_move("3b3a+").unwrap();
    assert_eq!(kif_move(&pos, promote, None), "３一銀成(32)");
}

#[test]
fn record_has_header_moves_and_ending() {
    let mut game = record(Position::startpos(), "2e1d 4a5b");
    game.times = vec![Duration::from_millis(1500), Duration::from_secs(61)];
    game.sente = "alpha".to_string();
    game.gote = "beta".to_string();
    game.ending = Some(Ending::Resignation);
    game.winner = Some(Color::Gote);
    let kif = write(&game, Encoding::Utf8);
    let lines: Vec<&str> = kif.lines().collect();
    assert_eq!(lines[0], "#KIF version=2.0 encoding=UTF-8");
    assert!(lines.contains(&"手合割：5五将棋"));
    assert!(lines.contains(&"先手：alpha"));
    assert!(lines.contains(&"後手：beta"));
    assert!(
        !kif.contains("後手の持駒"),
        "no diagram for the initial position"
    );
    assert!(
        lines.contains(&"   1 １四角(25)    ( 0:01/00:00:01)"),
        "{kif}"
    );
    assert!(
        lines.contains(&"   2 ５二角(41)    ( 1:01/00:01:01)"),
        "{kif}"
    );
    assert!(
        lines.contains(&"   3 投了          ( 0:00/00:00:01)"),
        "{kif}"
    );
    assert_eq!(lines.last(), Some(&"まで2手で後手の勝ち"));
    assert!(write(&game, Encoding::ShiftJis).starts_with("#KIF version=2.0 encoding=Shift_JIS\n"));
}

#[test]
fn other_start_positions_get_a_diagram() {
    let start = Position::from_sfen("4k/5/5/P4/K4 w Gp 1").unwrap();
    let diagram = board_diagram(&start);
    assert_eq!(
        diagram,
        "後手の持駒：歩\n  ５ ４ ３ ２ １\n+---------------+\n| ・ ・ ・ ・v玉|一\n\
         | ・ ・ ・ ・ ・|二\n| ・ ・ ・ ・ ・|三\n| 歩 ・ ・ ・ ・|四\n| 玉 ・ ・ ・ ・|五\n\
         +---------------+\n先手の持駒：金\n後手番\n"
    );
    let mut game = Record::new(start, Vec::new());
    game.sente = "a".to_string();
    game.gote = "b".to_string();
    game.ending = Some(Ending::PlyLimit);
    game.comment = Some("ply limit".to_string());
    let kif = write(&game, Encoding::Utf8);
    assert!(kif.contains(&diagram));
    assert!(kif.ends_with("   1 持将棋        ( 0:00/00:00:00)\n*ply limit\nまで0手で持将棋\n"));
}

/// Every character the writer can produce, in a record that uses every piece name (on the
/// board, in moves and in hands), every ending word, 同, 打, 成, 不成 and a diagram.
#[test]
fn every_character_the_writer_uses_is_in_shift_jis() {
    let mut chars: Vec<char> = Vec::new();
    let mut add = |s: &str| chars.extend(s.chars());
    PIECE_NAMES.iter().for_each(|(name, _)| add(name));
    ENDINGS.iter().for_each(|(word, _)| add(word));
    for kind in PieceKind::ALL {
        add(&kind.kanji().to_string());
    }
    FULL_WIDTH_DIGITS.iter().for_each(|&c| add(&c.to_string()));
    KANJI_NUMERALS.iter().for_each(|k| add(k));
    let start = Position::from_sfen("2k2/5/1+S3/+P1+B1+R/K4 w 2GSPr 1").unwrap();
    let mut game = record(start.clone(), "3a2a");
    game.ending = Some(Ending::Foul);
    game.winner = Some(Color::Gote);
    game.event = Some("event".to_string());
    add(&write(&game, Encoding::ShiftJis));
    let mut plain = record(Position::startpos(), "2e1d 4a5b 1d2c 5b4c 2c1b 2a1b");
    for ending in [Ending::Checkmate, Ending::Interrupted, Ending::Repetition] {
        plain.ending = Some(ending);
        add(&write(&plain, Encoding::ShiftJis));
    }
    plain.winner = Some(Color::Sente);
    add(&write(&plain, Encoding::ShiftJis));
    add(&board_diagram(&start));
    for word in ["▲", "△", "先手番", "なし", HANDICAP] {
        add(word);
    }
    let missing: Vec<char> = chars
        .iter()
        .copied()
        .filter(|&c| !text::in_shift_jis(c))
        .collect();
    assert!(missing.is_empty(), "not in Shift_JIS: {missing:?}");
    // And the Shift_JIS file reads back to the same record.
    let bytes = text::shift_jis_crlf(&write(&game, Encoding::ShiftJis));
    let back = read(&text::decode(&bytes).unwrap()).unwrap();
    assert_eq!(back.start, game.start);
    assert_eq!(back.moves, game.moves);
    assert_eq!(back.winner, Some(Color::Gote));
}

#[test]
fn reads_what_other_programs_write() {
    let kif = "\
# ---- 柿木形式 ----
開始日時：2024/01/02 10:00
手合割：５五将棋
先手：佐藤
後手：鈴木
手数----指手---------消費時間--
*対局前のコメント
   1 1四角(25)   ( 0:03/00:00:03)
*コメント
   2 5二角(41)   ( 0:10/00:00:10)
&しおり
   3 2三角(14) ( 1:00/00:01:03)
   4 4三角(52)
   5 1二角(23)
   6 同 金(21)
   7 投了
まで6手で後手の勝ち
";
    let record = read(kif).unwrap();
    assert_eq!(record.sente, "佐藤");
    assert_eq!(record.gote, "鈴木");
    assert_eq!(record.moves.len(), 6);
    assert_eq!(record.moves[5].to_string(), "2a1b");
    assert_eq!(record.times[2], Duration::from_secs(60));
    assert_eq!(record.times[3], Duration::ZERO);
    assert_eq!(record.ending, Some(Ending::Resignation));
    assert_eq!(record.winner, Some(Color::Gote));
}

#[test]
fn malformed_records_name_the_line() {
    let err = |text: &str| read(text).unwrap_err();
    let e = err("手合割：平手\n");
    assert_eq!(e.line, 1);
    assert!(e.message.contains("平手"), "{e}");
    let e = err("手合割：5五将棋\n   1 １四角(25)\n   2 ５二飛(41)\n");
    assert_eq!(e.line, 3);
    assert!(e.message.contains("is 角, not 飛"), "{e}");
    let e = err("   1 １四角(25)\n   3 ５二角(41)\n");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("expected 2"), "{e}");
    let e = err("   1 １三角(25)\n");
    assert!(e.message.contains("illegal move 1"), "{e}");
    let e = err("   1 ７六歩(77)\n");
    assert!(e.message.contains("off the 5×5 board"), "{e}");
    let e = err("   1 １四香(25)\n");
    assert!(e.message.contains("not in 5五将棋"), "{e}");
    let e = err("   1 １四角(25)\n   2 同　金(21)\n");
    assert_eq!(e.line, 2, "{e}");
    let e = err("   1 投了\n   2 １四角(25)\n");
    assert!(e.message.contains("after the game's end"), "{e}");
    let e = err("   1 １四角(25)\n   2 投了\nまで1手で後手の勝ち\n");
    assert_eq!(e.line, 3, "{e}");
    let e = err("   1 １四角(25)   ( x:01/00:00:01)\n");
    assert!(e.message.contains("bad time"), "{e}");
    let e = err("後手の持駒：なし\n| ・ ・ ・ ・ ・ ・ ・ ・ ・|一\n");
    assert!(e.message.contains("9×9"), "{e}");
    let e = err("hello\n");
    assert_eq!(e.line, 1);
    let e = err("   1 １四角(25)\nsomething\n");
    assert_eq!(e.line, 2);
}

#[test]
fn diagrams_read_back() {
    for sfen in [
        "4k/5/5/P4/K4 w Gp 1",
        "2k2/5/1+S3/+P1+B1+R/K4 w 2GSPr 1",
        "rbsgk/4p/5/P4/KGSBR b - 1",
    ] {
        let start = Position::from_sfen(sfen).unwrap();
        let back = read(&write(
            &Record::new(start.clone(), Vec::new()),
            Encoding::Utf8,
        ))
        .unwrap();
        assert_eq!(back.start, start, "{sfen}");
    }
}
