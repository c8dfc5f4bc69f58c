//! What is read from the key table: the input box's title, the status hint, the key lists,
//! an overlay's or the fleet's meaning of a key, and docs/keys.md's table.

use super::super::decision::Decision;
use super::super::fleet::{FleetKey, FleetScope};
use super::super::intent::Intent;
use super::super::mode::Mode;
use super::super::view::{ViewKey, ViewScope};
use super::grammar::{
    INBOX_APPROVE_HINT, INBOX_BACK_HINT, INBOX_BACK_TO_SESSION_HINT, INBOX_NOTE_HINT,
    INBOX_TYPE_HINT,
};
use super::{Binding, KeyRoute, Scope, Shown, TABLE, scope_of};
use crossterm::event::{KeyCode, KeyModifiers};

/// The words of the input box's title for `scope` in the situation given.
pub(crate) fn title(scope: Scope, name: &str, situation: Situation) -> String {
    let mut t = format!(" {name}");
    // The way back first: a narrow box cuts the title from its end.
    let rows = TABLE.iter().filter(|b| b.scope == scope);
    let (back, rest): (Vec<&Binding>, Vec<&Binding>) =
        rows.partition(|b| b.hint.is_some_and(|(w, _)| w.starts_with("Esc")));
    for b in back.into_iter().chain(rest) {
        let Some((words, shown)) = b.hint else {
            continue;
        };
        let choice_only = matches!(
            situation.decision,
            Some(Decision::Question {
                choice_only: true,
                ..
            })
        );
        let show = match shown {
            Shown::Always => true,
            Shown::Waiting => situation.waiting,
            Shown::Running => situation.running,
            Shown::EnterAnswers => situation.enter_answers && !choice_only,
            Shown::EnterPicks => situation.enter_answers && choice_only,
            Shown::EnterSends => !situation.enter_answers,
            Shown::Approving => situation.decision == Some(Decision::Approval),
            Shown::Picking => matches!(
                situation.decision,
                Some(Decision::Question { options: true, .. })
            ),
            Shown::EnterDecides => situation.enter_decides,
            Shown::Failing => situation.decision == Some(Decision::FunctionCall),
            Shown::CutMark => false,
        };
        if show {
            t.push_str(" · ");
            t.push_str(words);
        }
    }
    if scope == Scope::Typing {
        // Reached from every mode but the overlays: the key list.
        t.push_str(" · F1 keys");
    }
    t.push(' ');
    t
}

/// The input box's title for `mode`: its name and its keys. `pane` names the pane that has
/// the keys in the panes.
pub(crate) fn mode_title(mode: &Mode, pane: &str, situation: Situation) -> String {
    let scope = scope_of(mode);
    let name = match mode {
        Mode::Typing => "Typing".to_string(),
        Mode::Navigating => format!("Panes · {pane}"),
        Mode::Deciding => "Deciding".to_string(),
        Mode::Decided => "Decided".to_string(),
        Mode::Confirming(_) => "Confirm".to_string(),
        Mode::Help => "Keys".to_string(),
        Mode::Search => "Search".to_string(),
        Mode::Overlay => "Viewing".to_string(),
    };
    title(scope, &name, situation)
}

/// The status bar's word on where keys go: in the panes, which pane has them.
pub(crate) fn status_hint(mode: &Mode, pane: &str) -> (String, bool) {
    if mode.pane_has_keys() {
        return (format!("keys → {pane} pane · Esc to type"), true);
    }
    let key = |scope: Scope, intent: Intent| {
        TABLE
            .iter()
            .find(|b| b.scope == scope && b.route == KeyRoute::Do(intent.clone()))
            .map(Binding::keys_label)
            .unwrap_or_default()
    };
    (
        format!(
            "{} panes · {} keys · {} quit",
            key(Scope::Typing, Intent::EnterPanes),
            key(Scope::Everywhere, Intent::ToggleHelp),
            key(Scope::Everywhere, Intent::Quit)
        ),
        false,
    )
}

/// What the title's conditional hints depend on.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Situation {
    pub(crate) waiting: bool,
    pub(crate) running: bool,
    /// Enter in the box answers the decision shown (the draft was begun for it).
    pub(crate) enter_answers: bool,
    /// The decision the prompt shows, if one waits.
    pub(crate) decision: Option<Decision>,
    /// Deciding, Enter answers: an option is picked, or the box's text is taken.
    pub(crate) enter_decides: bool,
}

/// The key list's rows: a heading row (empty keys) per scope, then its bindings.
pub(crate) fn help_rows() -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for scope in Scope::ALL {
        rows.push((String::new(), scope.heading().to_string()));
        for b in TABLE.iter().filter(|b| b.scope == scope) {
            rows.push((b.keys_label(), b.label.to_string()));
        }
    }
    rows
}

/// The hint line of an overlay whose keys are `scope`'s: its rows' hints, the way out
/// last.
pub(crate) fn view_hints(scope: ViewScope) -> String {
    let (rest, back) = view_hint_words(scope);
    rest.into_iter().chain(back).collect::<Vec<_>>().join(" · ")
}

/// [`view_hints`] in at most `max_cols` cells. When they do not all fit, the hints before
/// the way out go from the last, and `…` stands where they were; the way out stays.
pub(crate) fn view_hints_within(scope: ViewScope, max_cols: usize) -> String {
    let all = view_hints(scope);
    if gobare_api::text::width(&all) <= max_cols {
        return all;
    }
    let (rest, back) = view_hint_words(scope);
    for kept in (0..rest.len()).rev() {
        let line = rest[..kept]
            .iter()
            .copied()
            .chain(std::iter::once("…"))
            .chain(back.iter().copied())
            .collect::<Vec<_>>()
            .join(" · ");
        if gobare_api::text::width(&line) <= max_cols {
            return line;
        }
    }
    gobare_api::text::truncate(&back.join(" · "), max_cols).into_owned()
}

/// An overlay's hints: the others, and the way out.
fn view_hint_words(scope: ViewScope) -> (Vec<&'static str>, Vec<&'static str>) {
    let rows = TABLE.iter().filter(|b| b.scope == Scope::View(scope));
    let (back, rest): (Vec<&Binding>, Vec<&Binding>) =
        rows.partition(|b| b.hint.is_some_and(|(w, _)| w.starts_with("Esc")));
    let words = |rows: Vec<&Binding>| -> Vec<&'static str> {
        rows.into_iter()
            .filter_map(|b| b.hint.map(|(words, _)| words))
            .collect()
    };
    (words(rest), words(back))
}

/// What `code` with `mods` means to an overlay whose keys are `scope`'s, if a row says.
pub(crate) fn view_key(scope: ViewScope, code: KeyCode, mods: KeyModifiers) -> Option<ViewKey> {
    TABLE
        .iter()
        .filter(|b| b.scope == Scope::View(scope))
        .find(|b| b.chords.iter().any(|c| c.matches(code, mods)))
        .and_then(|b| match b.route {
            KeyRoute::View(key) => Some(key),
            _ => None,
        })
}

/// The words the prompt's mark offers where it cut the waiting request to fit, while keys
/// are `scope`'s: the hint of the scope's row that shows it whole, if it has one.
pub(crate) fn whole_request_hint(scope: Scope) -> Option<&'static str> {
    TABLE
        .iter()
        .filter(|b| b.scope == scope)
        .find(|b| b.route == KeyRoute::Do(Intent::InspectDecision))
        .and_then(|b| b.hint)
        .map(|(words, _)| words)
}

/// What `code` with `mods` means to the fleet while its keys are `scope`'s, if a row says.
pub(crate) fn fleet_key(scope: FleetScope, code: KeyCode, mods: KeyModifiers) -> Option<FleetKey> {
    let meaning = |scope: FleetScope| {
        TABLE
            .iter()
            .filter(|b| b.scope == Scope::Fleet(scope))
            .find(|b| b.chords.iter().any(|c| c.matches(code, mods)))
            .and_then(|b| match b.route {
                KeyRoute::Fleet(key) => Some(key),
                _ => None,
            })
    };
    meaning(FleetScope::Everywhere).or_else(|| meaning(scope))
}

/// The fleet's hint line while its keys are `scope`'s.
pub(crate) fn fleet_hints(scope: FleetScope) -> String {
    TABLE
        .iter()
        .filter(|b| b.scope == Scope::Fleet(scope))
        .filter_map(|b| b.hint.map(|(words, _)| words))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// [`fleet_hints`] for the inbox, whose Esc goes back to the session F3 was pressed in
/// when `to_session`, and whose deciding keys are those of the action decided (`deciding`):
/// no "approve" for a question, no typing for an approval.
pub(crate) fn inbox_hints(
    scope: FleetScope,
    to_session: bool,
    deciding: Option<Decision>,
) -> String {
    let unsaid: &[&str] = match (scope, deciding) {
        (FleetScope::InboxDeciding, Some(Decision::Approval)) => &[INBOX_TYPE_HINT],
        (FleetScope::InboxDeciding, Some(d)) if d.takes_any_text() => {
            &[INBOX_APPROVE_HINT, INBOX_NOTE_HINT]
        }
        // `t` refuses a choice-only question's typed answer: no hint offers it.
        (FleetScope::InboxDeciding, Some(_)) => {
            &[INBOX_APPROVE_HINT, INBOX_TYPE_HINT, INBOX_NOTE_HINT]
        }
        (FleetScope::InboxDeciding, None) => &[INBOX_NOTE_HINT],
        _ => &[],
    };
    TABLE
        .iter()
        .filter(|b| b.scope == Scope::Fleet(scope))
        .filter_map(|b| b.hint.map(|(words, _)| words))
        .filter(|words| !unsaid.contains(words))
        .map(|words| match words {
            INBOX_BACK_HINT if to_session => INBOX_BACK_TO_SESSION_HINT,
            words => words,
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The fleet's key list: each of its scopes' rows under the scope's heading.
pub(crate) fn fleet_help_rows() -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for scope in Scope::ALL
        .into_iter()
        .filter(|s| matches!(s, Scope::Fleet(_)))
    {
        rows.push((String::new(), scope.heading().to_string()));
        rows.extend(
            TABLE
                .iter()
                .filter(|b| b.scope == scope)
                .map(|b| (b.keys_label(), b.label.to_string())),
        );
    }
    rows
}

/// `docs/keys.md`'s key table (Markdown), generated; a test compares it with the page.
#[cfg(test)]
pub(crate) fn docs_table() -> String {
    let mut out = String::from("| Mode | Key | |\n| --- | --- | --- |\n");
    for scope in Scope::ALL {
        let mut first = true;
        for b in TABLE.iter().filter(|b| b.scope == scope) {
            let mode = if first { scope.short() } else { "" };
            first = false;
            let keys = b.keys_label().replace('|', "\\|");
            out.push_str(&format!("| {mode} | {keys} | {} |\n", b.label));
        }
    }
    out
}

/// The `[keys]` action names, in table order.
pub(crate) fn action_names() -> Vec<&'static str> {
    TABLE.iter().filter_map(|b| b.action).collect()
}
