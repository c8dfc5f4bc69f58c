//! What background work reports back to the loop, through one channel.
//!
//! Every spawned API call ends by sending one [`AppMsg`]; add a variant for new kinds of
//! work and handle it in `SessionFront::on_msg`.

use crate::app::session::reading::fetch::FetchJob;
use crate::session::Update;
use gobare_api::error::ApiError;

#[derive(Debug)]
pub(crate) enum AppMsg {
    /// A model read finished: the update to apply, or why it failed.
    Fetched {
        job: FetchJob,
        result: Box<Result<Update, ApiError>>,
        /// For a page of turns: the cursor of the next, older one, when there is more.
        more_after: Option<String>,
    },
    /// News from the send executor (`app::sender`): a retry, or a settled send.
    Action(crate::app::shared::sender::SendEvent),
    /// A write of the session state ended (`app::saving`).
    StateSaved(crate::app::shared::saved_session::SaveDone),
    /// The search index of the history before a restart's replay window, and the number
    /// of transcript entries it makes (`app::search_backfill`).
    Backfilled(Box<crate::search::backfill::Backfill>),
    /// Hits of the search query `generation` (`app::search`); `done`: it read everything.
    SearchHits {
        generation: u64,
        hits: Vec<crate::search::Hit>,
        done: bool,
    },
    /// A change of the session's rules or mode ended (`app::policy`).
    PolicyWritten {
        change: crate::sessions::policy::PolicyChange,
        result: Box<Result<gobare_api::model::Session, ApiError>>,
    },
    /// A preview publish (or unpublish) ended (`app::preview`).
    PreviewWritten {
        publish: bool,
        result: Result<(), ApiError>,
    },
    /// A page of dropped transcript entries read back from the local event log
    /// (`app::paging_back`).
    EarlierPage(Box<crate::session::transcript::Transcript>),
    /// An export ended (`app::exporting`): the events written, or why it failed.
    Exported {
        path: std::path::PathBuf,
        result: Result<u64, String>,
    },
    /// An artifacts or workspace-files job ended or progressed (`app::session::overlay_jobs`).
    Overlay(crate::app::session::overlay_msg::OverlayMsg),
    /// What the token holds, read once at start (`app::token_scopes`).
    Health(Box<Result<gobare_api::model::Health, ApiError>>),
}
