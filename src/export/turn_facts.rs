//! What the session's resources say of each turn that its events do not: how it came out,
//! how long it ran and why it failed (`turn.ended` carries no outcome, §8), and what it
//! published (§9.5). Read beside the history ([`super::facts_feed::TurnFactsFeed`]): the Markdown waits for
//! a turn's facts only when it closes that turn, so a long session's hundreds of turn
//! pages no longer come before its first event.

use crate::session::transcript::TurnOutcome;
use gobare_api::model::{Artifact, ArtifactsState, Turn, TurnStatus};
use std::collections::{HashMap, HashSet};

/// The export's maps and sets of ids: probed for every turn written, so a fast hash
/// (foldhash, seeded at random per map) rather than the standard SipHash.
pub(super) type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
pub(super) type FastSet<K> = HashSet<K, foldhash::fast::RandomState>;

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

impl TurnFact {
    /// What `turn` says, with its id.
    pub(crate) fn of(turn: Turn) -> (String, TurnFact) {
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
        (turn.id, fact)
    }
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
pub(crate) struct TurnFacts {
    turns: FastMap<String, TurnFact>,
    artifacts: FastMap<String, Vec<Published>>,
    artifact_ids: FastSet<String>,
}

impl TurnFacts {
    /// Nothing known (a bench, a session whose turns could not be read).
    pub(crate) fn unknown() -> TurnFacts {
        TurnFacts::default()
    }

    /// From the session's turn and artifact lists.
    #[cfg(test)]
    pub(crate) fn from_resources(turns: Vec<Turn>, artifacts: Vec<Artifact>) -> TurnFacts {
        let mut facts = TurnFacts::default();
        facts.add_turns(turns);
        facts.add_artifacts(artifacts);
        facts
    }

    /// Adds (or replaces) what `turns` say.
    pub(crate) fn add_turns(&mut self, turns: Vec<Turn>) {
        self.add_facts(turns.into_iter().map(TurnFact::of));
    }

    /// Adds (or replaces) facts made by [`TurnFact::of`], by turn id.
    pub(crate) fn add_facts(&mut self, facts: impl IntoIterator<Item = (String, TurnFact)>) {
        self.turns.extend(facts);
    }

    pub(crate) fn add_artifacts(&mut self, artifacts: Vec<Artifact>) {
        for artifact in artifacts {
            if !self.artifact_ids.insert(artifact.id) {
                continue;
            }
            self.artifacts
                .entry(artifact.turn_id)
                .or_default()
                .push(Published {
                    path: artifact.path,
                    size_bytes: artifact.size_bytes,
                });
        }
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
