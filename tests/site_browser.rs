//! The static site in a real browser: `web/tools/site.mjs` writes the site (the page, the
//! board's core and the engine as WebAssembly), `web/tools/serve.mjs` serves it as any static
//! host would (no `engine gui`, no cross-origin isolation), and the page's whole test
//! (`tests/common/browser.rs`) runs against it: the game against the engine in a Web Worker,
//! records through the core's readers and writers, analysis and its preview.
//!
//! Without Chromium, chromedriver, Node or a wasm32 toolchain the test says so and passes.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use common::browser::{Processes, Shots, browser, test_the_page};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_static_site_plays_and_reads_records() {
    if let Err(missing) = browser() {
        println!("note: {missing}; the static site's browser test is skipped");
        return;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = std::env::temp_dir().join("engine-site-browser-test");
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let site = tmp.join("site");
    let built = match Command::new("node")
        .arg(repo.join("web/tools/site.mjs"))
        .arg(&site)
        .current_dir(repo)
        .status()
    {
        Ok(status) => status,
        Err(e) => {
            println!("note: no node ({e}); the static site's browser test is skipped");
            return;
        }
    };
    if built.code() == Some(3) {
        println!("note: no wasm32 toolchain; the static site's browser test is skipped");
        return;
    }
    assert!(built.success(), "web/tools/site.mjs failed: {built}");

    let mut procs = Processes(Vec::new());
    let mut server = Command::new("node")
        .arg(repo.join("web/tools/serve.mjs"))
        .arg(&site)
        .arg("0")
        .stdout(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("start the static server");
    let mut url = String::new();
    BufReader::new(server.stdout.take().expect("its output"))
        .read_line(&mut url)
        .expect("the server's URL");
    procs.0.push(server);
    let url = url.trim().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url:?}");
    test_the_page(&url, procs, Shots::new("site", &tmp), &tmp).await;
}
