//! Composition against the truth: random files edited by random steps, each step sent as
//! the hunks a server would send (three lines of context, no file content), composed over
//! any range of steps and applied to the file as it was before the range.

use super::compose::{self, FileDiff, Incomplete, Status};
use super::file_history::{FileHistory, FileState, GapReason};
use super::patch::{write_hunk, write_patch};
use super::perf::hunks;
use super::session_changes::{Range, SessionChanges};
use gobare_api::model::{ChangeKind, Event, EventPayload, FileChange, TurnRef};
use proptest::prelude::*;

/// `diff`'s hunks applied to `before` (by diffy, not by the code under test).
fn applied(before: &str, diff: &FileDiff) -> String {
    let mut text = String::new();
    for hunk in &diff.hunks {
        write_hunk(&mut text, hunk);
    }
    if text.is_empty() {
        return before.to_string();
    }
    let patch = diffy::Patch::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    diffy::apply(before, &patch).unwrap_or_else(|e| panic!("{e}: {text}\non\n{before}"))
}

/// Feeds `states` (each the file's content after one event, `None` = removed) as events
/// and composes from event `from` (the state before it) to the last.
fn compose_range(
    first_exists: bool,
    states: &[Option<String>],
    base: &str,
    from: usize,
) -> (Result<Option<FileDiff>, Incomplete>, FileState, FileHistory) {
    let first_kind = if first_exists {
        ChangeKind::Modified
    } else {
        ChangeKind::Created
    };
    let mut history = FileHistory::new(&first_kind);
    let mut previous: Option<String> = first_exists.then(|| base.to_string());
    let mut start = history.state.clone();
    for (i, state) in states.iter().enumerate() {
        if i == from {
            start = history.state.clone();
        }
        let (kind, diff) = match (&previous, state) {
            (None, Some(now)) => (ChangeKind::Created, hunks("", now)),
            (Some(was), None) => (ChangeKind::Deleted, hunks(was, "")),
            (Some(was), Some(now)) => (ChangeKind::Modified, hunks(was, now)),
            (None, None) => continue,
        };
        history.apply(i as u64 + 1, &kind, Some(&diff));
        previous = state.clone();
    }
    let composed = compose::compose(&history, &start, &history.state);
    (composed, start, history)
}

fn line_text() -> impl Strategy<Value = String> {
    // Few distinct lines, so that diffs meet repeated and moved lines.
    "(alpha|beta|gamma|delta|[a-e]{1,3})\n"
}

fn file_text() -> impl Strategy<Value = String> {
    prop::collection::vec(line_text(), 0..40).prop_map(|lines| lines.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// A file that existed before the session: composed over any range of its events,
    /// the diff turns the file before the range into the file after it, or says it
    /// cannot (never a wrong one).
    #[test]
    fn composed_diffs_of_a_seeded_file_give_the_file_after(
        base in file_text(),
        states in prop::collection::vec(file_text(), 1..6),
        from_pick in 0usize..6,
    ) {
        let from = from_pick % states.len();
        let states: Vec<Option<String>> = states.into_iter().map(Some).collect();
        let (composed, _, _) = compose_range(true, &states, &base, from);
        let before = if from == 0 { base.clone() } else { states[from - 1].clone().unwrap() };
        let after = states.last().unwrap().clone().unwrap();
        match composed {
            Ok(Some(diff)) => {
                prop_assert_eq!(diff.status, Status::Modified);
                prop_assert_eq!(applied(&before, &diff), after);
            }
            Ok(None) => prop_assert_eq!(before, after),
            Err(why) => prop_assert_eq!(why, Incomplete::UnseenLine),
        }
    }

    /// A file the session created is known whole: every range composes, and exactly.
    #[test]
    fn a_file_created_in_the_session_always_composes(
        states in prop::collection::vec(file_text(), 1..6),
        from_pick in 0usize..6,
    ) {
        let from = from_pick % states.len();
        let states: Vec<Option<String>> = states.into_iter().map(Some).collect();
        let (composed, _, _) = compose_range(false, &states, "", from);
        let before = if from == 0 { String::new() } else { states[from - 1].clone().unwrap() };
        let after = states.last().unwrap().clone().unwrap();
        match composed.expect("a created file is known whole") {
            Some(diff) => prop_assert_eq!(applied(&before, &diff), after),
            None => prop_assert!(from > 0 && before == after),
        }
    }
}

#[test]
fn several_edits_of_one_file_compose_into_one_diff_not_concatenated_hunks() {
    let base = "a\nb\nc\nd\ne\nf\ng\nh\n";
    let one = "a\nb\nC\nd\ne\nf\ng\nh\n";
    let two = "a\nb\nc\nd\ne\nf\ng\nh\n";
    let states = [Some(one.to_string()), Some(two.to_string())];
    let (composed, _, _) = compose_range(true, &states, base, 0);
    assert_eq!(composed, Ok(None), "changed and changed back is no change");

    let three = "a\nb\nC\nd\ne\nf\nG\nh\n";
    let states = [Some(one.to_string()), Some(three.to_string())];
    let (composed, _, _) = compose_range(true, &states, base, 0);
    let diff = composed.unwrap().unwrap();
    assert_eq!(diff.hunks.len(), 1, "{diff:?}");
    assert_eq!(diff.counts(), (2, 2));
    assert_eq!(applied(base, &diff), three);
}

#[test]
fn a_removed_file_is_a_deletion_only_when_its_whole_content_was_shown() {
    let states = [Some("x\ny\n".to_string()), None];
    let (composed, _, _) = compose_range(true, &states, "w\nx\ny\n", 0);
    let diff = composed.unwrap().unwrap();
    assert_eq!(diff.status, Status::Deleted);
    assert_eq!(applied("w\nx\ny\n", &diff), "");

    // Removed without a diff, and never shown: no patch can remove it safely.
    let mut history = FileHistory::new(&ChangeKind::Deleted);
    let start = history.state.clone();
    history.apply(1, &ChangeKind::Deleted, None);
    assert_eq!(
        compose::compose(&history, &start, &history.state),
        Err(Incomplete::RemovedUnseen)
    );
}

#[test]
fn a_change_without_its_diff_leaves_the_file_unknown_until_it_is_created_again() {
    let mut history = FileHistory::new(&ChangeKind::Modified);
    history.apply(1, &ChangeKind::Modified, None);
    assert!(matches!(&history.state, FileState::Unknown(g) if g.why == GapReason::NoDiff));
    history.apply(2, &ChangeKind::Modified, Some("@@ -1,1 +1,1 @@\n-a\n+b\n"));
    assert!(matches!(&history.state, FileState::Unknown(g) if g.seq == 1));
    history.apply(3, &ChangeKind::Modified, Some("@@ -1,3 +1,4 @@\n…"));
    assert!(matches!(&history.state, FileState::Unknown(g) if g.seq == 1));
    let start = history.state.clone();
    history.apply(4, &ChangeKind::Created, Some("@@ -0,0 +1,1 @@\n+new\n"));
    let again = history.state.clone();
    assert!(matches!(again, FileState::Present { .. }));
    assert!(matches!(
        compose::compose(&history, &start, &again),
        Err(Incomplete::Gap { seq: 1, .. })
    ));

    let mut cut = FileHistory::new(&ChangeKind::Modified);
    cut.apply(7, &ChangeKind::Modified, Some("@@ -1,3 +1,4 @@\n a\n…"));
    assert!(matches!(&cut.state, FileState::Unknown(g) if g.why == GapReason::Unreadable));
}

#[test]
fn a_last_line_without_a_newline_is_marked_as_git_marks_it() {
    let states = [Some("a\nb".to_string())];
    let (composed, _, _) = compose_range(false, &states, "", 0);
    let diff = composed.unwrap().unwrap();
    let patch = write_patch([("f.txt", &diff)]);
    assert_eq!(
        patch,
        "diff --git a/f.txt b/f.txt\nnew file mode 100644\n--- /dev/null\n+++ b/f.txt\n\
         @@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n"
    );
}

fn event(seq: u64, payload: EventPayload) -> Event {
    Event {
        kind: std::borrow::Cow::Borrowed("x"),
        internal_type: None,
        session_id: None,
        seq: Some(seq),
        created_at: Some(seq as i64),
        payload,
    }
}

fn turn(seq: u64, id: &str, start: bool) -> Event {
    let turn = TurnRef { turn_id: id.into() };
    event(
        seq,
        if start {
            EventPayload::TurnStarted(turn)
        } else {
            EventPayload::TurnEnded(turn)
        },
    )
}

fn change(seq: u64, path: &str, kind: ChangeKind, diff: Option<&str>) -> Event {
    event(
        seq,
        EventPayload::FileChanged(FileChange {
            path: path.into(),
            change_type: kind,
            diff: diff.map(str::to_string),
            tool_call_id: None,
        }),
    )
}

fn history() -> Vec<Event> {
    vec![
        turn(1, "turn_a", true),
        change(
            2,
            "/workspace/n.txt",
            ChangeKind::Created,
            Some("@@ -0,0 +1,1 @@\n+one\n"),
        ),
        change(
            3,
            "/etc/passwd",
            ChangeKind::Modified,
            Some("@@ -1,1 +1,1 @@\n-a\n+b\n"),
        ),
        turn(4, "turn_a", false),
        turn(5, "turn_b", true),
        change(
            6,
            "/workspace/n.txt",
            ChangeKind::Modified,
            Some("@@ -1,1 +1,2 @@\n one\n+two\n"),
        ),
        turn(7, "turn_b", false),
        turn(8, "turn_c", true),
        change(
            9,
            "n.txt",
            ChangeKind::Modified,
            Some("@@ -1,2 +1,3 @@\n one\n two\n+three\n"),
        ),
        turn(10, "turn_c", false),
    ]
}

fn patch_for(range: Range) -> (String, SessionChanges) {
    let mut changes = SessionChanges::new(range);
    for e in history() {
        changes.feed(&e);
    }
    let outcomes = changes.outcomes();
    let files: Vec<_> = outcomes
        .iter()
        .map(|o| (o.path.as_str(), o.change.as_ref().unwrap()))
        .collect();
    (write_patch(files), changes)
}

#[test]
fn ranges_take_one_turn_or_every_turn_since_by_id_or_number() {
    let (whole, changes) = patch_for(Range::Session);
    assert!(whole.contains("new file mode 100644"), "{whole}");
    assert!(whole.contains("+one\n+two\n+three\n"), "{whole}");
    assert_eq!(
        changes.refused,
        vec![("/etc/passwd".to_string(), "outside /workspace")]
    );

    let (second, _) = patch_for(Range::Turn("2".into()));
    assert_eq!(
        second,
        "diff --git a/n.txt b/n.txt\n--- a/n.txt\n+++ b/n.txt\n@@ -1,1 +1,2 @@\n one\n+two\n"
    );
    let (by_id, _) = patch_for(Range::Turn("turn_b".into()));
    assert_eq!(by_id, second);
    let (since, _) = patch_for(Range::Since("turn_b".into()));
    assert!(
        since.contains("@@ -1,1 +1,3 @@\n one\n+two\n+three\n"),
        "{since}"
    );

    let (_, missing) = patch_for(Range::Turn("9".into()));
    assert!(!missing.turn_found());
    assert_eq!(missing.turns(), 3);
}

#[test]
fn a_missing_last_diff_is_fillable_and_filled_from_the_snapshot() {
    let mut changes = SessionChanges::new(Range::Session);
    changes.feed(&change(
        1,
        "a.txt",
        ChangeKind::Created,
        Some("@@ -0,0 +1,1 @@\n+a\n"),
    ));
    changes.feed(&change(2, "a.txt", ChangeKind::Modified, None));
    assert_eq!(changes.fillable(), vec![("a.txt".to_string(), Some(2))]);
    assert!(changes.outcomes()[0].change.is_err());
    changes.fill("a.txt", "a\nb\n");
    let outcome = &changes.outcomes()[0];
    let diff = outcome.change.as_ref().unwrap();
    assert_eq!(applied("", diff), "a\nb\n");

    // Touched again with a diff after the hole: the snapshot is no help.
    let mut later = SessionChanges::new(Range::Turn("1".into()));
    later.feed(&turn(1, "t1", true));
    later.feed(&change(2, "b.txt", ChangeKind::Modified, None));
    later.feed(&turn(3, "t1", false));
    later.feed(&turn(4, "t2", true));
    later.feed(&change(
        5,
        "b.txt",
        ChangeKind::Modified,
        Some("@@ -1 +1 @@\n-x\n+y\n"),
    ));
    assert!(later.fillable().is_empty());
}

/// A file rewritten 2,000 times keeps the text of its current lines (and of the range's
/// starting state), not of every line its history ever wrote.
#[test]
fn memory_follows_the_file_not_its_history() {
    let mut changes = SessionChanges::new(Range::Turn("2".into()));
    let mut text = String::new();
    let mut seq = 0;
    let feed = |changes: &mut SessionChanges, e: Event| changes.feed(&e);
    for t in 0..3u64 {
        seq += 1;
        feed(&mut changes, turn(seq, &format!("turn_{t}"), true));
        for e in 0..1000 {
            let next: String = (0..20)
                .map(|l| format!("turn {t} edit {e} line {l}\n"))
                .collect();
            seq += 1;
            let kind = if text.is_empty() {
                ChangeKind::Created
            } else {
                ChangeKind::Modified
            };
            feed(
                &mut changes,
                change(seq, "f.txt", kind, Some(&hunks(&text, &next))),
            );
            text = next;
        }
        seq += 1;
        feed(&mut changes, turn(seq, &format!("turn_{t}"), false));
    }
    let held = changes.held_lines("f.txt");
    assert!(
        held <= 20 + 20 + 256 + 40,
        "held {held} of 60,000 written lines"
    );
    // And the composed diff is still exact: turn 2 took the file from its state after
    // turn 1 to its state after turn 2.
    let outcome = &changes.outcomes()[0];
    let diff = outcome.change.as_ref().unwrap();
    let before: String = (0..20)
        .map(|l| format!("turn 0 edit 999 line {l}\n"))
        .collect();
    let after: String = (0..20)
        .map(|l| format!("turn 1 edit 999 line {l}\n"))
        .collect();
    assert_eq!(applied(&before, diff), after);
}
