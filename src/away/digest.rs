//! What a digest says: the facts of one session's absence, in the shape the screen, the
//! report's text and its JSON are all drawn from. Every string in it has been through the
//! sanitizer (one line, printable) by the builder.

use serde::Serialize;

/// Most failed turns, decisions and artifacts listed one by one; the counts say the rest.
pub const LISTED: usize = 10;

/// How a turn that ended while the user was away ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Completed,
    Failed,
    Cancelled,
    /// Its turn has not been read yet (the event carries no outcome, §8).
    Unread,
}

/// A turn that failed, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedTurn {
    pub turn_id: String,
    /// When it ended (Unix ms), when known.
    pub at: Option<i64>,
    /// The turn's `error`, else the last `agent.error` of the turn; one line.
    pub reason: Option<String>,
}

/// A decision (or function result) the session waits on now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub call_id: String,
    /// `approval`, `question` or `function_call`.
    pub kind: &'static str,
    /// The tool, function or question, one line.
    pub what: Option<String>,
    pub asked_at: Option<i64>,
    /// When it lapses (function calls with a timeout); `None`: it waits.
    pub expires_at: Option<i64>,
}

/// An artifact published while the user was away.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArtifactAdded {
    pub path: String,
    pub size_bytes: Option<u64>,
    pub at: Option<i64>,
}

/// What happened to the workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkspaceChange {
    Started,
    Paused,
    Resumed,
    /// Destroyed after its running time ran out (no event: read from the session).
    Reclaimed,
    /// Rebuilt after being reclaimed.
    Recovered,
    RecoveryFailed,
}

/// One session's absence, summed up (its JSON is `away::json`'s).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Digest {
    pub session_id: String,
    /// Its title or first message, when known (one line).
    pub title: Option<String>,
    /// The absence: from (Unix ms; 0 when unknown) until.
    pub since_ms: i64,
    pub until_ms: i64,
    /// Persisted events in the absence.
    pub events: u64,
    pub turns_completed: u32,
    pub turns_failed: u32,
    pub turns_cancelled: u32,
    /// Turns that ended whose outcome is not read yet.
    pub turns_unread: u32,
    /// The failed ones, newest last, at most [`LISTED`].
    pub failed: Vec<FailedTurn>,
    /// What waits on the user now, oldest first, at most [`LISTED`].
    pub decisions: Vec<Decision>,
    pub decisions_waiting: u32,
    /// Of those, the ones asked during the absence.
    pub decisions_new: u32,
    pub artifacts_added: u32,
    /// The newest, at most [`LISTED`].
    pub artifacts: Vec<ArtifactAdded>,
    /// In order, with when (Unix ms, when known).
    pub workspace: Vec<(WorkspaceChange, Option<i64>)>,
    /// The workspace's state now, as the session says (`running`, `destroyed`…).
    pub workspace_now: Option<String>,
    /// Seconds turns ran within the absence (from the turns read).
    pub turn_seconds: u64,
    /// The session's sandbox seconds in all, when read.
    pub sandbox_seconds: Option<u64>,
}

impl Digest {
    /// Nothing happened and nothing waits: not worth a banner.
    pub fn is_quiet(&self) -> bool {
        self.turns_completed + self.turns_failed + self.turns_cancelled + self.turns_unread == 0
            && self.decisions_waiting == 0
            && self.artifacts_added == 0
            && self.workspace.is_empty()
    }

    /// Something happened during the absence (a decision that waited before it is not
    /// news: the screen showed it then).
    pub fn has_news(&self) -> bool {
        self.turns_completed + self.turns_failed + self.turns_cancelled + self.turns_unread > 0
            || self.decisions_new > 0
            || self.artifacts_added > 0
            || !self.workspace.is_empty()
    }

    /// How long the absence was (ms).
    pub fn away_ms(&self) -> i64 {
        if self.since_ms <= 0 {
            return 0;
        }
        (self.until_ms - self.since_ms).max(0)
    }
}
