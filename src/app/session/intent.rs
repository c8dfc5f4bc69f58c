//! What the user asks for, whichever key, click or paste asked it: every intent goes
//! through [`SessionFront::dispatch`], so new actions are one variant and one arm.

use super::SessionFront;
use crate::keys::Intent;
use crate::keys::mode::{Confirm, Mode};
use crate::ui::Pane;
use crate::ui::search::TYPE_PREFIX;
use gobare_api::stream::ConnectionState;

impl SessionFront {
    /// Carries out one intent.
    pub(crate) fn dispatch(&mut self, intent: Intent) {
        self.request_frame();
        match intent {
            Intent::Quit => self.request_quit(),
            Intent::Suspend => self.act_suspend(),
            Intent::Shell => self.open_shell(),
            Intent::Decide => self.act_decide(),
            Intent::EnterPanes => self.screen.modes.enter_panes(),
            Intent::PaneNext => self.screen.set_focus(self.screen.focus().next()),
            Intent::PanePrev => self.screen.set_focus(self.screen.focus().prev()),
            Intent::FocusInput => self.screen.modes.back_to_typing(),
            Intent::Escape => self.act_escape(),
            Intent::FocusPane(pane) => self.screen.navigate(pane),
            Intent::Scroll { pane, lines } => self.screen.scroll(pane, i64::from(lines)),
            Intent::Page { up } => self.act_page(up),
            Intent::ScrollTop => self.screen.scroll(None, -1_000_000),
            Intent::ScrollBottom => self.screen.scroll_home(),
            Intent::Select(by) => self.act_select(by),
            Intent::SelectTurn { forward } => self.act_select_turn(forward),
            Intent::NextError => self.act_next_error(),
            Intent::Back => self.act_back(),
            Intent::Activate => self.act_activate(),
            Intent::Copy => self.act_copy(),
            Intent::OpenLink => self.act_open_link(),
            Intent::ToggleZoom => {
                let zoomed = self.screen.zoomed();
                self.screen.set_zoomed(!zoomed);
            }
            Intent::ToggleHelp => {
                self.screen.help_scroll = 0;
                self.screen.modes.toggle_help();
            }
            Intent::ScrollHelp(rows) => self.act_scroll_help(rows),
            Intent::ToggleMouseCapture => self.act_toggle_mouse_capture(),
            Intent::NextTheme => self.next_theme(),
            Intent::ToggleDeltas => {
                let events = &mut self.screen.events;
                events.hide_deltas = !events.hide_deltas;
            }
            Intent::StartEventFilter => self.act_start_event_filter(),
            Intent::StartSearch => self.start_search(),
            Intent::SearchStep { older } => self.search_step(older),
            Intent::ShowEvicted { seq } => self.show_evicted(seq),
            Intent::ToggleDiff => self.act_toggle_diff(),
            Intent::TogglePreview => self.act_toggle_preview(),
            Intent::CycleApprovalMode => self.act_cycle_mode(),
            Intent::RemoveNewestRule => self.act_remove_newest_rule(),
            Intent::OpenRules => self.act_open_rules(),
            Intent::EditLabels => self.act_edit_labels(),
            Intent::PickModel => self.act_pick_model(),
            Intent::Export => self.act_export(),
            Intent::OpenArtifacts => self.act_open_artifacts(),
            Intent::OpenFiles => self.act_open_files(),
            Intent::OpenChanges => self.act_open_changes(),
            Intent::Refresh => self.act_refresh(),
            // Sends go through the send executor (`acting`): one key per send, retried
            // with it; the text is given back to the box if the send does not take.
            Intent::Send(text) => self.act_send(text),
            Intent::SendFirst(text) => self.act_send_first(text),
            Intent::Steer(text) => self.act_steer(text),
            Intent::Context(text) => self.act_context(text),
            Intent::Cancel => self.act_cancel(),
            Intent::EditExternally => self.act_edit_externally(),
            Intent::Answer(input) => self.act_answer(input),
            Intent::HistoryPrev => self.act_history(true),
            Intent::HistoryNext => self.act_history(false),
            Intent::OpenPicker => self.act_open_picker(),
            Intent::NextDecision => self.act_next_decision(),
            Intent::InspectDecision => self.act_inspect_decision(),
        }
    }

    /// Quits at once when nothing would be lost; otherwise asks in the input area. Asked
    /// while already asking to quit, it is the answer.
    fn request_quit(&mut self) {
        match self.screen.mode() {
            Mode::Confirming(Confirm::Quit { .. }) => return self.quit(),
            // Another question is not answered by Ctrl+C: it is put away, and quitting asked.
            Mode::Confirming(_) => {
                self.screen.answered();
            }
            _ => {}
        }
        self.held_kept_as_draft();
        let mut left = Vec::new();
        if self.session.turn_running() {
            left.push("a turn is running");
        }
        if !self.session.actions().nothing_listed() {
            left.push("the agent waits for your decision");
        }
        let draft = !self.screen.composer.is_empty();
        if draft {
            left.push("you have a draft");
        }
        // What is kept is said only of what there is: no draft, no word of keeping one.
        let on_server = self.session.turn_running() || !self.session.actions().nothing_listed();
        let demo_ends = self.session.local_demo() && !self.demo_kept;
        if left.is_empty() && !demo_ends {
            return self.quit();
        }
        let why = if left.is_empty() {
            "the demo's sessions and their history end with it".to_string()
        } else if demo_ends {
            format!("{} — the demo's sessions end with it", left.join(", "))
        } else if self.session.local_demo() {
            // The demo's server stops with the app: a running turn ends there, failed.
            let queued = self.session.turns().queue_len();
            let turn = match (self.session.turn_running(), queued) {
                (false, _) => String::new(),
                (true, 0) => "; the running turn ends with it".to_string(),
                (true, 1) => "; the running turn and the queued message end with it".to_string(),
                (true, n) => format!("; the running turn and the {n} queued messages end with it"),
            };
            let and_draft = if draft { " and the draft" } else { "" };
            format!(
                "{} (the demo keeps the session{and_draft}{turn})",
                left.join(", ")
            )
        } else {
            let kept: Vec<&str> = [
                on_server.then_some("it stays on the server"),
                draft.then_some("the draft is kept"),
            ]
            .into_iter()
            .flatten()
            .collect();
            format!("{} ({})", left.join(", "), kept.join("; "))
        };
        self.screen.ask(Confirm::Quit { why });
    }

    /// Tab: the waiting decision has the keys; with nothing waiting the box keeps them.
    fn act_decide(&mut self) {
        let now = super::decided_hold::key_time();
        let current = crate::ui::prompt::PromptState::current(self.session.actions())
            .map(|a| a.call_id.clone());
        match current {
            None => {
                self.screen.modes.back_to_typing();
                self.notice(Some("nothing waits on you".into()));
            }
            // It came the instant before this Tab: the Tab was not an answer to it.
            Some(id) if !self.decision_seen.seen(&id, now) => {
                self.notice(Some(
                    "a decision just arrived — the keys stay where they were; read it, then Tab"
                        .into(),
                ));
            }
            Some(_) if self.refused_read_only() => {}
            Some(_) => self.screen.modes.start_deciding(),
        }
    }

    /// Esc in the box: typing stays; a person used to Esc interrupting is told the key.
    fn act_escape(&mut self) {
        self.screen.modes.back_to_typing();
        if self.away_dismiss() {
            return;
        }
        if self.screen.composer.is_empty() && self.session.turn_running() {
            self.notice(Some("Ctrl+X cancels the turn".into()));
        }
    }

    /// The next theme, for this run: the whole screen is styled again with it.
    fn next_theme(&mut self) {
        let said =
            match crate::ui::theme::switch_to_next(self.theme_name, self.no_color, &self.colors) {
                Ok((next, theme, said)) => {
                    self.theme = theme;
                    self.theme_name = next;
                    said
                }
                Err(said) => said,
            };
        self.notice(Some(said));
    }

    /// Ctrl+Z: the terminal is given back to the shell until the app is resumed.
    fn act_suspend(&mut self) {
        if let Err(e) = self.tui.suspend() {
            self.fail(e.into());
        }
        if let Some(spoken) = &mut self.spoken {
            spoken.forget_input_line();
        }
    }

    /// A page up or down in the focused pane (the transcript, while typing).
    fn act_page(&mut self, up: bool) {
        let pane = if *self.screen.mode() != Mode::Navigating {
            Pane::Transcript
        } else {
            self.screen.focus()
        };
        let page = i64::from(self.screen.pane_height(pane).saturating_sub(3).max(1));
        self.screen
            .scroll(Some(pane), if up { -page } else { page });
    }

    /// Scrolls the help overlay by `rows`, within its list.
    fn act_scroll_help(&mut self, rows: i32) {
        // The list's rows at the overlay's width on the screen last drawn.
        let screen_width = self.screen.areas().map_or(80, |a| a.footer.width);
        let list = self.screen.help_rows();
        let width =
            crate::ui::help::overlay_width(ratatui::layout::Rect::new(0, 0, screen_width, 1), list);
        let max = i32::try_from(crate::ui::help::rows(width, list)).unwrap_or(i32::MAX);
        let next = (i32::from(self.screen.help_scroll) + rows).clamp(0, max);
        self.screen.help_scroll = u16::try_from(next).unwrap_or(0);
    }

    /// Mouse capture off lets the terminal select text; the notice says how to get it back.
    fn act_toggle_mouse_capture(&mut self) {
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

    /// The Events pane's filter is typed as a search for event types.
    fn act_start_event_filter(&mut self) {
        let query = format!("{}{}", TYPE_PREFIX, self.screen.events.filter());
        self.screen.set_focus(Pane::Events);
        self.screen.modes.start_search();
        self.search_for(&query);
    }

    /// Expands or collapses the selected entry, else the nearest one that can be.
    fn act_toggle_diff(&mut self) {
        if let Some(more) = self.screen.transcript_toggle_selected(&self.session) {
            if !more {
                self.notice(Some("the selected entry has nothing more to show".into()));
            }
        } else if !self.screen.toggle_nearest_expandable(&self.session) {
            self.notice(Some(
                "nothing to expand here (a diff or a long message)".into(),
            ));
        }
    }

    /// Reads the session and its turns again, and the stream: at once if it waits to
    /// reconnect, a new one if it stopped.
    fn act_refresh(&mut self) {
        self.want(crate::app::session::reading::fetch::FetchJob::Session);
        self.want(crate::app::session::reading::fetch::FetchJob::Turns);
        // Waiting to reconnect: the user is back and wants it now. Stopped for good
        // (the status bar said why): try again with a new stream.
        let what = match (&self.stream, self.session.connection()) {
            (None, _) => "opening the stream again…",
            (Some(_), Some(ConnectionState::Live)) => "re-reading the session…",
            (Some(_), Some(ConnectionState::Open { .. })) => {
                "nothing has come on this connection: reconnecting…"
            }
            (Some(_), _) => "reconnecting now…",
        };
        match &self.stream {
            Some(stream) => stream.retry_now(),
            None => self.reopen_stream(),
        }
        self.notice(Some(what.into()));
    }
}
