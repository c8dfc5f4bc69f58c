//! Where keys go: one mode at a time, always shown (the input box's title names it and its
//! keys, the status bar names the pane that has them). Typing keys are text; a decision
//! (approve, deny, pick, report failure, cancel, quit) takes a deliberate key in a mode that
//! says so. The mode changes only through [`Modes`]' named transitions.

/// The one place keys go.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum Mode {
    /// The input box has the keys: every printable key is text.
    #[default]
    Typing,
    /// A pane has the keys (Shift+Tab from the box): its letters are commands, other letters
    /// do nothing, and the box says so.
    Navigating,
    /// The required-action prompt has the keys (Tab from the box while something waits).
    Deciding,
    /// A decision was just made with a key: what is typed next is held (not text, not another
    /// decision) until Esc goes back to typing or Tab to the next decision.
    Decided,
    /// A yes/no question in the input area takes the next key.
    Confirming(Confirm),
    /// The key list.
    Help,
    /// `/`: typing a search (the screen's search holds the text); `type:NAME` is the Events
    /// pane's type filter.
    Search,
    /// An overlay (pager, list, inspector) covers the screen and has the keys.
    Overlay,
}

/// What a confirmation asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Confirm {
    /// Ctrl+X: cancel the running turn.
    CancelTurn,
    /// Quitting with work in flight; `why` says what would be left (a running turn, …).
    Quit { why: String },
    /// The second step of approving a sensitive action.
    ApproveSensitive { call_id: String },
    /// `p`: make the preview public.
    PublishPreview,
    /// `p` on a published preview: take the public URL down.
    UnpublishPreview,
    /// Enter on a message that is already queued on the server, unchanged.
    QueueAgain,
    /// `a` / `d` on an approval: decide it and add `rule` (shown whole) to the session's
    /// rules; `sensitive` when the approval was asked as sensitive.
    RuleFromApproval {
        call_id: String,
        approve: bool,
        rule: gobare_api::session_patch::PermissionRule,
        sensitive: bool,
    },
    /// `M`: set the session's approval mode.
    SetMode(gobare_api::session_patch::ApprovalMode),
    /// `X`: remove `rule`, the newest of the session's rules.
    RemoveRule(gobare_api::session_patch::PermissionRule),
}

impl Confirm {
    /// The question, in words a person answers with y or n.
    pub(crate) fn question(&self) -> String {
        match self {
            Confirm::CancelTurn => "Cancel the running turn?".into(),
            Confirm::Quit { why } => format!("Quit? {why}"),
            Confirm::ApproveSensitive { .. } => {
                "Approve this SENSITIVE action? Read the whole command above first.".into()
            }
            Confirm::PublishPreview => {
                "Publish the preview? Anyone with the URL can open it.".into()
            }
            Confirm::UnpublishPreview => {
                "Unpublish the preview? Its public URL stops working.".into()
            }
            Confirm::QueueAgain => {
                "This message is already queued on the server. Queue it a second time?".into()
            }
            Confirm::RuleFromApproval {
                approve,
                rule,
                sensitive,
                ..
            } => crate::sessions::policy::rule_question(*approve, rule, *sensitive),
            Confirm::SetMode(mode) => crate::sessions::policy::mode_question(*mode),
            Confirm::RemoveRule(rule) => format!(
                "Remove the newest rule  {}  from this session?",
                crate::sessions::policy::rule_line(rule)
            ),
        }
    }

    /// Whether it asks again about the waiting decision (a sensitive approval, a rule from
    /// an approval): the request it decides can be shown whole while it waits (F2).
    pub(crate) fn is_of_a_decision(&self) -> bool {
        matches!(
            self,
            Confirm::ApproveSensitive { .. } | Confirm::RuleFromApproval { .. }
        )
    }

    /// Enter is never yes here: a `y⏎` habit must not pass a check meant to stop it.
    pub(crate) fn enter_refusal(&self) -> &'static str {
        match self {
            Confirm::ApproveSensitive { .. } => {
                "Enter does not approve a sensitive action: y approves, n or Esc does not"
            }
            Confirm::PublishPreview | Confirm::UnpublishPreview => {
                "Enter does not answer this: y does, n or Esc leaves the preview as it is"
            }
            Confirm::QueueAgain => {
                "Enter does not answer this: y queues it again, n or Esc keeps it in the box"
            }
            Confirm::RuleFromApproval { .. } => {
                "Enter does not answer this: y decides and adds the rule, n or Esc does neither"
            }
            Confirm::SetMode(_) => {
                "Enter does not answer this: y sets the mode, n or Esc leaves it as it is"
            }
            Confirm::RemoveRule(_) => {
                "Enter does not answer this: y removes the rule, n or Esc keeps it"
            }
            Confirm::CancelTurn | Confirm::Quit { .. } => "y answers yes, n or Esc no",
        }
    }
}

impl Mode {
    /// The input box has the keys.
    pub(crate) fn is_typing(&self) -> bool {
        *self == Mode::Typing
    }

    /// Letters are commands of a pane (the box shows it is not taking text).
    pub(crate) fn pane_has_keys(&self) -> bool {
        matches!(self, Mode::Navigating | Mode::Search)
    }
}

/// Held text kept after a decision, at most: a sentence or two, not a paste.
const HELD_MAX_BYTES: usize = 4096;

/// The mode machine: the current mode and where each open thing (key list, confirmation,
/// overlay) goes back to when it closes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Modes {
    current: Mode,
    /// What each open thing was opened over, the newest last: an overlay opened from a
    /// question closes back to the question, which still answers back to where it was asked.
    below: Vec<Mode>,
    /// The deciding mode took a key that decided nothing yet (a digit highlighted an
    /// option): a printable key after it is not the start of the person's text.
    deciding_touched: bool,
    /// What was typed after the last decision: held, never sent, but offered back (Ctrl+Y
    /// in the box), so a sentence begun after a decision is not lost.
    held: String,
}

impl Modes {
    pub(crate) fn current(&self) -> &Mode {
        &self.current
    }

    /// Esc's end: the box has the keys, and nothing open comes back later.
    pub(crate) fn back_to_typing(&mut self) {
        self.current = Mode::Typing;
        self.below.clear();
    }

    /// Shift+Tab: the panes have the keys.
    pub(crate) fn enter_panes(&mut self) {
        self.current = Mode::Navigating;
        self.below.clear();
    }

    /// Tab while something waits: the prompt has the keys.
    pub(crate) fn start_deciding(&mut self) {
        self.current = Mode::Deciding;
        self.below.clear();
        self.deciding_touched = false;
    }

    /// The deciding mode used a key without deciding (an option highlighted).
    pub(crate) fn touch_deciding(&mut self) {
        if self.current == Mode::Deciding {
            self.deciding_touched = true;
        }
    }

    /// Whether the deciding mode has taken a key since it was entered.
    pub(crate) fn deciding_touched(&self) -> bool {
        self.current == Mode::Deciding && self.deciding_touched
    }

    /// A key decided: hold what is typed next until Esc or Tab.
    pub(crate) fn decided(&mut self) {
        self.current = Mode::Decided;
        self.below.clear();
        self.held.clear();
    }

    /// A key held after a decision: a printable one is kept (bounded) and the whole held
    /// text returned, to be offered back.
    pub(crate) fn hold(&mut self, c: Option<char>) -> &str {
        if let Some(c) = c
            && self.held.len() < HELD_MAX_BYTES
        {
            self.held.push(c);
        }
        &self.held
    }

    /// What is held since the last decision.
    pub(crate) fn held(&self) -> &str {
        &self.held
    }

    /// The held text, taken (Ctrl+Y put it back in the box).
    pub(crate) fn take_held(&mut self) -> String {
        std::mem::take(&mut self.held)
    }

    /// Asks `confirm` in the input area; answering goes back to the mode it was asked from.
    pub(crate) fn ask(&mut self, confirm: Confirm) {
        let was = std::mem::replace(&mut self.current, Mode::Confirming(confirm));
        if !matches!(was, Mode::Confirming(_)) {
            self.below.push(was);
        }
    }

    /// The confirmation shown, taken away: keys go back where they were before it.
    pub(crate) fn answered(&mut self) -> Option<Confirm> {
        match std::mem::take(&mut self.current) {
            Mode::Confirming(confirm) => {
                self.current = self.below.pop().unwrap_or_default();
                // Back at the prompt after its question: it has taken keys, so the next
                // printable key is not the start of the person's text.
                self.deciding_touched |= self.current == Mode::Deciding;
                Some(confirm)
            }
            other => {
                self.current = other;
                None
            }
        }
    }

    /// An overlay opened over the panes takes the keys; closing it comes back here.
    pub(crate) fn open_overlay(&mut self) {
        if self.current != Mode::Overlay {
            let was = std::mem::replace(&mut self.current, Mode::Overlay);
            self.below.push(was);
        }
    }

    /// The overlay closed: back to where it was opened from.
    pub(crate) fn close_overlay(&mut self) {
        if self.current == Mode::Overlay {
            self.current = self.below.pop().unwrap_or_default();
        }
    }

    /// F1 / `?`: the key list opens, or closes back to where it was opened from.
    pub(crate) fn toggle_help(&mut self) {
        if self.current == Mode::Help {
            self.current = self.below.pop().unwrap_or_default();
        } else {
            let was = std::mem::replace(&mut self.current, Mode::Help);
            self.below.push(was);
        }
    }

    /// `/`: the search bar has the keys.
    pub(crate) fn start_search(&mut self) {
        self.current = Mode::Search;
    }

    /// Enter or Esc in the search bar: the panes have the keys again.
    pub(crate) fn leave_search(&mut self) {
        if self.current == Mode::Search {
            self.current = Mode::Navigating;
        }
    }

    /// The mode a test wants to draw, set directly.
    #[cfg(test)]
    pub(crate) fn set_for_test(&mut self, mode: Mode) {
        self.current = mode;
    }
}

#[cfg(test)]
mod tests;
