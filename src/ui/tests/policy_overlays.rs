//! The overlays that change a session's rules, labels and model (`R`, `l`, `C`): the list
//! with its cursor, the list that will be sent after an edit, the labels asked, the model
//! switch asked, in each built-in theme at 40×15 and 160×48.

use super::{render, render_in, view};
use crate::sessions::policy::PolicyChange;
use crate::ui::overlays::labels_editor::LabelsEditor;
use crate::ui::overlays::model_picker::ModelPicker;
use crate::ui::overlays::rules_list::RulesList;
use crate::ui::overlays::{Overlay, OverlayAction, OverlayKey, ViewKey};
use crate::ui::screen::Screen;
use crate::ui::theme::{Depth, Theme};
use gobare_api::credentials::{Credentials, ModelCredential};
use gobare_api::session_patch::{PermissionRule, RuleDecision};
use insta::assert_debug_snapshot;
use std::collections::BTreeMap;

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

const SIZES: [(u16, u16); 2] = [(40, 15), (160, 48)];

fn rules() -> Vec<PermissionRule> {
    let mut a = PermissionRule::new(RuleDecision::Allow);
    a.tool = Some("bash".into());
    a.command = Some("systemctl restart export-worker".into());
    let mut b = PermissionRule::new(RuleDecision::Deny);
    b.path = Some("/etc".into());
    let mut c = PermissionRule::new(RuleDecision::Ask);
    c.tool = Some("bash".into());
    c.command = Some("rm -rf build/ \u{1b}[2J".into());
    vec![a, b, c]
}

fn rules_edited() -> RulesList {
    let mut list = RulesList::new(rules());
    list.handle(ViewKey::Edit);
    list.paste(" --now");
    list.handle(ViewKey::Open);
    list
}

fn labels_asked() -> LabelsEditor {
    let mut now = BTreeMap::new();
    now.insert("job".to_string(), "8842".to_string());
    let mut editor = LabelsEditor::new(now);
    editor.paste(" team=billing");
    editor.handle(ViewKey::Open);
    editor
}

fn credentials() -> Credentials {
    let cred = |id: &str, provider: Option<&str>, models: &[&str]| ModelCredential {
        id: id.into(),
        provider: provider.map(String::from),
        name: None,
        models: models.iter().map(|m| m.to_string()).collect(),
    };
    Credentials {
        list: vec![
            cred("cred_8f2a91c4d7b0e6", Some("minimax"), &["MiniMax-M3"]),
            cred(
                "cred_d05a6c3e9f1b2477",
                Some("openrouter"),
                &["glm-5", "qwen3-coder"],
            ),
            cred("cred_0000", None, &[]),
        ],
        unreadable: 1,
        cut: false,
    }
}

fn model_asked() -> ModelPicker {
    let mut picker = ModelPicker::loading(
        Some("MiniMax-M3".into()),
        Some("cred_8f2a91c4d7b0e6".into()),
    );
    picker.listed(Ok(credentials()));
    picker.handle(ViewKey::Down);
    picker.handle(ViewKey::Open);
    picker
}

fn each(name: &str, make: impl Fn() -> Box<dyn Overlay>) {
    let v = view();
    for (theme_name, theme) in themes() {
        for (w, h) in SIZES {
            let mut screen = Screen::new();
            screen.open_overlay(make());
            let buf = render_in(&v, &mut screen, w, h, &theme)
                .backend()
                .buffer()
                .clone();
            assert_debug_snapshot!(format!("{name}_{theme_name}_{w}x{h}"), buf);
        }
    }
}

fn flat(out: &str) -> String {
    out.replace(['│', '"'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_rules_list_shows_every_rule_whole_and_sanitized_with_a_cursor() {
    let mut screen = Screen::new();
    screen.open_overlay(Box::new(RulesList::new(rules())));
    let out = render(&view(), &mut screen, 160, 48);
    let f = flat(&out);
    assert!(f.contains("Rules · 3"), "{out}");
    assert!(
        f.contains("› 1. allow bash command systemctl restart export-worker"),
        "{out}"
    );
    assert!(f.contains("x remove"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
    each("rules_list", || Box::new(RulesList::new(rules())));
}

#[test]
fn an_edit_shows_the_whole_list_to_be_sent_with_the_new_text() {
    let mut screen = Screen::new();
    screen.open_overlay(Box::new(rules_edited()));
    let out = render(&view(), &mut screen, 160, 48);
    let f = flat(&out);
    assert!(
        f.contains("Sent as the session's whole list (3 rules)"),
        "{out}"
    );
    assert!(
        f.contains("* 1. allow bash command systemctl restart export-worker --now"),
        "{out}"
    );
    assert!(f.contains("2. deny any tool path /etc"), "{out}");
    assert!(f.contains("may match more widely"), "{out}");
    each("rules_edit_asked", || Box::new(rules_edited()));
}

#[test]
fn the_labels_asked_are_the_whole_set_sent() {
    let mut screen = Screen::new();
    screen.open_overlay(Box::new(labels_asked()));
    let out = render(&view(), &mut screen, 160, 48);
    let f = flat(&out);
    assert!(f.contains("now: job=8842"), "{out}");
    assert!(
        f.contains("whole set of labels: job=8842 team=billing"),
        "{out}"
    );
    let mut editor = labels_asked();
    let mut want = BTreeMap::new();
    want.insert("job".to_string(), "8842".to_string());
    want.insert("team".to_string(), "billing".to_string());
    assert_eq!(
        editor.handle(ViewKey::Yes),
        OverlayKey::Act(OverlayAction::SetLabels(want))
    );
    each("labels_asked", || Box::new(labels_asked()));
}

#[test]
fn the_model_switch_names_the_model_and_credential_and_what_is_kept() {
    let mut screen = Screen::new();
    screen.open_overlay(Box::new(model_asked()));
    let out = render(&view(), &mut screen, 160, 48);
    let f = flat(&out);
    assert!(f.contains("MiniMax-M3 (now)"), "{out}");
    assert!(f.contains("(does not say which models it runs)"), "{out}");
    assert!(
        f.contains("Switch to glm-5 via cred_d05a6c3e9f1b2477 (keeps workspace and transcript)?"),
        "{out}"
    );
    assert_eq!(
        model_asked().handle(ViewKey::Yes),
        OverlayKey::Act(OverlayAction::SwitchModel {
            model: "glm-5".into(),
            credential: "cred_d05a6c3e9f1b2477".into(),
        })
    );
    each("model_asked", || Box::new(model_asked()));
}

#[test]
fn removing_is_named_in_the_change() {
    let mut list = RulesList::new(rules());
    list.handle(ViewKey::Remove);
    let OverlayKey::Act(OverlayAction::ReplaceRules(asked)) = list.handle(ViewKey::Yes) else {
        panic!("not asked");
    };
    assert_eq!(asked.change, PolicyChange::Removed(rules()[0].clone()));
    assert_eq!(asked.to, rules()[1..].to_vec());
}
