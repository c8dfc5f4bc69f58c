//! How long a workspace has before it is reclaimed: 2 h of running time from its start
//! (§5; paused spans do not count), never while its preview is published. Worked out from
//! the workspace's transitions as the session knows them: when they do not reach back to
//! the workspace's start, what is known is a lower bound on the time used, and the
//! estimate says "at most".

use gobare_api::model::WorkspaceState;

/// A workspace's running time before it is reclaimed (§5).
pub(crate) const LIFETIME_MS: i64 = 7_200_000;

/// What the Workspace pane says of reclamation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reclaim {
    /// Published: paused when idle, never reclaimed.
    Never,
    /// Gone already (destroyed, being rebuilt).
    Reclaimed,
    /// `left_ms` of running time left; `exact`: the transitions reach back to its start.
    /// `running`: the clock is going now (else it is paused, and waits).
    In {
        left_ms: i64,
        exact: bool,
        running: bool,
    },
    /// Nothing known (never started, or no transition with a time).
    Unknown,
}

/// The estimate from `transitions` (oldest first, as the session keeps them), the state
/// now, whether the preview is published, at `now_ms`.
pub(crate) fn estimate(
    transitions: &[(Option<WorkspaceState>, Option<i64>)],
    state: Option<&WorkspaceState>,
    published: bool,
    now_ms: i64,
) -> Reclaim {
    if published {
        return Reclaim::Never;
    }
    match state {
        Some(WorkspaceState::Destroyed | WorkspaceState::Recovering) => return Reclaim::Reclaimed,
        Some(WorkspaceState::Running | WorkspaceState::Paused) => {}
        _ => return Reclaim::Unknown,
    }
    // Back from the newest transition to where this workspace began: a destroyed (or
    // unknown) state before a running one starts a new workspace.
    let mut used = 0i64;
    let mut until = now_ms;
    let mut exact = false;
    let mut any = false;
    for (state, at) in transitions.iter().rev() {
        let Some(at) = *at else {
            break;
        };
        match state {
            Some(WorkspaceState::Running) => {
                used += (until - at).max(0);
                any = true;
            }
            Some(WorkspaceState::Paused) => any = true,
            _ => {
                exact = true;
                break;
            }
        }
        until = at;
    }
    if !any {
        return Reclaim::Unknown;
    }
    Reclaim::In {
        left_ms: (LIFETIME_MS - used).max(0),
        exact,
        running: state == Some(&WorkspaceState::Running),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use WorkspaceState::*;

    const MIN: i64 = 60_000;

    #[test]
    fn paused_time_does_not_count_and_a_rebuild_starts_over() {
        let t = [
            (Some(Running), Some(0)),
            (Some(Paused), Some(30 * MIN)),
            (Some(Running), Some(90 * MIN)),
        ];
        assert_eq!(
            estimate(&t, Some(&Running), false, 100 * MIN),
            Reclaim::In {
                left_ms: 80 * MIN,
                exact: false,
                running: true
            },
            "40m used; the list does not say the first is the start"
        );
        let rebuilt = [
            (Some(Running), Some(0)),
            (Some(Destroyed), Some(120 * MIN)),
            (Some(Running), Some(130 * MIN)),
            (Some(Paused), Some(140 * MIN)),
        ];
        assert_eq!(
            estimate(&rebuilt, Some(&Paused), false, 500 * MIN),
            Reclaim::In {
                left_ms: 110 * MIN,
                exact: true,
                running: false
            }
        );
    }

    #[test]
    fn published_destroyed_and_unknown() {
        let t = [(Some(Running), Some(0))];
        assert_eq!(estimate(&t, Some(&Running), true, 5), Reclaim::Never);
        assert_eq!(estimate(&t, Some(&Destroyed), false, 5), Reclaim::Reclaimed);
        assert_eq!(estimate(&[], Some(&Running), false, 5), Reclaim::Unknown);
        assert_eq!(estimate(&t, None, false, 5), Reclaim::Unknown);
        assert_eq!(
            estimate(&t, Some(&Running), false, 3 * LIFETIME_MS),
            Reclaim::In {
                left_ms: 0,
                exact: false,
                running: true
            }
        );
    }
}
