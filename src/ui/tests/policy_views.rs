//! The session's approval mode and rules in the Workspace pane, and the question `a` asks
//! on an approval (the whole rule, what the reference does not promise, where to see it),
//! in each built-in theme.

use super::{examples, render, render_in, view, zoomed};
use crate::keys::mode::Confirm;
use crate::session::Update;
use crate::ui::pane::Pane;
use crate::ui::screen::Screen;
use crate::ui::theme::{Depth, Theme};
use gobare_api::model::Session;
use gobare_api::session_patch::{PermissionRule, RuleDecision};
use insta::assert_debug_snapshot;
use serde_json::json;

fn themes() -> [(&'static str, Theme); 4] {
    [
        ("dark_256", Theme::dark(Depth::Indexed256)),
        ("light_256", Theme::light(Depth::Indexed256)),
        ("high_contrast", Theme::high_contrast()),
        (
            "colour_blind_dark_256",
            Theme::color_blind(Depth::Indexed256, false),
        ),
    ]
}

fn with_policy() -> crate::session::Session {
    let mut v = view();
    let mut s: Session = serde_json::from_value(examples()["session"].clone()).unwrap();
    s.agent.approval_mode = Some("per_step".into());
    s.agent.permission_rules = Some(vec![
        json!({"decision": "allow", "tool": "bash", "command": "systemctl restart export-worker"}),
        json!({"decision": "deny", "path": "/etc"}),
        json!({"decision": "ask", "tool": "write", "command": "rm -rf /\u{1b}[2J"}),
    ]);
    v.apply(Update::Session(Box::new(s)));
    v
}

#[test]
fn the_workspace_pane_lists_the_mode_and_each_rule_sanitized() {
    let v = with_policy();
    let out = render(&v, &mut zoomed(Pane::Workspace), 90, 24);
    assert!(out.contains("approval mode per_step"), "{out}");
    assert!(out.contains("from the next turn"), "{out}");
    assert!(
        out.contains("rules (3) · R: remove or edit any · X removes the newest"),
        "{out}"
    );
    assert!(
        out.contains("1. allow  bash  command \"systemctl restart export-worker\""),
        "{out}"
    );
    assert!(out.contains("2. deny  any tool  path \"/etc\""), "{out}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
    for (name, theme) in themes() {
        let buf = render_in(&v, &mut zoomed(Pane::Workspace), 90, 24, &theme)
            .backend()
            .buffer()
            .clone();
        assert_debug_snapshot!(format!("workspace_policy_{name}"), buf);
    }
}

#[test]
fn the_rule_question_shows_the_whole_rule_and_what_is_not_promised() {
    let v = with_policy();
    let mut rule = PermissionRule::new(RuleDecision::Allow);
    rule.tool = Some("bash".into());
    rule.command = Some("systemctl restart export-worker".into());
    let ask = |screen: &mut Screen| {
        screen.ask(Confirm::RuleFromApproval {
            call_id: "call_1".into(),
            approve: true,
            rule: rule.clone(),
            sensitive: true,
        })
    };
    let mut screen = Screen::new();
    ask(&mut screen);
    let out = render(&v, &mut screen, 100, 30);
    // The backend's rows are quoted: quotes and borders out, words joined across rows.
    let flat = out
        .replace(['│', '"'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("Approve this SENSITIVE action and add the rule"),
        "{out}"
    );
    assert!(
        flat.contains("allow bash command systemctl restart export-worker to this session"),
        "{out}"
    );
    assert!(flat.contains("the service may match more widely"), "{out}");
    assert!(flat.contains("Workspace pane"), "{out}");
    for (name, theme) in themes() {
        let mut screen = Screen::new();
        ask(&mut screen);
        let buf = render_in(&v, &mut screen, 100, 30, &theme)
            .backend()
            .buffer()
            .clone();
        assert_debug_snapshot!(format!("rule_question_{name}"), buf);
    }
}
