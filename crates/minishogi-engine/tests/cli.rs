//! The playing binary's command line: exactly the playing commands, each with its usage, and
//! the tools among them working from this binary alone.

use std::process::Command;

const ENGINE: &str = env!("CARGO_BIN_EXE_minishogi-engine");

fn run(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(ENGINE)
        .args(args)
        .output()
        .expect("minishogi-engine runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn it_offers_the_playing_commands_and_no_lab_command() {
    let (ok, help, _) = run(&["help"]);
    assert!(ok, "{help}");
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert_eq!(
        commands,
        ["usi", "uci", "perft", "play", "bench", "eval", "help"]
    );
    for command in &commands[..commands.len() - 1] {
        let (ok, text, _) = run(&[command, "--help"]);
        assert!(ok, "minishogi-engine {command} --help failed");
        assert!(
            text.contains(&format!("Usage: minishogi-engine {command}")),
            "{text}"
        );
    }
    let (ok, _, err) = run(&["match", "--help"]);
    assert!(
        !ok && err.contains("unrecognized subcommand 'match'"),
        "{err}"
    );
}

#[test]
fn perft_and_eval_run_from_the_playing_binary() {
    let (ok, out, err) = run(&["perft", "--depth", "3", "--divide"]);
    assert!(ok, "{err}");
    assert!(out.contains("\nnodes: 2512\n"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("5d5c: ")), "{out}");

    let (ok, out, err) = run(&["eval", "--moves", "2e3d"]);
    assert!(ok, "{err}");
    assert!(out.contains("weights: embedded"), "{out}");

    let (ok, _, err) = run(&["perft", "--depth", "2", "--sfen", "bogus"]);
    assert!(!ok && err.contains("bad --sfen"), "{err}");
}
