//! What comes back to the fleet's front from the work it started off its loop: a write
//! to the API (rename, delete, fork, create), an answer sent from the inbox, or the digest
//! of an absence.

use gobare_api::error::ApiError;
use gobare_api::model::Session;

/// A write to the API that the fleet asked for, come back.
#[derive(Debug)]
pub(crate) enum FleetMsg {
    Renamed(Box<Result<Session, ApiError>>),
    /// A session's labels were set (`app::fleet_policy`).
    LabelsSet(Box<Result<Session, ApiError>>),
    /// The approval mode was set on `set`; `refused` says why the others were not.
    ModeSet {
        mode: gobare_api::session_patch::ApprovalMode,
        set: Vec<Session>,
        refused: Vec<String>,
    },
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
    /// The record of the absence since `since_ms`, replayed (see [`super::absence_replay`]).
    Away {
        since_ms: i64,
        record: Box<crate::away::fleet_record::AbsenceRecord>,
    },
    /// The digests of the absence since `since_ms`, read session by session (no cursor
    /// was kept to replay the org stream from).
    AwayRead {
        since_ms: i64,
        digests: Vec<crate::away::digest::Digest>,
    },
    /// A report of an answer sent from the inbox.
    Answer {
        session_id: String,
        event: Box<crate::app::shared::sender::SendEvent>,
    },
}
