//! `engine gui` over HTTP, as the page talks to it: moves and illegal moves, games against
//! the engine to the end, undo, resign, clocks, navigation and variations, records in and out,
//! analysis and mate search events, and the guard (token, `Host`, body size).

mod common;

use std::io::{BufRead, BufReader};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::thread;
use std::time::{Duration, Instant};

use common::gui::GuiServer;
use serde_json::{Value, json};

struct Client {
    server: GuiServer,
    agent: ureq::Agent,
}

/// An answer: status, headers and body.
struct Answer {
    status: u16,
    headers: ureq::http::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("JSON body ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

impl Client {
    fn start(extra: &[&str]) -> Client {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(20)))
            // A connection per request: the server closes one whose body it refused unread
            // (413), and a pooled connection could be reused just as it closes ("Peer
            // disconnected", seen once in a loaded full run). Browsers retry such a request.
            .max_idle_connections_per_host(0)
            .build()
            .into();
        Client {
            server: GuiServer::start(extra),
            agent,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.base)
    }

    fn answer(response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
        let mut response = response.expect("the server answers");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response
            .body_mut()
            .with_config()
            .limit(10 << 20)
            .read_to_vec()
            .unwrap();
        Answer {
            status,
            headers,
            body,
        }
    }

    fn get(&self, path: &str) -> Answer {
        Self::answer(
            self.agent
                .get(self.url(path))
                .header("X-Token", &self.server.token)
                .call(),
        )
    }

    fn post_bytes(&self, path: &str, body: &[u8]) -> Answer {
        Self::answer(
            self.agent
                .post(self.url(path))
                .header("X-Token", &self.server.token)
                .header("Content-Type", "application/octet-stream")
                .send(body),
        )
    }

    fn post(&self, path: &str, body: Value) -> Answer {
        Self::answer(
            self.agent
                .post(self.url(path))
                .header("X-Token", &self.server.token)
                .header("Content-Type", "application/json")
                .send(body.to_string().as_bytes()),
        )
    }

    /// A request that must succeed; its state.
    fn ok(&self, path: &str, body: Value) -> Value {
        let answer = self.post(path, body.clone());
        assert_eq!(answer.status, 200, "{path} {body}: {}", answer.text());
        answer.json()
    }

    fn state(&self) -> Value {
        let answer = self.get("/api/state");
        assert_eq!(answer.status, 200);
        answer.json()
    }

    fn new_game(&self, body: Value) -> Value {
        self.ok("/api/new", body)
    }

    fn play(&self, mv: &str) -> Value {
        self.ok("/api/move", json!({ "move": mv }))
    }

    /// Polls the state until `done` holds of it.
    fn wait_for(&self, what: &str, timeout: Duration, done: impl Fn(&Value) -> bool) -> Value {
        let until = Instant::now() + timeout;
        loop {
            let state = self.state();
            if done(&state) {
                return state;
            }
            assert!(Instant::now() < until, "waiting for {what}; state: {state}");
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Server-sent events as (name, data), read by a thread; dropping them closes the
    /// connection (at the server's next keep-alive), as closing a page does.
    fn events(&self) -> Events {
        let response = self
            .agent
            .get(self.url(&format!("/api/events?token={}", self.server.token)))
            .config()
            .timeout_global(None)
            .build()
            .call()
            .expect("event stream");
        assert_eq!(response.status().as_u16(), 200);
        let reader = BufReader::new(response.into_body().into_reader());
        let (send, receive) = channel();
        let open = Arc::new(AtomicBool::new(true));
        let still_open = open.clone();
        thread::spawn(move || {
            let mut name = String::new();
            for line in reader.lines() {
                let Ok(line) = line else { break };
                if !still_open.load(Ordering::SeqCst) {
                    break;
                }
                if let Some(n) = line.strip_prefix("event:") {
                    name = n.trim().to_string();
                } else if let Some(data) = line.strip_prefix("data:") {
                    let value = serde_json::from_str(data.trim()).unwrap_or(Value::Null);
                    if send.send((name.clone(), value)).is_err() {
                        break;
                    }
                }
            }
        });
        Events { receive, open }
    }
}

/// An open event stream.
struct Events {
    receive: Receiver<(String, Value)>,
    open: Arc<AtomicBool>,
}

impl std::ops::Deref for Events {
    type Target = Receiver<(String, Value)>;
    fn deref(&self) -> &Self::Target {
        &self.receive
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        self.open.store(false, Ordering::SeqCst);
    }
}

fn moves_of(state: &Value) -> Vec<String> {
    state["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

fn line_usi(state: &Value) -> Vec<String> {
    state["line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["usi"].as_str().unwrap().to_string())
        .collect()
}

fn two_people() -> Value {
    json!({"sente": "human", "gote": "human"})
}

#[test]
fn the_page_and_the_state_need_the_token() {
    let client = Client::start(&[]);
    let page = client.get("/");
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(
        html.contains(&client.server.token),
        "the page carries its token"
    );
    assert!(!html.contains("/*SCRIPT*/") && !html.contains("{{TOKEN}}"));
    for outside in [
        "src=\"http",
        "href=\"http",
        "url(http",
        "@import",
        "fetch(\"http",
    ] {
        assert!(
            !html.contains(outside),
            "nothing fetched from outside: {outside}"
        );
    }

    let no_token = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .new_agent();
    for path in ["/", "/api/state", "/api/events"] {
        let answer = Client::answer(no_token.get(client.url(path)).call());
        assert_eq!(answer.status, 403, "{path} without a token");
        let answer = Client::answer(
            no_token
                .get(client.url(path))
                .header("X-Token", "0123456789abcdef0123456789abcdef")
                .call(),
        );
        assert_eq!(answer.status, 403, "{path} with a wrong token");
    }
    let answer = Client::answer(
        no_token
            .get(client.url(&format!("/api/state?token={}", client.server.token)))
            .call(),
    );
    assert_eq!(answer.status, 200, "the token in the query");
    // A move without the token changes nothing.
    let answer = Client::answer(
        no_token
            .post(client.url("/api/move"))
            .send(br#"{"move":"2e3d"}"#.as_slice()),
    );
    assert_eq!(answer.status, 403);
    assert_eq!(client.state()["line"].as_array().unwrap().len(), 0);
}

#[test]
fn a_host_other_than_this_server_is_refused() {
    let client = Client::start(&[]);
    for host in [
        "evil.example".to_string(),
        format!("evil.example:{}", client.server.port),
        format!("127.0.0.1:{}", client.server.port + 1),
    ] {
        let answer = Client::answer(
            client
                .agent
                .get(client.url("/api/state"))
                .header("X-Token", &client.server.token)
                .header("Host", &host)
                .call(),
        );
        assert_eq!(answer.status, 403, "Host {host}: {}", answer.text());
    }
    let answer = Client::answer(
        client
            .agent
            .get(client.url("/api/state"))
            .header("X-Token", &client.server.token)
            .header("Host", format!("localhost:{}", client.server.port))
            .call(),
    );
    assert_eq!(answer.status, 200);
}

/// The page's own files that the page at `/` loads, as (path, file in `web/page/`): the
/// style and the modules its `<script>` names, with every module they import.
fn page_files(html: &str) -> Vec<(String, std::path::PathBuf)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web/page");
    assert!(html.contains(r#"<link rel="stylesheet" href="style.css">"#));
    assert!(html.contains(r#"<script type="module" src="modules/main.js"></script>"#));
    let mut files = vec![("/style.css".to_string(), root.join("style.css"))];
    let mut modules = vec!["main.js".to_string()];
    let mut i = 0;
    while i < modules.len() {
        let text = std::fs::read_to_string(root.join("modules").join(&modules[i])).unwrap();
        for import in text.split(" from './").skip(1) {
            let name = import.split('\'').next().unwrap().to_string();
            if !modules.contains(&name) {
                modules.push(name);
            }
        }
        i += 1;
    }
    assert!(modules.len() > 5, "the page's modules: {modules:?}");
    for name in modules {
        let path = root.join("modules").join(&name);
        files.push((format!("/modules/{name}"), path));
    }
    files
}

#[test]
fn the_pages_files_are_served_without_the_token_to_this_host_only() {
    let client = Client::start(&[]);
    let page = client.get("/");
    assert_eq!(page.status, 200);
    let csp = page.header("content-security-policy");
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(csp.contains("style-src 'self'"), "{csp}");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    let html = page.text();
    assert!(!html.contains("style=\""), "no inline style attributes");
    assert_eq!(
        html.matches("<script").count(),
        html.matches("<script type=\"module\" src=").count(),
        "no inline script"
    );
    let no_token = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .new_agent();
    for (path, file) in page_files(&html) {
        let answer = Client::answer(no_token.get(client.url(&path)).call());
        assert_eq!(answer.status, 200, "{path} without the token");
        let on_disk = std::fs::read_to_string(&file).unwrap();
        assert_eq!(answer.text(), on_disk, "{path} is {}", file.display());
        let content_type = answer.header("content-type");
        if path.ends_with(".js") {
            assert_eq!(content_type, "text/javascript; charset=utf-8", "{path}");
            for outside in ["from 'http", "import('http", "fetch('http", "fetch(\"http"] {
                assert!(!on_disk.contains(outside), "{path}: {outside}");
            }
        } else {
            assert!(
                content_type.starts_with("text/css"),
                "{path}: {content_type}"
            );
        }
        assert_eq!(answer.header("x-content-type-options"), "nosniff", "{path}");
        let answer = Client::answer(
            no_token
                .get(client.url(&path))
                .header("Host", format!("evil.example:{}", client.server.port))
                .call(),
        );
        assert_eq!(answer.status, 403, "{path} to another Host");
    }
    // Only the page's files skip the token: another path under /modules/ is the API's.
    let answer = Client::answer(no_token.get(client.url("/modules/nothing.js")).call());
    assert_eq!(answer.status, 403);
    assert_eq!(client.get("/modules/nothing.js").status, 404);
    let answer = Client::answer(no_token.post(client.url("/style.css")).send(&b""[..]));
    assert_eq!(answer.status, 403, "only GET is public");
}

#[test]
fn a_line_is_previewed_with_the_game_unchanged() {
    let client = Client::start(&[]);
    client.new_game(two_people());
    let state = client.play("2e3d");
    let node = state["cursor"].as_u64().unwrap();
    let view = client.ok(
        "/api/preview",
        json!({"node": node, "moves": ["1b1c", "1e1c"]}),
    );
    assert_eq!(view["sfen"], "rbsgk/5/4R/P1B2/KGS2 w P 4");
    assert_eq!(view["side_to_move"], "gote");
    assert_eq!(view["last_move"], "1e1c");
    assert_eq!(view["board"][2][4], "R", "the rook on 1c");
    assert_eq!(view["board"][3][2], "B", "the bishop on 3d");
    assert_eq!(view["hands"]["sente"]["P"], 1);
    assert_eq!(view["hands"]["gote"]["P"], 0);
    // From the start, the same as the state the game had after its first move.
    let view = client.ok("/api/preview", json!({"node": 0, "moves": ["2e3d"]}));
    for key in ["sfen", "board", "hands", "side_to_move", "last_move"] {
        assert_eq!(view[key], state[key], "{key}");
    }
    let view = client.ok("/api/preview", json!({"node": 0, "moves": []}));
    assert_eq!(view["sfen"], "rbsgk/4p/5/P4/KGSBR b - 1");
    assert_eq!(view["last_move"], Value::Null);

    let before = client.state();
    let answer = client.post(
        "/api/preview",
        json!({"node": node, "moves": ["1b1c", "5e5a", "1e1c"]}),
    );
    assert_eq!(answer.status, 400, "{}", answer.text());
    let message = answer.json()["error"].as_str().unwrap().to_string();
    assert!(
        message.contains("5e5a") && message.contains("move 2"),
        "{message}"
    );
    for body in [
        json!({"node": 999, "moves": []}),
        json!({"node": node, "moves": ["zz"]}),
        json!({"node": node}),
    ] {
        let answer = client.post("/api/preview", body.clone());
        assert_eq!(answer.status, 400, "{body}: {}", answer.text());
    }
    let no_token = Client::answer(
        client
            .agent
            .post(client.url("/api/preview"))
            .send(br#"{"node":0,"moves":[]}"#.as_slice()),
    );
    assert_eq!(no_token.status, 403);
    let after = client.state();
    assert_eq!(
        after, before,
        "previews change nothing, not even the version"
    );
    assert_eq!(line_usi(&after), ["2e3d"]);
}

/// The position editor's position, checked by the rules: its SFEN (the start of a new game),
/// or why it cannot be played, by name; malformed data refused; the game unchanged.
#[test]
fn the_editors_position_is_checked_with_the_game_unchanged() {
    let client = Client::start(&[]);
    client.new_game(two_people());
    client.play("2e3d");
    let before = client.state();
    // The position after 2e3d, as the state draws it, comes back as its SFEN.
    let same = client.ok(
        "/api/setup",
        json!({"board": before["board"], "hands": before["hands"], "side_to_move": before["side_to_move"]}),
    );
    // The same position; an editor's starts at move 1.
    let fields = |sfen: &Value| -> Vec<String> {
        sfen.as_str()
            .unwrap()
            .split(' ')
            .map(String::from)
            .collect()
    };
    assert_eq!(fields(&same["sfen"])[..3], fields(&before["sfen"])[..3]);
    assert_eq!(fields(&same["sfen"])[3], "1");
    assert_eq!(same["view"]["board"], before["board"]);
    assert_eq!(same["problem"], Value::Null);
    // Gote's pawn moved to its last rank: named, with the side and the file.
    let mut board = before["board"].clone();
    board[1][4] = json!("");
    board[4][4] = json!("p");
    let refused = client.ok(
        "/api/setup",
        json!({"board": board, "hands": before["hands"], "side_to_move": "gote"}),
    );
    assert_eq!(refused["sfen"], Value::Null);
    assert_eq!(refused["problem"]["code"], "pawn_last_rank");
    assert_eq!(refused["problem"]["side"], "gote");
    assert_eq!(refused["problem"]["file"], 1);
    let start = client.ok("/api/setup", json!({"start": true}));
    assert_eq!(start["sfen"], "rbsgk/4p/5/P4/KGSBR b - 1");
    for body in [
        json!({"board": [["K"]], "side_to_move": "sente"}),
        json!({"board": before["board"], "side_to_move": "sideways"}),
        json!({"board": before["board"]}),
        json!({"board": before["board"], "hands": {"sente": {"K": 1}}, "side_to_move": "sente"}),
        json!({"board": before["board"], "side_to_move": "sente", "colour": "red"}),
    ] {
        let answer = client.post("/api/setup", body.clone());
        assert_eq!(answer.status, 400, "{body}: {}", answer.text());
    }
    // Played from, through the new-game path.
    assert_eq!(client.state(), before, "checks change nothing");
    let game = client.new_game(json!({"sfen": same["sfen"], "sente": "human", "gote": "human"}));
    assert_eq!(game["sfen"], same["sfen"]);
}

#[test]
fn legal_moves_play_and_bad_ones_are_refused_with_the_game_unchanged() {
    let client = Client::start(&[]);
    let state = client.new_game(two_people());
    assert_eq!(state["sfen"], "rbsgk/4p/5/P4/KGSBR b - 1");
    assert_eq!(state["board"][0][0], "r");
    assert_eq!(state["board"][4][0], "K");
    assert_eq!(moves_of(&state).len(), 14);
    let state = client.play("2e3d");
    assert_eq!(state["last_move"], "2e3d");
    assert_eq!(state["side_to_move"], "gote");
    assert_eq!(state["line"][0]["ja"], "☗３四角(25)");
    assert_eq!(state["line"][0]["en"], "B2e-3d");
    let before = client.state();
    for (body, why) in [
        (json!({"move": "5e5a"}), "illegal"),
        (json!({"move": "P*3c"}), "no pawn in hand"),
        (json!({"move": "zz"}), "not a move"),
        (json!({"mv": "4a3b"}), "unknown field"),
        (json!({}), "no move"),
    ] {
        let answer = client.post("/api/move", body.clone());
        assert_eq!(answer.status, 400, "{why}: {}", answer.text());
        let message = answer.json()["error"].as_str().unwrap().to_string();
        assert!(!message.is_empty(), "{why}");
    }
    let answer = client.post_bytes("/api/move", b"{not json");
    assert_eq!(answer.status, 400);
    assert_eq!(client.state()["sfen"], before["sfen"]);
    assert_eq!(line_usi(&client.state()), ["2e3d"]);
    let answer = client.post("/api/goto", json!({"node": 999}));
    assert_eq!(answer.status, 400);
    let answer = client.post(
        "/api/new",
        json!({"sente": "human", "gote": "human", "sfen": "bad"}),
    );
    assert_eq!(answer.status, 400);
    assert!(answer.json()["error"].as_str().unwrap().contains("SFEN"));
    let answer = client.post("/api/new", json!({"sente": "robot", "gote": "human"}));
    assert_eq!(answer.status, 400);
    let answer = client.post(
        "/api/new",
        json!({"sente": "human", "gote": "engine", "engine": "nobody"}),
    );
    assert_eq!(answer.status, 400);
    let answer = client.post(
        "/api/new",
        json!({"sente": "human", "gote": "engine", "level": 21}),
    );
    assert_eq!(answer.status, 400);
    assert_eq!(
        line_usi(&client.state()),
        ["2e3d"],
        "refused games change nothing"
    );
    let answer = client.get("/api/nothing");
    assert_eq!(answer.status, 404);
}

#[test]
fn oversized_bodies_are_refused() {
    let client = Client::start(&[]);
    let big = vec![b' '; 300 * 1024];
    assert_eq!(
        client.post_bytes("/api/record?format=kifu", &big).status,
        413
    );
    assert_eq!(client.post_bytes("/api/move", &big).status, 413);
    assert_eq!(client.state()["line"].as_array().unwrap().len(), 0);
}

#[test]
fn navigation_and_variations() {
    let client = Client::start(&[]);
    client.new_game(two_people());
    let first = client.play("2e3d")["cursor"].as_u64().unwrap();
    client.play("4a3b");
    let state = client.play("1e1d");
    assert_eq!(line_usi(&state), ["2e3d", "4a3b", "1e1d"]);
    let state = client.ok("/api/goto", json!({"node": first}));
    assert_eq!(state["ply"], 1);
    assert_eq!(line_usi(&state), ["2e3d", "4a3b", "1e1d"], "the line stays");
    assert_eq!(state["result"], Value::Null);
    let state = client.play("2a2b");
    assert_eq!(line_usi(&state), ["2e3d", "2a2b"], "a variation");
    let variations = state["line"][1]["variations"].as_array().unwrap();
    assert_eq!(variations.len(), 1);
    assert_eq!(variations[0]["usi"], "4a3b");
    let old = variations[0]["node"].as_u64().unwrap();
    let state = client.ok("/api/goto", json!({"node": old}));
    assert_eq!(
        line_usi(&state),
        ["2e3d", "4a3b", "1e1d"],
        "back on the first line"
    );
    let state = client.ok("/api/goto", json!({"node": 0}));
    assert_eq!(state["sfen"], "rbsgk/4p/5/P4/KGSBR b - 1");
}

#[test]
fn a_whole_game_against_the_engine_with_undo_and_resign() {
    let client = Client::start(&[]);
    let state = client.new_game(json!({
        "sente": "human", "gote": "engine", "level": 20, "movetime_ms": 30
    }));
    assert_eq!(state["players"]["gote"], "engine");
    // The person plays the first legal move each time; the engine answers until the game ends.
    let mut state = state;
    for _ in 0..200 {
        if !state["result"].is_null() {
            break;
        }
        let ply = state["ply"].as_u64().unwrap();
        let mv = moves_of(&state)[0].clone();
        client.play(&mv);
        state = client.wait_for("the engine's reply", Duration::from_secs(20), |s| {
            !s["result"].is_null() || s["ply"].as_u64().unwrap() == ply + 2
        });
        assert!(state["error"].is_null(), "{state}");
    }
    let result = &state["result"];
    assert!(!result.is_null(), "the game ended: {state}");
    assert!(
        [
            "checkmate",
            "no legal move",
            "fourfold repetition",
            "perpetual check"
        ]
        .contains(&result["reason"].as_str().unwrap()),
        "{result}"
    );
    assert!(moves_of(&state).is_empty(), "no moves after the end");
    assert_eq!(
        client.post("/api/move", json!({"move": "5e4d"})).status,
        400
    );
    // Undo takes back to the person's move, and the game goes on.
    let ply = state["ply"].as_u64().unwrap();
    let state = client.ok("/api/undo", json!({}));
    assert!(state["result"].is_null(), "{state}");
    assert_eq!(state["side_to_move"], "sente");
    assert!(state["ply"].as_u64().unwrap() < ply);
    let state = client.ok("/api/resign", json!({}));
    assert_eq!(state["result"]["reason"], "resignation");
    assert_eq!(state["result"]["winner"], "gote");
    assert_eq!(client.post("/api/resign", json!({})).status, 400);
}

#[test]
fn the_engine_plays_sente_and_a_flag_falls_on_the_clock() {
    let client = Client::start(&[]);
    let state = client.new_game(json!({
        "sente": "engine", "gote": "human",
        "clock": {"main_ms": 400, "byoyomi_ms": 0, "increment_ms": 0}
    }));
    assert_eq!(state["clock"]["sente_ms"], 400);
    // The engine moves within its clock; then the person's runs out.
    let state = client.wait_for("the engine's move", Duration::from_secs(10), |s| {
        s["ply"] == 1
    });
    assert_eq!(state["clock"]["running"], "gote");
    assert!(state["clock"]["sente_ms"].as_u64().unwrap() <= 400);
    let state = client.wait_for("the flag", Duration::from_secs(5), |s| {
        !s["result"].is_null()
    });
    assert_eq!(state["result"]["reason"], "time");
    assert_eq!(state["result"]["winner"], "sente");
    assert_eq!(state["clock"]["running"], Value::Null);
}

#[test]
fn records_go_out_and_come_back_in_every_format() {
    let client = Client::start(&[]);
    client.new_game(two_people());
    let moves = ["2e3d", "4a3b", "1e1d", "3b4c", "3e4d"];
    for mv in moves {
        client.play(mv);
    }
    for format in ["kif", "kifu", "csa", "usi"] {
        let record = client.get(&format!("/api/record?format={format}"));
        assert_eq!(record.status, 200, "{format}");
        client.new_game(two_people());
        for load in [format, "auto"] {
            let state = client.ok_bytes(&format!("/api/record?format={load}"), &record.body);
            assert_eq!(line_usi(&state), moves, "{format} read as {load}");
            assert_eq!(state["players"]["sente"], "human");
        }
    }
    let kif = client.get("/api/record?format=kif");
    let text = encoding_rs::SHIFT_JIS.decode(&kif.body).0.into_owned();
    assert!(text.contains("手合割：5五将棋"), "{text}");
    // A bare SFEN pasted.
    let state = client.ok_bytes("/api/record?format=auto", b"4k/2S2/4G/5/K4 b P 1");
    assert_eq!(state["sfen"], "4k/2S2/4G/5/K4 b P 1");
    // Bad records leave the game as it was, with the line named.
    let before = line_usi(&client.state());
    for (format, body) in [
        ("usi", b"startpos moves 2e3d 2e3d".as_slice()),
        ("kifu", "手合割：5五将棋\n   1 ９九歩(99)\n".as_bytes()),
        ("csa", b"V2.2\nPI\n+\n+9999FU\n".as_slice()),
        ("pgn", b"1. e4".as_slice()),
        ("auto", b"   ".as_slice()),
    ] {
        let answer = client.post_bytes(&format!("/api/record?format={format}"), body);
        assert_eq!(answer.status, 400, "{format}: {}", answer.text());
        assert!(!answer.json()["error"].as_str().unwrap().is_empty());
    }
    assert_eq!(line_usi(&client.state()), before);
}

impl Client {
    fn ok_bytes(&self, path: &str, body: &[u8]) -> Value {
        let answer = self.post_bytes(path, body);
        assert_eq!(answer.status, 200, "{path}: {}", answer.text());
        answer.json()
    }
}

#[test]
fn analysis_and_mate_search_report_as_events() {
    let client = Client::start(&[]);
    let events = client.events();
    let (name, first) = events.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(name, "state");
    assert!(first["sfen"].is_string());
    // Mate in one: the gold to 1b.
    client.new_game(json!({"sente": "human", "gote": "human", "sfen": "4k/5/4G/5/K4 b S 1"}));
    client.ok("/api/analysis", json!({"on": true, "multipv": 2}));
    let until = Instant::now() + Duration::from_secs(20);
    let mut lines = std::collections::BTreeSet::new();
    let mut mate_seen = false;
    while Instant::now() < until && !(mate_seen && lines.len() == 2) {
        let Ok((name, data)) = events.recv_timeout(Duration::from_secs(1)) else {
            continue;
        };
        if name == "info" && data["source"] == "analysis" {
            lines.insert(data["multipv"].as_u64().unwrap());
            assert!(!data["pv"].as_array().unwrap().is_empty(), "{data}");
            if data["score"]["mate"] == 1 {
                mate_seen = true;
                assert!(data["win"].as_f64().unwrap() > 0.99);
                assert!(data["pv_ja"][0].as_str().unwrap().starts_with('☗'));
            }
        }
    }
    assert!(mate_seen, "analysis found the mate in one");
    assert_eq!(lines.len(), 2, "two lines with MultiPV 2");
    let state = client.ok("/api/analysis", json!({"on": false}));
    assert_eq!(state["analysis"]["on"], false);
    let evals = state["evals"].as_array().unwrap();
    assert_eq!(
        evals[0]["mate"], 1,
        "the graph has the start's score: {state}"
    );
    assert_eq!(
        client
            .post("/api/analysis", json!({"on": true, "multipv": 9}))
            .status,
        400
    );

    client.ok("/api/mate", json!({"movetime_ms": 3000}));
    let until = Instant::now() + Duration::from_secs(10);
    let mate = loop {
        assert!(Instant::now() < until, "no mate event");
        if let Ok((name, data)) = events.recv_timeout(Duration::from_secs(1))
            && name == "mate"
        {
            break data;
        }
    };
    assert_eq!(mate["result"], "mate", "{mate}");
    assert_eq!(mate["pv"].as_array().unwrap().len(), 1, "{mate}");
}

#[test]
fn other_engines_are_named_on_the_command_line_only() {
    let client = Client::start(&["--engine", "random=self random"]);
    let state = client.state();
    assert_eq!(state["engines"], json!(["minishogi-engine", "random"]));
    let state = client.new_game(json!({
        "sente": "human", "gote": "engine", "engine": "random", "movetime_ms": 50
    }));
    assert_eq!(state["engine"], "random");
    client.play("2e3d");
    client.wait_for("the random mover's reply", Duration::from_secs(10), |s| {
        s["ply"] == 2
    });
    let answer = client.post(
        "/api/new",
        json!({"sente": "human", "gote": "engine", "engine": "/bin/sh"}),
    );
    assert_eq!(
        answer.status, 400,
        "a program the command line did not name"
    );
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_engine"))
        .args(["gui", "--no-open", "--engine", "nocommand"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("NAME=COMMAND"));
}

#[test]
fn a_page_that_comes_late_sees_the_analysis_and_the_last_page_gone_stops_it() {
    let client = Client::start(&[]);
    let first_page = client.events();
    // Mate in one: the search soon reaches its deepest iteration and then says nothing more.
    client.new_game(json!({"sente": "human", "gote": "human", "sfen": "4k/5/4G/5/K4 b S 1"}));
    client.ok("/api/analysis", json!({"on": true, "multipv": 2}));
    let until = Instant::now() + Duration::from_secs(20);
    let mut deepest = 0;
    while deepest < 30 {
        assert!(Instant::now() < until, "no deep analysis (depth {deepest})");
        if let Ok((name, data)) = first_page.recv_timeout(Duration::from_secs(1))
            && name == "info"
            && !data["pv"].as_array().is_none_or(Vec::is_empty)
        {
            deepest = deepest.max(data["depth"].as_u64().unwrap_or(0));
        }
    }
    // A page opened now (a reload) is told the lines at once, after the state.
    let late_page = client.events();
    let (name, state) = late_page.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(name, "state");
    let mut lines = std::collections::BTreeSet::new();
    while lines.len() < 2 {
        let (name, data) = late_page
            .recv_timeout(Duration::from_millis(500))
            .expect("the analysis' lines right after the state");
        assert_eq!(name, "info", "{data}");
        assert_eq!(data["node"], state["cursor"]);
        lines.insert(data["multipv"].as_u64().unwrap());
    }
    // Both pages close: nobody would see the analysis, so it stops.
    drop(first_page);
    drop(late_page);
    client.wait_for("analysis to stop", Duration::from_secs(10), |s| {
        s["analysis"]["on"] == false
    });
}

#[test]
fn requests_from_another_page_are_refused() {
    let client = Client::start(&[]);
    client.new_game(two_people());
    let post = |origin: &str| {
        Client::answer(
            client
                .agent
                .post(client.url("/api/move"))
                .header("X-Token", &client.server.token)
                .header("Origin", origin)
                .header("Content-Type", "application/json")
                .send(json!({"move": "2e3d"}).to_string().as_bytes()),
        )
    };
    for origin in [
        "http://evil.example".to_string(),
        "null".to_string(),
        format!("http://127.0.0.1:{}", client.server.port + 1),
    ] {
        let answer = post(&origin);
        assert_eq!(answer.status, 403, "Origin {origin}: {}", answer.text());
    }
    assert_eq!(client.state()["ply"], 0, "refused requests change nothing");
    let answer = post(&format!("http://127.0.0.1:{}", client.server.port));
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(client.state()["ply"], 1);
}

#[test]
fn listening_on_all_addresses_accepts_only_this_machines_names() {
    let client = Client::start(&["--listen", "0.0.0.0", "--allow-host", "board.example"]);
    let status = |host: &str| {
        Client::answer(
            client
                .agent
                .get(client.url("/api/state"))
                .header("X-Token", &client.server.token)
                .header("Host", host)
                .call(),
        )
        .status
    };
    let port = client.server.port;
    // TEST-NET-3: an address no machine here has.
    assert_eq!(status(&format!("203.0.113.7:{port}")), 403);
    assert_eq!(status(&format!("evil.example:{port}")), 403);
    assert_eq!(status(&format!("127.0.0.1:{port}")), 200);
    assert_eq!(status(&format!("board.example:{port}")), 200);
}

#[test]
fn a_body_that_never_comes_is_answered_within_seconds() {
    use std::io::{Read, Write};
    let client = Client::start(&[]);
    let port = client.server.port;
    let mut socket = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(
        socket,
        "POST /api/move HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Token: {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{{\"mo",
        client.server.token
    )
    .unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    // The server answers (408) and closes, or just closes; either way within seconds.
    let _ = socket.read_to_end(&mut answer);
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(15), "waited {waited:?}");
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    assert_eq!(client.state()["ply"], 0);
}

#[test]
fn a_review_judges_every_move_of_the_line() {
    let client = Client::start(&[]);
    client.new_game(two_people());
    // Sente's third move leaves a mate in one (gote's bishop...) or not: whatever the engine
    // finds, every move is judged, and a move into a mate is marked.
    for mv in ["2e3d", "4a3b", "3d2e", "3b2c"] {
        client.play(mv);
    }
    let state = client.ok("/api/review", json!({"nodes": 3000}));
    assert_eq!(state["review"]["total"], 5);
    assert_eq!(state["analysis"]["on"], false);
    assert_eq!(
        client.post("/api/analysis", json!({"on": true})).status,
        400,
        "the analyser is busy with the review"
    );
    let state = client.wait_for("the review", Duration::from_secs(30), |s| {
        s["review"]["done"] == true
    });
    let moves = state["review"]["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 4);
    for (i, m) in moves.iter().enumerate() {
        assert_eq!(m["mover"], if i % 2 == 0 { "sente" } else { "gote" });
        assert!(m["loss"].as_f64().unwrap() >= 0.0);
        let best = m["best"].as_str().expect("a better move");
        assert!(
            m["best_en"].as_str().is_some_and(|b| !b.is_empty()),
            "{best}"
        );
    }
    let accuracy = &state["review"]["accuracy"];
    for side in ["sente", "gote"] {
        let a = accuracy[side].as_f64().unwrap();
        assert!((0.0..=100.0).contains(&a), "{side}: {a}");
    }
    // The evaluations the review found draw the graph.
    assert!(
        state["evals"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| !e.is_null()),
        "{state}"
    );
    assert_eq!(client.post("/api/review", json!({"nodes": 5})).status, 400);
}

/// The puzzle file the page fetches, as the repository has it.
fn puzzle_file() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/web/page/puzzles/minishogi-puzzles.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("the puzzle file")).unwrap()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn puzzles_from_the_pages_file_are_solved_failed_and_hinted() {
    let client = Client::start(&[]);
    // The file is one of the page's public files, byte for byte.
    let no_token = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .new_agent();
    let served = Client::answer(
        no_token
            .get(client.url("/puzzles/minishogi-puzzles.json"))
            .call(),
    );
    assert_eq!(served.status, 200);
    assert!(
        served
            .header("content-type")
            .starts_with("application/json")
    );
    assert_eq!(served.json(), puzzle_file());
    let file = puzzle_file();
    let puzzles = file["puzzles"].as_array().unwrap();
    assert!(!puzzles.is_empty());
    // The longest puzzle of the file, so that a reply is played.
    let puzzle = puzzles
        .iter()
        .max_by_key(|p| p["moves"].as_array().unwrap().len())
        .unwrap();
    let moves = strings(&puzzle["moves"]);
    let start = json!({"id": puzzle["id"], "sfen": puzzle["sfen"], "moves": moves});
    assert_eq!(
        Client::answer(
            no_token
                .post(client.url("/api/puzzle/start"))
                .send(start.to_string().as_bytes())
        )
        .status,
        403,
        "the token is needed"
    );

    // Solved: the core plays each reply.
    let state = client.ok("/api/puzzle/start", start.clone());
    assert_eq!(state["puzzle"]["status"], "solving");
    assert_eq!(state["puzzle"]["id"], puzzle["id"]);
    assert_eq!(state["thinking"], false);
    assert_eq!(state["players"], json!({"sente": "human", "gote": "human"}));
    assert_eq!(
        client.post("/api/analysis", json!({"on": true})).status,
        400
    );
    for (i, mv) in moves.iter().enumerate().step_by(2) {
        let state = client.play(mv);
        if let Some(reply) = moves.get(i + 1) {
            assert_eq!(state["ply"], i + 2);
            assert_eq!(state["last_move"], reply.as_str());
            assert_eq!(state["puzzle"]["status"], "solving");
        } else {
            assert_eq!(state["puzzle"]["status"], "solved");
            assert_eq!(strings(&state["puzzle"]["solution"]), moves);
        }
    }
    assert_eq!(client.state()["thinking"], false, "no engine played");

    // A hint, then a wrong move: failed; the solution shown beside it.
    let state = client.ok("/api/puzzle/start", start.clone());
    assert_eq!(state["ply"], 0);
    let hint = client.ok("/api/puzzle/hint", json!({}))["puzzle"]["hint"].clone();
    let first = &moves[0];
    if first.as_bytes()[1] == b'*' {
        assert_eq!(hint, json!({"drop": &first[..1]}));
    } else {
        assert_eq!(hint, json!({"square": &first[..2]}));
    }
    let position = engine::shogi::Position::from_sfen(puzzle["sfen"].as_str().unwrap()).unwrap();
    let wrong = moves_of(&state)
        .into_iter()
        .find(|m| {
            m != first
                && !position
                    .after(position.parse_usi_move(m).unwrap())
                    .is_checkmate()
        })
        .expect("a move that is not the solution's");
    let state = client.play(&wrong);
    assert_eq!(state["puzzle"]["status"], "failed");
    assert_eq!(state["puzzle"]["wrong"], wrong.as_str());
    assert_eq!(state["ply"], 1, "no reply to a wrong move");
    let state = client.ok("/api/puzzle/solution", json!({}));
    assert_eq!(line_usi(&state), moves);
    assert_eq!(state["cursor"], 0, "where it went wrong");

    // A bad puzzle is refused, the session unchanged; the end leaves the position.
    let before = client.state();
    for bad in [
        json!({"id": "x", "sfen": "not a position", "moves": moves}),
        json!({"id": "x", "sfen": puzzle["sfen"], "moves": []}),
        json!({"id": "x", "sfen": puzzle["sfen"], "moves": [wrong, wrong, wrong]}),
        json!({"id": "x", "sfen": puzzle["sfen"]}),
    ] {
        let answer = client.post("/api/puzzle/start", bad.clone());
        assert_eq!(answer.status, 400, "{bad}");
        assert!(!answer.json()["error"].as_str().unwrap().is_empty());
    }
    assert_eq!(client.state(), before);
    let state = client.ok("/api/puzzle/end", json!({}));
    assert!(state["puzzle"].is_null());
    assert_eq!(state["sfen"], before["sfen"]);
    assert_eq!(client.post("/api/puzzle/hint", json!({})).status, 400);
}
