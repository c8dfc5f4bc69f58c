//! A session's digest from its local event log on disk: the records after the window's start fed
//! to a [`DigestBuilder`], read as they are (never repaired: the app may be appending).

use super::builder::{DigestBuilder, Window};
use crate::store::event_log::{self, EventLogFiles};

/// The log's records fed to a new builder for session `session_id` (see
/// [`DigestBuilder::new`]). A log that does not exist is an empty one.
pub fn digest_builder_from_event_log(
    files: &EventLogFiles,
    session_id: &str,
    window: Window,
    since_ms: i64,
) -> std::io::Result<DigestBuilder> {
    let loaded = event_log::read(files)?;
    let mut builder = DigestBuilder::new(session_id, window, since_ms, false);
    for (seq, json) in loaded.records() {
        builder.feed_raw(seq, json);
    }
    Ok(builder)
}
