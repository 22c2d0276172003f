//! The module's face to its host on WebAssembly: the exports the worker calls and the imports
//! it provides (see the crate's documentation).
#![cfg(target_arch = "wasm32")]

use std::io::Write;
use std::sync::{Mutex, PoisonError};

use minishogi_engine::protocol::usi::Output;

use crate::session::{HostSession, LineSource};

#[link(wasm_import_module = "minishogi")]
unsafe extern "C" {
    #[link_name = "write"]
    fn host_write(ptr: *const u8, len: usize);
    #[link_name = "poll"]
    fn host_poll(ptr: *mut u8, cap: usize) -> i32;
}

/// The session's output, handed to the host as it is written (whole lines).
struct HostWriter;

impl Write for HostWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // SAFETY: the host reads `buf.len()` bytes at `buf`, inside this memory.
        unsafe { host_write(buf.as_ptr(), buf.len()) };
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The lines the host received during a search.
struct HostLines;

impl LineSource for HostLines {
    fn next_line(&self) -> Option<String> {
        let mut buf = vec![0u8; 1024];
        loop {
            // SAFETY: the host writes at most `buf.len()` bytes at `buf`.
            let n = unsafe { host_poll(buf.as_mut_ptr(), buf.len()) };
            match n {
                0.. => return Some(String::from_utf8_lossy(&buf[..n as usize]).into_owned()),
                -1 => return None,
                // Too long for `buf`: the host keeps it until asked with room enough.
                _ => buf.resize((-2 - n as i64) as usize, 0),
            }
        }
    }
}

static SESSION: Mutex<Option<HostSession>> = Mutex::new(None);
static LINE: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// Where the host writes the next line's `len` bytes before [`usi_handle`].
#[unsafe(no_mangle)]
pub extern "C" fn usi_buffer(len: usize) -> *mut u8 {
    let mut line = LINE.lock().unwrap_or_else(PoisonError::into_inner);
    line.resize(len, 0);
    line.as_mut_ptr()
}

/// Handles the `len` bytes the host wrote at [`usi_buffer`] as one line; 0 once the session
/// has ended (`quit`), 1 while it goes on.
#[unsafe(no_mangle)]
pub extern "C" fn usi_handle(len: usize) -> u32 {
    let line = {
        let bytes = LINE.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&bytes[..len.min(bytes.len())]).into_owned()
    };
    let mut session = SESSION.lock().unwrap_or_else(PoisonError::into_inner);
    let session =
        session.get_or_insert_with(|| HostSession::new(Output::new(HostWriter), HostLines));
    u32::from(session.handle(&line))
}

static BOARD: Mutex<Option<crate::board::BoardHost>> = Mutex::new(None);
static BOARD_CALL: Mutex<Vec<u8>> = Mutex::new(Vec::new());
static BOARD_ANSWER: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// Where the page writes a board call's `len` bytes of JSON before [`board_call`].
#[unsafe(no_mangle)]
pub extern "C" fn board_buffer(len: usize) -> *mut u8 {
    let mut call = BOARD_CALL.lock().unwrap_or_else(PoisonError::into_inner);
    call.resize(len, 0);
    call.as_mut_ptr()
}

/// Handles the board call at [`board_buffer`]; returns the answer's length, to be read at
/// [`board_answer`].
#[unsafe(no_mangle)]
pub extern "C" fn board_call(len: usize) -> usize {
    let call = BOARD_CALL.lock().unwrap_or_else(PoisonError::into_inner);
    let mut board = BOARD.lock().unwrap_or_else(PoisonError::into_inner);
    let answer = board
        .get_or_insert_with(crate::board::BoardHost::new)
        .call(&call[..len.min(call.len())]);
    let mut kept = BOARD_ANSWER.lock().unwrap_or_else(PoisonError::into_inner);
    *kept = answer;
    kept.len()
}

/// The last answer of [`board_call`].
#[unsafe(no_mangle)]
pub extern "C" fn board_answer() -> *const u8 {
    BOARD_ANSWER
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ptr()
}
