//! `gobare-tui demo`: the built-in control plane on a free loopback port, a session running
//! the long scenario, and the UI attached to it — no token, no network.
//!
//! The simulator keeps its sessions in the user's data directory (`gobare-tui/demo`), and the
//! app keeps what it remembers of them there too (`demo/app`: draft, sent history, cursor,
//! local event log, when you last looked), on the same port as last time when it is free, so
//! running `demo` again reopens the earlier demo session where it stood, as a restart does
//! with a real server (a turn that was running when it quit ended failed); `--fresh` starts
//! over. A second demo at the same time finds that directory locked and runs on a store of
//! its own that goes with it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crate::app::runtime::{self, Start};
use crate::config::Config;
use gobare_api::auth::Token;
use gobare_sim::{SimConfig, Simulator};

/// The first message: the simulator's agent answers it with the long scenario.
const FIRST_MESSAGE: &str =
    "Refactor the storage layer behind a Storage trait and migrate every module to it. #long";
/// A little faster than real time, so something happens every few seconds.
const SPEED: f64 = 1.5;
/// The demo session's title.
const TITLE: &str = "demo: storage refactor";

/// Where the demo keeps its sessions: `$XDG_DATA_HOME/gobare-tui/demo`.
fn data_dir() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|d| d.data_dir().join("gobare-tui").join("demo"))
}

/// The app's own state for the kept demo, inside the simulator's locked directory: what a
/// restart shows is the earlier demo's, and never mixes with a real server's state.
fn app_state_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("app")
}

/// The port the kept demo listened on last (the app's state is filed under its address).
fn port_file(data_dir: &Path) -> PathBuf {
    data_dir.join("port")
}

fn last_port(data_dir: &Path) -> u16 {
    gobare_sim::read_private_file(&port_file(data_dir), 16)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

pub(crate) async fn run(config: Config, fresh: bool) -> color_eyre::Result<()> {
    let (sim, notice) = start(fresh).await?;
    if let Some(notice) = &notice {
        eprintln!("gobare-tui: {notice}");
    }
    let result = attach(&config, &sim, notice).await;
    sim.shutdown().await;
    result
}

/// The demo's simulator on its kept store, or on a throwaway one (and why) when that is
/// taken or there is no data directory.
async fn start(fresh: bool) -> color_eyre::Result<(Simulator, Option<String>)> {
    let base = SimConfig {
        speed: SPEED,
        scenario: "long".into(),
        ..SimConfig::default()
    };
    let Some(dir) = data_dir() else {
        let sim = Simulator::start(base).await?;
        return Ok((
            sim,
            Some("no data directory: this demo keeps nothing".into()),
        ));
    };
    let kept = |port: u16| SimConfig {
        data_dir: Some(dir.clone()),
        fresh_data: fresh,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        ..base.clone()
    };
    let port = if fresh { 0 } else { last_port(&dir) };
    let started = match Simulator::start(kept(port)).await {
        // Last time's port is taken now: any other (the app's state then starts afresh).
        Err(e) if port != 0 && e.kind() == std::io::ErrorKind::AddrInUse => {
            Simulator::start(kept(0)).await
        }
        other => other,
    };
    match started {
        Ok(sim) => {
            keep_app_state(&dir, &sim, fresh);
            Ok((sim, None))
        }
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
            let sim = Simulator::start(base).await?;
            let notice = format!(
                "another demo uses {}: this one starts fresh and keeps nothing",
                dir.display()
            );
            Ok((sim, Some(notice)))
        }
        Err(e) => Err(e.into()),
    }
}

/// With the kept store locked: `--fresh` forgets the app's state with the sessions, and the
/// port is written down for the next run. Failing either only costs the next run its screen.
fn keep_app_state(dir: &Path, sim: &Simulator, fresh: bool) {
    if fresh
        && let Err(e) = std::fs::remove_dir_all(app_state_dir(dir))
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!("cannot forget the earlier demo's app state: {e}");
    }
    let port = sim.addr().port().to_string();
    if let Err(e) = gobare_sim::write_private_file(&port_file(dir), port.as_bytes()) {
        tracing::warn!("cannot note the demo's port: {e}");
    }
}

/// The demo session in the app, with the fleet behind Ctrl+O as with a real server. What
/// the app keeps (cursor, draft, local event log) is kept beside the sessions when the
/// simulator keeps them, else it goes to a directory removed at the end.
async fn attach(
    config: &Config,
    sim: &Simulator,
    notice: Option<String>,
) -> color_eyre::Result<()> {
    let throwaway;
    let state_dir = match data_dir().filter(|_| sim.keeps_data()) {
        Some(dir) => app_state_dir(&dir),
        None => {
            throwaway = tempfile::Builder::new()
                .prefix("gobare-tui-demo-")
                .tempdir()?;
            throwaway.path().to_path_buf()
        }
    };
    let mut demo = config.for_local_demo(
        sim.url(),
        Token::new(sim.token()),
        state_dir,
        sim.keeps_data(),
    );
    demo.warnings.extend(notice);
    // The session looked at last where it stood (opened from the fleet or not), else the
    // earlier demo's newest, else a new one with its first message.
    let kept = sim.session_ids();
    let looked_at = crate::store::StateStore::open(&demo.state_dir, &demo.api)
        .ok()
        .and_then(|store| store.last_session())
        .filter(|id| kept.contains(id));
    let start = match looked_at.or_else(|| kept.last().cloned()) {
        Some(id) => Start::Session {
            id,
            first_message: None,
        },
        None => Start::Session {
            id: sim.create_session(Some(TITLE)),
            first_message: Some(FIRST_MESSAGE.into()),
        },
    };
    runtime::run(demo, start).await
}
