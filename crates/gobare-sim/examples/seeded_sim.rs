//! A simulator holding one session with N seeded persisted events (default 200,000), all
//! replayable, until killed: the server of `scripts/perf/fast_replay.py` and of by-hand
//! `farm-bench` runs. Prints one line: `API TOKEN SESSION_ID LAST_SEQ`.
//!
//! `cargo run --release -p gobare-sim --example seeded_sim -- 200000`

use gobare_sim::{SimConfig, Simulator};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let events: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200_000);
    let config = SimConfig {
        replay_cap: events + 1_000,
        ..SimConfig::for_tests()
    };
    let sim = Simulator::start(config).await?;
    let id = sim.create_session(Some("perf"));
    sim.seed_events(&id, events);
    println!("{} {} {id} {}", sim.url(), sim.token(), sim.last_seq());
    std::future::pending::<()>().await;
    Ok(())
}
