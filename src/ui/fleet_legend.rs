//! What every mark in the fleet's and the inbox's columns means, shown under the keys in
//! F1: nothing in a column goes unexplained.

/// The fleet list's marks, by column.
const FLEET: &[(&str, &str)] = &[
    ("›", "the selected row"),
    ("└", "a member of the crew above (crews move as one block)"),
    (
        "needs you: …",
        "waits on your approval, answer or function result",
    ),
    (
        "failed",
        "its last turn failed, or its workspace could not be rebuilt",
    ),
    ("working / idle", "a turn runs / ready for input"),
    (
        "bands",
        "needs you, failed, working, idle: a row changes band once its state has held 2 s",
    ),
    (
        "Turn 3m 12s 2/5",
        "the running turn's time, and its todos done / total",
    ),
    ("Q +2", "messages queued behind the running turn"),
    (
        "Workspace",
        "starting, running, paused, destroyed (reclaimed), recovering",
    ),
    ("Art 3", "artifacts published"),
    (
        "Usage 14m / 4m 50s",
        "sandbox time used: counted on in minutes while the workspace runs, exact when it is not",
    ),
    (
        "Usage 14m?",
        "counted on from a read over 5 minutes old (the selected row's line says how old)",
    ),
    ("Last now / 5m", "time since the session last did something"),
    (
        "[job=8842]",
        "the session's labels (metadata), after its name: l edits them, the filter job=8842 keeps the sessions labelled so (matched here, in the fleet)",
    ),
];

/// The inbox's marks.
const INBOX: &[(&str, &str)] = &[
    (
        "4m 03s",
        "the exact deadline (a function call's expires_at)",
    ),
    (
        "≈ 1h 56m",
        "estimated: the workspace's 2 h of running time, less what it ran",
    ),
    (
        "paused, ≈ 20m left",
        "the workspace is paused: its clock stands still",
    ),
    ("expired", "the deadline has passed"),
    (
        "? reading",
        "unknown yet: the workspace started before the fleet opened; its usage is being read",
    ),
    (
        "? no usage",
        "unknown: the server answers no usage to count the running time from",
    ),
    (
        "? gap",
        "unknown: the stream skipped events that may have paused the workspace",
    ),
    ("none", "nothing ends it (the preview is published)"),
    (
        "approval⚠",
        "a sensitive approval: approving takes a second y",
    ),
    ("sending…", "your answer is on its way"),
];

/// The legend as the key list's rows: headings, then mark and meaning.
pub(crate) fn rows() -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for (heading, marks) in [
        ("Fleet: what the columns show", FLEET),
        ("Inbox: deadlines and kinds", INBOX),
    ] {
        rows.push((String::new(), heading.to_string()));
        rows.extend(marks.iter().map(|(m, s)| (m.to_string(), s.to_string())));
    }
    rows
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_mark_a_fleet_row_draws_is_in_the_legend() {
        let said: String = super::rows()
            .iter()
            .map(|(m, _)| m.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        for mark in [
            "›",
            "└",
            "+",
            "needs you",
            "failed",
            "working",
            "idle",
            "≈",
            "?",
            "⚠",
        ] {
            assert!(said.contains(mark), "{mark} has no legend");
        }
    }
}
