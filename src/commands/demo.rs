//! `gobare-tui demo`: the built-in control plane on a free loopback port, a session running
//! the long scenario, and the UI attached to it — no token, no network.

use crate::app::{self, AppOptions};
use crate::config::Config;
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions};
use gobare_api::stream::{StreamOptions, StreamTarget};
use gobare_sim::{SimConfig, Simulator};

/// The first message: the simulator's agent answers it with the long scenario.
const FIRST_MESSAGE: &str =
    "Refactor the storage layer behind a Storage trait and migrate every module to it. #long";
/// A little faster than real time, so something happens every few seconds.
const SPEED: f64 = 1.5;

pub(crate) async fn run(config: Config) -> color_eyre::Result<()> {
    let _ = config; // the demo talks to its own server only
    let sim = Simulator::start(SimConfig {
        speed: SPEED,
        scenario: "long".into(),
        ..SimConfig::default()
    })
    .await?;
    let result = attach(&sim).await;
    sim.shutdown().await;
    result
}

async fn attach(sim: &Simulator) -> color_eyre::Result<()> {
    let token = Token::new(sim.token());
    let client = ApiClient::new(ClientOptions::new(sim.url(), token.clone()))?;
    let session_id = sim.create_session(Some("demo: storage refactor"));
    let stream = StreamOptions {
        api: sim.url(),
        token,
        target: StreamTarget::Session(session_id.clone()),
        ..StreamOptions::default()
    };
    let mut options = AppOptions::new(client, stream, session_id);
    options.local_demo = true;
    options.first_message = Some(FIRST_MESSAGE.into());
    app::run(options).await
}
