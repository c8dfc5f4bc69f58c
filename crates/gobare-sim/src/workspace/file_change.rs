//! A scenario's file step applied to a workspace file: the file after, and the diff of
//! what really changed (unified, three lines of context, no file header: the shape of
//! `file.changed.diff`), so a diff applied to the file before gives the file after.

use gobare_api::model::ChangeKind;

use crate::agent::scenario::{DiffSent, FileStep};

/// What a step did to one file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Applied {
    pub(crate) kind: ChangeKind,
    /// The file after the step; `None` once deleted.
    pub(crate) after: Option<Vec<u8>>,
    /// What the event carries of the diff.
    pub(crate) diff: Option<String>,
}

/// `step` applied to the file as the workspace holds it (`current`, `None` when absent);
/// `None` when nothing changed.
pub(crate) fn apply(current: Option<&[u8]>, step: &FileStep) -> Option<Applied> {
    let before = current.map(|b| String::from_utf8_lossy(b).into_owned());
    if step.change == "deleted" {
        let before = before?;
        let diff = unified(&before, "");
        return Some(Applied {
            kind: ChangeKind::Deleted,
            after: None,
            diff: sent(diff, step.diff),
        });
    }
    // A file the workspace lacks is created, whatever the step meant: the event says
    // what happened to the workspace as listed.
    let existed = before.is_some();
    let base = before.unwrap_or_default();
    let after = match &step.content {
        Some(content) => content.clone(),
        None => {
            let mut text = base.clone();
            for edit in &step.edits {
                if let Some(at) = text.find(&edit.find) {
                    text.replace_range(at..at + edit.find.len(), &edit.replace);
                }
            }
            if let Some(tail) = &step.append {
                text.push_str(tail);
            }
            text
        }
    };
    if existed && after == base {
        return None;
    }
    let kind = if existed {
        ChangeKind::Modified
    } else {
        ChangeKind::Created
    };
    Some(Applied {
        kind,
        diff: sent(unified(&base, &after), step.diff),
        after: Some(after.into_bytes()),
    })
}

/// The hunks turning `before` into `after` (diffy's: similar's unified output can
/// number a hunk wrongly).
fn unified(before: &str, after: &str) -> String {
    let patch = diffy::create_patch(before, after).to_string();
    // Only the hunks: `file.changed` names the file itself.
    match patch.find("\n@@") {
        Some(at) => patch[at + 1..].to_string(),
        None => String::new(),
    }
}

fn sent(diff: String, how: DiffSent) -> Option<String> {
    match how {
        DiffSent::Full => Some(diff),
        DiffSent::Omitted => None,
        DiffSent::Truncated => {
            let mut cut = diff.len() / 2;
            while !diff.is_char_boundary(cut) {
                cut -= 1;
            }
            Some(format!("{}…", &diff[..cut]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::scenario::Edit;
    use proptest::prelude::*;

    fn step(change: &str) -> FileStep {
        FileStep {
            path: "/workspace/a.txt".into(),
            change: change.into(),
            before: None,
            content: None,
            edits: Vec::new(),
            append: None,
            diff: DiffSent::Full,
        }
    }

    fn patched(before: &str, diff: &str) -> String {
        let patch = diffy::Patch::from_str(diff).expect("the diff parses");
        diffy::apply(before, &patch).expect("the diff applies")
    }

    #[test]
    fn a_new_file_is_created_with_a_diff_from_nothing() {
        let mut s = step("created");
        s.append = Some("one\ntwo\n".into());
        let done = apply(None, &s).unwrap();
        assert_eq!(done.kind, ChangeKind::Created);
        assert_eq!(done.after.as_deref(), Some(&b"one\ntwo\n"[..]));
        let diff = done.diff.unwrap();
        assert!(diff.starts_with("@@ -0,0 +1,2 @@"), "{diff}");
        assert_eq!(patched("", &diff), "one\ntwo\n");
    }

    #[test]
    fn edits_apply_to_the_file_as_it_is_and_a_second_play_edits_again() {
        let mut s = step("modified");
        s.edits = vec![Edit {
            find: "b".into(),
            replace: "B".into(),
        }];
        s.append = Some("z\n".into());
        let first = apply(Some(b"a\nb\nc\n"), &s).unwrap();
        assert_eq!(first.kind, ChangeKind::Modified);
        let after = String::from_utf8(first.after.clone().unwrap()).unwrap();
        assert_eq!(after, "a\nB\nc\nz\n");
        assert_eq!(patched("a\nb\nc\n", first.diff.as_deref().unwrap()), after);
        let second = apply(Some(after.as_bytes()), &s).unwrap();
        assert_eq!(
            second.after.as_deref(),
            Some("a\nB\nc\nz\nz\n".as_bytes()),
            "the edit no longer finds `b`; the append still adds"
        );
    }

    #[test]
    fn deleting_carries_the_whole_file_and_an_absent_file_sends_nothing() {
        let gone = apply(Some(b"x\ny\n"), &step("deleted")).unwrap();
        assert_eq!(gone.kind, ChangeKind::Deleted);
        assert_eq!(gone.after, None);
        assert_eq!(patched("x\ny\n", gone.diff.as_deref().unwrap()), "");
        assert_eq!(apply(None, &step("deleted")), None);
    }

    #[test]
    fn an_unchanged_file_sends_no_event_and_diffs_can_be_withheld_or_cut() {
        let mut same = step("modified");
        same.content = Some("q\n".into());
        assert_eq!(apply(Some(b"q\n"), &same), None);
        let mut none = step("modified");
        none.append = Some("more\n".into());
        none.diff = DiffSent::Omitted;
        assert_eq!(apply(Some(b"q\n"), &none).unwrap().diff, None);
        none.diff = DiffSent::Truncated;
        let cut = apply(Some(b"q\n"), &none).unwrap().diff.unwrap();
        assert!(cut.ends_with('…'), "{cut}");
        assert!(diffy::Patch::from_str(&cut).is_err() || !cut.contains("+more"));
    }

    #[test]
    fn a_file_the_workspace_lacks_is_created_whatever_the_step_meant() {
        let mut s = step("modified");
        s.before = Some("old\n".into());
        s.content = Some("new\n".into());
        let done = apply(None, &s).unwrap();
        assert_eq!(done.kind, ChangeKind::Created);
        assert_eq!(patched("", done.diff.as_deref().unwrap()), "new\n");
    }

    proptest! {
        #[test]
        fn every_diff_applied_to_the_file_before_gives_the_file_after(
            before in "([a-c]{0,3}\n){0,12}[a-c]{0,2}",
            content in "([a-c]{0,3}\n){0,12}[a-c]{0,2}",
        ) {
            let mut s = step("modified");
            s.content = Some(content.clone());
            if let Some(done) = apply(Some(before.as_bytes()), &s) {
                prop_assert_eq!(patched(&before, done.diff.as_deref().unwrap()), content);
            } else {
                prop_assert_eq!(before, content);
            }
        }
    }
}
