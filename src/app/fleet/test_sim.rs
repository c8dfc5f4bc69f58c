//! What the fleet front's tests against the simulator share: waiting on the server's answer
//! and counting what was asked of it.

use gobare_sim::Simulator;
use std::time::Duration;

/// Asks the server until `done` holds of what `read` answers (each try a request).
pub(super) async fn until<T>(
    what: &str,
    mut read: impl AsyncFnMut() -> T,
    done: impl Fn(&T) -> bool,
) {
    for _ in 0..6_000 {
        if done(&read().await) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{what} never happened");
}

/// Every request the simulator has answered.
pub(super) fn requests(sim: &Simulator) -> usize {
    sim.request_counts().values().sum()
}
