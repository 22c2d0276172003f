//! `engine convert` seen from outside: the match runner's own games through every format and
//! back, records written by hand in other programs' styles (tests/data/records/), and errors
//! that name the file and line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ENGINE: &str = env!("CARGO_BIN_EXE_engine");

fn dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-convert-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/records")
        .join(name)
}

fn convert(args: &[&Path]) -> Output {
    Command::new(ENGINE)
        .arg("convert")
        .args(args)
        .output()
        .expect("engine runs")
}

/// Converts `input` to `output` (formats from the extensions) and fails the test on an error.
fn convert_ok(input: &Path, output: &Path) {
    let out = convert(&[input, Path::new("-o"), output]);
    assert!(
        out.status.success(),
        "{} -> {}: {}",
        input.display(),
        output.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The USI line of a record, converted by the binary to standard output.
fn to_usi(input: &Path) -> String {
    let out = convert(&[Path::new("--to"), Path::new("usi"), input]);
    assert!(
        out.status.success(),
        "{}: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .trim_end()
        .to_string()
}

#[test]
fn match_games_survive_every_format_and_back() {
    let dir = dir("match");
    let out = Command::new(ENGINE)
        .args(["match", "--engine"])
        .arg(format!("'{ENGINE}' random --seed 3"))
        .arg("--engine")
        .arg(format!("'{ENGINE}' random --seed 4"))
        .args([
            "--games",
            "4",
            "--movetime",
            "0.5",
            "--max-plies",
            "120",
            "--quiet",
        ])
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games = std::fs::read_to_string(dir.join("games.txt")).unwrap();
    assert_eq!(games.lines().count(), 4);
    for (i, line) in games.lines().enumerate() {
        let usi = &line[line.find("position").unwrap()..];
        let n = i + 1;
        // The match's own KIF and CSA files read as the same game.
        for written in [
            format!("kif/game-{n:04}.kif"),
            format!("csa/game-{n:04}.csa"),
        ] {
            assert_eq!(to_usi(&dir.join(&written)), usi, "{written}");
        }
        // USI -> KIF -> CSA -> KIFU -> USI.
        let chain = ["usi", "kif", "csa", "kifu", "usi"];
        let paths: Vec<PathBuf> = chain
            .iter()
            .enumerate()
            .map(|(k, ext)| dir.join(format!("chain-{n}-{k}.{ext}")))
            .collect();
        std::fs::write(&paths[0], format!("{usi}\n")).unwrap();
        for pair in paths.windows(2) {
            convert_ok(&pair[0], &pair[1]);
        }
        assert_eq!(
            std::fs::read_to_string(&paths[4]).unwrap().trim_end(),
            usi,
            "game {n}"
        );
        // The KIF in the chain is Shift_JIS, the KIFU UTF-8.
        assert!(std::str::from_utf8(&std::fs::read(&paths[1]).unwrap()).is_err());
        let kifu = std::fs::read_to_string(&paths[3]).unwrap();
        assert!(
            kifu.starts_with("#KIF version=2.0 encoding=UTF-8\n"),
            "{kifu}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn records_in_other_programs_styles_are_read() {
    // Kifu for Windows style, Shift_JIS, CR LF: headers, comments, a bookmark, time columns,
    // 投了 and a まで line.
    assert_eq!(
        to_usi(&data("kakinoki.kif")),
        "position sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 1e1c 2a3b 1c5c 4a5b 5c5b 3a2b 5b5a+ \
         3b3a B*4c 1b1c 5a3a 2b3a R*2a 1a1b G*1a"
    );
    // UTF-8 with a board diagram, 王, no time column, 中断 and a variation after the main line.
    assert_eq!(
        to_usi(&data("bod.kifu")),
        "position sfen 4k/2S2/5/5/K4 b Gp 1 moves G*2b 1a2b 3b3a+ 2b2c"
    );
    // The CSA standard's example file, cut to 5×5: comments, game information, moves and
    // times on one line with commas, %TORYO.
    assert_eq!(
        to_usi(&data("example.csa")),
        "position sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 1e1c 2a3b 2e4c 1b1c 4c2e 3b2b 3e4d 4a3b \
         4e3d 5a5d 5e4e 5d5a 4d5c R*4a 3d4c 5a5c 2e3d 4a4c 4e3e S*4d 3e2d G*1d"
    );
    // Names, times and result carry over: the KIF's players and its winner into CSA.
    let dir = dir("styles");
    let csa = dir.join("kakinoki.csa");
    convert_ok(&data("kakinoki.kif"), &csa);
    let decoded = engine::records::text::decode(&std::fs::read(&csa).unwrap()).unwrap();
    assert!(decoded.contains("N+山田 太郎\r\n"), "{decoded}");
    assert!(decoded.contains("+1513HI\r\nT12\r\n"), "{decoded}");
    assert!(decoded.ends_with("%TORYO\r\n"), "{decoded}");
    let kifu = dir.join("example.kifu");
    convert_ok(&data("example.csa"), &kifu);
    let kifu = std::fs::read_to_string(&kifu).unwrap();
    assert!(kifu.contains("棋戦：5五将棋 練習対局\n"), "{kifu}");
    assert!(
        kifu.contains("  22 １四金打      ( 0:07/00:01:03)\n"),
        "{kifu}"
    );
    assert!(kifu.ends_with("まで22手で後手の勝ち\n"), "{kifu}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_name_the_file_and_line() {
    let dir = dir("errors");
    let cases = [
        // An illegal move (the rook cannot jump the pawn).
        (
            "illegal.kif",
            "手合割：5五将棋\n   1 １三飛(15)\n   2 ３二金(21)\n   3 １一飛成(13)\n",
            ":4: illegal move 3",
        ),
        (
            "nine.csa",
            "V2.2\nPI\n+\n+7776FU\n",
            ":4: square '77' is not on the 5×5 board",
        ),
        ("bad.usi", "\nstartpos moves 2e1d 9z9z\n", ":2: move 2"),
    ];
    for (name, text, expected) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let out = convert(&[Path::new("--to"), Path::new("kifu"), &path]);
        assert!(!out.status.success(), "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("{name}{expected}")),
            "{name}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{name}");
    }
    // No output format, and a folder as input.
    let out = convert(&[&data("bod.kifu")]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("give --to"));
    let out = convert(&[
        &dir,
        Path::new("--from"),
        Path::new("kif"),
        Path::new("--to"),
        Path::new("usi"),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"));
    std::fs::remove_dir_all(&dir).unwrap();
}
