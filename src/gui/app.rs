//! The board's session core (`minishogi-board`) served to pages over HTTP: the core under a
//! lock, the engines it asks for as USI processes (`engine.rs`), and its events sent to every
//! page through a broadcast channel. Whatever the core asks for is carried out while the lock
//! is held, so that pages receive the states in order and engines their jobs in order.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use minishogi_board::setup::Setup;
use minishogi_board::{Board, Command, NewGame, PuzzleStart, RecordFile, Report, Role, records};
use serde_json::Value;
use tokio::sync::broadcast;

use super::engine::EngineHandle;
use crate::usi_client::EngineSpec;

pub use minishogi_board::{MAX_MULTIPV, SELF_ENGINE};

/// An event for the pages: its name and its JSON.
#[derive(Clone, Debug)]
pub struct Event {
    pub name: &'static str,
    pub data: String,
}

/// The engines the page may choose from, by name.
pub struct Engines {
    pub specs: Vec<EngineSpec>,
}

/// The core and the engines running for it.
struct Served {
    board: Board,
    /// The engine in each role, with the serial the core gave its start.
    engines: HashMap<Role, (u64, EngineHandle)>,
}

pub struct App {
    served: Mutex<Served>,
    specs: Vec<EngineSpec>,
    events: broadcast::Sender<Event>,
    /// The pages listening to the events.
    pages: AtomicUsize,
    /// Itself, for the engines' report callbacks.
    me: Weak<App>,
}

/// An event of the core as the pages are sent it.
fn page_event(event: &minishogi_board::view::Event) -> Event {
    use minishogi_board::view::Event as Core;
    let data = match event {
        Core::State(state) => json(state),
        Core::Info(info) => json(info),
        Core::Mate(mate) => json(mate),
    };
    Event {
        name: event.name(),
        data: data.to_string(),
    }
}

/// A value as JSON (the core's types always serialize).
fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

impl App {
    pub fn new(engines: Engines) -> Arc<App> {
        let (events, _) = broadcast::channel(1024);
        let names = engines.specs.iter().map(|s| s.name.clone()).collect();
        Arc::new_cyclic(|me| App {
            served: Mutex::new(Served {
                board: Board::new(names),
                engines: HashMap::new(),
            }),
            specs: engines.specs,
            events,
            pages: AtomicUsize::new(0),
            me: me.clone(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Served> {
        self.served.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `call` on the core, then carries out what it asked for.
    fn run<T>(&self, call: impl FnOnce(&mut Board) -> T) -> T {
        let mut served = self.lock();
        let result = call(&mut served.board);
        for command in served.board.take_commands() {
            self.carry_out(&mut served, command);
        }
        result
    }

    fn carry_out(&self, served: &mut Served, command: Command) {
        match command {
            Command::Event(event) => {
                // No page listening is not an error.
                let _ = self.events.send(page_event(&event));
            }
            Command::Start {
                role,
                serial,
                engine,
                options,
            } => {
                let Some(spec) = self.specs.iter().find(|s| s.name == engine).cloned() else {
                    log::warn!("no engine named '{engine}'");
                    return;
                };
                let me = self.me.clone();
                let report = Arc::new(move |report: Report| {
                    if let Some(app) = me.upgrade() {
                        app.run(|board| board.on_report(role, serial, report));
                    }
                });
                // Replacing a handle drops the old one, which ends its thread and process.
                served
                    .engines
                    .insert(role, (serial, EngineHandle::start(spec, options, report)));
            }
            Command::Job { role, job } => {
                if let Some((_, handle)) = served.engines.get(&role) {
                    handle.send(job);
                }
            }
            Command::Close { role } => {
                served.engines.remove(&role);
            }
        }
    }

    /// What a page that starts listening is sent first (the state, then the latest lines of
    /// the searches at the cursor), and the events after them. While it listens it counts as
    /// a page; when the last page has gone, analysis stops (nobody would see it).
    pub fn listen(self: &Arc<Self>) -> (Vec<Event>, broadcast::Receiver<Event>, PageGuard) {
        let served = self.lock();
        let first = served.board.catch_up().iter().map(page_event).collect();
        // Subscribed under the lock: no event falls between the catch-up and the stream.
        let receiver = self.events.subscribe();
        self.pages.fetch_add(1, Ordering::SeqCst);
        (first, receiver, PageGuard(self.clone()))
    }

    /// The state as JSON.
    pub fn state(&self) -> Value {
        json(&self.lock().board.state())
    }

    fn answer<T: serde::Serialize>(result: Result<T, String>) -> Result<Value, String> {
        result.map(|value| json(&value))
    }

    /// A person's move at the cursor.
    pub fn play_move(&self, text: &str) -> Result<Value, String> {
        Self::answer(self.run(|b| b.play_move(text)))
    }

    pub fn new_game(&self, request: NewGame) -> Result<Value, String> {
        Self::answer(self.run(|b| b.new_game(request)))
    }

    /// Takes back moves until a person is to move (at least one move).
    pub fn undo(&self) -> Result<Value, String> {
        Self::answer(self.run(Board::undo))
    }

    pub fn resign(&self) -> Result<Value, String> {
        Self::answer(self.run(Board::resign))
    }

    pub fn goto(&self, node: usize) -> Result<Value, String> {
        Self::answer(self.run(|b| b.goto(node)))
    }

    pub fn set_analysis(&self, on: bool, multipv: Option<u32>) -> Result<Value, String> {
        Self::answer(self.run(|b| b.set_analysis(on, multipv)))
    }

    /// A mate search from the cursor's position on the analysing engine.
    pub fn mate_search(&self, movetime_ms: u64) -> Result<Value, String> {
        Self::answer(self.run(|b| b.mate_search(movetime_ms)))
    }

    /// A review of the line through the cursor, `nodes` a position.
    pub fn review(&self, nodes: u64) -> Result<Value, String> {
        Self::answer(self.run(|b| b.review(nodes)))
    }

    /// Starts a puzzle (one of the page's file).
    pub fn start_puzzle(&self, start: &PuzzleStart) -> Result<Value, String> {
        Self::answer(self.run(|b| b.start_puzzle(start)))
    }

    pub fn puzzle_hint(&self) -> Result<Value, String> {
        Self::answer(self.run(Board::puzzle_hint))
    }

    pub fn puzzle_solution(&self) -> Result<Value, String> {
        Self::answer(self.run(Board::puzzle_solution))
    }

    pub fn end_puzzle(&self) -> Result<Value, String> {
        Self::answer(self.run(Board::end_puzzle))
    }

    /// The position after `moves` from `node`, for a page showing a line.
    pub fn preview(&self, node: usize, moves: &[String]) -> Result<Value, String> {
        Self::answer(self.lock().board.preview(node, moves))
    }

    /// The editor's position checked: its SFEN, or why it cannot be played.
    pub fn setup(&self, setup: &Setup) -> Result<Value, String> {
        Self::answer(self.lock().board.setup(setup))
    }

    /// Loads a record (its bytes in `format`, or guessed).
    pub fn load_record(
        &self,
        bytes: &[u8],
        format: Option<records::Format>,
    ) -> Result<Value, String> {
        Self::answer(self.run(|b| b.load_record(bytes, format)))
    }

    /// The line through the cursor as a file to download.
    pub fn record_file(&self, format: records::Format) -> RecordFile {
        self.lock().board.record_file(format)
    }

    /// Checks the running clock: a side past its time loses.
    pub fn tick(&self) {
        self.run(Board::tick);
    }
}

/// A page listening to the events; dropped when its stream ends.
pub struct PageGuard(Arc<App>);

impl Drop for PageGuard {
    fn drop(&mut self) {
        if self.0.pages.fetch_sub(1, Ordering::SeqCst) == 1 {
            log::debug!("no page listens: analysis stops");
            let _ = self.0.run(|board| {
                let on = board.state().analysis.on;
                on.then(|| board.set_analysis(false, None))
            });
        }
    }
}
