//! `gobare-tui demo`: the built-in control plane on a free loopback port, a session running
//! the long scenario, and the UI attached to it — no token, no network.
//!
//! The simulator keeps its sessions in the user's data directory (`gobare-tui/demo`), so
//! running `demo` again reopens the earlier demo session where it stood (a turn that was
//! running when it quit ended failed); `--fresh` starts over. A second demo at the same
//! time finds that directory locked and runs on a store of its own that goes with it.

use std::path::PathBuf;

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
    let kept = SimConfig {
        data_dir: Some(dir.clone()),
        fresh_data: fresh,
        ..base.clone()
    };
    match Simulator::start(kept).await {
        Ok(sim) => Ok((sim, None)),
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

/// The demo session in the app, with the fleet behind Ctrl+O as with a real server. What
/// the app keeps (cursor, draft, local event log) goes to a directory removed at the end;
/// the sessions are the simulator's to keep.
async fn attach(
    config: &Config,
    sim: &Simulator,
    notice: Option<String>,
) -> color_eyre::Result<()> {
    let state = tempfile::Builder::new()
        .prefix("gobare-tui-demo-")
        .tempdir()?;
    let mut demo = config.for_local_demo(
        sim.url(),
        Token::new(sim.token()),
        state.path().to_path_buf(),
        sim.keeps_data(),
    );
    demo.warnings.extend(notice);
    // The earlier demo's session where it stood, else a new one with its first message.
    let start = match sim.session_ids().pop() {
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
