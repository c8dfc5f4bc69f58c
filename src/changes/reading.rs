//! A session's file changes read from its history: the replay from seq 0 up to the
//! session's current end (as `export` reads it), fed to [`SessionChanges`], then the files
//! whose last change carried no usable diff filled from the workspace's snapshot where
//! that can be told. Shared by `gobare-tui diff` and the changes view.

use super::session_changes::{Range, SessionChanges};
use crate::export::history::{self, Ends};
use crate::export::run;
use color_eyre::eyre::Result;
use gobare_api::client::ApiClient;
use gobare_api::stream::{self, StreamOptions};
use gobare_api::text;

/// Reads `session_id`'s history into the changes of `range`; warnings (an unreadable
/// event, a path left out, a snapshot that could not fill a file) go to `warn`.
/// `refresh` takes a new snapshot first when one is needed (it wakes a paused workspace).
pub(crate) async fn read(
    client: &ApiClient,
    options: StreamOptions,
    session_id: &str,
    range: Range,
    refresh: bool,
    mut warn: impl FnMut(String),
) -> Result<SessionChanges> {
    let mut handle = stream::spawn(run::stream_options(options, session_id));
    let (session, newest_turn) = tokio::join!(
        run::read_session(client, session_id),
        run::newest_turn_started(client, session_id)
    );
    let session = session?;
    let mut changes = SessionChanges::new(range);
    let read = history::read(
        &mut handle.updates,
        Ends::for_session(Some(&session)).reaching(newest_turn),
        |mut frame| {
            frame.decode_in_place();
            if let Ok(event) = &frame.event {
                changes.feed(event);
            }
            Ok(())
        },
        |w: &str| warn(w.to_string()),
    )
    .await?;
    drop(handle);
    tracing::info!(
        events = read.events,
        file_events = changes.events,
        "history read for its changes"
    );
    for (path, why) in &changes.refused {
        warn(format!(
            "left out {}: {why}",
            text::one_line(&format!("{path:?}"), 200)
        ));
    }
    fill_from_snapshot(client, session_id, &mut changes, refresh, &mut warn).await;
    Ok(changes)
}

/// Files whose last change carried no usable diff take the workspace's snapshot as
/// their content after it, when the snapshot is newer than that change.
async fn fill_from_snapshot(
    client: &ApiClient,
    session_id: &str,
    changes: &mut SessionChanges,
    refresh: bool,
    warn: &mut impl FnMut(String),
) {
    let fillable = changes.fillable();
    if refresh
        && !fillable.is_empty()
        && let Err(e) = client.refresh_files(session_id).await
    {
        warn(format!(
            "cannot refresh the workspace's snapshot: {}",
            text::one_line(&e.to_string(), 200)
        ));
    }
    let hint = if refresh {
        ""
    } else {
        " (--refresh takes a new one)"
    };
    for (path, changed_at) in fillable {
        let shown = text::one_line(&path, 200);
        match client.file_content(session_id, &path).await {
            Ok(file) if file.truncated => warn(format!(
                "the snapshot of {shown} is cut short: it cannot fill its change"
            )),
            Ok(file) if file.encoding.as_deref().is_some_and(|e| e != "utf8") => warn(format!(
                "the snapshot of {shown} is not text: it cannot fill its change"
            )),
            Ok(file)
                if file
                    .captured_at
                    .zip(changed_at)
                    .is_some_and(|(snap, at)| snap >= at) =>
            {
                changes.fill(&path, &file.content);
            }
            Ok(_) => warn(format!(
                "the workspace's snapshot of {shown} is older than its last change{hint}"
            )),
            Err(e) => warn(format!(
                "cannot read {shown} from the workspace's snapshot: {}{hint}",
                text::one_line(&e.to_string(), 200)
            )),
        }
    }
}
