use super::*;

fn need(id: &str, call: &str, title: &str) -> FleetNews {
    FleetNews {
        id: id.into(),
        line: format!("{title}: needs you: approval"),
        kind: NotifyKind::Approval,
        title: title.into(),
        expires_at: None,
        call: Some(call.into()),
        what: "approval".into(),
        count: 1,
        need_you: None,
    }
}

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

#[test]
fn a_need_resolved_before_it_held_is_never_told() {
    let t0 = Instant::now();
    let mut pacer = Pacer::default();
    pacer.hear(need("a", "c1", "deploy-fix"), t0);
    assert_eq!(pacer.next_at(), Some(t0 + HOLD));
    assert!(
        pacer.take_due(t0 + secs(1.0), 1, |_| true).is_none(),
        "not held"
    );
    // Granted at 1.5 s.
    assert!(pacer.take_due(t0 + HOLD, 0, |_| false).is_none());
    assert_eq!(pacer.next_at(), None, "nothing left to tell");
}

#[test]
fn the_first_after_a_quiet_spell_at_once_then_one_a_window_naming_count_and_first() {
    let t0 = Instant::now();
    let mut pacer = Pacer::default();
    pacer.hear(need("a", "c1", "deploy-fix"), t0);
    let told = pacer.take_due(t0 + HOLD, 1, |_| true).expect("held");
    assert_eq!(told.line, "deploy-fix: needs you: approval");
    assert_eq!(told.count, 1);
    for (i, id) in ["b", "c", "d"].iter().enumerate() {
        pacer.hear(need(id, &format!("c{i}"), id), t0 + secs(3.0 + i as f64));
    }
    assert_eq!(pacer.next_at(), Some(t0 + HOLD + WINDOW), "the window");
    assert!(pacer.take_due(t0 + secs(9.0), 4, |_| true).is_none());
    let told = pacer.take_due(t0 + HOLD + WINDOW, 4, |_| true).unwrap();
    assert_eq!(told.count, 3);
    assert_eq!(
        told.line, "4 need you: b (approval), …",
        "the fleet's one count, with a still untold"
    );
    assert_eq!(pacer.next_at(), None);
}

#[test]
fn news_of_other_kinds_is_counted_in_one_line_too() {
    let t0 = Instant::now();
    let mut pacer = Pacer::default();
    pacer.hear(need("a", "c1", ""), t0);
    let mut failed = need("b", "", "nightly");
    failed.kind = NotifyKind::TurnFailed;
    failed.call = None;
    failed.what = "turn failed".into();
    pacer.hear(failed, t0);
    let told = pacer.take_due(t0 + HOLD, 1, |_| true).unwrap();
    assert_eq!(told.line, "2 to look at: session a (approval), …");
}
