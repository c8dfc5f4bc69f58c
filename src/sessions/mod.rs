//! The whole session list at once, read a full page at a time, for `list`, the fleet and
//! session id prefixes.

pub(crate) mod create;
pub(crate) mod first_message;
pub(crate) mod labels;
pub(crate) mod left_out;
pub(crate) mod policy;

use gobare_api::client::{ApiClient, Order, Page, SessionFilter};
use gobare_api::error::{ApiError, ApiErrorKind};
use gobare_api::model::{List, Session};
use gobare_api::paging::{self, Listed, PageLimits};
use std::time::Duration;

/// The API's largest page.
const MAX_PAGE: u32 = 100;
/// The most of an org's session list read: 50,000 sessions.
const LIMITS: PageLimits = PageLimits {
    pages: 500,
    items: 50_000,
};
/// Times one page is asked again after `rate_limit_exceeded`, waiting `Retry-After`.
const RATE_LIMITED_RETRIES: u32 = 3;
/// The longest `Retry-After` waited for a page; a longer one fails the list at once.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(10);

/// Every session `filter` selects, newest first, read a full page at a time; a list the
/// server does not end is cut (see [`gobare_api::paging`]).
pub(crate) async fn list_all(
    client: &ApiClient,
    filter: &SessionFilter,
) -> Result<Listed<Session>, ApiError> {
    let first = Page::ordered(Order::Desc).with_limit(MAX_PAGE);
    paging::read_all(
        first,
        LIMITS,
        |s: &Session| &s.id,
        |page| async move { page_waiting_out_rate_limits(client, &page, filter).await },
    )
    .await
}

/// One page; a `rate_limit_exceeded` with a short `Retry-After` is waited out a few times
/// (reads are safe to repeat), anything else is the caller's.
async fn page_waiting_out_rate_limits(
    client: &ApiClient,
    page: &Page,
    filter: &SessionFilter,
) -> Result<List<Session>, ApiError> {
    let mut retries = 0;
    loop {
        match client.list_sessions_where(page, filter).await {
            Err(e)
                if e.kind == ApiErrorKind::RateLimited
                    && retries < RATE_LIMITED_RETRIES
                    && e.retry_after.is_some_and(|wait| wait <= MAX_RETRY_AFTER) =>
            {
                retries += 1;
                let wait = e.retry_after.unwrap_or_default();
                tracing::info!(?wait, "session list rate limited; waiting");
                tokio::time::sleep(wait).await;
            }
            result => return result,
        }
    }
}
