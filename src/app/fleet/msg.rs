//! What comes back to the fleet's front from the work it started off its loop: a write
//! to the API (rename, delete, fork, create), an answer sent from the inbox, or the digest
//! of an absence.

use gobare_api::error::ApiError;
use gobare_api::model::Session;

/// A write to the API that the fleet asked for, come back.
#[derive(Debug)]
pub(crate) enum FleetMsg {
    Renamed(Box<Result<Session, ApiError>>),
    Deleted {
        id: String,
        result: Result<(), ApiError>,
    },
    Forked {
        result: Box<Result<Session, ApiError>>,
        /// The fork's own title, set after it was made (`None`: the fork failed).
        named: Option<(String, Box<Result<Session, ApiError>>)>,
    },
    Created(Box<Result<Session, ApiError>>),
    /// The digest of the absence since `since_ms` (see [`super::fleet_away`]).
    Away {
        since_ms: i64,
        result: Box<Result<crate::away::gather::Gathered, ApiError>>,
    },
    /// A report of an answer sent from the inbox.
    Answer {
        session_id: String,
        event: Box<crate::app::shared::sender::SendEvent>,
    },
}
