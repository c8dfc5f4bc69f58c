//! The background reads behind [`FetchJob`]: one spawned task per job, reporting through the
//! app's channel.

use super::fetch::FetchJob;
use crate::app::session::msg::AppMsg;
use crate::session::Update;
use crate::session::workspace::SandboxUsage;
use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::error::ApiError;
use gobare_api::model::Turn;
use tokio::sync::mpsc::UnboundedSender;

/// Turns a page holds: the newest page says how the turns on the first screen ended.
pub(crate) const TURNS_PAGE: u32 = 100;
/// Items backfilled when resuming from a stored cursor (the recent part of the transcript).
const RECENT_ITEMS: u32 = 100;

pub(crate) fn spawn(
    client: &ApiClient,
    session_id: &str,
    job: FetchJob,
    tx: UnboundedSender<AppMsg>,
) {
    let kind = crate::app::shared::jobs::Job::SessionRead {
        background: job.is_background(),
    };
    let client = kind.client(client);
    let id = session_id.to_string();
    crate::app::shared::jobs::spawn(kind, async move {
        let (result, more_after) = match run(&client, &id, &job).await {
            Ok((update, more_after)) => (Ok(update), more_after),
            Err(e) => (Err(e), None),
        };
        let _ = tx.send(AppMsg::Fetched {
            job,
            result: Box::new(result),
            more_after,
        });
    });
}

/// The update, and for a page of turns the cursor of the next (older) one when the server
/// has more.
async fn run(
    client: &ApiClient,
    id: &str,
    job: &FetchJob,
) -> Result<(Update, Option<String>), ApiError> {
    let update = match job {
        FetchJob::Turns => {
            let (turns, more_after) = turns_page(client, id, None).await?;
            return Ok((Update::Turns(turns), more_after));
        }
        FetchJob::PastTurns { after } => {
            let (turns, more_after) = turns_page(client, id, Some(after)).await?;
            return Ok((Update::PastTurns(turns), more_after));
        }
        FetchJob::Session => Update::Session(Box::new(client.get_session(id).await?)),
        FetchJob::Turn(turn) => Update::Turn(client.get_turn(id, turn).await?),
        FetchJob::Items => {
            let page = Page::ordered(Order::Desc).with_limit(RECENT_ITEMS);
            let mut items = client.list_items(id, &page).await?.data;
            items.reverse(); // oldest first, as the transcript reads
            Update::Items(items)
        }
        FetchJob::FirstMessage => {
            Update::FirstMessage(crate::sessions::first_message::first_message(client, id).await?)
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
    };
    Ok((update, None))
}

/// A page of turns, newest first: the newest, or the one older than `after`.
async fn turns_page(
    client: &ApiClient,
    id: &str,
    after: Option<&String>,
) -> Result<(Vec<Turn>, Option<String>), ApiError> {
    let mut page = Page::ordered(Order::Desc).with_limit(TURNS_PAGE);
    if let Some(after) = after {
        page = page.after(after.clone());
    }
    let list = client.list_turns(id, &page).await?;
    Ok((list.data, list.has_more.then_some(list.last_id).flatten()))
}
