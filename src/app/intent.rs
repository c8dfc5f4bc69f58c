//! What the user asks for, whichever key, click or paste asked it: every intent goes
//! through [`App::dispatch`], so new actions are one variant and one arm.

use super::App;
use crate::ui::Pane;
use crate::ui::mode::{Confirm, Mode};
use gobare_api::model::Input;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Intent {
    /// Quit, asking first when a turn runs, a decision waits or a draft exists.
    Quit,
    Suspend,
    /// Tab: input box → the waiting decision → panes in order → input box.
    FocusNext,
    FocusPrev,
    FocusInput,
    FocusPane(Pane),
    /// Scroll `pane` (the focused one when `None`) by `lines` (negative: up, older).
    Scroll {
        pane: Option<Pane>,
        lines: i32,
    },
    /// PgUp/PgDn: a screenful of the focused pane (the transcript while typing).
    Page {
        up: bool,
    },
    ScrollTop,
    ScrollBottom,
    ToggleZoom,
    ToggleHelp,
    ToggleMouseCapture,
    ToggleDeltas,
    StartEventFilter,
    ToggleDiff,
    /// Ctrl+R: re-read the session and turns.
    Refresh,
    OpenPicker,
    /// Enter in the input box.
    Send(String),
    /// The first message of a new session, sent once the stream is connected.
    SendFirst(String),
    Steer(String),
    Cancel,
    HistoryPrev,
    HistoryNext,
    /// An answer to a required action (from the prompt).
    Answer(Input),
}

impl App {
    /// Carries out one intent.
    pub(crate) fn dispatch(&mut self, intent: Intent) {
        self.request_frame();
        match intent {
            Intent::Quit => self.request_quit(),
            Intent::Suspend => {
                if let Err(e) = self.tui.suspend() {
                    self.fail(e.into());
                }
            }
            Intent::FocusNext => self.cycle_focus(true),
            Intent::FocusPrev => self.cycle_focus(false),
            Intent::FocusInput => self.mode = Mode::Typing,
            Intent::FocusPane(pane) => {
                self.ui.focus = pane;
                self.mode = Mode::Navigating;
            }
            Intent::Scroll { pane, lines } => self.scroll(pane, lines),
            Intent::Page { up } => {
                let pane = if self.mode != Mode::Navigating {
                    crate::ui::Pane::Transcript
                } else {
                    self.ui.focus
                };
                let page = i32::from(self.pane_height(pane).saturating_sub(3).max(1));
                self.scroll(Some(pane), if up { -page } else { page });
            }
            Intent::ScrollTop => self.scroll(None, -1_000_000),
            Intent::ScrollBottom => self.ui.scroll_to_bottom(),
            Intent::ToggleZoom => self.ui.toggle_zoom(),
            Intent::ToggleHelp => {
                self.mode = if self.mode == Mode::Help {
                    std::mem::take(&mut self.mode_before_help)
                } else {
                    self.mode_before_help = std::mem::take(&mut self.mode);
                    self.help_scroll = 0;
                    Mode::Help
                };
            }
            Intent::ToggleMouseCapture => {
                let on = !self.tui.mouse_capture();
                if let Err(e) = self.tui.set_mouse_capture(on) {
                    self.fail(e.into());
                } else {
                    let what = if on {
                        "mouse capture on"
                    } else {
                        "mouse capture off: select text with the mouse; m turns it back on"
                    };
                    self.notice(Some(what.into()));
                }
            }
            Intent::ToggleDeltas => self.ui.toggle_deltas(),
            Intent::StartEventFilter => {
                self.mode = Mode::Filter(self.ui.event_filter.clone());
                self.ui.focus = Pane::Events;
            }
            Intent::ToggleDiff => {
                if !self.ui.toggle_nearest_expandable(&self.view) {
                    self.notice(Some(
                        "nothing to expand here (a diff or a long message)".into(),
                    ));
                }
            }
            Intent::Refresh => {
                self.want(super::fetch::FetchJob::Session);
                self.want(super::fetch::FetchJob::Turns);
                // Waiting to reconnect: the user is back and wants it now. Stopped for good
                // (the status bar said why): try again with a new stream.
                match &self.stream {
                    Some(stream) => stream.retry_now(),
                    None => self.reopen_stream(),
                }
            }
            // Sends go through the send executor (`acting`): one key per send, retried
            // with it, the draft kept until accepted.
            Intent::Send(text) => self.act_send(text),
            Intent::SendFirst(text) => self.act_send(text),
            Intent::Steer(text) => self.act_steer(text),
            Intent::Cancel => self.act_cancel(),
            Intent::Answer(input) => self.act_answer(input),
            Intent::HistoryPrev => self.act_history(true),
            Intent::HistoryNext => self.act_history(false),
            Intent::OpenPicker => self.act_open_picker(),
        }
    }

    /// Quits at once when nothing would be left behind; otherwise asks in the input area.
    fn request_quit(&mut self) {
        let mut left = Vec::new();
        if self.view.turn_running() {
            left.push("a turn is running");
        }
        if !self.prompt.is_empty() {
            left.push("the agent waits for your decision");
        }
        if !self.composer.is_empty() {
            left.push("you have a draft");
        }
        if left.is_empty() {
            return self.quit();
        }
        let mut why = left.join(", ");
        why.push_str(if self.view.local_demo() {
            " — the demo session ends with it"
        } else {
            " (it stays on the server; the draft is kept)"
        });
        self.mode = Mode::Confirming(Confirm::Quit { why });
    }

    /// Input box → the waiting decision → Transcript → Events → Turn → Workspace → input box.
    fn cycle_focus(&mut self, forward: bool) {
        let deciding = !self.prompt.is_empty();
        let panes = Pane::ALL;
        let (first, last) = if forward {
            (panes[0], panes[panes.len() - 1])
        } else {
            (panes[panes.len() - 1], panes[0])
        };
        self.mode = match (&self.mode, forward) {
            (Mode::Typing, true) if deciding => Mode::Deciding,
            (Mode::Typing, _) | (Mode::Deciding, true) => {
                self.ui.focus = first;
                Mode::Navigating
            }
            (Mode::Deciding, false) => Mode::Typing,
            (Mode::Navigating, _) if self.ui.focus == last => {
                self.ui.focus = Pane::Transcript;
                if !forward && deciding {
                    Mode::Deciding
                } else {
                    Mode::Typing
                }
            }
            (Mode::Navigating, _) => {
                if forward {
                    self.ui.focus_next();
                } else {
                    self.ui.focus_prev();
                }
                Mode::Navigating
            }
            (other, _) => other.clone(),
        };
    }

    /// Scrolls `pane` without moving the focus.
    fn scroll(&mut self, pane: Option<Pane>, lines: i32) {
        let focus = self.ui.focus;
        if let Some(p) = pane {
            self.ui.focus = p;
        }
        let n = u16::try_from(lines.unsigned_abs()).unwrap_or(u16::MAX);
        if lines < 0 {
            self.ui.scroll_up(n);
        } else {
            self.ui.scroll_down(n);
        }
        self.ui.focus = focus;
    }

    /// Rows of `pane` at the last draw (a guess before the first).
    fn pane_height(&self, pane: Pane) -> u16 {
        self.last_areas
            .as_ref()
            .and_then(|a| a.panes.iter().find(|(p, _)| *p == pane))
            .map_or(20, |(_, r)| r.height)
    }
}
