//! `engine scale`, `engine sample-positions` and `engine ttd` end to end, at a tiny size: a
//! two-point ladder against the random mover (outputs written and parsed, a re-run skipping the
//! finished points, other settings refused), positions with pieces in hand drawn from its
//! games, and their time to depth.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ENGINE: &str = env!("CARGO_BIN_EXE_engine");

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-scale-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn engine(args: &[&str]) -> Output {
    Command::new(ENGINE)
        .args(args)
        .output()
        .expect("engine runs")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn ladder(dir: &Path, games: &str) -> Output {
    let random = format!("'{ENGINE}' random --seed 5");
    engine(&[
        "scale",
        "--engine",
        "self usi",
        "--engine-name",
        "us",
        "--engine",
        &random,
        "--engine-name",
        "random",
        "--depths",
        "1,2",
        "--games",
        games,
        "--concurrency",
        "2",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ])
}

#[test]
fn ladder_writes_table_plot_and_resumes() {
    let dir = out_dir("ladder");
    let output = ladder(&dir, "2");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("| depth 1 | 2 |"), "{stdout}");
    assert!(stdout.contains("| depth 2 | 2 |"), "{stdout}");
    assert_eq!(read(&dir.join("scale.md")), stdout);

    let json: serde_json::Value = serde_json::from_str(&read(&dir.join("scale.json"))).unwrap();
    let points = json["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    for (point, limit) in points.iter().zip(["depth 1", "depth 2"]) {
        assert_eq!(point["limit"], limit);
        assert_eq!(point["games"], 2);
        let (w, l, d) = (&point["wins"], &point["losses"], &point["draws"]);
        assert_eq!(
            w.as_u64().unwrap() + l.as_u64().unwrap() + d.as_u64().unwrap(),
            2
        );
        assert!(point["engine1_ms"].as_f64().unwrap() >= 0.0);
    }
    let csv = read(&dir.join("scale.csv"));
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 3, "{csv}");
    assert_eq!(rows[0][0], "limit");
    assert_eq!(rows[1][1..3], ["depth", "1"]);
    assert_eq!(rows[2][1..3], ["depth", "2"]);
    let svg = read(&dir.join("scale.svg"));
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("us vs random"));
    for point in ["depth-1", "depth-2"] {
        let points = dir.join("points");
        let result: serde_json::Value =
            serde_json::from_str(&read(&points.join(format!("{point}.json")))).unwrap();
        assert_eq!(result["games"], 2);
        assert_eq!(
            read(&points.join(point).join("games.txt")).lines().count(),
            2
        );
    }

    // Run again: both points are finished, so nothing is played and the outputs stay.
    let before = std::fs::metadata(dir.join("points/depth-1/games.txt"))
        .unwrap()
        .modified()
        .unwrap();
    let again = ladder(&dir, "2");
    assert!(again.status.success());
    assert_eq!(String::from_utf8(again.stdout).unwrap(), stdout);
    let after = std::fs::metadata(dir.join("points/depth-1/games.txt"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after, "a finished point was played again");

    // Other settings in the same folder are refused, naming the point file.
    let other = ladder(&dir, "4");
    assert!(!other.status.success());
    let stderr = String::from_utf8_lossy(&other.stderr);
    assert!(
        stderr.contains("depth-1.json") && stderr.contains("games"),
        "{stderr}"
    );

    // Positions with pieces in hand from these games, then their time to depth.
    let positions = dir.join("positions.sfen");
    let sampled = engine(&[
        "sample-positions",
        "--games",
        dir.join("points/depth-1/games.txt").to_str().unwrap(),
        dir.join("points/depth-2/games.txt").to_str().unwrap(),
        "--min-hand",
        "1",
        "--count",
        "3",
        "--out",
        positions.to_str().unwrap(),
    ]);
    assert!(
        sampled.status.success(),
        "{}",
        String::from_utf8_lossy(&sampled.stderr)
    );
    let lines: Vec<String> = read(&positions)
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(String::from)
        .collect();
    // Four games, one position each at most, three asked for.
    assert!((1..=3).contains(&lines.len()), "{lines:?}");
    assert!(lines.iter().all(|l| l.starts_with("sfen ")));

    let ttd_dir = dir.join("ttd");
    let ttd = engine(&[
        "ttd",
        "--engine",
        "self usi",
        "--engine-name",
        "a",
        "--engine",
        "self usi",
        "--engine-name",
        "b",
        "--positions",
        positions.to_str().unwrap(),
        "--max-depth",
        "3",
        "--out",
        ttd_dir.to_str().unwrap(),
    ]);
    assert!(
        ttd.status.success(),
        "{}",
        String::from_utf8_lossy(&ttd.stderr)
    );
    let report = String::from_utf8(ttd.stdout).unwrap();
    let n = lines.len();
    for depth in 1..=3 {
        assert!(
            report.contains(&format!("| {depth} | {n}/{n} |")),
            "depth {depth} reached on every position: {report}"
        );
    }
    assert!(report.contains("time of a / time of b"), "{report}");
    let json: serde_json::Value = serde_json::from_str(&read(&ttd_dir.join("ttd.json"))).unwrap();
    let runs = json[0]["positions"].as_array().unwrap();
    assert_eq!(runs.len(), n);
    let depths = runs[0]["depths"].as_array().unwrap();
    assert_eq!(depths.len(), 3);
    let nodes: Vec<u64> = depths
        .iter()
        .map(|d| d["nodes"].as_u64().unwrap())
        .collect();
    assert!(nodes.windows(2).all(|w| w[0] <= w[1]), "{nodes:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_are_clear_errors() {
    let dir = out_dir("bad");
    let bad_depth = engine(&[
        "scale",
        "--engine",
        "self usi",
        "--engine",
        "self random",
        "--depths",
        "0",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(!bad_depth.status.success());
    assert!(String::from_utf8_lossy(&bad_depth.stderr).contains("--depths"));
    let missing = engine(&[
        "ttd",
        "--engine",
        "self usi",
        "--positions",
        "/nonexistent/positions.sfen",
    ]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/positions.sfen"));
    let no_engine = engine(&[
        "scale",
        "--engine",
        "/nonexistent/engine-xyz",
        "--engine",
        "self random",
        "--depths",
        "1",
        "--games",
        "2",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(!no_engine.status.success());
    assert!(String::from_utf8_lossy(&no_engine.stderr).contains("engine-xyz"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_ladder_of_time_odds() {
    // The engine at 20 ms a move against itself at 1× and 4× that: two points, each played
    // with engine 2 at its own time, kept and drawn as time-odds points.
    let dir = out_dir("time-odds");
    let out = dir.to_str().unwrap();
    let args = [
        "scale",
        "--engine",
        "self usi",
        "--engine-name",
        "us",
        "--engine",
        "self usi",
        "--engine-name",
        "them",
        "--movetimes",
        "20",
        "--time-odds",
        "1,4",
        "--games",
        "2",
        "--max-plies",
        "12",
        "--time-margin",
        "0.5",
        "--quiet",
        "--out",
        out,
    ];
    let output = engine(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let csv = read(&dir.join("scale.csv"));
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{csv}");
    assert!(
        rows[0].starts_with("20 vs 20 ms/move,odds_engine2_ms,20,"),
        "{csv}"
    );
    assert!(
        rows[1].starts_with("20 vs 80 ms/move,odds_engine2_ms,80,"),
        "{csv}"
    );
    let point: serde_json::Value =
        serde_json::from_str(&read(&dir.join("points/movetime-20ms-vs-80ms.json"))).unwrap();
    assert_eq!(point["time_control"], "us 0.02s/move, them 0.08s/move");
    assert!(read(&dir.join("scale.svg")).contains("time odds"));
    // Run again: both points are kept with the same settings, so nothing is played.
    let again = engine(&args);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(read(&dir.join("scale.csv")), csv);
}
