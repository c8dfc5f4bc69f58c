//! Events of one family into entries: a turn's start and end: the separator that later carries its outcome.

use super::*;

impl Transcript {
    pub(super) fn apply_turns_event(&mut self, ev: &Event) -> bool {
        use EventPayload as P;
        let at = ev.created_at;
        match &ev.payload {
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
            _ => false,
        }
    }
}
