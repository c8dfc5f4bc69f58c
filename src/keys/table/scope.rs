//! Where a key goes ([`KeyRoute`]) and which mode a row acts in ([`Scope`]).

use super::super::fleet::{FleetKey, FleetScope};
use super::super::intent::Intent;
use super::super::mode::Mode;
use super::super::view::{ViewKey, ViewScope};

/// Where a key goes: straight to an intent, or to the widget that has the keys.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum KeyRoute {
    Do(Intent),
    /// The input box (typing).
    Input,
    /// The required-action prompt (deciding).
    Prompt,
    /// The search being typed.
    Search,
    /// The answer to the confirmation shown: yes or no.
    Confirm(bool),
    /// Enter on a confirmation: never yes; the status bar says what is.
    ExplainConfirm,
    /// What a key means to the fleet.
    Fleet(FleetKey),
    /// Another letter on a confirmation: no, and what follows is held.
    Decline,
    /// After a decision: held, with a word on how to go on.
    Held,
    /// The open overlay (pager, list, inspector): its own scope's rows say what the key is.
    Overlay,
    /// What a key means to the open overlay.
    View(ViewKey),
    Ignore,
}

/// The table's scope for a mode.
pub(crate) fn scope_of(mode: &Mode) -> Scope {
    match mode {
        Mode::Typing => Scope::Typing,
        Mode::Navigating => Scope::Panes,
        Mode::Deciding => Scope::Deciding,
        Mode::Decided => Scope::Decided,
        Mode::Confirming(_) => Scope::Confirming,
        Mode::Help => Scope::Help,
        Mode::Search => Scope::Search,
        Mode::Overlay => Scope::Viewing,
    }
}

/// Which mode a binding acts in (or, for the list-only scopes, which screen's widget
/// reads it: the table still says what those keys do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Typing, the panes, deciding and after a decision (not over a question, the search bar,
    /// the key list or an overlay, which take every key).
    Everywhere,
    Typing,
    Deciding,
    Decided,
    Panes,
    Confirming,
    Search,
    /// An overlay is open: these, else the keys of the overlay's own scope.
    Viewing,
    /// The keys of one overlay in one state.
    View(ViewScope),
    Help,
    /// The fleet (Ctrl+O): its own screen, in one of its states.
    Fleet(FleetScope),
}

impl Scope {
    /// Whether the rows of [`Scope::Everywhere`] act in this scope too.
    pub(crate) fn takes_everywhere(self) -> bool {
        matches!(
            self,
            Scope::Typing | Scope::Panes | Scope::Deciding | Scope::Decided
        )
    }

    /// The heading of the scope's rows in the key list and docs/keys.md.
    pub(crate) fn heading(self) -> &'static str {
        match self {
            Scope::Everywhere => "Everywhere",
            Scope::Typing => "Typing (the input box): every other key is text",
            Scope::Deciding => "Deciding (Tab while the agent waits on you)",
            Scope::Decided => "After a decision (keys are held, not text, for a moment)",
            Scope::Panes => "Panes (Shift+Tab): letters are commands, the box says so",
            Scope::Confirming => "Confirming (a question in the input area)",
            Scope::Search => "Search (/ in the panes)",
            Scope::Viewing => "Over any overlay (artifacts, files, a pager)",
            Scope::View(ViewScope::Pager) => "A pager (an artifact, a file, an event, a diff)",
            Scope::View(ViewScope::Artifacts) => "Artifacts (a in the panes)",
            Scope::View(ViewScope::Overwrite) => "Artifacts, asked whether to overwrite",
            Scope::View(ViewScope::Files) => "Workspace files (f in the panes)",
            Scope::View(ViewScope::FilesFinding) => "Workspace files, finding a name (/)",
            Scope::View(ViewScope::Changes) => "Changes (D in the panes)",
            Scope::View(ViewScope::ChangesComment) => "Changes, writing a comment (c)",
            Scope::View(ViewScope::ChangesSend) => "Changes, asked before the review is sent",
            Scope::View(ViewScope::Rules) => {
                "Rules (R in the panes): the session's permission rules"
            }
            Scope::View(ViewScope::Models) => {
                "Model (C in the panes): the credentials and their models"
            }
            Scope::View(ViewScope::PolicyLine) => "Rules or labels (l in the panes): typing a line",
            Scope::View(ViewScope::PolicyAsk) => {
                "Rules, labels or model: asked before the change is sent"
            }
            Scope::Help => "This list",
            Scope::Fleet(FleetScope::Everywhere) => "Fleet (Ctrl+O), anywhere in it",
            Scope::Fleet(FleetScope::List) => "Fleet: the list (letters are commands)",
            Scope::Fleet(FleetScope::Filter) => "Fleet: typing the filter (/)",
            Scope::Fleet(FleetScope::Rename) => "Fleet: typing a new title (r)",
            Scope::Fleet(FleetScope::Labels) => "Fleet: typing labels (l)",
            Scope::Fleet(FleetScope::Confirm) => "Fleet: asked before a delete or fork",
            Scope::Fleet(FleetScope::Help) => "Fleet: this list",
            Scope::Fleet(FleetScope::Inbox) => {
                "Inbox (i in the fleet, F3 anywhere): every decision waiting, soonest deadline first"
            }
            Scope::Fleet(FleetScope::InboxDeciding) => {
                "Inbox, deciding (Tab): the selected action's keys, as in a session"
            }
            Scope::Fleet(FleetScope::InboxConfirm) => "Inbox, asked before a sensitive approval",
            Scope::Fleet(FleetScope::InboxReply) => "Inbox, typing an answer (t)",
            Scope::Fleet(FleetScope::InboxNote) => "Inbox, typing an approval's note (t)",
        }
    }

    /// docs/keys.md's short name of the scope (first column of its key table).
    pub(crate) fn short(self) -> &'static str {
        match self {
            Scope::Everywhere => "everywhere",
            Scope::Typing => "typing (the box)",
            Scope::Deciding => "deciding (Tab)",
            Scope::Decided => "after a decision",
            Scope::Panes => "panes (Shift+Tab)",
            Scope::Confirming => "confirming",
            Scope::Search => "search (`/`)",
            Scope::Viewing => "any overlay",
            Scope::View(ViewScope::Pager) => "pager",
            Scope::View(ViewScope::Artifacts) => "artifacts (`a`)",
            Scope::View(ViewScope::Overwrite) => "overwrite?",
            Scope::View(ViewScope::Files) => "files (`f`)",
            Scope::View(ViewScope::FilesFinding) => "files, finding",
            Scope::View(ViewScope::Changes) => "changes (`D`)",
            Scope::View(ViewScope::ChangesComment) => "changes, comment",
            Scope::View(ViewScope::ChangesSend) => "changes, send?",
            Scope::View(ViewScope::Rules) => "rules (`R`)",
            Scope::View(ViewScope::Models) => "model (`C`)",
            Scope::View(ViewScope::PolicyLine) => "rules, labels: typing",
            Scope::View(ViewScope::PolicyAsk) => "rules, labels, model: send?",
            Scope::Help => "help (F1)",
            Scope::Fleet(FleetScope::Everywhere) => "fleet",
            Scope::Fleet(FleetScope::List) => "fleet: list",
            Scope::Fleet(FleetScope::Filter) => "fleet: filter",
            Scope::Fleet(FleetScope::Rename) => "fleet: rename",
            Scope::Fleet(FleetScope::Labels) => "fleet: labels",
            Scope::Fleet(FleetScope::Confirm) => "fleet: asked",
            Scope::Fleet(FleetScope::Help) => "fleet: keys",
            Scope::Fleet(FleetScope::Inbox) => "inbox (`i`, F3)",
            Scope::Fleet(FleetScope::InboxDeciding) => "inbox: deciding",
            Scope::Fleet(FleetScope::InboxConfirm) => "inbox: sensitive?",
            Scope::Fleet(FleetScope::InboxReply) => "inbox: answer",
            Scope::Fleet(FleetScope::InboxNote) => "inbox: note",
        }
    }

    pub(crate) const ALL: [Scope; 33] = [
        Scope::Everywhere,
        Scope::Typing,
        Scope::Deciding,
        Scope::Decided,
        Scope::Panes,
        Scope::Confirming,
        Scope::Search,
        Scope::Viewing,
        Scope::View(ViewScope::Pager),
        Scope::View(ViewScope::Artifacts),
        Scope::View(ViewScope::Overwrite),
        Scope::View(ViewScope::Files),
        Scope::View(ViewScope::FilesFinding),
        Scope::View(ViewScope::Changes),
        Scope::View(ViewScope::ChangesComment),
        Scope::View(ViewScope::ChangesSend),
        Scope::View(ViewScope::Rules),
        Scope::View(ViewScope::Models),
        Scope::View(ViewScope::PolicyLine),
        Scope::View(ViewScope::PolicyAsk),
        Scope::Help,
        Scope::Fleet(FleetScope::Everywhere),
        Scope::Fleet(FleetScope::List),
        Scope::Fleet(FleetScope::Filter),
        Scope::Fleet(FleetScope::Rename),
        Scope::Fleet(FleetScope::Labels),
        Scope::Fleet(FleetScope::Confirm),
        Scope::Fleet(FleetScope::Help),
        Scope::Fleet(FleetScope::Inbox),
        Scope::Fleet(FleetScope::InboxDeciding),
        Scope::Fleet(FleetScope::InboxConfirm),
        Scope::Fleet(FleetScope::InboxReply),
        Scope::Fleet(FleetScope::InboxNote),
    ];
}
