//! The export's Markdown for turns: a turn's start and end open and close its section (with its
//! outcome line).

// A family writer lists its family whole: a catch-all would let a new kind compile unsaid.
#![deny(clippy::wildcard_enum_match_arm)]

use super::*;
use gobare_api::event_family::TurnsEvent;

impl<W: Write> Writing<'_, W> {
    pub(super) fn turns(&mut self, event: TurnsEvent<'_>) -> io::Result<()> {
        use TurnsEvent as P;
        let Writing {
            out,
            facts,
            sections,
            scratch,
            at,
            facts_known,
            ..
        } = self;
        let at = *at;
        let close = |ended| Close {
            facts_known: *facts_known,
            ended,
        };
        match event {
            P::TurnStarted(t) => {
                if sections.number_of(&t.turn_id).is_some() {
                    return Ok(()); // the same turn again
                }
                close_turn(out, facts, sections, scratch, at, close(false))?;
                open_turn(out, sections, &t.turn_id, at)?;
            }
            P::TurnEnded(t) => {
                let open = sections.open.as_ref().is_some_and(|o| o.id == t.turn_id);
                if !open {
                    if sections.number_of(&t.turn_id).is_some() {
                        return Ok(()); // ended again
                    }
                    // A turn that never started (its run could not begin) still gets its
                    // section, with the prompt it failed to answer.
                    close_turn(out, facts, sections, scratch, at, close(false))?;
                    open_turn(out, sections, &t.turn_id, at)?;
                }
                close_turn(out, facts, sections, scratch, at, close(true))?;
            }
        }
        Ok(())
    }
}
