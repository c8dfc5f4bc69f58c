//! A row's usage cell. While the workspace runs, the figure counts on from the server's
//! `as_of` as the session's Workspace pane counts it ([`crate::ui::usage_clock`]), in
//! minute steps: a row changes once a minute, not every second, so a fleet of running
//! workspaces keeps the terminal quiet. A running workspace's read that is old (the
//! fleet could not read it again) is marked `?`; the selected row's line says how old.

use crate::fleet::model::FleetRow;
use crate::ui::usage_clock::{self, STALE_USAGE_MS};
use gobare_api::model::WorkspaceState;

/// What a row's usage cell shows now, and when it next changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UsageCell {
    pub(crate) text: String,
    /// The read is old (ms since it) while the figure is counted on.
    pub(crate) stale_ms: Option<i64>,
    /// What the cell shows as a number (the counted minutes while running), for the
    /// drawn row's key: a row is drawn again only when it changes.
    pub(crate) shown: Option<u64>,
    /// Ms until the cell next changes by itself (`None`: only a read changes it).
    pub(crate) redraw_in: Option<i64>,
}

/// The usage cell of `row` at `now_ms`.
pub(crate) fn usage_cell(row: &FleetRow, now_ms: i64) -> UsageCell {
    let Some(read) = row.sandbox_seconds else {
        return UsageCell {
            text: String::new(),
            stale_ms: None,
            shown: None,
            redraw_in: None,
        };
    };
    let running = row.workspace == Some(WorkspaceState::Running) && row.usage_as_of.is_some();
    if !running {
        return UsageCell {
            text: seconds(read),
            stale_ms: None,
            shown: None,
            redraw_in: None,
        };
    }
    let as_of = row.usage_as_of.unwrap_or(now_ms);
    let secs = usage_clock::counted_on(read, Some(as_of), true, Some(now_ms));
    let stale_ms = usage_clock::stale_for(Some(as_of), Some(now_ms));
    // The next whole minute of the count, and the moment the read turns old.
    let into_second = (now_ms - as_of).max(0) % 1000;
    let next_minute = (60 - secs % 60) as i64 * 1000 - into_second;
    let turns_old = (stale_ms.is_none()).then(|| as_of + STALE_USAGE_MS - now_ms);
    let redraw_in = [Some(next_minute), turns_old]
        .into_iter()
        .flatten()
        .filter(|ms| *ms > 0)
        .min();
    UsageCell {
        text: minutes(secs),
        stale_ms,
        shown: Some(secs / 60),
        redraw_in,
    }
}

/// A figure in minutes: `<1m`, `4m`, `1h 02m`.
pub(crate) fn minutes(secs: u64) -> String {
    match secs {
        0..60 => "<1m".to_string(),
        60..3600 => format!("{}m", secs / 60),
        _ => seconds(secs / 60 * 60),
    }
}

fn seconds(secs: u64) -> String {
    crate::readable::times::duration(i64::try_from(secs.saturating_mul(1000)).unwrap_or(i64::MAX))
}
