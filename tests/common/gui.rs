//! `engine gui` spawned as a person starts it (without a browser), for the HTTP and browser
//! tests: the URL it prints, its token, and the process killed when dropped.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::thread;
use std::time::Duration;

pub struct GuiServer {
    child: Child,
    /// `http://127.0.0.1:PORT` (no slash at the end).
    pub base: String,
    pub token: String,
    pub port: u16,
}

impl GuiServer {
    /// `engine gui --no-open --port 0` with `extra` arguments; waits for its URL line.
    pub fn start(extra: &[&str]) -> GuiServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_engine"))
            .args(["gui", "--no-open", "--port", "0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            // A group of its own, so that its engines go with it.
            .process_group(0)
            .spawn()
            .expect("engine gui starts");
        let stdout = child.stdout.take().unwrap();
        let (send, receive) = channel();
        // Reads the URL, then goes on reading so that the server never writes into a closed pipe.
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = send.send(line);
            }
        });
        let url = receive
            .recv_timeout(Duration::from_secs(10))
            .expect("engine gui prints its URL");
        let (base, token) = url
            .split_once("/?token=")
            .unwrap_or_else(|| panic!("URL with a token: {url}"));
        let port = base.rsplit(':').next().unwrap().parse().unwrap();
        assert!(base.starts_with("http://127.0.0.1:"), "{base}");
        GuiServer {
            child,
            base: base.to_string(),
            token: token.to_string(),
            port,
        }
    }

    /// The page's URL with the token.
    pub fn url(&self) -> String {
        format!("{}/?token={}", self.base, self.token)
    }
}

impl Drop for GuiServer {
    fn drop(&mut self) {
        // SAFETY: signals the process group created for the server (it and its engines).
        unsafe {
            libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
