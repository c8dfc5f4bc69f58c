use super::*;
use crate::away::digest::{Decision, FailedTurn, WorkspaceChange};

fn digest(id: &str, title: &str) -> Digest {
    Digest {
        session_id: id.into(),
        title: Some(title.into()),
        since_ms: 1_000,
        until_ms: 1_000 + 3 * 3_600_000 + 12 * 60_000,
        turns_failed: 1,
        failed: vec![FailedTurn {
            turn_id: "turn_a".into(),
            at: None,
            reason: Some("provider_error: upstream unavailable".into()),
        }],
        turns_completed: 2,
        decisions_waiting: 1,
        decisions: vec![Decision {
            call_id: "c1".into(),
            kind: "approval",
            what: Some("bash".into()),
            asked_at: None,
            expires_at: None,
        }],
        workspace: vec![(WorkspaceChange::Paused, None)],
        ..Digest::default()
    }
}

fn drawn(width: u16, height: u16, digests: &[Digest]) -> (String, u16) {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    let away = digests.first().map_or(0, Digest::away_ms);
    let rows = render(
        area,
        &mut buf,
        digests,
        digests.len() > 1,
        away,
        0,
        &Theme::no_color(),
    );
    let text = (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n");
    (text, rows)
}

#[test]
fn one_session_s_digest_over_the_top_of_the_screen() {
    let (text, rows) = drawn(70, 20, &[digest("s1", "fix the export")]);
    assert_eq!(rows, 8);
    insta::assert_snapshot!(text);
}

#[test]
fn a_fleet_s_digest_is_waits_then_failures_then_one_line_and_scrolls_past_half_the_screen() {
    let many: Vec<Digest> = (0..12)
        .map(|i| digest(&format!("s{i}"), &format!("session number {i}")))
        .collect();
    let (text, rows) = drawn(60, 20, &many);
    assert_eq!(rows, 10, "half of 20");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].contains("Waiting on you: 12"), "{text}");
    assert!(
        lines[0].contains("Esc closes · PgUp/PgDn 1–"),
        "says it holds more and how to see it: {text}"
    );
    insta::assert_snapshot!(text);
    let area = Rect::new(0, 0, 60, 20);
    assert_eq!(scroll_room_of(area, &all_lines(&many, true)), 19);
    let mut buf = Buffer::empty(area);
    render(area, &mut buf, &many, true, 0, 19, &Theme::no_color());
    let last = crate::ui::text::buffer_text::rows_trimmed(&buf);
    assert!(
        last.contains("12 sessions: 24 turns completed, 12 workspace changes"),
        "scrolled to the end, the churn in one line: {last}"
    );
}

#[test]
fn too_small_a_screen_gets_no_banner() {
    assert_eq!(drawn(15, 20, &[digest("s1", "x")]).1, 0);
    assert_eq!(drawn(60, 3, &[digest("s1", "x")]).1, 0);
}
