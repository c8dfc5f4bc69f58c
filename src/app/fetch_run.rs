//! The background reads behind [`FetchJob`]: one spawned task per job, reporting through the
//! app's channel.

use super::fetch::FetchJob;
use super::msg::AppMsg;
use crate::session::Update;
use crate::session::workspace::SandboxUsage;
use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::error::ApiError;
use gobare_api::model::Turn;
use gobare_api::paging::{PageLimits, Pager, Step};
use tokio::sync::mpsc::UnboundedSender;

/// Turns listed for the Turn pane (the current one and the last few).
const RECENT_TURNS: u32 = 5;
/// Items backfilled when resuming from a stored cursor (the recent part of the transcript).
const RECENT_ITEMS: u32 = 100;

/// Older turns read at most for the separators: 2,000 turns.
const PAST_TURNS: PageLimits = PageLimits {
    pages: 20,
    items: 2_000,
};

pub(crate) fn spawn(
    client: &ApiClient,
    session_id: &str,
    job: FetchJob,
    tx: UnboundedSender<AppMsg>,
) {
    let client = client.clone();
    let id = session_id.to_string();
    tokio::spawn(async move {
        let result = run(&client, &id, &job).await;
        let _ = tx.send(AppMsg::Fetched {
            job,
            result: Box::new(result),
        });
    });
}

async fn run(client: &ApiClient, id: &str, job: &FetchJob) -> Result<Update, ApiError> {
    Ok(match job {
        FetchJob::Session => Update::Session(Box::new(client.get_session(id).await?)),
        FetchJob::Turns => {
            let page = Page::ordered(Order::Desc).with_limit(RECENT_TURNS);
            Update::Turns(client.list_turns(id, &page).await?.data)
        }
        FetchJob::Turn(turn) => Update::Turn(client.get_turn(id, turn).await?),
        FetchJob::PastTurns { since_ms } => {
            Update::PastTurns(past_turns(client, id, *since_ms).await?)
        }
        FetchJob::Items => {
            let page = Page::ordered(Order::Desc).with_limit(RECENT_ITEMS);
            let mut items = client.list_items(id, &page).await?.data;
            items.reverse(); // oldest first, as the transcript reads
            Update::Items(items)
        }
        FetchJob::Artifacts => {
            let page = Page::ordered(Order::Desc).with_limit(100);
            let mut list = client.list_artifacts(id, &page, None).await?.data;
            list.reverse();
            Update::Artifacts(list)
        }
        FetchJob::Usage { crew_root } => {
            let session = client.get_usage(id, false).await?;
            // A crew of one is the session itself: not worth a second line. The session's
            // own figures stand even when the crew's cannot be read (a deleted parent).
            let crew = match client.get_usage(crew_root, true).await {
                Ok(crew) => (crew.sessions > 1).then_some(crew),
                Err(e) => {
                    tracing::debug!(error = %e, "crew usage not read");
                    None
                }
            };
            Update::Usage(SandboxUsage { session, crew })
        }
    })
}

/// Turns newest first, back to the first one created before `since_ms` (a turn is created
/// before it ends), or as far as [`PAST_TURNS`] go.
async fn past_turns(client: &ApiClient, id: &str, since_ms: i64) -> Result<Vec<Turn>, ApiError> {
    let mut turns = Vec::new();
    let mut page = Page::ordered(Order::Desc).with_limit(100);
    let mut pager = Pager::new(PAST_TURNS);
    loop {
        let mut list = client.list_turns(id, &page).await?;
        list.data.truncate(pager.room(list.data.len()));
        let reached = list.data.iter().any(|t| t.created_at < since_ms);
        let count = list.data.len();
        turns.extend(list.data);
        match pager.step(count, list.has_more && !reached, list.last_id.as_deref()) {
            Step::Next(last) => page = page.after(last),
            Step::Done | Step::Cut(_) => return Ok(turns),
        }
    }
}
