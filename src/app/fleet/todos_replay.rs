//! The todo list of a turn that began before the fleet opened, read back from the session's
//! own replay: no resource holds `agent.todos` (not turns, not items), and the org stream
//! shows only what happens after it opened.
//!
//! One bounded replay at a time (the detail reader's pace): it stops at the first event the
//! org stream already covers, when the replay goes quiet, or past [`MAX_EVENTS`], and gives
//! up rather than guess when the stream is refused or cut.

use std::time::Duration;

use gobare_api::model::EventPayload;

pub use crate::fleet::reads::TodosFound;
use gobare_api::stream::{self, ConnectionState, StreamOptions, StreamTarget, StreamUpdate};

/// Events read of one replay at most: past it the row keeps no todo count rather than read
/// a long session whole.
pub const MAX_EVENTS: usize = 20_000;
/// A replay that sends nothing for this long has ended (the session is quiet now).
pub const QUIET: Duration = Duration::from_secs(2);
/// The replay's share of memory while the fleet reads it.
const QUEUED_BYTES: usize = 4 << 20;

/// Replays session `id` from its start, up to `covered_from` (Unix ms: the org stream has
/// every event from then on), with `template`'s address and token.
pub async fn read(template: &StreamOptions, id: &str, covered_from: i64) -> TodosFound {
    let options = StreamOptions {
        target: StreamTarget::Session(id.to_string()),
        from: Some(0),
        profile: gobare_api::stream::StreamProfile::EVENTS_ONLY,
        max_queued_bytes: QUEUED_BYTES,
        replay_if_dropped_before_first_event: false,
        class: gobare_api::schedule::RequestClass::Background,
        ..template.clone()
    };
    let mut handle = stream::spawn(options);
    let mut todos = TodosFound::None;
    let mut read = 0usize;
    loop {
        let update = match tokio::time::timeout(QUIET, handle.updates.recv()).await {
            Ok(Some(update)) => update,
            // Quiet: the replay is over and nothing newer came.
            Err(_) if read > 0 => return todos,
            Ok(None) | Err(_) => return TodosFound::Unknown,
        };
        match update {
            StreamUpdate::Frame(frame) => {
                if frame.id.is_none() {
                    continue;
                }
                read += 1;
                if read > MAX_EVENTS {
                    return TodosFound::Unknown;
                }
                if frame.created_at.is_some_and(|at| at >= covered_from) {
                    return todos;
                }
                let Ok(event) = frame.event else { continue };
                match &event.payload {
                    EventPayload::TurnStarted(_) => todos = TodosFound::None,
                    EventPayload::AgentTodos(list) => {
                        let total = list.items.len() as u32;
                        let done = list.items.iter().filter(|t| t.status == "done").count();
                        todos = TodosFound::List(done as u32, total);
                    }
                    _ => {}
                }
            }
            StreamUpdate::State(
                ConnectionState::Retrying { .. } | ConnectionState::Failed { .. },
            ) => {
                return TodosFound::Unknown;
            }
            _ => {}
        }
    }
}
