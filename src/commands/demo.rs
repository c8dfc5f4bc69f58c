//! `gobare-tui demo`: the built-in control plane on a free loopback port, a session running
//! the long scenario, and the UI attached to it — no token, no network.

use super::launch;
use crate::config::Config;
use gobare_api::auth::Token;
use gobare_sim::{SimConfig, Simulator};

/// The first message: the simulator's agent answers it with the long scenario.
const FIRST_MESSAGE: &str =
    "Refactor the storage layer behind a Storage trait and migrate every module to it. #long";
/// A little faster than real time, so something happens every few seconds.
const SPEED: f64 = 1.5;

pub(crate) async fn run(config: Config) -> color_eyre::Result<()> {
    let sim = Simulator::start(SimConfig {
        speed: SPEED,
        scenario: "long".into(),
        ..SimConfig::default()
    })
    .await?;
    let result = attach(&config, &sim).await;
    sim.shutdown().await;
    result
}

/// The demo session in the app, with the fleet behind Ctrl+O as with a real server. What
/// the app keeps (cursor, draft, local event log) goes to a directory removed at the end:
/// the demo's server and its sessions end with it.
async fn attach(config: &Config, sim: &Simulator) -> color_eyre::Result<()> {
    let state = tempfile::Builder::new()
        .prefix("gobare-tui-demo-")
        .tempdir()?;
    let demo = config.for_local_demo(
        sim.url(),
        Token::new(sim.token()),
        state.path().to_path_buf(),
    );
    let session_id = sim.create_session(Some("demo: storage refactor"));
    let mut options = launch::options(&demo, &session_id)?;
    options.first_message = Some(FIRST_MESSAGE.into());
    super::fleet::run_app(demo, options).await
}
