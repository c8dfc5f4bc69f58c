//! The digest of an absence as the fleet shows it: the sessions its record kept, with
//! each one's title and what waits now taken from the fleet's rows, what waits first, then
//! what failed, then the rest.

use super::model::FleetModel;
use crate::away::digest::Digest;
use crate::away::fleet_record::AbsenceRecord;
use gobare_api::model::RequiredAction;

/// The digests as of `now_ms`: each session the stream moved, and each that waits on
/// the person now, with its title and what waits from the fleet's rows.
pub(crate) fn digests(record: &mut AbsenceRecord, model: &FleetModel, now_ms: i64) -> Vec<Digest> {
    let waiting: Vec<String> = model
        .rows()
        .filter(|r| !r.waiting.is_empty())
        .map(|r| r.id.clone())
        .collect();
    for id in &waiting {
        record.include(id);
    }
    let mut digests: Vec<Digest> = record
        .sessions_mut()
        .filter_map(|(id, builder)| {
            let row = model.get(id)?;
            builder.set_title(row.label());
            // What waits now replaces what the events said, once each wait is known
            // from the session resource; one only heard on the stream stays as heard.
            let pending = model.waits().get(id).map(|w| w.actions.pending());
            let actions: Option<Vec<RequiredAction>> = match pending {
                Some(pending) => pending.iter().map(|p| p.resource.clone()).collect(),
                None => Some(Vec::new()),
            };
            match actions {
                Some(actions) if !actions.is_empty() || row.waiting.is_empty() => {
                    builder.actions_now(&actions)
                }
                _ => {}
            }
            Some(builder.digest(now_ms))
        })
        .collect();
    // What waits on the person first, then what failed, then the rest, the most
    // recently moved first.
    digests.sort_by_key(|d| {
        let last = model.get(&d.session_id).map_or(0, |r| r.last_activity);
        (
            d.decisions_waiting == 0,
            d.turns_failed == 0,
            std::cmp::Reverse(last),
        )
    });
    digests
}
