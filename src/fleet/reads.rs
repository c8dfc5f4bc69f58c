//! What the fleet's reads found, in the shape the model takes it: a page of a session's turns
//! and a replay's todos. The reads themselves are the fleet front's IO (`app::fleet`).

use gobare_api::model::{Turn, TurnStatus};

/// What a page of turns says about a session now.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TurnsRead {
    /// When the running turn started (its own `started_at`).
    pub running_since: Option<i64>,
    /// Turns accepted but not started: messages queued behind the running one.
    pub queued: u32,
    /// Turns that ended, with their outcome (for "a turn failed").
    pub ended: Vec<(String, TurnStatus)>,
    /// Why the failed ones failed, by turn id (for the digest of an absence).
    pub reasons: Vec<(String, String)>,
}

impl TurnsRead {
    /// Reads a page of turns, newest first.
    pub fn of(turns: &[Turn]) -> TurnsRead {
        let mut read = TurnsRead::default();
        for turn in turns {
            match (&turn.status, turn.started_at, turn.completed_at) {
                (TurnStatus::Working, None, None) => read.queued += 1,
                (TurnStatus::Working, Some(started), None) => {
                    // Newest first: the first running turn met is the current one.
                    read.running_since.get_or_insert(started);
                }
                (TurnStatus::Working, _, Some(_)) => {}
                (status, _, _) => {
                    if let Some(reason) =
                        turn.error_text().filter(|_| *status == TurnStatus::Failed)
                    {
                        read.reasons.push((turn.id.clone(), reason));
                    }
                    read.ended.push((turn.id.clone(), status.clone()));
                }
            }
        }
        read
    }
}

/// What a replay found of the current turn's todos.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TodosFound {
    /// The latest list since the last `turn.started`: (done, total).
    List(u32, u32),
    /// The current turn has posted no list yet.
    None,
    /// The replay could not say (refused, cut, or longer than `MAX_EVENTS`).
    Unknown,
}
