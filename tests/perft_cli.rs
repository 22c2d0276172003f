//! `engine perft` seen from outside: output format and bad input. (The rules' perft against
//! the reference numbers is the rules crate's own test: `crates/minishogi-rules/tests/rules/`.)

use std::process::Command;

fn engine(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_engine"))
        .args(args)
        .output()
        .expect("engine runs")
}

#[test]
fn perft_divide_prints_root_moves_then_totals() {
    let out = engine(&["perft", "--depth", "3", "--divide"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 14 + 3, "{text}");
    let divide_sum: u64 = lines[..14]
        .iter()
        .map(|l| l.split_once(": ").unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(divide_sum, 2512);
    assert!(lines.contains(&"5d5c: 190"), "{text}");
    assert_eq!(lines[14], "nodes: 2512");
    assert!(lines[15].starts_with("time: ") && lines[15].ends_with(" s"));
    assert!(lines[16].starts_with("nps: "));
}

#[test]
fn perft_from_sfen_and_moves() {
    let out = engine(&["perft", "-d", "1", "--sfen", "4k/2S2/4G/5/K4 b P 1"]);
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .starts_with("nodes: 31\n")
    );
    let out = engine(&["perft", "-d", "2", "--moves", "5d5c"]);
    assert!(out.status.success());
    let after = String::from_utf8(out.stdout).unwrap();
    // 5d5c has 190 leaves at depth 3 from the start (see the divide above).
    assert!(after.starts_with("nodes: 190\n"), "{after}");
}

#[test]
fn perft_rejects_bad_input_on_stderr() {
    let out = engine(&["perft", "-d", "2", "--sfen", "rbsgk/4p/5/P4/KGSBR x - 1"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bad side to move 'x'"), "{err}");
    let out = engine(&["perft", "-d", "2", "--moves", "5d5b"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("5d5b"), "{err}");
}
