//! A page of the board in a real browser, as a person meets it: headless Chromium driven
//! through chromedriver (WebDriver, the `fantoccini` crate). Shared by the two homes of the
//! page: `engine gui` (`tests/gui_browser.rs`) and the static site (`tests/site_browser.rs`).
//! A whole game against the engine by clicks (a promotion through the dialog, a drop from the
//! hand, one move by drag), a KIF opened through the file input and walked with the buttons
//! and the arrow keys checking what the board shows, saved as CSA (a download read back by the
//! project's reader), analysis with three lines and a PV preview; the comforts: the new-game
//! dialog's gentle first-visit choices, its time presets and the choices remembered, the
//! engine's level and Elo shown, letter pieces, a confirmed resignation, the engine's replies
//! slid in and heard (and not while muted); a game with a planted blunder reviewed (its mark
//! in the move list and on the graph, the next mistake, the better move on the board, both
//! sides' accuracy), a position built in the editor and played; puzzle mode (two puzzles of the
//! page's file solved by clicks, one with a hint, one failed, the progress kept over a reload);
//! screenshots
//! (`docs/images/PREFIX-*.png` when `GUI_SCREENSHOTS=1`, a temporary folder otherwise).

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use engine::records;
use engine::search::skill::elo_of_level;
use fantoccini::actions::{
    InputSource, KeyAction, KeyActions, MOUSE_BUTTON_LEFT, MouseActions, PointerAction,
};
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

/// The start of the game: sente (the test) has its king on 5e, a silver on 5b that can go to
/// 5a promoted or not (so the dialog must ask), a rook and a gold in hand; gote has its king
/// alone on 1a. Gote can never give check, so a drop is always legal on sente's second turn.
pub const GAME_SFEN: &str = "4k/S4/5/5/K4 b RG 1";

/// Every wait gives up after this long.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// The processes the test started; each is killed with its whole process group (the engine's
/// USI children, chromedriver's browser) when the guard drops, on success or failure alike.
pub struct Processes(pub Vec<Child>);

impl Drop for Processes {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let pid = child.id() as libc::pid_t;
            // SAFETY: signals the process group this test created for the child.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

pub fn find_program(var: &str, candidates: &[&str]) -> Option<PathBuf> {
    if let Ok(path) = std::env::var(var) {
        return Some(PathBuf::from(path)).filter(|p| p.exists());
    }
    candidates.iter().map(PathBuf::from).find(|p| p.exists())
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

pub fn start_chromedriver(procs: &mut Processes, chromedriver: &Path) -> u16 {
    let port = free_port();
    let child = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("start chromedriver");
    procs.0.push(child);
    port
}

/// A WebDriver session on headless Chromium; downloads go to `downloads`.
pub async fn connect(port: u16, chromium: &Path, downloads: &Path) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".to_string(),
        json!({
            "binary": chromium.to_string_lossy(),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                     "--lang=en-US", "--disable-dev-shm-usage", "--hide-scrollbars"],
            "prefs": {
                "download.default_directory": downloads.to_string_lossy(),
                "download.prompt_for_download": false,
            },
        }),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let result = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        match result {
            Ok(client) => return client,
            Err(e) if Instant::now() > deadline => panic!("no WebDriver session: {e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// Runs `script` (a function body) until it returns something other than null / false /
/// empty, and returns that.
pub async fn wait_js(c: &Client, what: &str, script: &str) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let v = c.execute(script, vec![]).await.expect("execute script");
        let done = match &v {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::String(s) => !s.is_empty(),
            _ => true,
        };
        if done {
            return v;
        }
        if Instant::now() > deadline {
            let page = c
                .execute("return document.body.dataset", vec![])
                .await
                .unwrap_or(Value::Null);
            let error = js_string(
                c,
                "return document.getElementById('error-text').textContent",
            )
            .await;
            let events = js_string(c, "return JSON.stringify(window.minishogiEvents)").await;
            panic!("waited too long for {what} (page: {page}, error: {error:?}, events: {events})");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub async fn js_string(c: &Client, script: &str) -> String {
    match c.execute(script, vec![]).await.expect("execute script") {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Clicks the element; live parts of the page (the PV list) are redrawn by every search
/// report, so an element found a moment ago may be gone: then it is found again.
pub async fn click(c: &Client, css: &str) {
    let mut tries = 0;
    loop {
        let element = c
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no element {css}: {e}"));
        match element.click().await {
            Ok(()) => return,
            Err(e) if tries < 20 && e.to_string().contains("stale") => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            Err(e) => panic!("cannot click {css}: {e}"),
        }
    }
}

pub async fn set_value(c: &Client, css: &str, value: &str) {
    let e = c.find(Locator::Css(css)).await.expect(css);
    e.clear().await.expect("clear");
    e.send_keys(value).await.expect("type");
}

pub fn square(sq: &str) -> String {
    format!("[data-square=\"{sq}\"]")
}

/// The piece the board shows on a square, in SFEN letters ("" when empty).
pub async fn piece_at(c: &Client, sq: &str) -> String {
    js_string(
        c,
        &format!("const p = document.querySelector('[data-square=\"{sq}\"] .piece'); return p ? p.dataset.piece : '';"),
    )
    .await
}

/// What the board shows on a square's piece: its kanji or its letters ("" when empty).
pub async fn glyph_at(c: &Client, css: &str) -> String {
    js_string(
        c,
        &format!(
            "const p = document.querySelector('{css} .piece'); return p ? p.textContent : '';"
        ),
    )
    .await
}

/// The strength the engine's row shows (the row above the board: the engine plays gote).
pub async fn engine_strength(c: &Client) -> String {
    js_string(
        c,
        "const s = document.querySelector('#top-name small'); return s ? s.textContent : '';",
    )
    .await
}

/// How many clicks the page has played (`window.minishogiSounds`).
pub async fn sounds_played(c: &Client) -> u64 {
    js_string(c, "return String(window.minishogiSounds.played)")
        .await
        .parse()
        .expect("a count")
}

pub async fn ply(c: &Client) -> u64 {
    js_string(c, "return document.body.dataset.ply || ''")
        .await
        .parse()
        .unwrap_or(u64::MAX)
}

pub async fn wait_ply(c: &Client, ply: u64) {
    wait_js(
        c,
        &format!("ply {ply}"),
        &format!("return document.body.dataset.ply === '{ply}'"),
    )
    .await;
}

pub async fn press(c: &Client, key: Key) {
    let keys = KeyActions::new("keyboard".to_string())
        .then(KeyAction::Down { value: key.into() })
        .then(KeyAction::Up { value: key.into() });
    c.perform_actions(keys).await.expect("key press");
}

/// Clicks the move list's entry of a ply and waits for the board to get there; returns
/// the node.
pub async fn click_move(c: &Client, ply: u64) -> String {
    let node = js_string(
        c,
        &format!(
            "return document.querySelectorAll('#moves [data-node]')[{}].dataset.node",
            ply - 1
        ),
    )
    .await;
    let target = format!("#moves [data-node=\"{node}\"]");
    // On a loaded machine a click can land while the list is being redrawn and go to another
    // row; the test then says so and clicks again, three times at most.
    for attempt in 0..3 {
        click(c, &target).await;
        let reached = format!("return document.body.dataset.ply === '{ply}'");
        if poll_js(c, &reached, Duration::from_secs(5)).await {
            return node;
        }
        eprintln!("note: the click on move {ply} did not reach it (attempt {attempt})");
    }
    wait_ply(c, ply).await;
    node
}

/// Whether `script` returns true within `timeout`.
pub async fn poll_js(c: &Client, script: &str, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if c.execute(script, vec![]).await.expect("execute script") == Value::Bool(true) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

pub async fn screenshot(c: &Client, dir: &Path, name: &str) {
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(dir.join(name), png).expect("write the screenshot");
}

/// Plays a USI move the way a person does: a click on the piece (or the hand), a click on
/// the destination, and the promotion dialog's answer where it asks. With `drag`, the piece
/// is dragged instead. Returns whether the promotion dialog came up.
pub async fn play_by_clicks(c: &Client, usi: &str, drag: bool) -> bool {
    let from = origin_of(usi);
    let to = square(&usi[2..4]);
    if drag {
        let from_el = c.find(Locator::Css(&from)).await.expect("origin");
        let to_el = c.find(Locator::Css(&to)).await.expect("destination");
        let mouse = MouseActions::new("mouse".to_string())
            .then(PointerAction::MoveToElement {
                element: from_el,
                duration: None,
                x: 0.0,
                y: 0.0,
            })
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::MoveBy {
                duration: Some(Duration::from_millis(100)),
                x: 5.0,
                y: 5.0,
            })
            .then(PointerAction::MoveToElement {
                element: to_el,
                duration: Some(Duration::from_millis(150)),
                x: 0.0,
                y: 0.0,
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        c.perform_actions(mouse).await.expect("drag");
        c.release_actions().await.expect("release");
    } else {
        click(c, &from).await;
        wait_js(
            c,
            "destinations marked",
            "return document.querySelectorAll('.sq.dest').length > 0",
        )
        .await;
        click(c, &to).await;
    }
    let asked = js_string(
        c,
        "return String(document.getElementById('promo-dialog').open)",
    )
    .await
        == "true";
    if asked {
        let answer = if usi.ends_with('+') { "yes" } else { "no" };
        click(c, &format!("[data-promote=\"{answer}\"]")).await;
    }
    asked
}

/// The element a move starts from: a square, or the hand's piece for a drop.
pub fn origin_of(usi: &str) -> String {
    if usi.as_bytes()[1] == b'*' {
        format!("[data-hand=\"sente-{}\"]", &usi[..1])
    } else {
        square(&usi[..2])
    }
}

/// The analysis' best move at the cursor, once it has searched a little.
pub async fn best_move(c: &Client, cursor: &str) -> String {
    let script = format!(
        "const li = document.querySelector('#pv-list li.pv[data-source=\"analysis\"][data-node=\"{cursor}\"]');
         if (!li) return null;
         const score = li.querySelector('.score').textContent;
         if (Number(li.dataset.depth) < 7 && !/M|詰/.test(score)) return null;
         const m = li.querySelector('.pv-move');
         return m ? m.dataset.usi : null;"
    );
    wait_js(c, "the analysis' best move", &script)
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Start a game from `GAME_SFEN` through the position editor and the new-game dialog, then
/// play it to the end by clicks.
pub async fn play_game(c: &Client, shots: &Shots) {
    set_value(c, "#sfen-in", GAME_SFEN).await;
    click(c, "#btn-sfen").await;
    wait_js(
        c,
        "the new-game dialog",
        "return document.getElementById('new-dialog').open",
    )
    .await;
    assert_eq!(
        js_string(c, "return document.getElementById('ng-sfen').value").await,
        GAME_SFEN,
        "the position editor fills the dialog's start position"
    );
    click(c, "input[name=side][value=sente]").await;
    click(c, "input[name=strength][value=level]").await;
    set_value(c, "#ng-level", "1").await;
    click(c, "input[name=timing][value=movetime]").await;
    set_value(c, "#ng-movetime", "0.2").await;
    click(c, "#ng-start").await;
    wait_js(
        c,
        "the new game",
        "return document.querySelector('[data-square=\"5b\"] .piece[data-piece=\"S\"]') !== null
            && document.querySelector('[data-hand=\"sente-R\"]') !== null
            && document.body.dataset.ply === '0' && document.body.dataset.turn === 'sente'",
    )
    .await;
    assert_eq!(piece_at(c, "5b").await, "S");
    assert_eq!(piece_at(c, "1a").await, "k");
    // No review while the game against the engine goes on.
    assert_eq!(
        js_string(
            c,
            "return String(document.getElementById('btn-review').disabled)"
        )
        .await,
        "true"
    );
    // The opponent's strength beside its name: the level chosen and what the session says it
    // is worth (docs/levels.md).
    assert_eq!(
        engine_strength(c).await,
        format!("Level 1 · Elo {}", elo_of_level(1))
    );
    // Letter pieces (turned on before the game): the hand too.
    assert_eq!(
        js_string(c, "return document.body.dataset.pieces").await,
        "letters"
    );
    assert_eq!(glyph_at(c, "[data-hand=\"sente-R\"]").await, "R");
    assert_eq!(glyph_at(c, &square("5b")).await, "S");
    assert!(
        js_string(
            c,
            "return String(document.querySelector('[data-hand=\"sente-R\"]') !== null)"
        )
        .await
            == "true",
        "the rook in hand is shown"
    );
    // The analysis picks the test's moves after the first two.
    click(c, "#btn-analysis").await;
    wait_js(
        c,
        "analysis on",
        "return document.body.dataset.analysis === 'true'",
    )
    .await;

    let mut human_moves: Vec<String> = Vec::new();
    let mut dialog_seen = false;
    // The engine's replies heard so far: all but the one that came while the sound was off.
    let mut heard = 0;
    loop {
        let state = wait_js(
            c,
            "sente's turn or the end",
            "const d = document.body.dataset;
             if (d.result) return 'over';
             if (d.turn === 'sente' && d.thinking === 'false') return 'cursor ' + d.cursor;
             return null;",
        )
        .await;
        let state = state.as_str().unwrap_or_default().to_string();
        if state == "over" {
            break;
        }
        let cursor = state.trim_start_matches("cursor ").to_string();
        let n = human_moves.len();
        assert!(n < 40, "the game goes on and on: {human_moves:?}");
        if n >= 1 {
            // The engine has replied: its move slid in (marked on its square) and clicked,
            // unless the sound was off for it (the reply to the second move).
            let reply = js_string(
                c,
                "const m = document.querySelectorAll('#moves [data-usi]'); return m[m.length - 1].dataset.usi",
            )
            .await;
            let marked = js_string(
                c,
                &format!("return String(document.querySelector('[data-square=\"{}\"]').classList.contains('arrived'))", &reply[2..4]),
            )
            .await;
            assert_eq!(
                marked, "true",
                "the engine's reply {reply} marked as arrived"
            );
            let slid = js_string(c, "return window.minishogiMotion.slid.join(' ')").await;
            assert!(
                slid.ends_with(&reply),
                "the engine's reply {reply} slid in: {slid:?}"
            );
            if n != 2 {
                heard += 1;
            }
            assert_eq!(sounds_played(c).await, heard, "clicks after {n} replies");
        }
        if n == 1 {
            // The board in letters after the promotion (+S on 5a), then kanji again; then the
            // sound off for one reply.
            assert_eq!(glyph_at(c, &square("5a")).await, "+S");
            assert_eq!(glyph_at(c, "[data-hand=\"sente-G\"]").await, "G");
            shots.take(c, "letters").await;
            click(c, "#btn-pieces").await;
            wait_js(
                c,
                "kanji pieces",
                "return document.body.dataset.pieces === 'kanji'",
            )
            .await;
            assert_eq!(glyph_at(c, &square("5a")).await, "全");
            assert_eq!(glyph_at(c, "[data-hand=\"sente-G\"]").await, "金");
            click(c, "#btn-sound").await;
            assert_eq!(
                js_string(c, "return document.body.dataset.sound").await,
                "off"
            );
        }
        if n == 2 {
            click(c, "#btn-sound").await;
            assert_eq!(
                js_string(c, "return document.body.dataset.sound").await,
                "on"
            );
        }
        let usi = match n {
            0 => "5b5a+".to_string(),
            1 => {
                let best = best_move(c, &cursor).await;
                if best.as_bytes()[1] == b'*' {
                    best
                } else {
                    // Any legal gold drop: select the hand's gold and take the first
                    // destination the board marks.
                    click(c, "[data-hand=\"sente-G\"]").await;
                    let to = js_string(c, "const d = document.querySelector('.sq.dest'); return d ? d.dataset.square : ''").await;
                    click(c, "[data-hand=\"sente-G\"]").await; // unselect
                    assert!(!to.is_empty(), "a gold drop is legal");
                    format!("G*{to}")
                }
            }
            _ => best_move(c, &cursor).await,
        };
        if n == 2 {
            // The board with a piece selected and its destinations marked; this move is then
            // played by drag and drop.
            let origin = origin_of(&usi);
            click(c, &origin).await;
            wait_js(
                c,
                "destinations",
                "return document.querySelectorAll('.sq.dest').length > 0",
            )
            .await;
            shots.take(c, "board").await;
            click(c, &origin).await; // unselect
            wait_js(
                c,
                "no selection",
                "return document.querySelectorAll('.sq.dest').length === 0",
            )
            .await;
        }
        let before = ply(c).await;
        let drag = n == 2;
        let asked = if n == 0 {
            // The promotion dialog in letters: the promoted silver and the silver.
            click(c, &origin_of(&usi)).await;
            wait_js(
                c,
                "destinations marked",
                "return document.querySelectorAll('.sq.dest').length > 0",
            )
            .await;
            click(c, &square(&usi[2..4])).await;
            wait_js(
                c,
                "the promotion dialog",
                "return document.getElementById('promo-dialog').open",
            )
            .await;
            assert_eq!(glyph_at(c, "[data-promote=\"yes\"]").await, "+S");
            assert_eq!(glyph_at(c, "[data-promote=\"no\"]").await, "S");
            click(c, "[data-promote=\"yes\"]").await;
            true
        } else {
            play_by_clicks(c, &usi, drag).await
        };
        if n == 0 {
            assert!(asked, "5b5a may promote or not: the dialog asks");
        }
        dialog_seen |= asked;
        wait_js(
            c,
            "the move played",
            &format!("return document.body.dataset.result !== '' || Number(document.body.dataset.ply) > {before}"),
        )
        .await;
        if n == 0 {
            assert_eq!(piece_at(c, "5a").await, "+S", "the silver promoted");
        }
        human_moves.push(usi);
    }
    assert!(dialog_seen);
    // Every reply of the engine slid in, and none of the test's own moves.
    let engine_moves = js_string(
        c,
        "return [...document.querySelectorAll('#moves [data-usi]')].filter((_, i) => i % 2 === 1).map((m) => m.dataset.usi).join(' ')",
    )
    .await;
    let slid = js_string(c, "return window.minishogiMotion.slid.join(' ')").await;
    assert_eq!(slid, engine_moves, "the moves that slid in: the engine's");
    assert!(!slid.is_empty());
    assert!(
        human_moves.iter().any(|m| m.as_bytes()[1] == b'*'),
        "a drop: {human_moves:?}"
    );
    assert!(
        human_moves.iter().any(|m| m.ends_with('+')),
        "a promotion: {human_moves:?}"
    );
    if !shots.exists("board") {
        shots.take(c, "board").await;
    }
    let result = js_string(c, "return document.getElementById('result').textContent").await;
    assert!(
        result.starts_with("Sente wins"),
        "result: {result:?} after {human_moves:?}"
    );
    // The mated position's value is the verdict: the bar full on sente's side, and words.
    let (fill, words) = (
        js_string(
            c,
            "return String(parseFloat(document.getElementById('evalbar-fill').style.height))",
        )
        .await,
        js_string(
            c,
            "return document.getElementById('evalbar-text').textContent",
        )
        .await,
    );
    assert_eq!(fill, "100", "the bar at the final mate, in %");
    assert!(
        words.contains("mates"),
        "the bar's words at the final mate: {words:?}"
    );
    // The same in Japanese.
    click(c, "#btn-lang").await;
    let ja = js_string(c, "return document.getElementById('result').textContent").await;
    assert!(ja.starts_with("☗先手の勝ち"), "result in Japanese: {ja:?}");
    click(c, "#btn-lang").await;
    let moves = js_string(
        c,
        "return String(document.querySelectorAll('#moves [data-node]').length)",
    )
    .await;
    assert_eq!(
        moves,
        (js_string(c, "return document.body.dataset.ply").await),
        "one list entry a move"
    );
    click(c, "#btn-analysis").await;
    wait_js(
        c,
        "analysis off",
        "return document.body.dataset.analysis === 'false'",
    )
    .await;
    println!(
        "game: {} moves by the test: {}",
        human_moves.len(),
        human_moves.join(" ")
    );
}

/// Opens a KIF through the file input and walks it; saves it as CSA.
pub async fn open_record(c: &Client, shots: &Shots, tmp: &Path, downloads: &Path) {
    let path = tmp.join("game.kif");
    std::fs::write(&path, include_bytes!("../data/records/kakinoki.kif")).expect("write the KIF");
    let input = c
        .find(Locator::Css("#file-input"))
        .await
        .expect("file input");
    input
        .send_keys(&path.to_string_lossy())
        .await
        .expect("choose the file");
    wait_js(
        c,
        "the record",
        "return document.querySelectorAll('#moves [data-node]').length === 15",
    )
    .await;
    wait_ply(c, 15).await;
    // 15 １一金打: the gold is on 1a at the end; before it (ply 14) 1a is empty and the king on 1b.
    assert_eq!(piece_at(c, "1a").await, "G");
    click(c, "[data-nav=\"back\"]").await;
    wait_ply(c, 14).await;
    assert_eq!(piece_at(c, "1a").await, "");
    assert_eq!(piece_at(c, "1b").await, "k");
    press(c, Key::Left).await;
    wait_ply(c, 13).await;
    assert_eq!(
        piece_at(c, "1a").await,
        "k",
        "at ply 13 the king is still on 1a"
    );
    assert_eq!(piece_at(c, "2a").await, "R", "13 ２一飛打");
    press(c, Key::Right).await;
    wait_ply(c, 14).await;
    assert_eq!(piece_at(c, "1b").await, "k");
    press(c, Key::Home).await;
    wait_ply(c, 0).await;
    assert_eq!(piece_at(c, "1a").await, "k");
    assert_eq!(piece_at(c, "5e").await, "K");
    assert_eq!(piece_at(c, "1e").await, "R");
    click(c, "[data-nav=\"forward\"]").await;
    wait_ply(c, 1).await;
    assert_eq!(piece_at(c, "1c").await, "R", "1 １三飛(15)");
    assert_eq!(piece_at(c, "1e").await, "");
    press(c, Key::End).await;
    wait_ply(c, 15).await;
    click(c, "[data-nav=\"first\"]").await;
    wait_ply(c, 0).await;
    click(c, "[data-nav=\"last\"]").await;
    wait_ply(c, 15).await;
    // A click on a move in the list goes there.
    click_move(c, 7).await;
    assert_eq!(piece_at(c, "5a").await, "+R", "7 ５一飛成(52)");
    assert!(
        js_string(
            c,
            "return document.querySelector('#moves .current').textContent"
        )
        .await
        .contains("5a")
    );

    // A bad paste: the error shows, the game stays.
    set_value(c, "#paste-text", "this is no record").await;
    click(c, "#btn-paste").await;
    wait_js(
        c,
        "the error",
        "return !document.getElementById('error').hidden",
    )
    .await;
    assert_eq!(ply(c).await, 7);
    click(c, "#error-close").await;
    set_value(c, "#paste-text", "").await;

    // Saving goes through the transport and a Blob download: the file Chromium writes is the
    // server's CSA of the whole line, byte for byte.
    click(c, "#save-csa").await;
    let saved = downloads.join("game.csa");
    let deadline = Instant::now() + PATIENCE;
    while !saved.exists() {
        assert!(
            Instant::now() < deadline,
            "no download at {}",
            saved.display()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Chromium renames the file when it is complete: wait until the whole record reads. The
    // project's reader (natively) finds the KIF's 15 moves in it.
    let kif = records::read(
        include_bytes!("../data/records/kakinoki.kif"),
        records::Format::Kif,
    )
    .expect("the KIF reads");
    let deadline = Instant::now() + PATIENCE;
    let saved_moves = loop {
        let bytes = std::fs::read(&saved).unwrap_or_default();
        if let Ok(record) = records::read(&bytes, records::Format::Csa)
            && record.moves.len() == kif.moves.len()
        {
            break record.moves;
        }
        assert!(
            Instant::now() < deadline,
            "the saved CSA does not hold the record: {}",
            String::from_utf8_lossy(&bytes)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(saved_moves, kif.moves, "the saved CSA is the KIF's game");
    assert_eq!(
        js_string(c, "return window.minishogiLastDownload.filename").await,
        "game.csa"
    );
    c.execute("document.activeElement.blur()", vec![])
        .await
        .expect("blur");
    shots.take(c, "record").await;

    // Analysis along the line, for its graph and lines.
    c.find(Locator::Css("#multipv"))
        .await
        .expect("multipv")
        .select_by_value("3")
        .await
        .expect("multipv 3");
    click(c, "#btn-analysis").await;
    wait_js(
        c,
        "analysis on",
        "return document.body.dataset.analysis === 'true'",
    )
    .await;
    for target in (1..=9).rev() {
        let node = click_move(c, target).await;
        wait_js(
            c,
            "analysis lines",
            &format!("const li = document.querySelector('#pv-list li.pv[data-node=\"{node}\"]'); return li && Number(li.dataset.depth) >= 6"),
        )
        .await;
    }
    let cursor = click_move(c, 6).await;
    wait_js(
        c,
        "three lines",
        &format!("return document.querySelectorAll('#pv-list li.pv[data-node=\"{cursor}\"]').length === 3 && Number(document.querySelector('#pv-list li.pv').dataset.depth) >= 8"),
    )
    .await;
    // A click on a PV move previews the line on the board; Escape leaves the preview.
    click(c, "#pv-list li.pv .pv-move").await;
    wait_js(
        c,
        "the preview",
        "return !document.getElementById('preview-banner').hidden",
    )
    .await;
    let overlap = js_string(
        c,
        "const a = document.getElementById('preview-banner').getBoundingClientRect();
         const b = document.getElementById('row-bottom').getBoundingClientRect();
         return String(a.bottom > b.top && a.top < b.bottom);",
    )
    .await;
    assert_eq!(
        overlap, "false",
        "the preview's banner covers the player's row"
    );
    // The board shows the session's position after the line's first move: the move is
    // marked and its piece stands on its destination.
    let previewed = js_string(c, "return document.body.dataset.preview").await;
    assert!(
        previewed.len() >= 4 && !previewed.contains(' '),
        "one move previewed: {previewed:?}"
    );
    let to = &previewed[2..4];
    assert!(
        js_string(
            c,
            &format!("return String(document.querySelector('[data-square=\"{to}\"]').classList.contains('last-to'))")
        )
        .await
            == "true",
        "{previewed} marked"
    );
    assert!(!piece_at(c, to).await.is_empty(), "a piece on {to}");
    press(c, Key::Escape).await;
    wait_js(
        c,
        "the preview closed",
        "return document.getElementById('preview-banner').hidden",
    )
    .await;
    c.execute("document.activeElement.blur()", vec![])
        .await
        .expect("blur");
    shots.take(c, "analysis").await;
    // Every report, progress reports among them, leaves nodes/s shown.
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        let nps = js_string(c, "return document.getElementById('stat-nps').textContent").await;
        assert_ne!(nps, "–", "nodes/s vanished during the analysis");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    // "Play from this position" on another position, the analysis on and at the old game's
    // start: no line of the old game may show on the new one (node numbers start again).
    press(c, Key::Home).await;
    wait_ply(c, 0).await;
    wait_js(
        c,
        "analysis of the start",
        "const li = document.querySelector('#pv-list li.pv'); return li && li.dataset.node === document.body.dataset.cursor",
    )
    .await;
    set_value(c, "#sfen-in", MATE_IN_ONE).await;
    click(c, "#btn-sfen").await;
    wait_js(
        c,
        "the new-game dialog",
        "return document.getElementById('new-dialog').open",
    )
    .await;
    click(c, "input[name=side][value=both]").await;
    click(c, "#ng-start").await;
    wait_js(c, "the new game", "return document.body.dataset.ply === '0' && document.querySelector('[data-square=\"2c\"] .piece') !== null").await;
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        let stale = js_string(
            c,
            "for (const m of document.querySelectorAll('#pv-list li.pv .pv-move:first-of-type')) {
               const usi = m.dataset.usi;
               if (usi[1] !== '*' && !document.querySelector(`[data-square=\"${usi.slice(0, 2)}\"] .piece`)) return usi;
             }
             return '';",
        )
        .await;
        assert_eq!(stale, "", "a line of the old game on the new one");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    click(c, "#btn-analysis").await;
    wait_js(
        c,
        "analysis off",
        "return document.body.dataset.analysis === 'false'",
    )
    .await;
    click(c, "#btn-mate").await;
    let found = wait_js(
        c,
        "the mate search",
        "const r = document.getElementById('mate-result'); return !r.hidden && r.textContent.includes('(') ? r.textContent : null",
    )
    .await;
    assert!(
        found.as_str().unwrap_or_default().contains("(1 ply)"),
        "a mate in one, in words: {found}"
    );
}

/// A first visit: the new-game dialog's gentle choices, the strength of the session's first
/// opponent, the piece set and the sound toggled and remembered over a reload. Leaves the
/// letters on (the game checks them) and the sound on.
pub async fn first_visit(c: &Client) {
    click(c, "#btn-new").await;
    wait_js(
        c,
        "the new-game dialog",
        "return document.getElementById('new-dialog').open",
    )
    .await;
    let choices = js_string(
        c,
        "const f = document.getElementById('new-form').elements;
         return [f.side.value, f.strength.value, f.timing.value,
                 document.getElementById('ng-level').value, document.getElementById('ng-movetime').value,
                 document.querySelector('[data-preset=\"1s\"]').getAttribute('aria-pressed')].join(' ')",
    )
    .await;
    assert_eq!(
        choices, "sente level movetime 5 1 true",
        "a newcomer's choices: level 5 at 1 s a move"
    );
    click(c, "#ng-cancel").await;
    // The session's first game: the newcomer's level, and what that is worth.
    let level = minishogi_board::NEWCOMER_LEVEL;
    assert_eq!(
        engine_strength(c).await,
        format!("Level {level} · Elo {}", elo_of_level(level))
    );

    assert_eq!(
        js_string(c, "return document.body.dataset.pieces").await,
        "kanji"
    );
    // What chose kanji: the piece font draws them apart, while characters no font has (two
    // unassigned code points) draw as the same box — the sign that starts a page in letters.
    for (chars, distinct) in [
        ("'玉', '飛', '歩'", "true"),
        ("'\\u0378', '\\u0379'", "false"),
    ] {
        let script = format!(
            "return import('./modules/fonts.js').then(m => String(m.drawsDistinct([{chars}], \
             getComputedStyle(document.documentElement).getPropertyValue('--font-piece'))))"
        );
        assert_eq!(js_string(c, &script).await, distinct, "{chars} drawn apart");
    }
    assert_eq!(glyph_at(c, &square("5e")).await, "玉");
    assert_eq!(glyph_at(c, &square("1a")).await, "王");
    click(c, "#btn-pieces").await;
    wait_js(
        c,
        "letter pieces",
        "return document.body.dataset.pieces === 'letters'",
    )
    .await;
    for (sq, letter) in [
        ("5e", "K"),
        ("4e", "G"),
        ("1e", "R"),
        ("1a", "K"),
        ("4a", "B"),
    ] {
        assert_eq!(glyph_at(c, &square(sq)).await, letter, "{sq}");
    }
    assert_eq!(
        js_string(c, "return document.body.dataset.sound").await,
        "on"
    );
    click(c, "#btn-sound").await;
    assert_eq!(
        js_string(c, "return document.body.dataset.sound").await,
        "off"
    );

    // Both remembered by the next visit.
    c.refresh().await.expect("reload");
    wait_js(
        c,
        "the board again",
        "return document.querySelector('[data-square=\"5e\"] .piece') !== null && document.body.dataset.sound !== undefined",
    )
    .await;
    assert_eq!(
        js_string(c, "return document.body.dataset.pieces").await,
        "letters"
    );
    assert_eq!(glyph_at(c, &square("5e")).await, "K");
    assert_eq!(
        js_string(c, "return document.body.dataset.sound").await,
        "off"
    );
    click(c, "#btn-sound").await;
    assert_eq!(
        js_string(c, "return document.body.dataset.sound").await,
        "on"
    );
}

/// After the game: the dialog remembers its choices; a preset fills the clock, which the new
/// game's clocks show; Resign asks first, Cancel leaves the game on, the confirmation ends it.
pub async fn presets_and_resignation(c: &Client, shots: &Shots) {
    click(c, "#btn-new").await;
    wait_js(
        c,
        "the new-game dialog",
        "return document.getElementById('new-dialog').open",
    )
    .await;
    let remembered = js_string(
        c,
        "const f = document.getElementById('new-form').elements;
         return [f.side.value, f.strength.value, f.timing.value,
                 document.getElementById('ng-level').value, document.getElementById('ng-movetime').value].join(' ')",
    )
    .await;
    assert_eq!(
        remembered, "sente level movetime 1 0.2",
        "the last game's choices"
    );
    set_value(c, "#ng-sfen", "").await;
    click(c, "[data-preset=\"3p2\"]").await;
    let filled = js_string(
        c,
        "const f = document.getElementById('new-form').elements;
         return [f.timing.value, document.getElementById('ng-main').value, document.getElementById('ng-byoyomi').value,
                 document.getElementById('ng-inc').value,
                 document.querySelectorAll('[data-preset][aria-pressed=\"true\"]').length].join(' ')",
    )
    .await;
    assert_eq!(
        filled, "clock 3 0 2 1",
        "3 min + 2 s a move, the one preset pressed"
    );
    shots.take(c, "new-game").await;
    click(c, "#ng-start").await;
    let clock = wait_js(
        c,
        "the new game's clock",
        "const d = document.body.dataset; return d.ply === '0' && d.clock ? d.clock : null",
    )
    .await;
    let clock: Vec<u64> = clock
        .as_str()
        .unwrap_or_default()
        .split(' ')
        .map(|n| n.parse().expect("ms"))
        .collect();
    assert_eq!(
        (clock[1], clock[2], clock[3]),
        (180_000, 0, 2_000),
        "gote's time, byoyomi, increment (ms)"
    );
    // Gote (the engine) is not to move: its clock stands at the preset's.
    assert_eq!(
        js_string(c, "return document.getElementById('top-clock').textContent").await,
        "3:00 (+2s)"
    );
    assert_eq!(piece_at(c, "5e").await, "K", "the usual start");

    // Resign, then Cancel: the game goes on.
    click(c, "#btn-resign").await;
    wait_js(
        c,
        "the resign dialog",
        "return document.getElementById('resign-dialog').open",
    )
    .await;
    click(c, "[data-resign=\"no\"]").await;
    wait_js(
        c,
        "the resign dialog closed",
        "return !document.getElementById('resign-dialog').open",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        js_string(c, "return document.body.dataset.result").await,
        ""
    );
    assert_eq!(
        js_string(
            c,
            "return document.getElementById('btn-resign').disabled ? 'off' : 'on'"
        )
        .await,
        "on"
    );
    // Resign, confirmed: gote wins.
    click(c, "#btn-resign").await;
    wait_js(
        c,
        "the resign dialog",
        "return document.getElementById('resign-dialog').open",
    )
    .await;
    click(c, "[data-resign=\"yes\"]").await;
    wait_js(
        c,
        "the resignation",
        "return document.body.dataset.result === 'gote'",
    )
    .await;
    let result = js_string(c, "return document.getElementById('result').textContent").await;
    assert_eq!(result, "Gote wins by resignation");
}

/// A short game with a planted blunder: sente's third move, 1e1c, puts the rook where gote's
/// pawn takes it for nothing (gote takes it, and sente goes on).
const BLUNDER_GAME: &str = "position startpos moves 4e4d 3a4b 1e1c 1b1c 2e3d";
const BLUNDER_PLY: usize = 3;

/// The engine's own verdict on `BLUNDER_GAME` (`engine review`, natively, outside the page):
/// the planted move's mark. The page's review must agree that it is a blunder, not a guess.
fn engine_verdict(tmp: &Path) -> String {
    let dir = tmp.join("review");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("review dir");
    let record = dir.join("blunder.usi");
    std::fs::write(&record, format!("{BLUNDER_GAME}\n")).expect("write the record");
    let json = dir.join("report.json");
    let run = Command::new(env!("CARGO_BIN_EXE_engine"))
        .args(["review", "--nodes", "20000", "--out"])
        .arg(dir.join("out"))
        .arg("--json")
        .arg(&json)
        .arg(&record)
        .output()
        .expect("engine review runs");
    assert!(
        run.status.success(),
        "engine review: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: Value =
        serde_json::from_slice(&std::fs::read(&json).expect("the report")).expect("JSON");
    let planted = &report[0]["review"]["moves"][BLUNDER_PLY - 1];
    assert_eq!(planted["mover"], "sente", "{planted}");
    let mark = planted["mark"].as_str().unwrap_or_default().to_string();
    assert!(
        mark == "blunder" || mark == "allowed_mate",
        "the engine does not find the planted move a blunder: {planted}"
    );
    mark
}

/// The class list of a square, for the marks the board draws on it.
async fn square_classes(c: &Client, sq: &str) -> String {
    js_string(
        c,
        &format!("return document.querySelector('[data-square=\"{sq}\"]').className"),
    )
    .await
}

/// A record with a planted blunder reviewed in the page: the progress, the mark on the move
/// in the list and on the graph, each side's accuracy and marks counted, "next mistake" going
/// to it, and there the better move on the board (its squares and an arrow) and in words.
pub async fn review_a_blunder(c: &Client, shots: &Shots, tmp: &Path) {
    let engine_mark = engine_verdict(tmp);
    set_value(c, "#paste-text", BLUNDER_GAME).await;
    click(c, "#btn-paste").await;
    wait_js(
        c,
        "the record",
        "return document.querySelectorAll('#moves [data-node]').length === 5 && document.body.dataset.ply === '5'",
    )
    .await;
    assert_eq!(
        js_string(
            c,
            "return String(document.getElementById('btn-review').disabled)"
        )
        .await,
        "false",
        "a loaded record can be reviewed"
    );
    click(c, "#btn-review").await;
    // Progress while it runs (n of 6 positions: the start and one after each move), then the
    // verdict.
    let progress = wait_js(
        c,
        "the review's progress",
        "const d = document.body.dataset.review; const p = document.getElementById('review-count');
         return d && !document.getElementById('review-progress').hidden ? p.textContent : null",
    )
    .await;
    assert!(
        progress
            .as_str()
            .unwrap_or_default()
            .ends_with("of 6 positions"),
        "{progress}"
    );
    let started = Instant::now();
    wait_js(
        c,
        "the review done",
        "return document.body.dataset.review === 'done'",
    )
    .await;
    println!(
        "{}: the review of 6 positions took {:.1} s",
        shots.prefix,
        started.elapsed().as_secs_f64()
    );
    assert_eq!(
        js_string(
            c,
            "return document.getElementById('review-count').textContent"
        )
        .await,
        "6 of 6 positions"
    );
    let node = js_string(
        c,
        &format!(
            "return document.querySelectorAll('#moves [data-node]')[{}].dataset.node",
            BLUNDER_PLY - 1
        ),
    )
    .await;
    let mark = js_string(
        c,
        &format!("const b = document.querySelector('#moves [data-node=\"{node}\"] .mark-badge'); return b ? b.dataset.mark + ' ' + b.textContent : ''"),
    )
    .await;
    let (page_mark, symbol) = mark.split_once(' ').unwrap_or_default();
    assert!(
        page_mark == "blunder" || page_mark == "allowed_mate",
        "the page's mark on {BLUNDER_GAME} ply {BLUNDER_PLY}: {mark:?} (the engine's: {engine_mark})"
    );
    assert!(symbol.contains("??"), "{mark:?}");
    assert_eq!(
        js_string(
            c,
            &format!("return String(!!document.querySelector('#graph .g-mark.{page_mark}[data-ply=\"{BLUNDER_PLY}\"]'))")
        )
        .await,
        "true",
        "the blunder marked on the graph"
    );
    // Each side's accuracy, in %: the side that gave its rook away the lower.
    let accuracy = |side: &str| {
        format!("return document.querySelector('[data-accuracy=\"{side}\"]').textContent")
    };
    let (sente, gote) = (
        js_string(c, &accuracy("sente")).await,
        js_string(c, &accuracy("gote")).await,
    );
    let percent = |text: &str| -> f64 {
        text.strip_suffix('%')
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("an accuracy in %: {text:?}"))
    };
    assert!(
        percent(&sente) < percent(&gote),
        "sente {sente}, gote {gote}"
    );
    let counted = js_string(
        c,
        &format!("return document.querySelector('tr[data-side=\"sente\"] td[data-count=\"{page_mark}\"]').textContent"),
    )
    .await;
    assert!(counted.parse::<u32>().unwrap_or(0) >= 1, "{counted:?}");

    // No move led to the start: no better move is shown there.
    click(c, "[data-nav=\"first\"]").await;
    wait_ply(c, 0).await;
    assert_eq!(
        js_string(c, "return document.body.dataset.better").await,
        ""
    );
    // From the move before it, "next mistake" goes to it.
    click_move(c, (BLUNDER_PLY - 1) as u64).await;
    click(c, "[data-review-nav=\"next\"]").await;
    wait_ply(c, BLUNDER_PLY as u64).await;
    // The better move: on the board (its destination lit, an arrow from its origin), and in
    // words in the page's notation.
    let better = wait_js(c, "the better move", "return document.body.dataset.better").await;
    let better = better.as_str().unwrap_or_default().to_string();
    assert_ne!(better, "1e1c", "the better move is another");
    assert!(
        square_classes(c, &better[2..4]).await.contains("better-to"),
        "{better}'s destination lit"
    );
    if better.as_bytes()[1] != b'*' {
        assert!(
            square_classes(c, &better[..2])
                .await
                .contains("better-from")
        );
        assert_eq!(
            js_string(
                c,
                "return String(document.querySelectorAll('#better-arrow line').length)"
            )
            .await,
            "1",
            "an arrow for {better}"
        );
    }
    let words = js_string(
        c,
        "return document.getElementById('review-better').textContent",
    )
    .await;
    assert!(words.starts_with("Better: "), "{words:?}");
    assert_eq!(
        js_string(
            c,
            "return document.getElementById('review-better').dataset.usi"
        )
        .await,
        better
    );
    c.execute(
        "document.activeElement.blur(); window.scrollTo(0, 0)",
        vec![],
    )
    .await
    .expect("blur");
    shots.take(c, "review").await;
    // In Japanese, in the core's Japanese notation.
    click(c, "#btn-lang").await;
    let ja = js_string(
        c,
        "return document.getElementById('review-better').textContent",
    )
    .await;
    assert!(ja.starts_with("最善: ☗"), "{ja:?}");
    click(c, "#btn-lang").await;
    // "Previous mistake" from the line's end walks back through the marks, the blunder's
    // among them, until there is none before.
    click(c, "[data-nav=\"last\"]").await;
    wait_ply(c, 5).await;
    let mut visited = Vec::new();
    let disabled = "return String(document.querySelector('[data-review-nav=\"prev\"]').disabled)";
    while js_string(c, disabled).await == "false" {
        assert!(visited.len() < 5, "marks visited: {visited:?}");
        let before = ply(c).await;
        click(c, "[data-review-nav=\"prev\"]").await;
        wait_js(
            c,
            "the previous mark",
            &format!("return Number(document.body.dataset.ply) < {before}"),
        )
        .await;
        visited.push(ply(c).await);
    }
    assert!(
        visited.contains(&(BLUNDER_PLY as u64)),
        "the marks visited: {visited:?}"
    );
}

/// The position editor: pieces from the palette (a promoted one among them; letters, then
/// kanji), a king missing and a pawn on its last rank named, a hand set, then played from
/// and analysed.
pub async fn edit_a_position(c: &Client, shots: &Shots) {
    // The palette in letters (the piece set toggled before the editor opens).
    click(c, "#btn-pieces").await;
    wait_js(
        c,
        "letter pieces",
        "return document.body.dataset.pieces === 'letters'",
    )
    .await;
    click(c, "#btn-edit").await;
    wait_js(
        c,
        "the editor",
        "return document.getElementById('editor-dialog').open && document.getElementById('editor-dialog').dataset.valid !== ''",
    )
    .await;
    assert_eq!(glyph_at(c, "[data-edit-piece=\"+R\"]").await, "+R");
    assert_eq!(glyph_at(c, "[data-edit-piece=\"k\"]").await, "K");
    click(c, "#edit-clear").await;
    let problem = wait_js(
        c,
        "no king named",
        "const d = document.getElementById('editor-dialog').dataset; return d.problem === 'king_count' ? document.getElementById('edit-problem').textContent : null",
    )
    .await;
    assert!(
        problem.as_str().unwrap_or_default().contains("has no king"),
        "{problem}"
    );
    assert_eq!(
        js_string(
            c,
            "return String(document.getElementById('edit-play').disabled)"
        )
        .await,
        "true"
    );
    let place = |piece: &'static str, sq: &'static str| async move {
        click(c, &format!("[data-edit-piece=\"{piece}\"]")).await;
        click(c, &format!("[data-edit-square=\"{sq}\"]")).await;
        wait_js(
            c,
            "the piece placed",
            &format!("const p = document.querySelector('[data-edit-square=\"{sq}\"] .piece'); return p && p.dataset.piece === '{piece}'"),
        )
        .await;
    };
    place("K", "5e").await;
    place("k", "1a").await;
    place("+R", "3c").await;
    // A pawn on its last rank: named; the same piece clicked again takes it off.
    place("P", "4a").await;
    let problem = wait_js(
        c,
        "the pawn named",
        "const d = document.getElementById('editor-dialog').dataset; return d.problem === 'pawn_last_rank' ? document.getElementById('edit-problem').textContent : null",
    )
    .await;
    assert!(
        problem.as_str().unwrap_or_default().contains("file 4"),
        "{problem}"
    );
    click(c, "[data-edit-square=\"4a\"]").await;
    // Two golds in sente's hand; sente to move. Each change is checked by the core in
    // turn, so the wait is for the last of them (the side) to be seen in the SFEN.
    set_value(c, "[data-edit-hand=\"sente-G\"]", "2").await;
    click(c, "input[name=edit-side][value=sente]").await;
    let sfen = wait_js(
        c,
        "the position checked",
        "const d = document.getElementById('editor-dialog').dataset; const s = document.getElementById('edit-sfen').value;
         return d.valid === 'true' && s.includes(' b 2G') ? s : null",
    )
    .await;
    let sfen = sfen.as_str().unwrap_or_default().to_string();
    assert_eq!(
        sfen, "4k/5/2+R2/5/K4 b 2G 1",
        "the core's SFEN of what was set up"
    );
    assert_eq!(glyph_at(c, "[data-edit-square=\"3c\"]").await, "+R");
    if shots.prefix == "gui" {
        shots.take(c, "editor").await;
    }
    click(c, "#edit-play").await;
    wait_js(
        c,
        "the new-game dialog",
        "return document.getElementById('new-dialog').open && !document.getElementById('editor-dialog').open",
    )
    .await;
    assert_eq!(
        js_string(c, "return document.getElementById('ng-sfen').value").await,
        sfen,
        "the editor's position starts the game"
    );
    click(c, "input[name=side][value=both]").await;
    click(c, "#ng-start").await;
    wait_js(
        c,
        "the edited game",
        "return document.body.dataset.ply === '0' && document.querySelector('[data-square=\"3c\"] .piece[data-piece=\"+R\"]') !== null",
    )
    .await;
    assert_eq!(piece_at(c, "5e").await, "K");
    assert_eq!(piece_at(c, "1a").await, "k");
    assert_eq!(piece_at(c, "4a").await, "");
    assert_eq!(
        js_string(
            c,
            "return document.querySelector('[data-hand=\"sente-G\"] .count').textContent"
        )
        .await,
        "2"
    );
    // Kanji again: the dragon on the board and in the editor's palette.
    click(c, "#btn-pieces").await;
    wait_js(
        c,
        "kanji pieces",
        "return document.body.dataset.pieces === 'kanji'",
    )
    .await;
    assert_eq!(glyph_at(c, &square("3c")).await, "龍");
    // The editor opens on the board's position; "Analyse" starts it with the analysis on.
    click(c, "#btn-edit").await;
    wait_js(
        c,
        "the editor on the board's position",
        "return document.getElementById('editor-dialog').dataset.valid === 'true'",
    )
    .await;
    assert_eq!(glyph_at(c, "[data-edit-piece=\"+R\"]").await, "龍");
    assert_eq!(
        js_string(c, "return document.getElementById('edit-sfen').value").await,
        sfen
    );
    click(c, "input[name=edit-side][value=gote]").await;
    wait_js(
        c,
        "gote to move",
        "return document.getElementById('edit-sfen').value.includes(' w ')",
    )
    .await;
    click(c, "#edit-analyse").await;
    wait_js(
        c,
        "the analysis of the edited position",
        "return document.body.dataset.analysis === 'true' && document.body.dataset.turn === 'gote' && document.body.dataset.ply === '0'",
    )
    .await;
    click(c, "#btn-analysis").await;
    wait_js(
        c,
        "analysis off",
        "return document.body.dataset.analysis === 'false'",
    )
    .await;
}

/// The puzzle file the page fetches (`web/page/puzzles/`): its puzzles by id.
fn puzzle_file() -> Vec<Value> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("web/page/puzzles/minishogi-puzzles.json");
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the puzzle file"))
            .expect("the puzzle file's JSON");
    file["puzzles"].as_array().expect("puzzles").clone()
}

/// The puzzle the page shows now (once it is being solved) and its solution, from the file.
async fn shown_puzzle(c: &Client, file: &[Value], not: &str) -> (String, String, Vec<String>) {
    let id = wait_js(
        c,
        "a puzzle to solve",
        &format!(
            "const d = document.body.dataset;
             return d.puzzle === 'solving' && d.puzzleId !== '{not}' && d.ply === '0' ? d.puzzleId : null"
        ),
    )
    .await;
    let id = id.as_str().unwrap_or_default().to_string();
    let puzzle = file
        .iter()
        .find(|p| p["id"] == id.as_str())
        .unwrap_or_else(|| panic!("puzzle {id} is in the file"));
    let solver = if puzzle["sfen"].as_str().unwrap().split(' ').nth(1) == Some("w") {
        "gote"
    } else {
        "sente"
    };
    let moves = puzzle["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    wait_js(
        c,
        "the solver at the bottom",
        &format!("return document.getElementById('row-bottom').dataset.color === '{solver}'"),
    )
    .await;
    (id, solver.to_string(), moves)
}

/// Plays a puzzle move by clicks: the piece (or the solver's hand piece), the destination, and
/// the promotion dialog's answer where it asks.
async fn click_puzzle_move(c: &Client, usi: &str, solver: &str) {
    let from = if usi.as_bytes()[1] == b'*' {
        format!("[data-hand=\"{solver}-{}\"]", &usi[..1])
    } else {
        square(&usi[..2])
    };
    click(c, &from).await;
    wait_js(
        c,
        "destinations marked",
        "return document.querySelectorAll('.sq.dest').length > 0",
    )
    .await;
    click(c, &square(&usi[2..4])).await;
    if js_string(
        c,
        "return String(document.getElementById('promo-dialog').open)",
    )
    .await
        == "true"
    {
        let answer = if usi.ends_with('+') { "yes" } else { "no" };
        click(c, &format!("[data-promote=\"{answer}\"]")).await;
    }
}

/// Plays the solver's moves of `moves` by clicks; after each but the last, the core's reply
/// slides in. Ends solved.
async fn solve_by_clicks(c: &Client, solver: &str, moves: &[String]) {
    for (i, mv) in moves.iter().enumerate().step_by(2) {
        assert_eq!(
            js_string(c, "return document.body.dataset.thinking").await,
            "false",
            "no engine thinks in a puzzle"
        );
        click_puzzle_move(c, mv, solver).await;
        if let Some(reply) = moves.get(i + 1) {
            wait_ply(c, i as u64 + 2).await;
            let slid = js_string(c, "return window.minishogiMotion.slid.join(' ')").await;
            assert!(
                slid.ends_with(reply.as_str()),
                "the reply {reply} slid in: {slid:?}"
            );
        }
    }
    wait_js(
        c,
        "the puzzle solved",
        "return document.body.dataset.puzzle === 'solved'",
    )
    .await;
}

/// Puzzle mode: the page's puzzle file, two puzzles solved by clicks (one with a hint), one
/// failed by a legal wrong move and its solution stepped through, the progress kept over a
/// reload, a theme chosen; then the mode left.
pub async fn puzzles(c: &Client, shots: &Shots) {
    let file = puzzle_file();
    click(c, "#btn-puzzles").await;
    let (id, solver, moves) = shown_puzzle(c, &file, "").await;
    let mark = if solver == "gote" { "☖" } else { "☗" };
    let prompt = js_string(
        c,
        "return document.getElementById('puzzle-prompt').textContent",
    )
    .await;
    assert_eq!(
        prompt,
        format!("Your turn — find the best move for {mark}.")
    );
    assert_eq!(
        js_string(
            c,
            "return String(document.getElementById('btn-analysis').disabled)"
        )
        .await,
        "true",
        "no analysis while solving"
    );
    solve_by_clicks(c, &solver, &moves).await;
    assert_eq!(
        js_string(
            c,
            "return document.getElementById('puzzle-prompt').textContent"
        )
        .await,
        "Solved!"
    );

    // The next one, with a hint first.
    click(c, "#puzzle-next").await;
    let (id2, solver, moves) = shown_puzzle(c, &file, &id).await;
    click(c, "#puzzle-hint").await;
    let first = &moves[0];
    let marked = if first.as_bytes()[1] == b'*' {
        format!("[data-hand=\"{solver}-{}\"]", &first[..1])
    } else {
        square(&first[..2])
    };
    wait_js(
        c,
        "the hint marked",
        &format!("return document.querySelector('{marked}.hint') !== null && document.querySelectorAll('.hint').length === 1"),
    )
    .await;
    c.execute("document.activeElement.blur()", vec![])
        .await
        .expect("blur");
    shots.take(c, "puzzle").await;
    solve_by_clicks(c, &solver, &moves).await;

    // The third: a legal move that is not the solution's (nor a mate) fails it.
    click(c, "#puzzle-next").await;
    let (id3, solver, moves) = shown_puzzle(c, &file, &id2).await;
    assert!(id3 != id && id3 != id2, "another puzzle: {id} {id2} {id3}");
    let sfen = file.iter().find(|p| p["id"] == id3.as_str()).unwrap()["sfen"]
        .as_str()
        .unwrap()
        .to_string();
    let position = engine::shogi::Position::from_sfen(&sfen).expect("the puzzle's position");
    let wrong = position
        .legal_moves()
        .iter()
        .copied()
        .find(|&m| m.to_string() != moves[0] && !position.after(m).is_checkmate())
        .expect("a wrong move")
        .to_string();
    click_puzzle_move(c, &wrong, &solver).await;
    wait_js(
        c,
        "the puzzle failed",
        "return document.body.dataset.puzzle === 'failed'",
    )
    .await;
    assert_eq!(ply(c).await, 1, "the wrong move stays, unanswered");
    assert!(!piece_at(c, &wrong[2..4]).await.is_empty());
    let line = js_string(
        c,
        "return document.getElementById('puzzle-line').textContent",
    )
    .await;
    assert!(line.starts_with("Solution: "), "{line:?}");
    // The solution on the board: stepped through from where it went wrong.
    click(c, "#puzzle-solution").await;
    wait_js(
        c,
        "the solution in the move list",
        &format!(
            "return document.body.dataset.ply === '0' && [...document.querySelectorAll('#moves [data-usi]')].map((m) => m.dataset.usi).join(' ') === '{}'",
            moves.join(" ")
        ),
    )
    .await;
    click(c, "[data-nav=\"forward\"]").await;
    wait_ply(c, 1).await;
    assert!(!piece_at(c, &moves[0][2..4]).await.is_empty());

    // The progress, kept over a reload.
    let progress = "const p = document.getElementById('puzzle-progress');
         return p.dataset.solved + ' ' + p.dataset.failed";
    assert_eq!(js_string(c, progress).await, "2 1");
    c.refresh().await.expect("reload");
    wait_js(
        c,
        "the board again",
        "return document.querySelector('[data-square=\"5e\"]') !== null && document.body.dataset.mode !== undefined",
    )
    .await;
    // Under `engine gui` the session still has the puzzle: the page is in puzzle mode again.
    if js_string(c, "return document.body.dataset.mode").await != "puzzle" {
        click(c, "#btn-puzzles").await;
    }
    wait_js(
        c,
        "the progress after the reload",
        "const p = document.getElementById('puzzle-progress');
         return p.dataset.solved === '2' && p.dataset.failed === '1'",
    )
    .await;
    let shown = js_string(
        c,
        "return document.getElementById('puzzle-progress').textContent",
    )
    .await;
    assert!(shown.starts_with("Solved 2 · Failed 1"), "{shown:?}");

    // A theme chosen (the file's rarest): the puzzle shown has it.
    let themes_of = |p: &Value| -> Vec<String> {
        p["themes"]
            .as_array()
            .map(|t| {
                t.iter()
                    .filter_map(|t| t.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut counts = std::collections::BTreeMap::new();
    for theme in file.iter().flat_map(themes_of) {
        *counts.entry(theme).or_insert(0) += 1;
    }
    let theme = counts
        .iter()
        .min_by_key(|&(_, n)| *n)
        .map(|(t, _)| t.clone())
        .expect("a theme");
    let ids: Vec<&str> = file
        .iter()
        .filter(|p| themes_of(p).contains(&theme))
        .filter_map(|p| p["id"].as_str())
        .collect();
    c.execute(
        "const s = document.getElementById('puzzle-theme'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
        vec![json!(theme)],
    )
    .await
    .expect("choose a theme");
    wait_js(
        c,
        "a puzzle of the theme",
        &format!(
            "const d = document.body.dataset;
             return d.puzzle === 'solving' && d.ply === '0' && {ids:?}.includes(d.puzzleId)"
        ),
    )
    .await;

    // Leaving puzzle mode: the board is an ordinary one again.
    click(c, "#btn-puzzles").await;
    wait_js(
        c,
        "puzzle mode left",
        "return document.body.dataset.mode === '' && document.body.dataset.puzzle === ''",
    )
    .await;
    assert_eq!(
        js_string(
            c,
            "return String(document.getElementById('puzzle-panel').hidden)"
        )
        .await,
        "true"
    );
}

/// Gote's king on 1a, sente's gold on 2c and one in hand: G*1b (or G*2b) mates.
const MATE_IN_ONE: &str = "4k/5/3G1/5/K4 b G 1";

/// Where screenshots go and what they are called: `PREFIX-NAME.png`.
pub struct Shots {
    pub dir: PathBuf,
    pub prefix: &'static str,
}

impl Shots {
    /// `docs/images` when `GUI_SCREENSHOTS=1`, else `tmp`.
    pub fn new(prefix: &'static str, tmp: &Path) -> Shots {
        let dir = if std::env::var("GUI_SCREENSHOTS").as_deref() == Ok("1") {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/images");
            std::fs::create_dir_all(&dir).expect("docs/images");
            dir
        } else {
            tmp.to_path_buf()
        };
        Shots { dir, prefix }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{}-{name}.png", self.prefix))
    }

    pub fn exists(&self, name: &str) -> bool {
        self.path(name).exists()
    }

    pub async fn take(&self, c: &Client, name: &str) {
        let png = c.screenshot().await.expect("screenshot");
        std::fs::write(self.path(name), png).expect("write the screenshot");
    }
}

/// Chromium and chromedriver, or why the test cannot run.
pub fn browser() -> Result<(PathBuf, PathBuf), &'static str> {
    let chromium = find_program(
        "CHROMIUM",
        &["/usr/bin/chromium", "/usr/bin/chromium-browser"],
    )
    .ok_or("no chromium")?;
    let chromedriver =
        find_program("CHROMEDRIVER", &["/usr/bin/chromedriver"]).ok_or("no chromedriver")?;
    Ok((chromium, chromedriver))
}

/// The whole test of a page at `url` (either home: `engine gui` or the static site): a game
/// by clicks, a record opened, walked and saved, analysis and its preview. `procs` holds what
/// the caller started (killed at the end); screenshots are named `shots.prefix`-….
pub async fn test_the_page(url: &str, mut procs: Processes, shots: Shots, tmp: &Path) {
    let (chromium, chromedriver) = browser().expect("checked by the caller");
    let started = Instant::now();
    let port = start_chromedriver(&mut procs, &chromedriver);
    let downloads = tmp.join("downloads");
    // A download of an earlier run must not pass for this one's.
    let _ = std::fs::remove_dir_all(&downloads);
    std::fs::create_dir_all(&downloads).expect("downloads dir");
    let client = connect(port, &chromium, &downloads).await;
    client.goto(url).await.expect("open the page");
    let opened = Instant::now();
    wait_js(
        &client,
        "the board",
        "return document.querySelector('[data-square=\"5e\"] .piece') !== null",
    )
    .await;
    // From the navigation's start (the page's clock), an upper bound: the test polls.
    let since_start = js_string(&client, "return String(Math.round(performance.now()))").await;
    println!(
        "{}: the board was drawn within {since_start} ms of the navigation's start ({} ms \
         after the load event)",
        shots.prefix,
        opened.elapsed().as_millis()
    );
    assert_eq!(
        client
            .find_all(Locator::Css("[data-square]"))
            .await
            .expect("squares")
            .len(),
        25
    );
    assert_eq!(piece_at(&client, "5e").await, "K");
    assert_eq!(piece_at(&client, "1a").await, "k");
    // On a 1366×768 screen, with the taskbar and the browser's bars, the page gets 658 px of
    // height: the player's own row and hand are above the fold. The window is that plus this
    // Chromium's own bars (none in the old headless mode, 143 px in Chromium 156's).
    let bars = client
        .execute("return window.outerHeight - window.innerHeight", vec![])
        .await
        .expect("the window's bars")
        .as_u64()
        .expect("a height");
    client
        .set_window_size(1366, 658 + bars as u32)
        .await
        .expect("a 1366×768 screen's window");
    let fold = wait_js(
        &client,
        "the smaller window",
        "return window.innerHeight <= 700 ? [window.innerHeight,
           document.getElementById('row-bottom').getBoundingClientRect().bottom] : null",
    )
    .await;
    assert_eq!(fold[0].as_f64(), Some(658.0), "the page's height");
    let (height, bottom) = (fold[0].as_f64().unwrap(), fold[1].as_f64().unwrap());
    assert!(
        bottom <= height,
        "the player's row ends at {bottom} in a {height} px window"
    );
    client
        .set_window_size(1280, 900)
        .await
        .expect("the test's window");

    first_visit(&client).await;
    play_game(&client, &shots).await;
    println!("the game took {:.1} s", started.elapsed().as_secs_f64());
    presets_and_resignation(&client, &shots).await;
    open_record(&client, &shots, tmp, &downloads).await;
    let review_started = Instant::now();
    review_a_blunder(&client, &shots, tmp).await;
    let editor_started = Instant::now();
    edit_a_position(&client, &shots).await;
    println!(
        "the review part took {:.1} s, the editor part {:.1} s",
        (editor_started - review_started).as_secs_f64(),
        editor_started.elapsed().as_secs_f64()
    );
    let puzzles_started = Instant::now();
    puzzles(&client, &shots).await;
    println!(
        "puzzle mode took {:.1} s",
        puzzles_started.elapsed().as_secs_f64()
    );

    let _ = client.close().await;
    drop(procs);
    println!(
        "browser test: {:.1} s; screenshots in {}",
        started.elapsed().as_secs_f64(),
        shots.dir.display()
    );
}
