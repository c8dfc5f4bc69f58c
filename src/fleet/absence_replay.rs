//! After a restart, the fleet's digest of the absence from the org stream replayed from the
//! cursor the fleet kept when it was last seen: one stream, read until it reaches the
//! moment the fleet opened (what follows the fleet sees live), then the latest turns of a
//! few sessions that failed, for their reasons. A handful of requests whatever the
//! fleet's size; nothing per session that merely moved.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::model::{EventPayload, SessionStatus};
use gobare_api::stream::{self, ConnectionState, StreamOptions, StreamUpdate};
use tokio::time::Instant;

use super::model::FleetModel;
use crate::away::fleet_record::AbsenceRecord;

/// A replay this quiet has caught up (an organization with nothing newer says nothing).
const QUIET: Duration = Duration::from_secs(2);
/// The longest a replay is read: past it the digest says what it has.
const LONGEST: Duration = Duration::from_secs(60);
/// Failed sessions whose latest turns are read for the reason.
const FAILED_READ: usize = 4;
/// Turns read of each: the failed one is among the newest.
const TURNS_READ: u32 = 5;

/// Where an absence's replay starts and ends.
pub(crate) struct Replay {
    pub(crate) since_ms: i64,
    pub(crate) cursor: u64,
    /// When the fleet opened (Unix ms): what is newer it sees live.
    pub(crate) until_ms: i64,
}

/// The absence since `replay.since_ms`, from the org stream after `replay.cursor`.
pub(crate) async fn replay(
    client: ApiClient,
    mut options: StreamOptions,
    model: Arc<Mutex<FleetModel>>,
    replay: Replay,
) -> AbsenceRecord {
    let mut record = AbsenceRecord::new(replay.since_ms);
    options.from = Some(replay.cursor);
    options.keep_data = false;
    let mut handle = stream::spawn(options);
    let deadline = Instant::now() + LONGEST;
    loop {
        let wait = (Instant::now() + QUIET).min(deadline);
        let Ok(Some(update)) = tokio::time::timeout_at(wait, handle.updates.recv()).await else {
            break;
        };
        match update {
            StreamUpdate::Frame(frame) => {
                let Ok(event) = &frame.event else { continue };
                if let EventPayload::ReplayTruncated(_) = &event.payload {
                    tracing::warn!("the absence's replay was cut short: the digest is partial");
                    break;
                }
                if event.created_at.is_some_and(|at| at >= replay.until_ms) {
                    break;
                }
                record.feed(event);
            }
            StreamUpdate::State(ConnectionState::Failed { .. }) => break,
            _ => {}
        }
    }
    drop(handle);
    // Why the sessions that failed failed: their newest turns, a few sessions at most.
    let failed: Vec<String> = {
        let model = model.lock().unwrap_or_else(|p| p.into_inner());
        record
            .ended_in(|id| model.get(id).is_some_and(|r| r.status == SessionStatus::Failed))
            .into_iter()
            .take(FAILED_READ)
            .collect()
    };
    for id in failed {
        let page = Page::ordered(Order::Desc).with_limit(TURNS_READ);
        match client.list_turns(&id, &page).await {
            Ok(turns) => record.turns_read(&id, &turns.data),
            Err(e) => tracing::warn!(error = %e, "the digest could not read a failed turn"),
        }
    }
    record
}
