//! The session's labels edited from the session (`l` in the panes), as the fleet's `l`
//! edits them: `key=value` pairs on one line; Enter shows the whole set that will be sent
//! (`metadata` replaces the set) and asks; `y` sends it.

use super::asked_frame::{self, Framed};
use super::line_edit::LineEdit;
use crate::keys::table::view_hints;
use crate::sessions::labels;
use crate::ui::overlays::{Overlay, OverlayAction, OverlayKey, ViewKey, ViewScope};
use crate::ui::theme::Theme;
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use std::collections::BTreeMap;

enum State {
    Editing,
    Asking(BTreeMap<String, String>),
}

pub(crate) struct LabelsEditor {
    /// The labels as read when it opened.
    now: BTreeMap<String, String>,
    line: LineEdit,
    state: State,
    status: Option<String>,
}

impl LabelsEditor {
    pub(crate) fn new(now: BTreeMap<String, String>) -> LabelsEditor {
        LabelsEditor {
            line: LineEdit::new(&labels::edit_text(&now)),
            now,
            state: State::Editing,
            status: None,
        }
    }

    fn set_words(set: &BTreeMap<String, String>) -> String {
        labels::words_of(set).unwrap_or_else(|| "(none)".into())
    }
}

impl Overlay for LabelsEditor {
    fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let width = usize::from(super::area(area).width.saturating_sub(2));
        let mut body = asked_frame::wrapped("now: ", &Self::set_words(&self.now), width, theme.dim);
        let mut foot = Vec::new();
        match &self.state {
            State::Editing => {
                body.extend(asked_frame::wrapped(
                    "",
                    "key=value pairs, separated by spaces; empty clears every label",
                    width,
                    theme.dim,
                ));
                foot.push(Line::from(vec![
                    Span::styled("labels: ", theme.strong),
                    Span::styled(
                        format!("{}▏", gobare_api::text::one_line(self.line.text(), 600)),
                        theme.text,
                    ),
                ]));
            }
            State::Asking(set) => {
                body.extend(asked_frame::wrapped(
                    "",
                    "Sent as the session's whole set of labels:",
                    width,
                    theme.strong,
                ));
                body.extend(asked_frame::wrapped(
                    "  ",
                    &Self::set_words(set),
                    width,
                    theme.text,
                ));
                let q = if set.is_empty() {
                    "Clear every label of this session?"
                } else {
                    "Set these labels on this session (they replace the set)?"
                };
                foot.push(Line::styled(q, theme.warning));
            }
        }
        if let Some(status) = &self.status {
            foot.push(Line::styled(status.clone(), theme.warning));
        }
        asked_frame::draw(
            Framed {
                title: "Labels".into(),
                focus: 0,
                top: None,
                body,
                foot,
                hints: view_hints(self.scope()),
            },
            area,
            buf,
            theme,
        );
    }

    fn scope(&self) -> ViewScope {
        match self.state {
            State::Editing => ViewScope::PolicyLine,
            State::Asking(_) => ViewScope::PolicyAsk,
        }
    }

    fn handle(&mut self, key: ViewKey) -> OverlayKey {
        match (&self.state, key) {
            (State::Editing, ViewKey::No) => OverlayKey::Close,
            (State::Editing, ViewKey::Open) => {
                match labels::parse(self.line.text()) {
                    Ok(set) if set == self.now => {
                        self.status = Some("unchanged: nothing to send (Esc closes)".into())
                    }
                    Ok(set) => {
                        self.status = None;
                        self.state = State::Asking(set);
                    }
                    Err(why) => self.status = Some(format!("not sent: {why}")),
                }
                OverlayKey::Handled
            }
            (State::Asking(set), ViewKey::Yes) => {
                OverlayKey::Act(OverlayAction::SetLabels(set.clone()))
            }
            (State::Asking(_), ViewKey::No) => {
                self.state = State::Editing;
                self.status = Some("nothing sent: edit on, or Esc".into());
                OverlayKey::Handled
            }
            _ => OverlayKey::Ignored,
        }
    }

    fn unrouted(&mut self, key: KeyEvent) -> OverlayKey {
        match self.state {
            State::Editing if self.line.key(key) => OverlayKey::Handled,
            _ => OverlayKey::Ignored,
        }
    }

    fn paste(&mut self, text: &str) -> bool {
        matches!(self.state, State::Editing) && self.line.paste(text)
    }
}
