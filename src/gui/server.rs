//! The HTTP side of `engine gui`: the routes of `docs/gui.md`, and the guard every request
//! passes first (a `Host` that names this server, the session's token except for the page's
//! public files, bounded bodies).

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_stream::StreamExt;
use tokio_stream::wrappers::BroadcastStream;

use minishogi_board::setup::Setup;
use minishogi_board::{NewGame, PuzzleStart, record_format};

use super::app::App;
use super::hosts::AllowedHosts;
use crate::records;

/// The largest request body: a record of 2,000 moves in KIF is about 100 KB.
pub const MAX_BODY_BYTES: usize = 256 * 1024;
/// How long a request's body may take to arrive.
const BODY_TIMEOUT: Duration = Duration::from_secs(5);

const PAGE: &str = include_str!("../../web/page/index.html");

/// A module of the page (`web/page/modules/NAME`) as an entry of `ASSETS`.
macro_rules! module {
    ($name:literal) => {
        (
            concat!("/modules/", $name),
            "text/javascript; charset=utf-8",
            include_str!(concat!("../../web/page/modules/", $name)),
        )
    };
}

/// The page's style, modules and puzzle file (`web/page/`), compiled in: path, content type,
/// text. They are the same for everyone and hold no secret, so they are served without the
/// token (the page's `<link>` and `<script type="module">` cannot send one).
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "/style.css",
        "text/css; charset=utf-8",
        include_str!("../../web/page/style.css"),
    ),
    module!("analysis.js"),
    module!("board.js"),
    module!("clocks.js"),
    module!("dialogs.js"),
    module!("dom.js"),
    module!("editor.js"),
    module!("fonts.js"),
    module!("labels.js"),
    module!("main.js"),
    module!("moves.js"),
    module!("prefs.js"),
    module!("puzzles.js"),
    module!("review.js"),
    module!("session.js"),
    module!("sound.js"),
    module!("state.js"),
    module!("status.js"),
    module!("transport-http.js"),
    (
        "/puzzles/minishogi-puzzles.json",
        "application/json; charset=utf-8",
        include_str!("../../web/page/puzzles/minishogi-puzzles.json"),
    ),
];

/// The compiled-in file at `path`: its content type and text.
fn asset(path: &str) -> Option<(&'static str, &'static str)> {
    ASSETS
        .iter()
        .find(|(p, _, _)| *p == path)
        .map(|&(_, content_type, text)| (content_type, text))
}

#[derive(Clone)]
pub struct Server {
    pub app: Arc<App>,
    pub token: String,
    /// The `Host` names that are this server's.
    pub hosts: Arc<AllowedHosts>,
}

/// The routes, behind the guard.
pub fn router(server: Server) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/style.css", get(static_file))
        .route("/modules/{name}", get(static_file))
        .route("/puzzles/{name}", get(static_file))
        .route("/api/state", get(state))
        .route("/api/move", post(play_move))
        .route("/api/new", post(new_game))
        .route("/api/undo", post(undo))
        .route("/api/resign", post(resign))
        .route("/api/goto", post(goto))
        .route("/api/analysis", post(analysis))
        .route("/api/mate", post(mate))
        .route("/api/review", post(review))
        .route("/api/preview", post(preview))
        .route("/api/setup", post(setup))
        .route("/api/record", post(load_record).get(save_record))
        .route("/api/puzzle/start", post(puzzle_start))
        .route("/api/puzzle/hint", post(puzzle_hint))
        .route("/api/puzzle/solution", post(puzzle_solution))
        .route("/api/puzzle/end", post(puzzle_end))
        .route("/api/events", get(events))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(server.clone(), guard))
        .with_state(server)
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, axum::Json(json!({"error": message.into()}))).into_response()
}

/// Compares without stopping at the first difference, so that the time taken does not tell
/// how much of a guessed token was right.
fn same_token(given: &str, token: &str) -> bool {
    given.len() == token.len()
        && given
            .bytes()
            .zip(token.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

fn token_of(request: &Request) -> Option<String> {
    if let Some(value) = request.headers().get("x-token") {
        return value.to_str().ok().map(str::to_string);
    }
    let query = request.uri().query()?;
    form_pairs(query)
        .into_iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v)
}

/// `a=1&b=2` split into pairs (the token is hex, so no decoding is needed).
fn form_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

async fn guard(State(server): State<Server>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !server.hosts.allows(host) {
        return error(
            StatusCode::FORBIDDEN,
            format!("Host '{host}' is not this server's address"),
        );
    }
    // A browser names the page a request comes from: only this server's own page may ask.
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let own = format!("http://{host}");
        if origin.to_str().ok() != Some(own.as_str()) {
            return error(
                StatusCode::FORBIDDEN,
                format!(
                    "a request from another page ({}) is refused",
                    String::from_utf8_lossy(origin.as_bytes())
                ),
            );
        }
    }
    let public = request.method() == Method::GET && asset(request.uri().path()).is_some();
    if !public {
        match token_of(&request) {
            Some(token) if same_token(&token, &server.token) => {}
            _ => return error(StatusCode::FORBIDDEN, "missing or wrong token"),
        }
    }
    // The body, whole, within a short time: a request that declares one and sends nothing
    // must not hold a connection (and its memory) open.
    let (parts, body) = request.into_parts();
    let body = match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, MAX_BODY_BYTES))
        .await
    {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is over {MAX_BODY_BYTES} bytes or broken off"),
            );
        }
        Err(_) => {
            return error(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not come within {} s",
                    BODY_TIMEOUT.as_secs()
                ),
            );
        }
    };
    let request = Request::from_parts(parts, axum::body::Body::from(body));
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    response
}

async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "no such page")
}

async fn page(State(server): State<Server>) -> Response {
    let html = PAGE.replace("{{TOKEN}}", &server.token);
    let mut response = Html(html).into_response();
    // Only this server's own files run and style the page, and it talks only to this server.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             connect-src 'self'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'",
        ),
    );
    response
}

async fn static_file(uri: Uri) -> Response {
    match asset(uri.path()) {
        Some((content_type, text)) => {
            ([(header::CONTENT_TYPE, content_type)], text).into_response()
        }
        None => not_found().await,
    }
}

/// A session call's result: the new state, or 400 with the reason.
fn answer(result: Result<Value, String>) -> Response {
    match result {
        Ok(state) => axum::Json(state).into_response(),
        Err(message) => error(StatusCode::BAD_REQUEST, message),
    }
}

/// A JSON body, or 400 naming what was wrong with it.
fn parse_body<T: for<'de> Deserialize<'de>>(body: &Bytes) -> Result<T, String> {
    serde_json::from_slice(body).map_err(|e| format!("request body: {e}"))
}

async fn state(State(server): State<Server>) -> Response {
    axum::Json(server.app.state()).into_response()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    #[serde(rename = "move")]
    mv: String,
}

async fn play_move(State(server): State<Server>, body: Bytes) -> Response {
    match parse_body::<MoveRequest>(&body) {
        Ok(request) => {
            let result = server.app.play_move(request.mv.trim());
            match result {
                Err(e) if e == "the engine is to move" => error(StatusCode::CONFLICT, e),
                other => answer(other),
            }
        }
        Err(message) => error(StatusCode::BAD_REQUEST, message),
    }
}

async fn new_game(State(server): State<Server>, body: Bytes) -> Response {
    match parse_body::<NewGame>(&body) {
        Ok(request) => answer(server.app.new_game(request)),
        Err(message) => error(StatusCode::BAD_REQUEST, message),
    }
}

async fn undo(State(server): State<Server>) -> Response {
    answer(server.app.undo())
}

async fn resign(State(server): State<Server>) -> Response {
    answer(server.app.resign())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GotoRequest {
    node: usize,
}

async fn goto(State(server): State<Server>, body: Bytes) -> Response {
    match parse_body::<GotoRequest>(&body) {
        Ok(request) => answer(server.app.goto(request.node)),
        Err(message) => error(StatusCode::BAD_REQUEST, message),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalysisRequest {
    on: bool,
    #[serde(default)]
    multipv: Option<u32>,
}

async fn analysis(State(server): State<Server>, body: Bytes) -> Response {
    match parse_body::<AnalysisRequest>(&body) {
        Ok(request) => answer(server.app.set_analysis(request.on, request.multipv)),
        Err(message) => error(StatusCode::BAD_REQUEST, message),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MateRequest {
    #[serde(default = "default_mate_ms")]
    movetime_ms: u64,
}

fn default_mate_ms() -> u64 {
    5000
}

async fn mate(State(server): State<Server>, body: Bytes) -> Response {
    match parse_body::<MateRequest>(&body) {
        Ok(request) => answer(server.app.mate_search(request.movetime_ms)),
        Err(message) => error(StatusCode::BAD_REQUEST, message),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PreviewRequest {
    node: usize,
    moves: Vec<String>,
}

async fn preview(State(server): State<Server>, body: Bytes) -> Response {
    match parse_body::<PreviewRequest>(&body) {
        Ok(request) => answer(server.app.preview(request.node, &request.moves)),
        Err(message) => error(StatusCode::BAD_REQUEST, message),
    }
}

async fn setup(State(server): State<Server>, body: Bytes) -> Response {
    match parse_body::<Setup>(&body) {
        Ok(request) => answer(server.app.setup(&request)),
        Err(message) => error(StatusCode::BAD_REQUEST, message),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewRequest {
    #[serde(default = "default_review_nodes")]
    nodes: u64,
}

/// A review's default budget: the core's.
fn default_review_nodes() -> u64 {
    minishogi_board::REVIEW_NODES
}

async fn review(State(server): State<Server>, body: Bytes) -> Response {
    match parse_body::<ReviewRequest>(&body) {
        Ok(request) => answer(server.app.review(request.nodes)),
        Err(message) => error(StatusCode::BAD_REQUEST, message),
    }
}

async fn puzzle_start(State(server): State<Server>, body: Bytes) -> Response {
    match parse_body::<PuzzleStart>(&body) {
        Ok(request) => answer(server.app.start_puzzle(&request)),
        Err(message) => error(StatusCode::BAD_REQUEST, message),
    }
}

async fn puzzle_hint(State(server): State<Server>) -> Response {
    answer(server.app.puzzle_hint())
}

async fn puzzle_solution(State(server): State<Server>) -> Response {
    answer(server.app.puzzle_solution())
}

async fn puzzle_end(State(server): State<Server>) -> Response {
    answer(server.app.end_puzzle())
}

#[derive(Deserialize)]
struct FormatQuery {
    format: Option<String>,
}

async fn load_record(
    State(server): State<Server>,
    Query(query): Query<FormatQuery>,
    body: Bytes,
) -> Response {
    let format = match record_format(query.format.as_deref()) {
        Ok(format) => format,
        Err(message) => return error(StatusCode::BAD_REQUEST, message),
    };
    if body.iter().all(u8::is_ascii_whitespace) {
        return error(StatusCode::BAD_REQUEST, "the record is empty");
    }
    let app = server.app.clone();
    // Reading and checking a long record is CPU work: off the async threads.
    let result = tokio::task::spawn_blocking(move || app.load_record(&body, format))
        .await
        .unwrap_or_else(|e| Err(format!("reading the record failed: {e}")));
    answer(result)
}

async fn save_record(State(server): State<Server>, Query(query): Query<FormatQuery>) -> Response {
    let format = match record_format(query.format.as_deref()) {
        Ok(Some(format)) => format,
        Ok(None) => records::Format::Kif,
        Err(message) => return error(StatusCode::BAD_REQUEST, message),
    };
    let file = server.app.record_file(format);
    let disposition = format!("attachment; filename=\"{}\"", file.filename);
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(file.content_type),
    );
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    (headers, file.bytes).into_response()
}

async fn events(State(server): State<Server>) -> Response {
    let (first, receiver, guard) = server.app.listen();
    let first: Vec<Result<SseEvent, Infallible>> = first
        .into_iter()
        .map(|event| Ok(SseEvent::default().event(event.name).data(event.data)))
        .collect();
    let app = server.app.clone();
    let updates = BroadcastStream::new(receiver).map(move |event| {
        // The stream owns the guard: the page counts as listening until it is dropped.
        let _listening = &guard;
        let event = match event {
            Ok(event) => SseEvent::default().event(event.name).data(event.data),
            // A page too slow to keep up missed events: the whole state catches it up.
            Err(_lagged) => SseEvent::default()
                .event("state")
                .data(app.state().to_string()),
        };
        Ok::<_, Infallible>(event)
    });
    let stream = tokio_stream::iter(first).chain(updates);
    // A keep-alive every 2 s also finds a closed page within about that (a write that fails
    // ends the stream), so that analysis nobody sees stops soon.
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(2)))
        .into_response()
}

/// The address to print and open: `localhost`-style for the unspecified address.
pub fn page_url(addr: SocketAddr, token: &str) -> String {
    let ip = match addr.ip() {
        ip if ip.is_unspecified() => "127.0.0.1".to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) => ip.to_string(),
    };
    format!("http://{ip}:{}/?token={token}", addr.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(same_token("abc", "abc"));
        assert!(!same_token("abd", "abc"));
        assert!(!same_token("ab", "abc"));
        assert!(!same_token("", "abc"));
    }
}
