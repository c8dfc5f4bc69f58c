//! The policy overlays' changes from the session front: a list changed meanwhile is never
//! replaced, the keys in the panes open the overlays and none in the box, and a refused
//! change is said in words.

use super::Rig;
use crate::sessions::policy::PolicyChange;
use crate::ui::overlays::rules_list::Replacement;
use crossterm::event::{KeyCode, KeyModifiers};
use gobare_api::error::ApiError;
use gobare_api::session_patch::{PermissionRule, RuleDecision};

#[test]
fn a_rule_list_changed_since_it_was_shown_is_not_replaced() {
    let mut rig = Rig::new();
    let mut shown = PermissionRule::new(RuleDecision::Allow);
    shown.command = Some("make test".into());
    // The session as read holds no rules: the list shown is not what it holds.
    rig.app.act_replace_rules(Replacement {
        from: vec![shown.clone()],
        to: Vec::new(),
        change: PolicyChange::Removed(shown),
    });
    assert!(
        rig.notice().contains("changed meanwhile: nothing sent"),
        "{}",
        rig.notice()
    );
}

#[test]
fn the_keys_open_their_overlays_from_the_panes_and_are_text_in_the_box() {
    let mut rig = Rig::new();
    rig.type_text("lRC");
    assert_eq!(rig.box_text(), "lRC", "typed letters are text");
    assert!(!rig.app.screen.overlay_open());
    rig.key(KeyCode::Char('u'), KeyModifiers::CONTROL);
    rig.key(KeyCode::BackTab, KeyModifiers::SHIFT);
    for key in ['R', 'l', 'C'] {
        rig.press(KeyCode::Char(key));
        assert!(rig.app.screen.overlay_open(), "{key} opens its overlay");
        rig.press(KeyCode::Esc);
        assert!(
            !rig.app.screen.overlay_open(),
            "Esc closes what {key} opened"
        );
    }
}

#[test]
fn a_refused_model_switch_is_said_in_the_servers_words() {
    let mut rig = Rig::new();
    let refusal = ApiError::from_response(
        400,
        Some("req_1"),
        None,
        br#"{"error":{"code":"invalid_request","message":"Unknown model \"glm-6\": credential cred_d05a6c3e9f1b2477 runs glm-5, qwen3-coder."}}"#,
    );
    rig.app.on_policy_written(
        PolicyChange::Model {
            model: "glm-6".into(),
            credential: "cred_d05a6c3e9f1b2477".into(),
        },
        Err(refusal),
    );
    let said = rig.notice();
    assert!(said.starts_with("could not switch the model:"), "{said}");
    assert!(said.contains("Unknown model \"glm-6\""), "{said}");
    assert!(said.contains("HTTP 400"), "{said}");
}
