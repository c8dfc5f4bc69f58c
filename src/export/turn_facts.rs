//! What the session's resources say of each turn that its events do not: how it came out,
//! how long it ran and why it failed (`turn.ended` carries no outcome, §8), and what it
//! published (§9.5); read once, before the history is written.

use crate::session::transcript::TurnOutcome;
use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::model::{Artifact, ArtifactsState, Turn, TurnStatus};
use gobare_api::paging::{self, PageLimits};
use std::collections::{HashMap, HashSet};

/// Turns per list page.
const PAGE: u32 = 100;
/// The most of a session's turn list read (as for its artifacts, [`crate::outputs`]).
const LIMITS: PageLimits = PageLimits {
    pages: 1_000,
    items: 100_000,
};

/// One turn as its resource reads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TurnFact {
    /// `None` while the turn still works.
    pub(crate) outcome: Option<TurnOutcome>,
    /// Where its publication stands (`None`: not settled, or an old turn).
    pub(crate) artifacts: Option<ArtifactsState>,
    /// Files its publication skipped, with why.
    pub(crate) skipped: Vec<(String, String)>,
}

/// One published file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Published {
    pub(crate) path: String,
    pub(crate) size_bytes: u64,
}

/// Every turn and artifact of a session, by turn id. Empty when they could not be read:
/// the export then says each outcome is unknown rather than guess it.
#[derive(Debug, Default)]
pub struct TurnFacts {
    turns: HashMap<String, TurnFact>,
    artifacts: HashMap<String, Vec<Published>>,
    artifact_ids: HashSet<String>,
}

impl TurnFacts {
    /// Nothing known (a bench, a session whose turns could not be read).
    pub fn unknown() -> TurnFacts {
        TurnFacts::default()
    }

    /// From the session's turn and artifact lists.
    pub(crate) fn from_resources(turns: Vec<Turn>, artifacts: Vec<Artifact>) -> TurnFacts {
        let mut facts = TurnFacts::default();
        for turn in turns {
            let error = turn.error_text();
            let status = Some(&turn.status).filter(|s| **s != TurnStatus::Working);
            let outcome = TurnOutcome::settled(
                status,
                Some(turn.created_at),
                turn.started_at,
                turn.completed_at,
                error,
            );
            let skipped = turn
                .artifacts_skipped
                .into_iter()
                .map(|s| (s.path, s.reason))
                .collect();
            let fact = TurnFact {
                outcome,
                artifacts: turn.artifacts,
                skipped,
            };
            facts.turns.insert(turn.id, fact);
        }
        for artifact in artifacts {
            facts.artifact_ids.insert(artifact.id);
            facts
                .artifacts
                .entry(artifact.turn_id)
                .or_default()
                .push(Published {
                    path: artifact.path,
                    size_bytes: artifact.size_bytes,
                });
        }
        facts
    }

    /// Reads every page of the session's turns and artifacts; what cannot be read is
    /// reported to `warn` and left unknown.
    pub(crate) async fn read(
        client: &ApiClient,
        session_id: &str,
        warn: impl Fn(&str),
    ) -> TurnFacts {
        let first = Page::ordered(Order::Asc).with_limit(PAGE);
        let turns = paging::read_all(
            first,
            LIMITS,
            |t: &Turn| &t.id,
            |page| async move { client.list_turns(session_id, &page).await },
        )
        .await;
        let turns = match turns {
            Ok(listed) => listed.items,
            Err(e) => {
                warn(&format!(
                    "the turns could not be read ({e}): outcomes unknown"
                ));
                Vec::new()
            }
        };
        let artifacts = match crate::outputs::list_all(client, session_id, None).await {
            Ok(listed) => listed.items,
            Err(e) => {
                warn(&format!(
                    "the artifacts could not be read ({e}): not listed"
                ));
                Vec::new()
            }
        };
        TurnFacts::from_resources(turns, artifacts)
    }

    pub(crate) fn turn(&self, turn_id: &str) -> Option<&TurnFact> {
        self.turns.get(turn_id)
    }

    /// What `turn_id` published, in the list's order (oldest first).
    pub(crate) fn artifacts_of(&self, turn_id: &str) -> &[Published] {
        self.artifacts.get(turn_id).map_or(&[], Vec::as_slice)
    }

    /// Whether artifact `id` is in the lists read (so its turn's closing line names it).
    pub(crate) fn lists_artifact(&self, id: &str) -> bool {
        self.artifact_ids.contains(id)
    }
}
