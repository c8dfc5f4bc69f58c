//! Every decision kind × every mode it can be met in: each hint of the input box's title is
//! pressed and must do what it says, and each decision key that does something is hinted.

use super::{Arrival, Rig};
use crate::keys::mode::{Confirm, Mode};
use crossterm::event::{KeyCode, KeyModifiers};
use gobare_api::model::Input;

const KINDS: [Arrival; 5] = [
    Arrival::Approval,
    Arrival::SensitiveApproval,
    Arrival::Question,
    Arrival::ChoiceQuestion,
    Arrival::FunctionCall,
];

/// Where the person is when the decision waits.
#[derive(Debug, Clone, Copy)]
enum Where {
    TypingEmpty,
    /// A draft begun after the decision arrived (an option's words: "left").
    TypingForIt,
    /// A draft begun before it arrived: a message, whatever waits.
    TypingBefore,
    Deciding,
    DecidingPicked,
    DecidingWithText,
}

const WHERES: [Where; 6] = [
    Where::TypingEmpty,
    Where::TypingForIt,
    Where::TypingBefore,
    Where::Deciding,
    Where::DecidingPicked,
    Where::DecidingWithText,
];

fn rig_at(kind: Arrival, at: Where) -> Rig {
    let mut rig = Rig::new();
    if matches!(at, Where::TypingBefore) {
        rig.type_text("left");
    }
    rig.arrive(kind);
    match at {
        Where::TypingEmpty | Where::TypingBefore => {}
        Where::TypingForIt => rig.type_text("left"),
        Where::Deciding => rig.press(KeyCode::Tab),
        Where::DecidingPicked => {
            rig.press(KeyCode::Tab);
            rig.press(KeyCode::Down);
        }
        Where::DecidingWithText => {
            rig.type_text("left");
            rig.press(KeyCode::Tab);
        }
    }
    rig
}

fn hints(title: &str) -> Vec<String> {
    title
        .trim()
        .split(" · ")
        .skip(1)
        .map(str::to_string)
        .collect()
}

fn answered(rig: &Rig) -> bool {
    matches!(
        rig.sent().last(),
        Some(Input::QuestionAnswer { .. } | Input::ToolResult { success: true, .. })
    )
}

/// Presses the key `hint` names; whether it did what the hint says (and what it did).
fn does_what_it_says(kind: Arrival, at: Where, hint: &str) -> Result<(), String> {
    let mut rig = rig_at(kind, at);
    let ok = match hint {
        // An empty box: the hint says what Enter does with what is typed.
        "Enter send" | "Enter answer" | "Enter answer with an option"
            if rig.box_text().is_empty() && rig.mode() == Mode::Typing =>
        {
            rig.type_text("left");
            rig.press(KeyCode::Enter);
            match hint {
                "Enter send" => matches!(rig.sent().last(), Some(Input::Message { .. })),
                _ => answered(&rig),
            }
        }
        "Enter send" => {
            rig.press(KeyCode::Enter);
            matches!(rig.sent().last(), Some(Input::Message { .. }))
        }
        "Enter answer" | "Enter answer with an option" => {
            rig.press(KeyCode::Enter);
            answered(&rig)
        }
        "Tab decide" => {
            rig.press(KeyCode::Tab);
            rig.mode() == Mode::Deciding
        }
        "Alt+Enter/Ctrl+J newline" => {
            rig.key(KeyCode::Char('j'), KeyModifiers::CONTROL);
            rig.box_text().contains('\n')
        }
        "Shift+Tab panes" => {
            rig.key(KeyCode::BackTab, KeyModifiers::SHIFT);
            rig.mode() == Mode::Navigating
        }
        "F1 keys" => {
            rig.press(KeyCode::F(1));
            rig.mode() == Mode::Help
        }
        "Esc type" => {
            rig.press(KeyCode::Esc);
            rig.mode() == Mode::Typing
        }
        "y approve" => {
            rig.press(KeyCode::Char('y'));
            matches!(rig.sent(), [Input::Approval { approved: true, .. }, ..])
                || matches!(
                    rig.mode(),
                    Mode::Confirming(Confirm::ApproveSensitive { .. })
                )
        }
        "n deny" => {
            rig.press(KeyCode::Char('n'));
            matches!(
                rig.sent(),
                [
                    Input::Approval {
                        approved: false,
                        ..
                    },
                    ..
                ]
            )
        }
        "1–9 pick" => {
            rig.press(KeyCode::Char('1'));
            rig.app
                .screen
                .prompt
                .highlighted_option(rig.app.session.actions())
                .is_some()
        }
        "f failed" => {
            rig.press(KeyCode::Char('f'));
            matches!(rig.sent(), [Input::ToolResult { success: false, .. }])
        }
        // The rule is shown and asked for first: nothing is sent by the key itself.
        "a allow always" | "d deny always" => {
            rig.press(KeyCode::Char(if hint.starts_with('a') { 'a' } else { 'd' }));
            let approve = hint.starts_with('a');
            rig.sent().is_empty()
                && matches!(
                    rig.mode(),
                    Mode::Confirming(Confirm::RuleFromApproval { approve: a, .. }) if a == approve
                )
        }
        other => return Err(format!("no check for the hint {other:?}: add one")),
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{kind:?} at {at:?}: {hint:?} did not do it (sent {:?}, mode {:?}, notice {:?})",
            rig.sent(),
            rig.mode(),
            rig.notice()
        ))
    }
}

/// What a deciding key does, if it decides or picks: the hint that must say so.
fn effect_of(kind: Arrival, at: Where, code: KeyCode) -> Option<&'static str> {
    let mut rig = rig_at(kind, at);
    let picked_before = rig
        .app
        .screen
        .prompt
        .highlighted_option(rig.app.session.actions());
    rig.press(code);
    let picked = rig
        .app
        .screen
        .prompt
        .highlighted_option(rig.app.session.actions());
    match (rig.sent(), rig.mode()) {
        ([Input::Approval { approved: true, .. }, ..], _) => Some("y approve"),
        (_, Mode::Confirming(Confirm::ApproveSensitive { .. })) => Some("y approve"),
        (
            [
                Input::Approval {
                    approved: false, ..
                },
                ..,
            ],
            _,
        ) => Some("n deny"),
        ([Input::ToolResult { success: false, .. }], _) => Some("f failed"),
        (_, Mode::Confirming(Confirm::RuleFromApproval { approve: true, .. })) => {
            Some("a allow always")
        }
        (_, Mode::Confirming(Confirm::RuleFromApproval { approve: false, .. })) => {
            Some("d deny always")
        }
        ([Input::QuestionAnswer { .. } | Input::ToolResult { .. }], _) => Some("Enter answer"),
        _ if picked.is_some() && picked != picked_before => Some("1–9 pick"),
        _ => None,
    }
}

#[test]
fn every_hint_of_every_decision_in_every_mode_does_what_it_says() {
    let mut wrong = Vec::new();
    for kind in KINDS {
        for at in WHERES {
            let title = rig_at(kind, at).title();
            let shown = hints(&title);
            for hint in &shown {
                if let Err(why) = does_what_it_says(kind, at, hint) {
                    wrong.push(format!("{why}\n    title: {title}"));
                }
            }
            if matches!(
                at,
                Where::Deciding | Where::DecidingPicked | Where::DecidingWithText
            ) {
                for code in [
                    KeyCode::Char('y'),
                    KeyCode::Char('n'),
                    KeyCode::Char('f'),
                    KeyCode::Char('a'),
                    KeyCode::Char('d'),
                    KeyCode::Char('1'),
                    KeyCode::Enter,
                ] {
                    if let Some(said) = effect_of(kind, at, code)
                        && !shown.iter().any(|h| h == said)
                    {
                        wrong.push(format!(
                            "{kind:?} at {at:?}: {code:?} does {said:?} unhinted\n    title: {title}"
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
