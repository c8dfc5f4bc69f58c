//! History retention: past `SimConfig::retention_events` the oldest events go, and with
//! them the items, turns and artifacts kept for that history, so the store stops growing
//! once the bound is reached. Pruning runs in small steps on a task of its own, letting go
//! of the lock between steps: no write and no request waits for more than one step.

mod prune;

use std::time::{Duration, Instant};

use crate::db::Db;
use crate::state::{Shared, SimState};

/// Events dropped per step, and items or turns of their history; fewer artifacts, which
/// carry their bytes. A step holds the lock for about a millisecond: a request arriving
/// during one waits no longer than that.
pub(crate) const EVENTS_PER_STEP: u64 = 100;
const ROWS_PER_STEP: usize = 100;
const ARTIFACTS_PER_STEP: usize = 10;

/// The shortest pause between steps: waiting requests get the lock first.
const LEAST_PAUSE: Duration = Duration::from_micros(200);

impl Db {
    /// One retention step; returns whether more remains to prune.
    pub(crate) fn prune_step(&mut self) -> bool {
        let began = self.store().begin();
        let more = self.prune_step_inner();
        if began {
            self.store().commit();
        }
        more.unwrap_or_else(|e| {
            tracing::error!("retention stopped: {e}");
            false
        })
    }

    fn prune_step_inner(&mut self) -> rusqlite::Result<bool> {
        let excess = self.event_count.saturating_sub(self.retention);
        let (dropped, through) = self
            .store()
            .drop_oldest_events(excess.min(EVENTS_PER_STEP))?;
        self.event_count = self.event_count.saturating_sub(dropped);
        if let Some(through) = through {
            self.pruned_through = self.pruned_through.max(through);
        }
        let through = self.pruned_through;
        if through == 0 {
            // Nothing pruned yet: what was published before the first event (seq 0) stays.
            return Ok(false);
        }
        let items = self.store().drop_items_through(through, ROWS_PER_STEP)?;
        let artifacts = self
            .store()
            .drop_artifacts_through(through, ARTIFACTS_PER_STEP)?;
        let turns = self.store().drop_turns_through(through, ROWS_PER_STEP)?;
        let turns_dropped = turns.len();
        for (session_id, ord) in turns {
            if let Some(rec) = self.sessions.get_mut(&session_id) {
                rec.pruned_turns = rec.pruned_turns.max(ord + 1);
            }
        }
        Ok(self.event_count > self.retention
            || items == ROWS_PER_STEP
            || artifacts == ARTIFACTS_PER_STEP
            || turns_dropped == ROWS_PER_STEP)
    }
}

/// Prunes until nothing is past the bound, step by step: the lock is let go between steps,
/// and held again only after a pause as long as the step took.
pub(crate) fn prune_all(state: &SimState) {
    loop {
        let started = Instant::now();
        if !state.db().prune_step() {
            return;
        }
        std::thread::sleep(started.elapsed().max(LEAST_PAUSE));
    }
}

/// Prunes every `SimConfig::retention_every` until the simulator stops.
pub(crate) async fn keep_pruning(state: Shared) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(state.config.retention_every) => {
                // Pruning blocks on the database: off the runtime's workers.
                let pruning = state.clone();
                let _ = tokio::task::spawn_blocking(move || prune_all(&pruning)).await;
            }
            _ = state.shutdown.cancelled() => return,
        }
    }
}
