//! Where keys go: one mode at a time, always shown (the input box's title names it and its
//! keys). Typing keys are text; a decision (approve, deny, pick, report failure, cancel,
//! quit) takes a deliberate key in a mode that says so.

/// The one place keys go.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum Mode {
    /// The input box has the keys: every printable key is text.
    #[default]
    Typing,
    /// A pane has the keys: its letters are commands, other letters do nothing.
    Navigating,
    /// The required-action prompt has the keys (Tab from the box while something waits).
    Deciding,
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
        }
    }
}

impl Mode {
    /// The mode's name and its keys, for the input box's title. `waiting` says a required
    /// action waits (Tab reaches it); `turn_running` adds steer and cancel; `enter_answers`
    /// says Enter in the box answers the waiting question or function call.
    pub(crate) fn title(&self, waiting: bool, turn_running: bool, enter_answers: bool) -> String {
        match self {
            Mode::Typing => {
                let enter = if enter_answers {
                    "Enter answer"
                } else {
                    "Enter send"
                };
                // Most needed first: a narrow box cuts the title from its end.
                let mut t = format!(" Typing · {enter}");
                if waiting {
                    t.push_str(" · Tab decide");
                }
                if turn_running {
                    t.push_str(" · Ctrl+X cancel · Ctrl+S steer");
                }
                t.push_str(" · Alt+Enter/Ctrl+J newline");
                t.push_str(" · Esc panes · F1 keys ");
                t
            }
            Mode::Navigating => {
                " Panes · ↑↓ select · e expand · / search · c copy · o open · [ ] turns · ? keys · q quit · Esc back "
                    .into()
            }
            Mode::Deciding => " Deciding · keys in the panel above · Esc back to typing ".into(),
            Mode::Confirming(_) => " Confirm · y yes · n/Esc no ".into(),
            Mode::Help => " Keys · Esc close ".into(),
            Mode::Search => " Search · Enter keep · ↑↓ newer/older · Esc end ".into(),
            Mode::Overlay => " Viewing · Esc close ".into(),
        }
    }

    /// The input box has the keys.
    pub(crate) fn is_typing(&self) -> bool {
        *self == Mode::Typing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_names_the_mode_and_its_keys() {
        let t = Mode::Typing.title(true, true, false);
        assert!(t.starts_with(" Typing · Enter send"), "{t}");
        assert!(
            t.contains("Tab decide") && t.contains("Ctrl+X cancel"),
            "{t}"
        );
        assert!(
            !Mode::Typing
                .title(false, false, false)
                .contains("Tab decide")
        );
        assert!(
            Mode::Typing
                .title(true, false, true)
                .contains("Enter answer")
        );
        assert!(
            Mode::Navigating
                .title(false, false, false)
                .contains("q quit")
        );
        assert!(
            Mode::Deciding
                .title(true, false, false)
                .contains("Deciding")
        );
        let c = Mode::Confirming(Confirm::CancelTurn);
        assert!(c.title(false, true, false).contains("y yes"));
    }

    #[test]
    fn questions_say_what_they_ask() {
        assert_eq!(Confirm::CancelTurn.question(), "Cancel the running turn?");
        let q = Confirm::Quit {
            why: "a turn is running".into(),
        };
        assert_eq!(q.question(), "Quit? a turn is running");
        let s = Confirm::ApproveSensitive {
            call_id: "c".into(),
        };
        assert!(s.question().contains("SENSITIVE"));
    }
}
