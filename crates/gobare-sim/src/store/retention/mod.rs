//! History retention: past `SimConfig::retention_events` the oldest events go, and with
//! them the items, turns and artifacts kept for that history, so the store stops growing
//! once the bound is reached. A busy writer that is no request (the fleet's activity)
//! prunes as much as it adds inside its own transaction, under the lock it holds anyway:
//! no lock taken and no commit made for it. What remains is pruned in small steps on a
//! task of its own, letting go of the lock between steps: no write and no request waits
//! for more than one step.

mod prune;

use std::time::{Duration, Instant};

use crate::db::Db;
use crate::state::{Shared, SimState};

/// How much one step may drop: events, and items or turns of their history; fewer
/// artifacts, which carry their bytes.
#[derive(Clone, Copy)]
struct StepBound {
    events: u64,
    rows: usize,
    artifacts: usize,
}

/// The task's step: it holds the lock for about a millisecond, so a request arriving
/// during one waits no longer than that.
const STEP: StepBound = StepBound {
    events: 100,
    rows: 100,
    artifacts: 10,
};

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

    /// Inside a batch that added `added` events: drops as many of the oldest as are past
    /// the bound, up to `added`, and as many items and turns (an artifact for every ten),
    /// in the batch's own transaction.
    pub(crate) fn prune_alongside(&mut self, added: usize) {
        if added == 0 || self.event_count <= self.retention {
            return;
        }
        let bound = StepBound {
            events: added as u64,
            rows: added,
            artifacts: added.div_ceil(10),
        };
        if let Err(e) = self.prune_within(bound) {
            tracing::error!("retention beside a write: {e}");
        }
    }

    fn prune_step_inner(&mut self) -> rusqlite::Result<bool> {
        self.prune_within(STEP)
    }

    /// Drops what `bound` allows; returns whether more remains past the bound.
    fn prune_within(&mut self, bound: StepBound) -> rusqlite::Result<bool> {
        let excess = self.event_count.saturating_sub(self.retention);
        let (dropped, through) = self.store().drop_oldest_events(excess.min(bound.events))?;
        self.event_count = self.event_count.saturating_sub(dropped);
        if let Some(through) = through {
            self.pruned_through = self.pruned_through.max(through);
        }
        let through = self.pruned_through;
        if through == 0 {
            // Nothing pruned yet: what was published before the first event (seq 0) stays.
            return Ok(false);
        }
        let items = self.store().drop_items_through(through, bound.rows)?;
        let artifacts = self
            .store()
            .drop_artifacts_through(through, bound.artifacts)?;
        let turns = self.store().drop_turns_through(through, bound.rows)?;
        let turns_dropped = turns.len();
        for (session_id, ord) in turns {
            if let Some(rec) = self.sessions.get_mut(&session_id) {
                rec.pruned_turns = rec.pruned_turns.max(ord + 1);
            }
        }
        Ok(self.event_count > self.retention
            || items == bound.rows
            || artifacts == bound.artifacts
            || turns_dropped == bound.rows)
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
