//! `engine gui`: a board in the browser. A local web server (axum: the tokio ecosystem's usual
//! HTTP crate, with server-sent events for the live search) serves one page whose assets are
//! compiled in, and plays the game behind it through the board's session core
//! (`minishogi-board`, which the static page runs as WebAssembly): the rules core judges
//! every move, the engines
//! (this one, `self usi`, and any USI engine named by `--engine`) run as USI processes.
//! `docs/gui.md` describes the page, the HTTP API and the security rules.

pub mod app;
pub mod engine;
pub mod hosts;
pub mod server;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use clap::Args;

use crate::usi_client::EngineSpec;
use app::{App, Engines, SELF_ENGINE};

#[derive(Args, Debug)]
pub struct GuiArgs {
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// The address to listen on; only this machine can reach the default. Another address
    /// lets other machines in (each request still needs the token).
    #[arg(long, default_value = "127.0.0.1")]
    pub listen: IpAddr,
    /// A name other machines reach this one by (`--listen` on another address): requests
    /// must name the server by an address of this machine or such a name; repeatable.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
    /// Print the URL but do not open a browser.
    #[arg(long)]
    pub no_open: bool,
    /// Another USI engine the page can play against or analyse with: `NAME=COMMAND`
    /// (e.g. `fsf=/usr/games/fairy-stockfish`); repeatable.
    #[arg(long = "engine", value_name = "NAME=COMMAND")]
    pub engines: Vec<String>,
    /// A `setoption` for one of those engines: `NAME:OPTION=VALUE`; repeatable.
    #[arg(long = "engine-option", value_name = "NAME:OPTION=VALUE")]
    pub engine_options: Vec<String>,
}

/// The engines of the command line, this one first.
fn engine_specs(args: &GuiArgs) -> Result<Vec<EngineSpec>, String> {
    let mut specs = vec![EngineSpec {
        name: SELF_ENGINE.to_string(),
        command: "self usi".to_string(),
        options: Vec::new(),
        go_limits: Vec::new(),
        movetime_go: false,
        swap_clocks: false,
        time_control: None,
    }];
    for text in &args.engines {
        let (name, command) = text
            .split_once('=')
            .filter(|(n, c)| !n.trim().is_empty() && !c.trim().is_empty())
            .ok_or_else(|| format!("--engine '{text}': expected NAME=COMMAND"))?;
        if specs.iter().any(|s| s.name == name.trim()) {
            return Err(format!("--engine '{text}': the name '{name}' is taken"));
        }
        specs.push(EngineSpec {
            name: name.trim().to_string(),
            command: command.trim().to_string(),
            options: Vec::new(),
            go_limits: Vec::new(),
            movetime_go: false,
            swap_clocks: false,
            time_control: None,
        });
    }
    for text in &args.engine_options {
        let parsed = text.split_once(':').and_then(|(engine, option)| {
            let (name, value) = option.split_once('=')?;
            Some((engine.trim(), name.trim(), value.trim()))
        });
        let Some((engine, name, value)) = parsed.filter(|(_, n, _)| !n.is_empty()) else {
            return Err(format!(
                "--engine-option '{text}': expected NAME:OPTION=VALUE"
            ));
        };
        let spec = specs
            .iter_mut()
            .find(|s| s.name == engine)
            .ok_or_else(|| format!("--engine-option '{text}': no engine named '{engine}'"))?;
        spec.options.push((name.to_string(), value.to_string()));
    }
    Ok(specs)
}

/// A random token of 128 bits, in hex.
fn new_token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

pub fn run(args: &GuiArgs) -> Result<(), String> {
    let specs = engine_specs(args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's threads: {e}"))?;
    runtime.block_on(serve(args, specs))
}

async fn serve(args: &GuiArgs, specs: Vec<EngineSpec>) -> Result<(), String> {
    let addr = SocketAddr::new(args.listen, args.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the listening address: {e}"))?;
    if !args.listen.is_loopback() {
        log::warn!("listening on {local}: other machines can reach the page (with the token)");
    }
    let token = new_token();
    let app = App::new(Engines { specs });
    let server = server::Server {
        app: app.clone(),
        token: token.clone(),
        hosts: std::sync::Arc::new(hosts::AllowedHosts::new(
            args.listen,
            local.port(),
            &args.allow_hosts,
        )),
    };
    let url = server::page_url(
        if local.ip().is_unspecified() {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), local.port())
        } else {
            local
        },
        &token,
    );
    println!("{url}");
    eprintln!("minishogi board at {url} (Ctrl-C to stop)");
    if !args.no_open
        && let Err(e) = webbrowser::open(&url)
    {
        eprintln!("cannot open a browser ({e}); open the address above");
    }
    // The clocks: a side past its time loses, whether or not anyone asks.
    tokio::spawn({
        let app = app.clone();
        async move {
            let mut ticks = tokio::time::interval(Duration::from_millis(50));
            loop {
                ticks.tick().await;
                app.tick();
            }
        }
    });
    axum::serve(listener, server::router(server))
        .await
        .map_err(|e| format!("server: {e}"))
}
