//! Events of one family into entries: a turn's start and end: the separator that later carries its outcome.

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use gobare_api::event_family::TurnsEvent;

impl Transcript {
    pub(super) fn apply_turns_event(&mut self, at: Option<i64>, ev: TurnsEvent<'_>) -> bool {
        use TurnsEvent as P;
        match ev {
            P::TurnStarted(_) => {
                self.turn_started();
                false
            }
            P::TurnEnded(t) => {
                self.turn_ended();
                let id = self.push(
                    at,
                    EntryKind::TurnEnd(Box::new(TurnEndEntry {
                        turn_id: t.turn_id.clone(),
                        outcome: None,
                    })),
                );
                self.turn_ends.insert(t.turn_id.clone(), id);
                true
            }
        }
    }
}
