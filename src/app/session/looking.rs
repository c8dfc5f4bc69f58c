//! Looking back: the selection keys (move, previous/next turn, next error, Esc), and what
//! acts on the selected entry or event — expand, inspect, copy (OSC 52), open its link —
//! or on the waiting decision: its whole request inspected (F2).

use super::SessionFront;
use crate::clipboard::{Passthrough, clipboard_text, osc52_bytes};
use crate::keys::mode::{Confirm, Mode};
use crate::ui::overlays::inspector;

use std::io::Write as _;
use std::process::{Command, Stdio};

/// The browser opener when `[links] open` is not set.
const DEFAULT_OPENER: &str = if cfg!(target_os = "macos") {
    "open"
} else {
    "xdg-open"
};

impl SessionFront {
    pub(crate) fn act_select(&mut self, by: i32) {
        self.screen.select_by(&self.session, i64::from(by));
    }

    pub(crate) fn act_select_turn(&mut self, forward: bool) {
        if !self.screen.select_turn(&self.session, forward) {
            let which = if forward { "next" } else { "previous" };
            self.notice(Some(format!("no {which} turn in memory")));
        }
    }

    pub(crate) fn act_next_error(&mut self) {
        if !self.screen.select_next_error(&self.session) {
            self.notice(Some("no error in the transcript".into()));
        }
    }

    /// Esc: the selection goes first, then the panes hand the keys back to the box.
    pub(crate) fn act_back(&mut self) {
        if !self.screen.clear_selection() {
            self.screen.modes.back_to_typing();
        }
    }

    /// Enter: inspects the selected event, expands the selected entry, or goes back to the
    /// input box when nothing is selected.
    pub(crate) fn act_activate(&mut self) {
        if let Some(row) = self.screen.selected_event(&self.session) {
            let raw = row.seq.and_then(|seq| self.event_log_record(seq));
            let pager = inspector::pager(row, raw.as_deref(), &self.theme);
            self.screen.open_overlay(Box::new(pager));
            return;
        }
        if self.screen.selected_entry(&self.session).is_some() {
            if self.screen.transcript_toggle_selected(&self.session) == Some(false) {
                self.notice(Some("the selected entry has nothing more to show".into()));
            }
            return;
        }
        self.screen.modes.back_to_typing();
    }

    /// F2: the waiting decision's whole request in the inspector; asked again about one (a
    /// sensitive approval, a rule from one), that one's, and Esc comes back to the question.
    pub(crate) fn act_inspect_decision(&mut self) {
        let asked = match self.screen.mode() {
            Mode::Confirming(
                Confirm::ApproveSensitive { call_id } | Confirm::RuleFromApproval { call_id, .. },
            ) => Some(call_id.clone()),
            // Another question: F2 does not answer it, and says what does.
            Mode::Confirming(confirm) => {
                let what = confirm.enter_refusal();
                self.notice(Some(what.into()));
                return;
            }
            _ => None,
        };
        let facts = self.session.actions();
        let action = match &asked {
            Some(call_id) => facts.listed().find(|a| &a.call_id == call_id),
            None => facts.listed().next(),
        };
        let Some(action) = action else {
            self.notice(Some("nothing waits on you".into()));
            return;
        };
        let pager = inspector::request(facts, action, &self.theme);
        self.screen.open_overlay(Box::new(pager));
    }

    /// The envelope logged with `seq` in this session's local event log.
    fn event_log_record(&self, seq: u64) -> Option<Vec<u8>> {
        let files = self
            .store
            .as_ref()?
            .event_log_files(&self.session_id)
            .ok()?;
        match crate::store::event_log::find(&files, seq) {
            Ok(found) => found,
            Err(e) => {
                tracing::warn!("cannot read the event log: {e}");
                None
            }
        }
    }

    /// `c`: the selected entry's text (or the selected event's JSON) to the clipboard.
    pub(crate) fn act_copy(&mut self) {
        let text = if let Some(entry) = self.screen.selected_entry(&self.session) {
            entry.copy_text()
        } else if let Some(row) = self.screen.selected_event(&self.session) {
            match row.seq.and_then(|seq| self.event_log_record(seq)) {
                Some(raw) => String::from_utf8_lossy(&raw).into_owned(),
                None => row.summary.clone(),
            }
        } else {
            self.notice(Some(
                "select an entry first (↑↓ in the Transcript or Events pane)".into(),
            ));
            return;
        };
        let said = self.copy_out(&text);
        self.notice(Some(said));
    }

    /// Puts `text` on the clipboard (OSC 52, and tmux's buffer under tmux); says where it
    /// went, or that it went nowhere.
    fn copy_out(&mut self, text: &str) -> String {
        let text = clipboard_text(text);
        let via = Passthrough::from_env();
        #[cfg(test)]
        if let Some(record) = &mut self.clipboard_record {
            record.extend(osc52_bytes(&text, Passthrough::default()));
            return format!("copied {} chars (OSC 52)", text.chars().count());
        }
        let bytes = osc52_bytes(&text, via);
        let backend = self.tui.backend_mut();
        let written = backend.write_all(&bytes).and_then(|()| backend.flush());
        let n = text.chars().count();
        // Said where it went: a copy that reached nothing must not read as done.
        match (via.tmux, written) {
            (true, written) => match crate::clipboard::tmux_load_buffer(&text) {
                Ok(()) => format!("copied {n} chars to the tmux buffer and the clipboard"),
                Err(why) if written.is_ok() => {
                    format!("copied {n} chars with OSC 52 only ({why})")
                }
                Err(why) => format!("could not copy: {why}"),
            },
            (false, Ok(())) if via.screen => format!("copied {n} chars (OSC 52 through screen)"),
            (false, Ok(())) => format!("copied {n} chars (OSC 52)"),
            (false, Err(e)) => format!("could not copy: {e}"),
        }
    }

    /// `o`: the selected entry's first web link in the browser, normalised and never of
    /// another scheme (see [`crate::session::transcript::web_link`]).
    pub(crate) fn act_open_link(&mut self) {
        let Some(entry) = self.screen.selected_entry(&self.session) else {
            self.notice(Some("select an entry with a link first (↑↓)".into()));
            return;
        };
        let Some(url) = entry.first_link() else {
            self.notice(Some("no web link in the selected entry".into()));
            return;
        };
        let opener = self.open_command.clone();
        let mut words = opener.split_whitespace();
        let program = words.next().unwrap_or(DEFAULT_OPENER);
        let spawned = Command::new(program)
            .args(words)
            .arg(&url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let shown = gobare_api::text::line(&url).into_owned();
        match spawned {
            Ok(mut child) => {
                // Reaped off the loop: a browser opener may take its time.
                crate::app::shared::jobs::spawn_blocking(
                    crate::app::shared::jobs::Job::OpenerWait,
                    move || child.wait(),
                );
                self.notice(Some(format!("opening {shown}")));
            }
            // No opener here (the usual case over SSH): the URL goes to the clipboard.
            Err(e) => {
                let copied = self.copy_out(&url);
                let why = gobare_api::text::one_line(&e.to_string(), 80);
                self.notice(Some(format!(
                    "no {program} to open it ({why}) — {copied}: {shown}"
                )));
            }
        }
    }

    /// After a frame: the web links on screen made clickable (OSC 8).
    pub(crate) fn write_links(&mut self) {
        let bytes = crate::ui::text::hyperlink::osc8_bytes(self.screen.links());
        if bytes.is_empty() {
            return;
        }
        let backend = self.tui.backend_mut();
        if let Err(e) = backend.write_all(&bytes).and_then(|()| backend.flush()) {
            tracing::warn!("could not write links: {e}");
        }
    }
}
