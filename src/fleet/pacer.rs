//! How the fleet's news reaches a person: softly. A need is told only once it has held for
//! [`HOLD`] (an approval asked and granted within a second is never told); the first after
//! a quiet spell is told as soon as it has held, and what comes after is gathered into one
//! notification per [`WINDOW`] that names how many and the first ("3 need you: deploy-fix
//! (approval), …"). Every front tells the same paced news: the pacing lives with the fleet.
//! Pure: the caller gives the time and says what still holds.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use super::model::FleetModel;
use super::news::{FleetNews, still_true};
use crate::notify::kind::NotifyKind;

/// How long a need must hold before it is told.
pub(crate) const HOLD: Duration = Duration::from_secs(2);
/// At most one notification in this long.
pub(crate) const WINDOW: Duration = Duration::from_secs(10);
/// News kept waiting at most; past it the oldest are counted, not kept.
const KEPT: usize = 10_000;

/// News heard and not told yet, and when the last was told.
#[derive(Debug, Default)]
pub(crate) struct Pacer {
    heard: VecDeque<(FleetNews, Instant)>,
    last_told: Option<Instant>,
    /// News let go past [`KEPT`]: still counted in the next notification.
    overflow: usize,
}

impl Pacer {
    /// News to tell once it has held.
    pub(crate) fn hear(&mut self, news: FleetNews, now: Instant) {
        if self.heard.len() == KEPT {
            self.heard.pop_front();
            self.overflow += 1;
        }
        self.heard.push_back((news, now));
    }

    /// Forgets what was heard and not told yet (the window stays).
    pub(crate) fn forget_heard(&mut self) {
        self.heard.clear();
        self.overflow = 0;
    }

    /// When [`Self::take_due`] may next have something to tell (it may find that nothing
    /// held by then).
    pub(crate) fn next_at(&self) -> Option<Instant> {
        let ripe = self.heard.iter().map(|(_, at)| *at + HOLD).min()?;
        Some(match self.last_told {
            Some(told) => ripe.max(told + WINDOW),
            None => ripe,
        })
    }

    /// What to tell now of `model`'s news: [`Self::take_due`] with the fleet's one count
    /// of who needs the person and what is still true of it, both from `model`.
    pub(crate) fn take_due_of(&mut self, now: Instant, model: &FleetModel) -> Option<FleetNews> {
        self.take_due(now, model.needing_you(), |news| still_true(model, news))
    }

    /// One notification for what has held and is still true (`holds`), when the window
    /// allows one; what stopped being true is dropped untold. `needing_you`: how many
    /// sessions need the person now (the fleet's one count), said when several are told.
    pub(crate) fn take_due(
        &mut self,
        now: Instant,
        needing_you: usize,
        holds: impl Fn(&FleetNews) -> bool,
    ) -> Option<FleetNews> {
        if self.last_told.is_some_and(|told| now < told + WINDOW) {
            return None;
        }
        let mut ripe = Vec::new();
        let mut waiting = VecDeque::with_capacity(self.heard.len());
        for (news, at) in self.heard.drain(..) {
            if !holds(&news) {
                continue;
            }
            if at + HOLD <= now {
                ripe.push(news);
            } else {
                waiting.push_back((news, at));
            }
        }
        self.heard = waiting;
        if ripe.is_empty() {
            return None;
        }
        self.last_told = Some(now);
        let overflow = std::mem::take(&mut self.overflow);
        let mut told = coalesced(ripe, overflow, needing_you);
        told.need_you = Some(needing_you);
        Some(told)
    }
}

/// One piece of news for all of `ripe` (and `overflow` more): the first's own when alone,
/// else how many and the first named.
fn coalesced(mut ripe: Vec<FleetNews>, overflow: usize, needing_you: usize) -> FleetNews {
    // Two calls of one session are one session needing the person.
    let mut seen = std::collections::HashSet::new();
    ripe.retain(|n| n.call.is_none() || seen.insert((n.id.clone(), n.kind)));
    let count = ripe.len() + overflow;
    let mut first = ripe.swap_remove(0);
    if count == 1 {
        return first;
    }
    let needs = |k: NotifyKind| {
        matches!(
            k,
            NotifyKind::Approval | NotifyKind::Question | NotifyKind::FunctionCall
        )
    };
    let all_needs = needs(first.kind) && ripe.iter().all(|n| needs(n.kind));
    // The fleet's one count, as the header says it: two calls of one session, or news
    // counted past what was kept, are not more sessions needing the person.
    let said = if all_needs && needing_you > 0 {
        format!(
            "{needing_you} need{} you",
            if needing_you == 1 { "s" } else { "" }
        )
    } else {
        format!("{count} to look at")
    };
    first.line = format!("{said}: {} ({}), …", first.name(), first.what);
    first.count = count;
    first
}

#[cfg(test)]
mod tests;
