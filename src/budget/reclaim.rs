//! How long a workspace has before it is reclaimed: 2 h of running time from its start
//! (§5; paused spans do not count), never while its preview is published. Read off the
//! session's one workspace clock ([`WorkspaceClock`], which the inbox's deadlines read
//! too): when its history does not reach back to the workspace's start, the time used is a
//! lower bound, and the estimate says "at most".

use crate::deadline::WorkspaceClock;
use gobare_api::model::WorkspaceState;

/// What the Workspace pane says of reclamation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reclaim {
    /// Published: paused when idle, never reclaimed.
    Never,
    /// Gone already (destroyed, being rebuilt).
    Reclaimed,
    /// `left_ms` of running time left; `exact`: the clock saw the workspace's start (else
    /// the time used is a lower bound, and this an upper one). `running`: the clock is going
    /// now (else it is paused, and waits).
    In {
        left_ms: i64,
        exact: bool,
        running: bool,
    },
    /// Nothing known (never started, or no running span seen with its times).
    Unknown,
}

/// The estimate from the session's workspace clock (the one the inbox's deadlines read),
/// the state now, for a lifetime of `lifetime_ms` of running time, at `now_ms`.
pub(crate) fn estimate(
    clock: &WorkspaceClock,
    state: Option<&WorkspaceState>,
    lifetime_ms: i64,
    now_ms: i64,
) -> Reclaim {
    if clock.is_published() {
        return Reclaim::Never;
    }
    match state {
        Some(WorkspaceState::Destroyed | WorkspaceState::Recovering) => return Reclaim::Reclaimed,
        Some(WorkspaceState::Running | WorkspaceState::Paused) => {}
        _ => return Reclaim::Unknown,
    }
    if !clock.saw_running() {
        return Reclaim::Unknown;
    }
    Reclaim::In {
        left_ms: lifetime_ms.saturating_sub(clock.ran_seen(now_ms)).max(0),
        exact: clock.is_complete(),
        running: state == Some(&WorkspaceState::Running),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use WorkspaceState::*;

    const MIN: i64 = 60_000;
    const LIFETIME_MS: i64 = 120 * MIN;

    #[test]
    fn paused_time_does_not_count_and_a_rebuild_starts_over() {
        // Seen from its start: created, paused 30m in, resumed an hour later.
        let mut clock = WorkspaceClock::default();
        clock.created(Some(0));
        clock.paused(Some(30 * MIN));
        clock.resumed(Some(90 * MIN));
        assert_eq!(
            estimate(&clock, Some(&Running), LIFETIME_MS, 100 * MIN),
            Reclaim::In {
                left_ms: 80 * MIN,
                exact: true,
                running: true
            },
            "40m used"
        );
        // A rebuild: the new workspace's own clock.
        clock.created(Some(130 * MIN));
        clock.paused(Some(140 * MIN));
        assert_eq!(
            estimate(&clock, Some(&Paused), LIFETIME_MS, 500 * MIN),
            Reclaim::In {
                left_ms: 110 * MIN,
                exact: true,
                running: false
            }
        );
    }

    #[test]
    fn a_history_without_the_start_says_at_most() {
        let mut clock = WorkspaceClock::default();
        clock.resumed(Some(90 * MIN));
        assert_eq!(
            estimate(&clock, Some(&Running), LIFETIME_MS, 100 * MIN),
            Reclaim::In {
                left_ms: 110 * MIN,
                exact: false,
                running: true
            },
            "10m seen used: at most 1h 50m left"
        );
    }

    #[test]
    fn published_destroyed_and_unknown() {
        let mut clock = WorkspaceClock::default();
        clock.created(Some(0));
        assert_eq!(
            estimate(&clock, Some(&Destroyed), LIFETIME_MS, 5),
            Reclaim::Reclaimed
        );
        assert_eq!(
            estimate(&WorkspaceClock::default(), Some(&Running), LIFETIME_MS, 5),
            Reclaim::Unknown
        );
        assert_eq!(estimate(&clock, None, LIFETIME_MS, 5), Reclaim::Unknown);
        assert_eq!(
            estimate(&clock, Some(&Running), LIFETIME_MS, 3 * LIFETIME_MS),
            Reclaim::In {
                left_ms: 0,
                exact: true,
                running: true
            }
        );
        clock.set_published(true);
        assert_eq!(
            estimate(&clock, Some(&Running), LIFETIME_MS, 5),
            Reclaim::Never
        );
    }
}
