//! The words the key table's rows are written in: chords (`c('q')`, `ctrl('c')`), rows
//! (`row(…)`, `doc(…)` and their `.hint`/`.action`/`.keys`) and the short names of scopes.

use super::super::fleet::FleetScope;
use super::super::view::ViewScope;
use super::{Binding, Chord, KeyRoute, Scope, Shown};
use crossterm::event::{KeyCode, KeyModifiers};

pub(super) const fn k(code: KeyCode) -> Chord {
    Chord::plain(code)
}

pub(super) const fn c(ch: char) -> Chord {
    Chord::plain(KeyCode::Char(ch))
}

pub(super) const fn ctrl(ch: char) -> Chord {
    Chord {
        code: KeyCode::Char(ch),
        mods: KeyModifiers::CONTROL,
    }
}

pub(super) const fn alt(ch: char) -> Chord {
    Chord {
        code: KeyCode::Char(ch),
        mods: KeyModifiers::ALT,
    }
}

pub(super) const fn with(code: KeyCode, mods: KeyModifiers) -> Chord {
    Chord { code, mods }
}

/// A row that routes.
pub(super) const fn row(
    scope: Scope,
    chords: &'static [Chord],
    route: KeyRoute,
    label: &'static str,
) -> Binding {
    Binding {
        scope,
        chords,
        route,
        label,
        hint: None,
        action: None,
        keys: None,
    }
}

impl Binding {
    pub(super) const fn hint(mut self, words: &'static str, shown: Shown) -> Binding {
        self.hint = Some((words, shown));
        self
    }

    pub(super) const fn action(mut self, name: &'static str) -> Binding {
        self.action = Some(name);
        self
    }

    pub(super) const fn keys(mut self, keys: &'static str) -> Binding {
        self.keys = Some(keys);
        self
    }
}

pub(super) const fn doc(scope: Scope, keys: &'static str, label: &'static str) -> Binding {
    row(scope, &[], KeyRoute::Ignore, label).keys(keys)
}

pub(super) const PAGER: Scope = Scope::View(ViewScope::Pager);
pub(super) const F_ANY: Scope = Scope::Fleet(FleetScope::Everywhere);
pub(super) const F_LIST: Scope = Scope::Fleet(FleetScope::List);
pub(super) const F_FILTER: Scope = Scope::Fleet(FleetScope::Filter);
pub(super) const F_RENAME: Scope = Scope::Fleet(FleetScope::Rename);
pub(super) const F_LABELS: Scope = Scope::Fleet(FleetScope::Labels);
pub(super) const F_CONFIRM: Scope = Scope::Fleet(FleetScope::Confirm);
pub(super) const F_HELP: Scope = Scope::Fleet(FleetScope::Help);
pub(super) const INBOX: Scope = Scope::Fleet(FleetScope::Inbox);
pub(super) const DECIDING: Scope = Scope::Fleet(FleetScope::InboxDeciding);
pub(super) const SENSITIVE: Scope = Scope::Fleet(FleetScope::InboxConfirm);
pub(super) const REPLY: Scope = Scope::Fleet(FleetScope::InboxReply);
pub(super) const NOTE: Scope = Scope::Fleet(FleetScope::InboxNote);
pub(super) const ARTIFACTS: Scope = Scope::View(ViewScope::Artifacts);
pub(super) const OVERWRITE: Scope = Scope::View(ViewScope::Overwrite);
pub(super) const FILES: Scope = Scope::View(ViewScope::Files);
pub(super) const FINDING: Scope = Scope::View(ViewScope::FilesFinding);
pub(super) const CHANGES: Scope = Scope::View(ViewScope::Changes);
pub(super) const COMMENT: Scope = Scope::View(ViewScope::ChangesComment);
pub(super) const SEND_REVIEW: Scope = Scope::View(ViewScope::ChangesSend);
pub(super) const RULES: Scope = Scope::View(ViewScope::Rules);
pub(super) const MODELS: Scope = Scope::View(ViewScope::Models);
pub(super) const POLICY_LINE: Scope = Scope::View(ViewScope::PolicyLine);
pub(super) const POLICY_ASK: Scope = Scope::View(ViewScope::PolicyAsk);

/// The inbox list's way back to the fleet, and (when F3 opened it from a session) to
/// that session.
pub(super) const INBOX_BACK_HINT: &str = "Esc fleet";
pub(super) const INBOX_BACK_TO_SESSION_HINT: &str = "Esc back to the session";
/// The deciding keys of an approval, and of an answer typed.
pub(super) const INBOX_APPROVE_HINT: &str = "y approve · n deny";
pub(super) const INBOX_TYPE_HINT: &str = "t type an answer";
/// An approval's note: typed on its own line, sent after the decision.
pub(super) const INBOX_NOTE_HINT: &str = "t note";
/// The key that shows a waiting request whole, as the prompt's mark offers it where it cut.
pub(super) const WHOLE_REQUEST_HINT: &str = "F2 shows it whole";
