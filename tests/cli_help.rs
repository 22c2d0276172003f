//! Every subcommand that `engine help` lists answers `--help` with its usage: a command that
//! loses its flags or panics while building them is caught here.

use std::process::Command;

const ENGINE: &str = env!("CARGO_BIN_EXE_engine");

fn run(args: &[&str]) -> (bool, String) {
    let output = Command::new(ENGINE)
        .args(args)
        .output()
        .expect("engine runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn every_subcommand_answers_help() {
    let (ok, help) = run(&["help"]);
    assert!(ok, "{help}");
    let commands: Vec<String> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect();
    assert!(commands.len() >= 20, "{commands:?}");
    for command in ["usi", "uci", "match", "gui", "datagen"] {
        assert!(commands.iter().any(|c| c == command), "{command} listed");
    }
    for command in &commands {
        let (ok, text) = run(&[command, "--help"]);
        assert!(ok, "engine {command} --help failed");
        assert!(
            text.contains(&format!("Usage: engine {command}")),
            "engine {command} --help:\n{text}"
        );
    }
}
