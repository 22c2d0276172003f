//! `engine gui` in a real browser: the page's whole test (`tests/common/browser.rs`) against
//! the lab's server with the engine as a USI process.
//!
//! Without Chromium or chromedriver (set `CHROMIUM` / `CHROMEDRIVER` to use others than
//! Debian's) the test says so and passes.

mod common;

use common::browser::{Processes, Shots, browser, test_the_page};
use common::gui::GuiServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_plays_and_reads_records() {
    if let Err(missing) = browser() {
        println!("note: {missing}; the browser test is skipped");
        return;
    }
    let tmp = std::env::temp_dir().join("engine-gui-browser-test");
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let server = GuiServer::start(&[]);
    let url = server.url();
    test_the_page(&url, Processes(Vec::new()), Shots::new("gui", &tmp), &tmp).await;
    drop(server);
}
