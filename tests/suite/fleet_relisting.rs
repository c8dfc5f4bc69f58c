//! The fleet under a busy organization, on tokio's paused clock: rows follow the org
//! stream's events, and the whole list is read at the start and then once per relisting
//! period (minutes), never because turns end — at 10,000 sessions a list is 100 pages.

use crate::support::actions::{Rig, WAIT};
use gobare_api::auth::Token;
use gobare_api::model::SessionStatus;
use gobare_api::stream::{StreamOptions, StreamTarget};
use gobare_sim::SimConfig;
use gobare_tui::app::fleet::live::{FleetLive, FleetSource};
use std::time::Duration;

/// Pages of the whole list the simulator answered so far.
fn lists(rig: &Rig) -> usize {
    rig.sim
        .request_counts()
        .get("GET /v1/sessions")
        .copied()
        .unwrap_or(0)
}

#[tokio::test(start_paused = true)]
async fn a_busy_org_stream_moves_the_rows_without_listing_the_org_again() {
    // About 30 turns end a second: more than the single reads a round makes.
    let rig = Rig::start(SimConfig {
        fleet_activity: 400,
        ..SimConfig::for_tests().with_fleet(200)
    })
    .await;
    let fleet = FleetLive::start(FleetSource {
        client: (*rig.client).clone(),
        stream: StreamOptions {
            api: rig.sim.url(),
            token: Token::new(rig.sim.token()),
            target: StreamTarget::Org { root: None },
            ..StreamOptions::default()
        },
        root: None,
        store: Some(rig.store()),
        poll_every: Duration::from_secs(10),
        reads_per_minute: gobare_tui::app::fleet::details::READS_PER_MINUTE,
    });
    tokio::time::timeout(WAIT, async {
        loop {
            let changed = fleet.changed();
            if fleet.model().is_loaded() && fleet.model().len() >= 200 {
                return;
            }
            changed.await;
        }
    })
    .await
    .expect("the fleet listed");
    let listed_at_start = lists(&rig);
    let seq_at_start = rig.sim.last_seq();

    // Ninety virtual seconds of a busy org.
    tokio::time::sleep(Duration::from_secs(90)).await;

    let events = rig.sim.last_seq() - seq_at_start;
    let relisted = lists(&rig) - listed_at_start;
    eprintln!("a busy org: {events} events in 90 s, {relisted} lists after the first");
    assert!(events > 10_000, "the org was busy: {events} events");
    assert_eq!(relisted, 0, "no list before the relisting period");
    {
        let model = fleet.model();
        let artifacts: u32 = model.rows().map(|r| r.artifacts).sum();
        assert!(artifacts > 0, "rows follow the stream's events");
        assert!(
            model.rows().any(|r| r.status != SessionStatus::Idle),
            "some rows are running turns"
        );
    }
    drop(fleet);
    rig.sim.shutdown().await;
}
