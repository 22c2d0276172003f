//! The plots looked at as pictures: every kind of SVG the project writes — training curves
//! (epochs, self-play iterations), network generations, a match's Elo chart, a scale ladder, a
//! tuning run — is rendered to pixels (resvg, pure Rust; text is not drawn, so nothing here
//! depends on fonts) and checked not blank: enough ink, several colours, and each series'
//! colour present. `PLOT_PNG_DIR=DIR cargo test --test plots` also saves the renderings as PNG.
//! And `engine plot` redraws what the commands wrote, the same, with errors naming the file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use resvg::{tiny_skia, usvg};

const ENGINE: &str = env!("CARGO_BIN_EXE_engine");

/// Series colours of `src/plot` (Colour::BLUE, RED, GREEN, ORANGE, GREY).
const BLUE: [u8; 3] = [31, 119, 180];
const RED: [u8; 3] = [214, 39, 40];
const GREEN: [u8; 3] = [44, 160, 44];
const ORANGE: [u8; 3] = [255, 127, 14];
const GREY: [u8; 3] = [90, 90, 90];

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("engine-plots-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn engine(args: &[&str]) -> Output {
    Command::new(ENGINE)
        .args(args)
        .output()
        .expect("engine runs")
}

fn ok(output: Output) -> Output {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn plot(kind: &str, input: &Path, out: &Path) -> String {
    ok(engine(&[
        "plot",
        kind,
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]));
    read(out)
}

/// Renders `svg` and checks that it is a picture: at least 3% of the pixels inked (not the
/// white background), at least four colours, and at least 40 pixels of each of `colours` (the
/// series drawn). `name` names it in failures and the optional PNG.
fn assert_picture(svg: &str, name: &str, colours: &[[u8; 3]]) {
    let tree = usvg::Tree::from_str(svg, &usvg::Options::default())
        .unwrap_or_else(|e| panic!("{name}: not an SVG resvg reads: {e}"));
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).expect("a size");
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    if let Some(dir) = std::env::var_os("PLOT_PNG_DIR") {
        let path = Path::new(&dir).join(format!("{name}.png"));
        pixmap.save_png(&path).expect("the PNG is written");
    }
    // Opaque white: plotters fills the background; anything else is ink.
    let pixels: Vec<[u8; 4]> = pixmap
        .pixels()
        .iter()
        .map(|p| [p.red(), p.green(), p.blue(), p.alpha()])
        .collect();
    let ink = pixels
        .iter()
        .filter(|p| p[3] > 0 && p[..3].iter().any(|&c| c < 245))
        .count();
    let share = ink as f64 / pixels.len() as f64;
    assert!(share >= 0.03, "{name}: only {:.2}% inked", 100.0 * share);
    let distinct: std::collections::BTreeSet<[u8; 4]> = pixels.iter().copied().collect();
    assert!(distinct.len() >= 4, "{name}: {} colours", distinct.len());
    for colour in colours {
        let near = pixels
            .iter()
            .filter(|p| p[3] == 255 && (0..3).all(|i| p[i].abs_diff(colour[i]) <= 12))
            .count();
        assert!(near >= 40, "{name}: {near} pixels of {colour:?}");
    }
}

#[test]
fn training_curves_render_as_pictures() {
    let dir = out_dir("training");
    // engine train's metrics (a row an epoch) and engine selfplay's (a row an iteration).
    let epochs = plot(
        "training",
        &repo("weights/default.csv"),
        &dir.join("default.svg"),
    );
    assert_picture(&epochs, "training-epochs", &[BLUE, RED, GREEN]);
    let iterations = plot(
        "training",
        &repo("weights/seed-selfplay.csv"),
        &dir.join("selfplay.svg"),
    );
    assert_picture(&iterations, "training-selfplay", &[BLUE, ORANGE, GREY]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_committed_generations_plot_is_current_and_renders() {
    let dir = out_dir("generations");
    let drawn = plot(
        "generations",
        &repo("weights/generations.csv"),
        &dir.join("g.svg"),
    );
    assert_eq!(
        drawn,
        read(&repo("weights/generations.svg")),
        "weights/generations.svg is out of date: engine plot generations weights/generations.csv"
    );
    assert_picture(&drawn, "generations", &[BLUE]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_match_writes_its_elo_chart_and_plot_redraws_it() {
    let dir = out_dir("match");
    let records = dir.join("m");
    let random = |seed: u32| format!("'{ENGINE}' random --seed {seed}");
    ok(engine(&[
        "match",
        "--engine",
        &random(1),
        "--engine",
        &random(2),
        "--games",
        "8",
        "--movetime",
        "0.05",
        "--concurrency",
        "2",
        "--quiet",
        "--out",
        records.to_str().unwrap(),
    ]));
    let chart = read(&records.join("elo.svg"));
    assert!(!chart.contains("inf") && !chart.contains("NaN"));
    // Random movers may not give an interval in 4 pairs: the chart may be axes and a note.
    assert_picture(&chart, "match-random", &[]);
    for input in ["summary.json", "games.txt"] {
        let again = plot("match", &records.join(input), &dir.join("again.svg"));
        assert_eq!(again, chart, "redrawn from {input}");
    }
    // A known course of pairs — won twice, split, drawn twice, lost twice — whose estimate
    // has an interval from the third pair on.
    let results = [
        "1-0", "0-1", "1-0", "1-0", "1/2-1/2", "1/2-1/2", "0-1", "1-0",
    ];
    let lines: String = results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (sente, gote) = if i % 2 == 0 { ("a", "b") } else { ("b", "a") };
            format!(
                "{} {sente} vs {gote}: {r} checkmate; position startpos\n",
                i + 1
            )
        })
        .collect();
    let games = dir.join("games.txt");
    std::fs::write(&games, lines).unwrap();
    let known = plot("match", &games, &dir.join("known.svg"));
    assert_picture(&known, "match-known", &[BLUE]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn scale_and_tune_plots_render() {
    let dir = out_dir("scale-tune");
    let scale = dir.join("scale.csv");
    std::fs::write(
        &scale,
        "limit,kind,value,games,wins,losses,draws,score,elo,error95,time_ms,engine1_ms,\
         engine2_ms,engine1_max_ms,engine2_max_ms\n\
         10 ms/move,movetime_ms,10,20,8,10,2,0.45,-34.9,120.5,10,9.5,9.6,12,12\n\
         100 ms/move,movetime_ms,100,20,12,6,2,0.65,107.5,130.2,100,98,97,110,109\n\
         depth 4,depth,4,20,20,0,0,1,inf,,,3.1,1.5,6,3\n\
         depth 8,depth,8,20,14,4,2,0.75,190.8,150,40,40.2,20.5,60,30\n",
    )
    .unwrap();
    let svg = plot("scale", &scale, &dir.join("scale.svg"));
    assert!(!svg.contains("inf") && !svg.contains("NaN"));
    assert_picture(&svg, "scale", &[BLUE, RED]);

    let params = dir.join("start.params");
    std::fs::write(
        &params,
        "rfp_margin 120 40 300 20\nfutility_margin 120 40 300 20\n",
    )
    .unwrap();
    let mut tune = String::from(
        "step,iteration,particle,games,wins,losses,draws,score,best_score,elapsed_s,\
         rfp_margin,futility_margin,rfp_margin_played,futility_margin_played\n",
    );
    for step in 1..=12 {
        let score = 0.4 + 0.02 * f64::from(step % 7);
        let (a, b) = (120.0 + 4.0 * f64::from(step), 120.0 - 3.0 * f64::from(step));
        tune.push_str(&format!(
            "{step},{},,16,7,7,2,{score:.4},,{}.0,{a:.3},{b:.3},{:.3},{:.3}\n",
            step - 1,
            step * 3,
            a + 20.0,
            b + 20.0
        ));
    }
    let tune_csv = dir.join("tune.csv");
    std::fs::write(&tune_csv, tune).unwrap();
    let tune_svg = dir.join("tune.svg");
    ok(engine(&[
        "plot",
        "tune",
        tune_csv.to_str().unwrap(),
        "--params",
        params.to_str().unwrap(),
    ]));
    assert_picture(&read(&tune_svg), "tune", &[BLUE, ORANGE, GREY]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plot_errors_name_the_file_and_line() {
    let dir = out_dir("errors");
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "epoch,train_loss,val_bce\n1,0.5,0.6\n2,0.4,oops\n").unwrap();
    let output = engine(&["plot", "training", bad.to_str().unwrap()]);
    assert!(!output.status.success());
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("bad.csv:3: column 'val_bce': 'oops' is not a number"),
        "{err}"
    );
    let ragged = dir.join("ragged.csv");
    std::fs::write(&ragged, "epoch,train_loss\n1,0.5\n2\n").unwrap();
    let err =
        String::from_utf8_lossy(&engine(&["plot", "training", ragged.to_str().unwrap()]).stderr)
            .to_string();
    assert!(err.contains("ragged.csv: 3: found 1 fields"), "{err}");
    let missing = dir.join("missing.csv");
    let err = String::from_utf8_lossy(
        &engine(&["plot", "generations", missing.to_str().unwrap()]).stderr,
    )
    .to_string();
    assert!(err.contains("missing.csv"), "{err}");
    assert!(!dir.join("bad.svg").exists(), "nothing written on an error");
    std::fs::remove_dir_all(&dir).unwrap();
}
