//! The session's permission rules in a list (`R` in the panes): a cursor, `x` removes the
//! selected rule and `e` edits its command (or path, domain, tool) on one line. Either shows
//! the whole list that will be sent (a `PATCH` replaces the list) and asks; `y` sends
//! exactly that list.

use super::asked_frame::{self, Framed};
use super::line_edit::LineEdit;
use crate::keys::table::view_hints;
use crate::sessions::policy::{self, PolicyChange};
use crate::ui::overlays::{Overlay, OverlayAction, OverlayKey, ViewKey, ViewScope};
use crate::ui::theme::Theme;
use crossterm::event::KeyEvent;
use gobare_api::session_patch::PermissionRule;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// Which of a rule's texts `e` edits: the one that says what it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Command,
    Path,
    Domain,
    Tool,
}

impl Field {
    fn of(rule: &PermissionRule) -> Field {
        if rule.command.is_some() {
            Field::Command
        } else if rule.path.is_some() {
            Field::Path
        } else if rule.domain.is_some() {
            Field::Domain
        } else {
            Field::Tool
        }
    }

    fn name(self) -> &'static str {
        match self {
            Field::Command => "command",
            Field::Path => "path",
            Field::Domain => "domain",
            Field::Tool => "tool",
        }
    }

    fn slot(self, rule: &mut PermissionRule) -> &mut Option<String> {
        match self {
            Field::Command => &mut rule.command,
            Field::Path => &mut rule.path,
            Field::Domain => &mut rule.domain,
            Field::Tool => &mut rule.tool,
        }
    }
}

enum State {
    Browsing,
    Editing {
        field: Field,
        line: LineEdit,
    },
    /// The list `y` sends, and what it changes.
    Asking {
        to: Vec<PermissionRule>,
        change: Box<PolicyChange>,
        /// The first line of the list shown (↑ ↓ scroll a long one).
        top: usize,
    },
}

/// What `y` in the list asks the app to send.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Replacement {
    /// The rules as the list showed them: sent over only while the session still holds them.
    pub(crate) from: Vec<PermissionRule>,
    /// The whole list sent, exactly as shown.
    pub(crate) to: Vec<PermissionRule>,
    pub(crate) change: PolicyChange,
}

pub(crate) struct RulesList {
    /// The rules as read when the list opened: the list a change starts from.
    rules: Vec<PermissionRule>,
    selected: usize,
    state: State,
    /// The last word (why nothing was sent).
    status: Option<String>,
}

impl RulesList {
    pub(crate) fn new(rules: Vec<PermissionRule>) -> RulesList {
        RulesList {
            rules,
            selected: 0,
            state: State::Browsing,
            status: None,
        }
    }

    fn browsing(&mut self, key: ViewKey) -> OverlayKey {
        let last = self.rules.len().saturating_sub(1);
        match key {
            ViewKey::Close => return OverlayKey::Close,
            ViewKey::Up => self.selected = self.selected.saturating_sub(1),
            ViewKey::Down => self.selected = (self.selected + 1).min(last),
            ViewKey::Top => self.selected = 0,
            ViewKey::Bottom => self.selected = last,
            ViewKey::Remove => {
                let Some(rule) = self.rules.get(self.selected).cloned() else {
                    return OverlayKey::Ignored;
                };
                let mut to = self.rules.clone();
                to.remove(self.selected);
                self.state = State::Asking {
                    to,
                    change: Box::new(PolicyChange::Removed(rule)),
                    top: 0,
                };
            }
            ViewKey::Edit => {
                let Some(rule) = self.rules.get(self.selected) else {
                    return OverlayKey::Ignored;
                };
                let field = Field::of(rule);
                let mut rule = rule.clone();
                let now = field.slot(&mut rule).clone().unwrap_or_default();
                self.state = State::Editing {
                    field,
                    line: LineEdit::new(&now),
                };
            }
            _ => return OverlayKey::Ignored,
        }
        self.status = None;
        OverlayKey::Handled
    }

    /// Enter on the line: the edited rule in the list, shown whole, then asked.
    fn edited(&mut self, field: Field, line: LineEdit) {
        let text = line.text().trim().to_string();
        let from = self.rules[self.selected].clone();
        let mut to_rule = from.clone();
        if text.is_empty() {
            self.status = Some(format!(
                "an empty {} would match more than this rule did: x removes a rule",
                field.name()
            ));
            self.state = State::Editing { field, line };
            return;
        }
        *field.slot(&mut to_rule) = Some(text);
        if to_rule == from {
            self.status = Some("unchanged: nothing to send".into());
            self.state = State::Browsing;
            return;
        }
        let mut to = self.rules.clone();
        to[self.selected] = to_rule.clone();
        self.state = State::Asking {
            to,
            change: Box::new(PolicyChange::Edited { from, to: to_rule }),
            top: 0,
        };
    }

    fn body(&self, width: usize, theme: &Theme) -> (Vec<Line<'static>>, usize) {
        let mut body = Vec::new();
        let mut focus = 0;
        match &self.state {
            State::Asking { to, change, .. } => {
                body.extend(asked_frame::wrapped(
                    "",
                    &format!(
                        "Sent as the session's whole list ({} rule{}):",
                        to.len(),
                        if to.len() == 1 { "" } else { "s" }
                    ),
                    width,
                    theme.strong,
                ));
                if to.is_empty() {
                    body.push(Line::styled("  (no rules)", theme.dim));
                }
                for (i, rule) in to.iter().enumerate() {
                    let changed =
                        matches!(**change, PolicyChange::Edited { .. }) && i == self.selected;
                    let style = if changed { theme.warning } else { theme.text };
                    let lead = format!("{}{}. ", if changed { "* " } else { "  " }, i + 1);
                    body.extend(asked_frame::wrapped(
                        &lead,
                        &policy::rule_line(rule),
                        width,
                        style,
                    ));
                }
                if let PolicyChange::Removed(rule) = &**change {
                    body.extend(asked_frame::wrapped(
                        "removed: ",
                        &policy::rule_line(rule),
                        width,
                        theme.dim,
                    ));
                }
            }
            _ if self.rules.is_empty() => body.push(Line::styled(
                "no rules: a / d on an approval add one",
                theme.dim,
            )),
            _ => {
                for (i, rule) in self.rules.iter().enumerate() {
                    let chosen = i == self.selected;
                    if chosen {
                        focus = body.len();
                    }
                    let lead = format!("{}{}. ", if chosen { "› " } else { "  " }, i + 1);
                    let style = if chosen { theme.selection } else { theme.text };
                    let rows = asked_frame::wrapped(&lead, &policy::rule_line(rule), width, style);
                    if chosen {
                        focus += rows.len() - 1;
                    }
                    body.extend(rows);
                }
            }
        }
        (body, focus)
    }

    fn foot(&self, theme: &Theme) -> Vec<Line<'static>> {
        let mut foot = Vec::new();
        match &self.state {
            State::Browsing => {}
            State::Editing { field, line } => foot.push(Line::from(vec![
                ratatui::text::Span::styled(format!("{}: ", field.name()), theme.strong),
                ratatui::text::Span::styled(
                    format!("{}▏", gobare_api::text::one_line(line.text(), 600)),
                    theme.text,
                ),
            ])),
            State::Asking { change, .. } => {
                let what = match **change {
                    PolicyChange::Removed(_) => "Remove this rule and send the list above?",
                    _ => {
                        "Send the list above with the edited rule (*)? It is sent as written; the service may match more widely than exactly."
                    }
                };
                foot.push(Line::styled(what.to_string(), theme.warning));
            }
        }
        if let Some(status) = &self.status {
            foot.push(Line::styled(status.clone(), theme.warning));
        }
        foot
    }
}

impl Overlay for RulesList {
    fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let width = usize::from(super::area(area).width.saturating_sub(2));
        let (body, focus) = self.body(width, theme);
        let top = match self.state {
            State::Asking { top, .. } => Some(top),
            _ => None,
        };
        let title = match &self.state {
            State::Asking { .. } => "Rules · asked before sending".to_string(),
            _ => format!("Rules · {}", self.rules.len()),
        };
        asked_frame::draw(
            Framed {
                title,
                body,
                focus,
                top,
                foot: self.foot(theme),
                hints: view_hints(self.scope()),
            },
            area,
            buf,
            theme,
        );
    }

    fn scope(&self) -> ViewScope {
        match self.state {
            State::Browsing => ViewScope::Rules,
            State::Editing { .. } => ViewScope::PolicyLine,
            State::Asking { .. } => ViewScope::PolicyAsk,
        }
    }

    fn handle(&mut self, key: ViewKey) -> OverlayKey {
        match std::mem::replace(&mut self.state, State::Browsing) {
            State::Browsing => self.browsing(key),
            State::Editing { field, line } => {
                match key {
                    ViewKey::Open => self.edited(field, line),
                    ViewKey::No => self.status = None,
                    _ => self.state = State::Editing { field, line },
                }
                OverlayKey::Handled
            }
            State::Asking { to, change, top } => match key {
                ViewKey::Yes => {
                    OverlayKey::Act(OverlayAction::ReplaceRules(Box::new(Replacement {
                        from: self.rules.clone(),
                        to,
                        change: *change,
                    })))
                }
                ViewKey::No => {
                    self.status = Some("nothing sent".into());
                    OverlayKey::Handled
                }
                ViewKey::Up | ViewKey::Down => {
                    // Drawing clamps it to the list's end.
                    let top = if key == ViewKey::Up {
                        top.saturating_sub(1)
                    } else {
                        (top + 1).min(to.len() * 8)
                    };
                    self.state = State::Asking { to, change, top };
                    OverlayKey::Handled
                }
                _ => {
                    self.state = State::Asking { to, change, top };
                    OverlayKey::Ignored
                }
            },
        }
    }

    fn unrouted(&mut self, key: KeyEvent) -> OverlayKey {
        match &mut self.state {
            State::Editing { line, .. } => {
                if line.key(key) {
                    OverlayKey::Handled
                } else {
                    OverlayKey::Ignored
                }
            }
            _ => OverlayKey::Ignored,
        }
    }

    fn paste(&mut self, text: &str) -> bool {
        match &mut self.state {
            State::Editing { line, .. } => line.paste(text),
            _ => false,
        }
    }
}

#[cfg(test)]
#[path = "rules_list_tests.rs"]
mod tests;
