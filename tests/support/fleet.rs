//! The simulator's fleet, waited on through the API as a client sees it.

use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions, Page};
use gobare_sim::Simulator;
use std::time::Duration;

/// How long the fleet's first block may take to settle under a loaded machine.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(40);

/// Until the fleet's first block has settled: [lead, approval, question, quick, error,
/// function call]: the approval, question and function call waiting, the quick one idle
/// and the error one failed. The fleet's session ids, in that order.
pub(crate) async fn settled_fleet(sim: &Simulator) -> Vec<String> {
    let fleet = sim.fleet();
    let client = ApiClient::new(ClientOptions::new(sim.url(), Token::new(sim.token()))).unwrap();
    let expected = [
        (1, "requires_action"),
        (2, "requires_action"),
        (3, "idle"),
        (4, "failed"),
        (5, "requires_action"),
    ];
    let deadline = tokio::time::Instant::now() + SETTLE_TIMEOUT;
    loop {
        let sessions = client
            .list_sessions(&Page::default().with_limit(100))
            .await
            .unwrap()
            .data;
        let status = |i: usize| {
            sessions
                .iter()
                .find(|s| s.id == fleet[i])
                .map(|s| s.status.as_str().to_string())
        };
        if expected
            .iter()
            .all(|(i, st)| status(*i).as_deref() == Some(*st))
        {
            return fleet;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "fleet never settled"
        );
        // The simulator's agents run on their own clock: this polls what a client would.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
