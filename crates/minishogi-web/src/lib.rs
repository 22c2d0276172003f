//! The playing engine compiled to WebAssembly: a USI session that its host — the worker
//! script of `web/` — feeds line by line and that writes its lines back through the host.
//!
//! The host calls `usi_buffer(len)` for a place to write a line's UTF-8 bytes, then
//! `usi_handle(len)`, which handles the line (a `go` searches to its end before returning)
//! and returns 0 once the session has ended (`quit`). The module imports, from `minishogi`:
//! `write(ptr, len)` (the session's output, whole lines each ending in `\n`),
//! `poll(ptr, cap) -> i32` (the next line the host received during a search, written at
//! `ptr`: its length, or -1 when there is none; a line longer than `cap` is refused with
//! -2 - its length), and the engine's `now_ms` and `fill_random` (`platform.rs`).
//!
//! The board's session core runs in the same module, on the page's main thread: the page
//! writes a call's JSON at `board_buffer(len)`, `board_call(len)` handles it and returns the
//! answer's length, and the answer is read at `board_answer()` (`board.rs`).
//!
//! During a search the session hears `stop`, `ponderhit`, `isready` and `quit` through the
//! poll; other lines wait until the search is over and are then handled in order.

mod board;
mod host;
mod session;

pub use board::BoardHost;
pub use session::{HostSession, LineSource};
