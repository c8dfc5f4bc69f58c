//! The Workspace pane drawn in its states, from the documented example events.

use crate::session::Update;
use crate::session::workspace::SandboxUsage;
use crate::ui::pane::Pane;
use crate::ui::tests::*;
use gobare_api::model::{Session, Usage, WorkspaceState};
use insta::assert_snapshot;
use serde_json::json;

#[test]
fn paused_workspace() {
    let mut v = view();
    let mut s: Session = serde_json::from_value(examples()["session"].clone()).unwrap();
    s.environment.repo = Some(
        serde_json::from_value(
            json!({"full_name": "acme/export", "branch": "main", "clone_error": null}),
        )
        .unwrap(),
    );
    v.apply(Update::Session(Box::new(s)));
    apply(
        &mut v,
        [
            example("sandbox.created"),
            example("sandbox.paused"),
            example("preview.ready"),
        ],
    );
    let out = render(&v, &mut zoomed(Pane::Workspace), 70, 14);
    assert!(
        out.contains("paused") && out.contains("next message wakes the paused workspace"),
        "{out}"
    );
    assert_snapshot!(out);
}

#[test]
fn a_destroyed_workspace_says_the_next_message_rebuilds_it_from_its_snapshot() {
    let mut v = view();
    let mut s: Session = serde_json::from_value(examples()["session"].clone()).unwrap();
    s.environment.state = Some(WorkspaceState::Destroyed);
    v.apply(Update::Session(Box::new(s)));
    let out = render(&v, &mut zoomed(Pane::Workspace), 60, 14);
    let flat = out
        .replace(['│', '"'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("next message rebuilds the destroyed workspace from its last snapshot"),
        "{out}"
    );
    assert!(flat.contains("node_modules and .git excluded"), "{out}");
    assert!(flat.contains("nothing over 300 MB"), "{out}");
}

#[test]
fn workspace_pane_shows_session_and_crew_usage() {
    let mut v = view();
    let s: Session = serde_json::from_value(examples()["session"].clone()).unwrap();
    v.apply(Update::Session(Box::new(s)));
    apply(&mut v, [example("sandbox.created")]);
    let usage = |scope: &str, sessions: u32, sandbox: u64, chargeable: u64| Usage {
        session_id: "s".into(),
        scope: scope.into(),
        sessions,
        as_of: Some(1_789_876_543_210),
        sandbox_seconds: sandbox,
        chargeable_seconds: chargeable,
    };
    v.apply(Update::Usage(SandboxUsage {
        session: usage("session", 1, 812, 640),
        crew: Some(usage("tree", 4, 7_300, 7_000)),
    }));
    let out = render(&v, &mut zoomed(Pane::Workspace), 70, 14);
    assert!(
        out.contains("usage 13m 32s sandbox · 10m 40s chargeable"),
        "{out}"
    );
    assert!(out.contains("crew (4 sessions) 2h 01m sandbox"), "{out}");
    assert!(out.contains("keeps accruing until it pauses"), "{out}");
    assert_snapshot!(out);
    // Paused, nothing accrues: the line would mislead.
    apply(&mut v, [example("sandbox.paused")]);
    let out = render(&v, &mut zoomed(Pane::Workspace), 70, 14);
    assert!(out.contains("usage 13m 32s sandbox"), "{out}");
    assert!(!out.contains("keeps accruing"), "{out}");
}

#[test]
fn the_workspace_pane_uses_its_space() {
    let v = busy_session();
    let out = render(&v, &mut zoomed(Pane::Workspace), 80, 20);
    for want in [
        "running",
        "next message queues as #2",
        "repo acme/billing @ ledger-migration",
        "preview https://p-4f1c8e02a7b1.gobare.dev (:3000)",
        "published https://s-3f9c1b60.gobare.dev",
        "usage 13m 32s sandbox",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
    assert_snapshot!(out);
}

#[test]
fn the_preview_links_are_where_the_workspace_pane_shows_them() {
    let v = busy_session();
    let mut screen = zoomed(Pane::Workspace);
    let out = render(&v, &mut screen, 80, 20);
    let links = screen.links();
    let urls: Vec<&str> = links.iter().map(|l| l.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://p-4f1c8e02a7b1.gobare.dev",
            "https://s-3f9c1b60.gobare.dev"
        ]
    );
    let rows: Vec<&str> = out.lines().collect();
    for l in links {
        let row: String = rows[usize::from(l.y)]
            .chars()
            .skip(1 + usize::from(l.x))
            .collect();
        assert!(row.starts_with(&l.url), "{l:?} on {row}");
    }
    screen.modes.set_for_test(crate::keys::mode::Mode::Help);
    screen.set_help_rows(crate::keys::table::help_rows());
    render(&v, &mut screen, 80, 20);
    assert!(
        screen.links().is_empty(),
        "nothing linked under the key list"
    );
}

#[test]
fn the_sandbox_budget_shows_beside_the_usage_with_what_is_left_or_that_it_was_passed() {
    let usage = |sandbox: u64| Usage {
        session_id: "s".into(),
        scope: "session".into(),
        sessions: 1,
        as_of: Some(1_789_876_543_210),
        sandbox_seconds: sandbox,
        chargeable_seconds: sandbox,
    };
    let mut v = view().with_sandbox_budget(Some(1));
    v.apply(Update::Usage(SandboxUsage {
        session: usage(812),
        crew: None,
    }));
    let out = render(&v, &mut zoomed(Pane::Workspace), 70, 14);
    assert!(
        out.contains("budget 1m 00s sandbox · passed by 12m 32s"),
        "the bell's reason in view: {out}"
    );
    let mut v = view().with_sandbox_budget(Some(90));
    v.apply(Update::Usage(SandboxUsage {
        session: usage(812),
        crew: None,
    }));
    let out = render(&v, &mut zoomed(Pane::Workspace), 70, 14);
    assert!(out.contains("budget 1h 30m sandbox · 1h 16m left"), "{out}");
    let out = render(&view(), &mut zoomed(Pane::Workspace), 70, 14);
    assert!(!out.contains("budget "), "no budget set, none shown: {out}");
}

/// The budget's line beside the usage, passed, where a person looks after the bell: at the
/// narrowest and a wide screen, with the Workspace pane in front.
#[test]
fn snapshot_a_passed_sandbox_budget_narrow_and_wide() {
    let mut v = view().with_sandbox_budget(Some(1));
    v.apply(Update::Usage(SandboxUsage {
        session: Usage {
            session_id: "s".into(),
            scope: "session".into(),
            sessions: 1,
            as_of: Some(1_789_876_543_210),
            sandbox_seconds: 812,
            chargeable_seconds: 812,
        },
        crew: None,
    }));
    // At 40 columns the line is cut after "passed", the cut marked.
    for (w, h, shown, name) in [
        (
            40,
            15,
            "budget 1m 00s sandbox · passed by 12m…",
            "budget_passed_40x15",
        ),
        (
            160,
            48,
            "budget 1m 00s sandbox · passed by 12m 32s",
            "budget_passed_160x48",
        ),
    ] {
        let out = render(&v, &mut navigating(Pane::Workspace), w, h);
        assert!(out.contains(shown), "{w}×{h}: {out}");
        assert_snapshot!(name, out);
    }
}
