//! The digest of an absence no event record tells — no org-stream cursor was kept (the
//! first run after an upgrade), or its replay was cut or refused — built from what the
//! fleet reads anyway: its session list (who changed since, who failed, who waits now)
//! and the latest turns of a few failed sessions for their reasons. Coarser than the
//! stream's digest, and it says so: counts of sessions, not of turns.

use super::model::{FleetModel, FleetRow};
use crate::away::lines::{Tone, span};
use crate::session::attention::Attention;
use gobare_api::model::SessionStatus;
use gobare_api::text;

/// Failed sessions whose latest turns are read for the reason (one request each).
pub(crate) const FAILED_READ: usize = 4;
/// Failed sessions named one by one; the count says the rest.
const FAILED_LISTED: usize = 8;

/// Whether `row` moved since `since_ms` (its resource or the stream says so).
fn moved(row: &FleetRow, since_ms: i64) -> bool {
    row.last_activity > since_ms
}

fn name(row: &FleetRow) -> String {
    let label = row
        .label()
        .map(|l| text::one_line(l, 60))
        .unwrap_or_else(|| format!("session {}", row.id.get(..8).unwrap_or(&row.id)));
    label.trim().to_string()
}

/// The sessions that failed since `since_ms`, the most recently moved first (the first
/// [`FAILED_READ`] are read for their reasons).
pub(crate) fn failed_since(model: &FleetModel, since_ms: i64) -> Vec<String> {
    let mut failed: Vec<&FleetRow> = model
        .rows()
        .filter(|r| r.attention() == Attention::Failed && moved(r, since_ms))
        .collect();
    failed.sort_by(|a, b| {
        b.last_activity
            .cmp(&a.last_activity)
            .then_with(|| a.id.cmp(&b.id))
    });
    failed.into_iter().map(|r| r.id.clone()).collect()
}

/// The absence since `since_ms` as of `now_ms`, in lines: a summary that says what it is
/// built from (with the one count of who needs you the header says), then what came to
/// wait on the person meanwhile, then what failed with the reasons read (`reasons`:
/// session id, reason).
pub(crate) fn lines(
    model: &FleetModel,
    since_ms: i64,
    now_ms: i64,
    reasons: &[(String, String)],
) -> Vec<(Tone, String)> {
    let changed = model.rows().filter(|r| moved(r, since_ms)).count();
    let failed = failed_since(model, since_ms);
    let need_you = model.needing_you();
    let ago = if now_ms - since_ms >= 60_000 {
        format!(" ({} ago)", span(now_ms - since_ms))
    } else {
        String::new()
    };
    let mut out = vec![(
        Tone::Head,
        format!(
            "Since the fleet was last seen{ago}: {changed} session{} changed, {} failed, \
             {need_you} need{} you",
            s(changed),
            failed.len(),
            if need_you == 1 { "s" } else { "" }
        ),
    )];
    out.push((
        Tone::Plain,
        "  from the session list only (no event record was kept): turns and artifacts not counted"
            .into(),
    ));
    // What came to wait while the person was away first (what waited before, the screen
    // showed then: counted above, not listed), each session once, the longest-waiting first.
    let mut waiting: Vec<&FleetRow> = model
        .rows()
        .filter(|r| r.attention() == Attention::NeedsYou && moved(r, since_ms))
        .collect();
    waiting.sort_by(|a, b| {
        a.last_activity
            .cmp(&b.last_activity)
            .then_with(|| a.id.cmp(&b.id))
    });
    if !waiting.is_empty() {
        out.push((
            Tone::Head,
            format!("Asked while you were away: {}", waiting.len()),
        ));
        for row in waiting {
            let what = row
                .needs()
                .map(|n| n.as_str().replace('_', " "))
                .unwrap_or_else(|| "requires action".into());
            out.push((Tone::Attention, format!("  {}: {what}", name(row))));
        }
    }
    if !failed.is_empty() {
        out.push((
            Tone::Head,
            format!("Failed: {} session{}", failed.len(), s(failed.len())),
        ));
        for id in failed.iter().take(FAILED_LISTED) {
            let Some(row) = model.get(id) else { continue };
            let why = reasons
                .iter()
                .find(|(r, _)| r == id)
                .map(|(_, why)| text::one_line(why, 120))
                .unwrap_or_else(|| match row.status {
                    SessionStatus::Failed => "open it for the reason".into(),
                    _ => "workspace recovery failed".into(),
                });
            out.push((Tone::Bad, format!("  {}: {why}", name(row))));
        }
        if failed.len() > FAILED_LISTED {
            out.push((
                Tone::Bad,
                format!("  … and {} more", failed.len() - FAILED_LISTED),
            ));
        }
    }
    out
}

fn s(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gobare_api::model::Session;
    use serde_json::json;

    const SEEN: i64 = 1_789_400_000_000;

    fn session(id: &str, status: &str, updated_at: i64, waits: bool) -> Session {
        let actions = if waits {
            json!([{"type": "question", "call_id": format!("c-{id}"), "turn_id": "t",
                    "name": "ask", "arguments": {"question": "which?"}}])
        } else {
            json!([])
        };
        serde_json::from_value(json!({
            "id": id, "title": format!("job {id}"), "status": status,
            "created_at": SEEN - 10, "updated_at": updated_at, "required_actions": actions,
        }))
        .unwrap()
    }

    #[test]
    fn a_glance_says_what_it_is_built_from_then_waits_then_failures_with_reasons() {
        let mut sessions = Vec::new();
        // 12 moved since: 2 wait, 3 failed, 7 idle; 40 did not move, one of them waiting
        // since before.
        for i in 0..39 {
            sessions.push(session(&format!("quiet{i:02}"), "idle", SEEN - 5, false));
        }
        sessions.push(session("old-wait", "requires_action", SEEN - 5, true));
        sessions.push(session("wait1", "requires_action", SEEN + 10, true));
        sessions.push(session("wait2", "requires_action", SEEN + 20, true));
        for i in 0..3 {
            sessions.push(session(&format!("fail{i}"), "failed", SEEN + 30 + i, false));
        }
        for i in 0..7 {
            sessions.push(session(&format!("done{i}"), "idle", SEEN + 40, false));
        }
        let mut model = FleetModel::new();
        model.apply_full_list(&sessions);
        assert_eq!(failed_since(&model, SEEN), ["fail2", "fail1", "fail0"]);
        let reasons = [("fail2".to_string(), "provider_error: upstream".to_string())];
        let lines: Vec<String> = lines(&model, SEEN, SEEN + 7_200_000, &reasons)
            .into_iter()
            .map(|(_, l)| l)
            .collect();
        assert_eq!(
            lines,
            [
                "Since the fleet was last seen (2h ago): 12 sessions changed, 3 failed, 3 need you",
                "  from the session list only (no event record was kept): turns and artifacts not counted",
                "Asked while you were away: 2",
                "  job wait1: question",
                "  job wait2: question",
                "Failed: 3 sessions",
                "  job fail2: provider_error: upstream",
                "  job fail1: open it for the reason",
                "  job fail0: open it for the reason",
            ]
        );
    }
}
