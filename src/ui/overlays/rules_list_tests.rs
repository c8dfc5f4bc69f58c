use super::*;
use crossterm::event::{KeyCode, KeyModifiers};
use gobare_api::session_patch::RuleDecision;

fn rule(
    decision: RuleDecision,
    tool: &str,
    command: Option<&str>,
    path: Option<&str>,
) -> PermissionRule {
    let mut r = PermissionRule::new(decision);
    r.tool = Some(tool.into());
    r.command = command.map(String::from);
    r.path = path.map(String::from);
    r
}

fn three() -> Vec<PermissionRule> {
    vec![
        rule(RuleDecision::Allow, "bash", Some("make test"), None),
        rule(RuleDecision::Deny, "write", None, Some("/etc")),
        rule(RuleDecision::Allow, "bash", Some("cargo fmt"), None),
    ]
}

fn typed(list: &mut RulesList, text: &str) {
    for c in text.chars() {
        list.unrouted(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
}

#[test]
fn removing_the_selected_rule_asks_with_the_list_minus_it_and_y_sends_exactly_that() {
    let mut list = RulesList::new(three());
    assert_eq!(list.handle(ViewKey::Down), OverlayKey::Handled);
    list.handle(ViewKey::Remove);
    assert_eq!(list.scope(), ViewScope::PolicyAsk);
    let mut want = three();
    let gone = want.remove(1);
    assert_eq!(
        list.handle(ViewKey::Yes),
        OverlayKey::Act(OverlayAction::ReplaceRules(Box::new(Replacement {
            from: three(),
            to: want,
            change: PolicyChange::Removed(gone),
        })))
    );
}

#[test]
fn n_sends_nothing_and_goes_back_to_the_list() {
    let mut list = RulesList::new(three());
    list.handle(ViewKey::Remove);
    assert_eq!(list.handle(ViewKey::No), OverlayKey::Handled);
    assert_eq!(list.scope(), ViewScope::Rules);
    assert_eq!(list.handle(ViewKey::Close), OverlayKey::Close);
}

#[test]
fn an_edit_changes_only_the_rules_matching_text_and_is_asked_before_it_is_sent() {
    let mut list = RulesList::new(three());
    list.handle(ViewKey::Bottom);
    list.handle(ViewKey::Edit);
    assert_eq!(list.scope(), ViewScope::PolicyLine);
    // `y` here is text, not a yes.
    typed(&mut list, " --check y");
    list.handle(ViewKey::Open);
    assert_eq!(list.scope(), ViewScope::PolicyAsk);
    let mut want = three();
    let from = want[2].clone();
    want[2].command = Some("cargo fmt --check y".into());
    assert_eq!(
        list.handle(ViewKey::Yes),
        OverlayKey::Act(OverlayAction::ReplaceRules(Box::new(Replacement {
            from: three(),
            to: want.clone(),
            change: PolicyChange::Edited {
                from,
                to: want[2].clone(),
            },
        })))
    );
}

#[test]
fn a_path_rule_edits_its_path_and_an_empty_text_is_refused() {
    let mut list = RulesList::new(three());
    list.handle(ViewKey::Down);
    list.handle(ViewKey::Edit);
    list.unrouted(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    list.handle(ViewKey::Open);
    assert_eq!(list.scope(), ViewScope::PolicyLine, "empty is not sent");
    typed(&mut list, "/etc/ssh");
    list.handle(ViewKey::Open);
    let OverlayKey::Act(OverlayAction::ReplaceRules(asked)) = list.handle(ViewKey::Yes) else {
        panic!("not asked");
    };
    assert_eq!(asked.to[1].path.as_deref(), Some("/etc/ssh"));
    assert_eq!(asked.to[1].command, None);
}

#[test]
fn esc_on_the_line_drops_the_edit() {
    let mut list = RulesList::new(three());
    list.handle(ViewKey::Edit);
    typed(&mut list, "x");
    list.handle(ViewKey::No);
    assert_eq!(list.scope(), ViewScope::Rules);
    list.handle(ViewKey::Edit);
    list.handle(ViewKey::Open);
    assert_eq!(list.scope(), ViewScope::Rules, "unchanged: nothing asked");
}
