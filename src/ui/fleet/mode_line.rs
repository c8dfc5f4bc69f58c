//! The fleet's bottom line: what is being typed (the filter, a title, labels), the
//! question a confirming mode asks, or the last message.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::line_edit::LineEdit;
use super::{FleetMode, FleetView};
use crate::ui::theme::Theme;
use gobare_api::text;

impl FleetView {
    /// The bottom line for the mode the fleet is in, cut to `width`.
    pub(super) fn mode_line(&self, width: usize, theme: &Theme) -> Line<'static> {
        let (line, style) = match &self.mode {
            FleetMode::Filter => (
                format!(
                    "  filter: {}▏  Enter keep · Esc clear",
                    text::line(&self.filter)
                ),
                theme.accent,
            ),
            FleetMode::Rename { title, .. } => (
                format!(
                    "  new title: {}  Enter save (empty clears) · Ctrl+U clear · Esc cancel",
                    title.shown()
                ),
                theme.accent,
            ),
            FleetMode::ConfirmDelete { label, .. } => (
                format!(
                    "  Delete “{}”? Its transcript, turns and artifacts are hard-deleted with it. y delete · n keep",
                    text::one_line(label, 60)
                ),
                theme.warning,
            ),
            FleetMode::Labels { text, .. } => self.labels_line(text, theme),
            FleetMode::ConfirmMode { ids, mode } => (
                format!(
                    "  Set approval mode {mode} on the {} session{} shown (from each one's next turn)? y set · M next mode · n cancel",
                    ids.len(),
                    if ids.len() == 1 { "" } else { "s" },
                ),
                theme.warning,
            ),
            FleetMode::ConfirmFork { label, .. } => (
                format!(
                    "  Fork “{}” into a new session (its workspace and transcript as they are now)? y fork · n cancel",
                    text::one_line(label, 60)
                ),
                theme.warning,
            ),
            FleetMode::List => self.list_line(theme),
        };
        Line::from(Span::styled(
            text::truncate(&line, width).into_owned(),
            style,
        ))
    }

    /// Typing labels: what is typed, or why it was not sent.
    fn labels_line(&self, typed: &LineEdit, theme: &Theme) -> (String, Style) {
        match &self.message {
            Some((why, true)) => (
                format!(
                    "  {} — labels: {}  Enter save · Esc cancel",
                    text::line(why),
                    typed.shown()
                ),
                theme.error,
            ),
            _ => (
                format!(
                    "  labels (key=value, spaces between): {}  Enter save (empty clears) · Ctrl+U clear · Esc cancel",
                    typed.shown()
                ),
                theme.accent,
            ),
        }
    }

    /// In the list: the last message, how old the selected row's usage read is, or the
    /// filter kept.
    fn list_line(&self, theme: &Theme) -> (String, Style) {
        match &self.message {
            Some((message, error)) => (
                format!("  {}", text::line(message)),
                if *error { theme.error } else { theme.dim },
            ),
            None if self.filter.is_empty() && self.selected_usage_age.is_some() => (
                format!(
                    "  usage read {} ago; counted on since (the fleet could not read it again)",
                    crate::readable::times::duration(self.selected_usage_age.unwrap_or(0))
                ),
                theme.warning,
            ),
            None if !self.filter.is_empty() => (
                format!(
                    "  filter: {} (/ to change, Esc to clear){}",
                    text::line(&self.filter),
                    if self.filter.contains('=') {
                        "; labels are matched here, in the fleet"
                    } else {
                        ""
                    }
                ),
                theme.dim,
            ),
            None => (String::new(), theme.dim),
        }
    }
}
