use super::*;
use proptest::prelude::*;

const NOW: i64 = 1_789_400_000_000;
const H: i64 = 3_600_000;
const M: i64 = 60_000;

fn started(at: i64) -> WorkspaceClock {
    let mut clock = WorkspaceClock::default();
    clock.created(Some(at));
    clock
}

fn approval(clock: &WorkspaceClock) -> Deadline {
    deadline(
        &RequiredActionKind::Approval,
        None,
        clock,
        WORKSPACE_LIFETIME_MS,
        NOW,
    )
}

#[test]
fn an_approval_waits_out_two_hours_of_running_time_since_the_workspace_started() {
    let clock = started(NOW - 48 * M);
    assert_eq!(approval(&clock), Deadline::Estimate(NOW + 72 * M));
    assert_eq!(approval(&clock).show(NOW), "≈ 1h 12m");
}

#[test]
fn paused_spans_do_not_count() {
    let mut clock = started(NOW - 3 * H);
    // Paused for two of the three hours: one hour ran, one is left.
    clock.paused(Some(NOW - 3 * H + 30 * M));
    clock.resumed(Some(NOW - H + 30 * M));
    assert_eq!(approval(&clock), Deadline::Estimate(NOW + H));
    // A second resume while running changes nothing.
    clock.resumed(Some(NOW - M));
    assert_eq!(approval(&clock), Deadline::Estimate(NOW + H));
}

#[test]
fn a_new_workspace_starts_its_clock_again() {
    let mut clock = started(NOW - 3 * H);
    clock.created(Some(NOW - 10 * M));
    assert_eq!(approval(&clock).show(NOW), "≈ 1h 50m");
}

#[test]
fn without_the_workspace_start_the_deadline_is_unknown() {
    let mut joined_late = WorkspaceClock::default();
    joined_late.resumed(Some(NOW - M));
    assert_eq!(approval(&joined_late), Deadline::Unknown);
    assert_eq!(approval(&joined_late).show(NOW), "unknown");
    let mut cut = started(NOW - M);
    cut.gap();
    assert_eq!(approval(&cut), Deadline::Unknown);
    let mut untimed = started(NOW - M);
    untimed.paused(None);
    assert_eq!(approval(&untimed), Deadline::Unknown);
}

#[test]
fn a_published_preview_has_no_deadline() {
    let mut clock = started(NOW - H);
    clock.set_published(true);
    assert_eq!(approval(&clock), Deadline::None);
    assert_eq!(approval(&clock).show(NOW), "none");
    // A function's own timeout still holds.
    let f = deadline(
        &RequiredActionKind::FunctionCall,
        Some(NOW + 30_000),
        &clock,
        WORKSPACE_LIFETIME_MS,
        NOW,
    );
    assert_eq!(f, Deadline::Exact(NOW + 30_000));
    assert_eq!(f.show(NOW), "30s");
}

#[test]
fn a_function_call_ends_at_the_earlier_of_its_timeout_and_the_workspace_lifetime() {
    let fresh = started(NOW);
    let f = |expires_at, clock: &WorkspaceClock| {
        deadline(
            &RequiredActionKind::FunctionCall,
            expires_at,
            clock,
            WORKSPACE_LIFETIME_MS,
            NOW,
        )
    };
    assert_eq!(f(Some(NOW + 90_500), &fresh), Deadline::Exact(NOW + 90_500));
    assert_eq!(f(Some(NOW + 90_500), &fresh).show(NOW), "1m 31s");
    let old = started(NOW - 2 * H + M);
    assert_eq!(f(Some(NOW + 10 * M), &old), Deadline::Estimate(NOW + M));
    // Without a timeout, the lifetime; without either, unknown.
    assert_eq!(f(None, &fresh), Deadline::Estimate(NOW + 2 * H));
    assert_eq!(f(None, &WorkspaceClock::default()), Deadline::Unknown);
    assert_eq!(
        f(Some(NOW + 5_000), &WorkspaceClock::default()),
        Deadline::Exact(NOW + 5_000)
    );
}

#[test]
fn a_past_timeout_is_expired_and_an_absurd_one_is_ignored() {
    let unknown = WorkspaceClock::default();
    let f = |expires_at| {
        deadline(
            &RequiredActionKind::FunctionCall,
            Some(expires_at),
            &unknown,
            WORKSPACE_LIFETIME_MS,
            NOW,
        )
    };
    assert_eq!(f(NOW - 1).show(NOW), "expired");
    assert_eq!(f(NOW).show(NOW), "expired");
    assert_eq!(f(NOW + 1).show(NOW), "1s");
    assert_eq!(f(NOW + 31 * 24 * H), Deadline::Unknown);
    assert_eq!(f(i64::MAX), Deadline::Unknown);
    assert_eq!(f(i64::MIN).show(NOW), "unknown");
    // An approval ignores an `expires_at` it should not have.
    let a = deadline(
        &RequiredActionKind::Approval,
        Some(NOW - 1),
        &started(NOW),
        WORKSPACE_LIFETIME_MS,
        NOW,
    );
    assert_eq!(a, Deadline::Estimate(NOW + 2 * H));
}

#[test]
fn the_estimate_reaching_zero_reads_expired() {
    let clock = started(NOW - 2 * H);
    assert_eq!(approval(&clock).show(NOW), "expired");
    assert_eq!(approval(&clock).show(NOW - 1), "≈ 1s");
}

#[test]
fn a_paused_workspace_shows_what_is_left_without_a_clock() {
    let mut clock = started(NOW - 2 * H);
    clock.paused(Some(NOW - 2 * H + 20 * M));
    let d = approval(&clock);
    assert_eq!(d, Deadline::Paused(100 * M));
    assert!(!d.ticks());
    assert_eq!(d.show(NOW), "paused, ≈ 1h 40m left");
}

#[test]
fn sorted_soonest_first_then_unknown_then_none() {
    let mut all = [
        Deadline::None,
        Deadline::Unknown,
        Deadline::Estimate(NOW + H),
        Deadline::Exact(NOW + M),
        Deadline::Exact(NOW - M),
    ];
    all.sort_by_key(|d| d.sort_key(NOW));
    assert_eq!(
        all,
        [
            Deadline::Exact(NOW - M),
            Deadline::Exact(NOW + M),
            Deadline::Estimate(NOW + H),
            Deadline::Unknown,
            Deadline::None,
        ]
    );
}

fn any_kind() -> impl Strategy<Value = RequiredActionKind> {
    prop_oneof![
        Just(RequiredActionKind::Approval),
        Just(RequiredActionKind::Question),
        Just(RequiredActionKind::FunctionCall),
    ]
}

/// A `sandbox.*` event: 0 created, 1 paused, 2 resumed, 3 a gap; with a time or none.
fn any_events() -> impl Strategy<Value = Vec<(u8, Option<i64>)>> {
    prop::collection::vec((0u8..4, prop::option::of(any::<i64>())), 0..8)
}

proptest! {
    #[test]
    fn no_input_makes_a_negative_or_overflowing_countdown(
        kind in any_kind(),
        expires_at in prop::option::of(any::<i64>()),
        events in any_events(),
        published in any::<bool>(),
        lifetime in any::<i64>(),
        now in any::<i64>(),
    ) {
        let mut clock = WorkspaceClock::default();
        for (event, at) in events {
            match event {
                0 => clock.created(at),
                1 => clock.paused(at),
                2 => clock.resumed(at),
                _ => clock.gap(),
            }
        }
        clock.set_published(published);
        let d = deadline(&kind, expires_at, &clock, lifetime, now);
        let shown = d.show(now);
        prop_assert!(!shown.contains('-'), "{shown}");
        // No countdown longer than the cap: at most "30d 00h".
        if let Some(days) = shown.split('d').next().and_then(|s| s.trim_start_matches("≈ ").trim_start_matches("paused, ≈ ").parse::<i64>().ok()) {
            prop_assert!(days <= 30, "{shown}");
        }
        let _ = d.sort_key(now);
        let _ = d.is_past(now);
    }

    #[test]
    fn a_known_deadline_shown_counts_down_to_expired(left in 1i64..MAX_COUNTDOWN_MS) {
        let d = Deadline::Exact(NOW + left);
        prop_assert_ne!(d.show(NOW), "expired");
        prop_assert_eq!(d.show(NOW + left), "expired");
    }
}
