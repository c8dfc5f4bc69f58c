use super::*;

fn turn(id: &str, created_at: i64) -> Turn {
    serde_json::from_value(serde_json::json!({
        "object": "turn", "id": id, "session_id": "s", "status": "completed",
        "created_at": created_at, "started_at": created_at, "completed_at": created_at + 3,
    }))
    .unwrap()
}

/// A page of turns created at `from..from + n`, newest first.
fn page(from: i64, n: i64) -> Vec<Turn> {
    (from..from + n)
        .rev()
        .map(|at| turn(&format!("t{at}"), at))
        .collect()
}

#[test]
fn older_pages_go_back_only_as_far_as_a_separator_waits() {
    let mut pages = TurnPages::default();
    assert_eq!(pages.next_older(Some(50)), None, "the newest page first");
    pages.newest_read(&page(300, 100), Some("t300".into()));
    assert_eq!(
        pages.next_older(None),
        None,
        "every separator says how it ended"
    );
    assert_eq!(
        pages.next_older(Some(301)),
        None,
        "the page reaches back past it"
    );
    assert_eq!(
        pages.next_older(Some(150)),
        Some(FetchJob::PastTurns {
            after: "t300".into()
        })
    );
    pages.older_read(&page(200, 100), Some("t200".into()));
    assert_eq!(
        pages.next_older(Some(150)),
        Some(FetchJob::PastTurns {
            after: "t200".into()
        })
    );
    pages.older_read(&page(100, 100), Some("t100".into()));
    assert_eq!(pages.next_older(Some(150)), None, "reached");
    pages.older_read(&page(0, 100), None);
    assert_eq!(pages.next_older(Some(-5)), None, "the server has no more");
}

#[test]
fn older_pages_stop_at_the_cap() {
    let mut pages = TurnPages::default();
    pages.newest_read(&page(1_000_000, 100), Some("c".into()));
    for n in 0..OLDER_PAGES {
        assert!(pages.next_older(Some(0)).is_some(), "page {n}");
        pages.older_read(&page(999_000 - 100 * n as i64, 100), Some("c".into()));
    }
    assert_eq!(pages.next_older(Some(0)), None);
}

#[test]
fn the_newest_page_is_read_again_once_after_a_replay_only_when_outcomes_are_missing() {
    let mut pages = TurnPages::default();
    assert!(
        !pages.read_newest_again(true),
        "no turn read was left to it"
    );
    pages.left_to_the_newest_page();
    assert!(
        !pages.read_newest_again(true),
        "not read yet: its answer says"
    );
    pages.newest_read(&page(0, 3), None);
    assert!(pages.read_newest_again(true));
    assert!(!pages.read_newest_again(true), "once");
    pages.left_to_the_newest_page();
    assert!(!pages.read_newest_again(false), "the page said it all");
    assert!(!pages.read_newest_again(true));
}
