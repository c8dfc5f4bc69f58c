//! The required-action prompt: what the agent waits for (§9.4), drawn above the input box
//! while `session.required_actions` is non-empty, with the keys that answer it.
//!
//! Only the first pending action is shown (with "1 of N"); answering it reveals the next.
//! `session.required_actions` is authoritative (§11.4): [`PromptState::replace`] takes it on
//! every refresh, [`PromptState::close_call`] drops a call as soon as its
//! `approval.resolved` / `question.answered` / `tool.resolved` arrives, and the details the
//! list lacks (a question's options, an approval's `sensitive` flag) come from the stream
//! events through `set_question_details` / `set_approval_details`.
//!
//! Key routing contract for the app: while the composer is empty, offer each key to
//! [`PromptState::handle_key`] first and give it to the composer on
//! [`PromptAction::NotMine`]; with text in the composer, Enter goes to
//! [`PromptState::answer_with_text`] instead of being sent as a message.

use std::collections::HashMap;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Padding, Paragraph, Widget};
use serde_json::Value;

use crate::ui::theme::Theme;
use gobare_api::model::{Input, RequiredAction, RequiredActionKind};
use gobare_api::text;

/// What a key in the prompt asks the app to do.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptAction {
    /// Send this answer; the action now shows "sending…" until closed or the send fails.
    Answer(Input),
    /// The prompt used the key (moved the option highlight, or ignored it while sending).
    Consumed,
    /// Not a prompt key: give it to the composer / app.
    NotMine,
    /// `y` on a sensitive approval: ask once more before approving this call.
    ConfirmSensitive(String),
    /// The key cannot act yet; the text says what would.
    Explain(&'static str),
}

/// From `question.asked`: what `required_actions` does not carry.
#[derive(Debug, Clone, PartialEq, Default)]
struct QuestionDetails {
    question: String,
    options: Vec<String>,
    allow_freeform: Option<bool>,
}

/// From `approval.requested`.
#[derive(Debug, Clone, PartialEq)]
struct ApprovalDetails {
    name: String,
    args: Value,
    sensitive: bool,
}

/// Details kept for calls not (yet) in the list: an event may arrive before the session
/// refresh that lists its action. Past this many, details of unlisted calls are dropped.
const MAX_KEPT_DETAILS: usize = 32;
/// Lines of tool arguments shown before cutting.
const MAX_ARG_LINES: usize = 6;
/// A sensitive action's arguments: enough for any real command, still with a mark if cut.
const MAX_SENSITIVE_ARG_LINES: usize = 24;
/// Lines of question text shown before cutting.
const MAX_QUESTION_LINES: usize = 4;
/// Options shown before "… N more".
const MAX_OPTIONS: usize = 9;

/// The pending required actions and the answer in flight.
#[derive(Debug, Clone, Default)]
pub struct PromptState {
    actions: Vec<RequiredAction>,
    questions: HashMap<String, QuestionDetails>,
    approvals: HashMap<String, ApprovalDetails>,
    /// The call whose answer is being sent: no second answer until it closes or fails.
    sending: Option<String>,
    /// The highlighted option of the shown question, with the call it belongs to (a new
    /// first action starts with nothing highlighted).
    highlight: Option<(String, usize)>,
    /// The prompt has the keys (deciding mode): its hint lists them; otherwise it says how
    /// to get there.
    focused: bool,
}

impl PromptState {
    /// Takes the session's authoritative list (on every session refresh). A send in flight
    /// stays marked while its call is still listed.
    pub fn replace(&mut self, actions: &[RequiredAction]) {
        self.actions = actions.to_vec();
        if let Some(id) = &self.sending
            && !self.is_listed(id)
        {
            self.sending = None;
        }
        if self.questions.len() + self.approvals.len() > MAX_KEPT_DETAILS {
            let listed: Vec<String> = self.actions.iter().map(|a| a.call_id.clone()).collect();
            self.questions.retain(|id, _| listed.contains(id));
            self.approvals.retain(|id, _| listed.contains(id));
        }
    }

    /// The call was resolved or answered (here, in the Console, or by a rule): forget it.
    pub(crate) fn close_call(&mut self, call_id: &str) {
        self.actions.retain(|a| a.call_id != call_id);
        self.questions.remove(call_id);
        self.approvals.remove(call_id);
        if self.sending.as_deref() == Some(call_id) {
            self.sending = None;
        }
    }

    /// The send of this call's answer failed: it can be answered again.
    pub(crate) fn send_failed(&mut self, call_id: &str) {
        if self.sending.as_deref() == Some(call_id) {
            self.sending = None;
        }
    }

    /// From `question.asked` (`toolCallId`, `question`, `options`, `allowFreeform`).
    pub fn set_question_details(
        &mut self,
        call_id: &str,
        question: &str,
        options: Vec<String>,
        allow_freeform: Option<bool>,
    ) {
        self.questions.insert(
            call_id.to_string(),
            QuestionDetails {
                question: question.to_string(),
                options,
                allow_freeform,
            },
        );
    }

    /// From `approval.requested` (`toolCallId`, `name`, `args`, `sensitive`).
    /// Marks `call_id` sensitive before (or after) its details are known.
    pub(crate) fn mark_sensitive(&mut self, call_id: &str) {
        self.approvals
            .entry(call_id.to_string())
            .or_insert_with(|| ApprovalDetails {
                name: String::new(),
                args: Value::Null,
                sensitive: true,
            })
            .sensitive = true;
    }

    pub fn set_approval_details(
        &mut self,
        call_id: &str,
        name: &str,
        args: Value,
        sensitive: bool,
    ) {
        // Once known sensitive, always: a later, flagless copy never lowers the bar.
        let sensitive = sensitive || self.approvals.get(call_id).is_some_and(|d| d.sensitive);
        self.approvals.insert(
            call_id.to_string(),
            ApprovalDetails {
                name: name.to_string(),
                args,
                sensitive,
            },
        );
    }

    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    pub(crate) fn pending_count(&self) -> usize {
        self.actions.len()
    }

    /// The action shown and answered.
    pub(crate) fn current(&self) -> Option<&RequiredAction> {
        self.actions.first()
    }

    /// Whether the shown action's answer is in flight.
    pub(crate) fn is_sending(&self) -> bool {
        self.current()
            .is_some_and(|a| self.sending.as_deref() == Some(a.call_id.as_str()))
    }

    fn is_listed(&self, call_id: &str) -> bool {
        self.actions.iter().any(|a| a.call_id == call_id)
    }

    /// Answers the shown question or function call with text typed in the composer.
    /// `None` when the text is blank, the action is an approval (y/n only), a question
    /// without free text gets something other than one of its options, or an answer is
    /// already in flight.
    pub fn answer_with_text(&mut self, text: &str) -> Option<Input> {
        if text.trim().is_empty() || self.is_sending() {
            return None;
        }
        let action = self.current()?;
        let input = match action.kind {
            RequiredActionKind::Question => {
                let question = self.question(action);
                let answer = if question.free_text_allowed() {
                    text.to_string()
                } else {
                    question
                        .options
                        .iter()
                        .find(|o| o.trim().eq_ignore_ascii_case(text.trim()))?
                        .clone()
                };
                Input::QuestionAnswer {
                    call_id: action.call_id.clone(),
                    answer,
                }
            }
            RequiredActionKind::FunctionCall => Input::ToolResult {
                turn_id: action.turn_id.clone(),
                call_id: action.call_id.clone(),
                success: true,
                output: Some(text.to_string()),
                error: None,
            },
            RequiredActionKind::Approval | RequiredActionKind::Other(_) => return None,
        };
        Some(self.start_sending(input))
    }

    fn start_sending(&mut self, input: Input) -> Input {
        self.sending = self.current().map(|a| a.call_id.clone());
        input
    }

    /// Whether the prompt has the keys (changes its hint).
    pub(crate) fn set_focused(&mut self, focused: bool) {
        self.focused = focused;
    }

    /// The approval of `call_id` after its sensitive confirmation, if it still waits.
    pub(crate) fn approve_confirmed(&mut self, call_id: &str) -> Option<Input> {
        let current = self.current()?;
        if current.call_id != call_id || self.is_sending() {
            return None;
        }
        Some(self.start_sending(Input::Approval {
            call_id: call_id.to_string(),
            approved: true,
        }))
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> PromptAction {
        if key.kind == KeyEventKind::Release {
            return PromptAction::NotMine;
        }
        let Some(action) = self.current().cloned() else {
            return PromptAction::NotMine;
        };
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let answer = match (&action.kind, key.code) {
            (RequiredActionKind::Approval, KeyCode::Char('y' | 'Y'))
                if plain && self.approval(&action).sensitive =>
            {
                if self.is_sending() {
                    return PromptAction::Consumed;
                }
                return PromptAction::ConfirmSensitive(action.call_id.clone());
            }
            (RequiredActionKind::Approval, KeyCode::Char(c @ ('y' | 'Y' | 'n' | 'N'))) if plain => {
                Some(Input::Approval {
                    call_id: action.call_id.clone(),
                    approved: c.eq_ignore_ascii_case(&'y'),
                })
            }
            (RequiredActionKind::FunctionCall, KeyCode::Char('f')) if ctrl || plain => {
                // The fixed sentence, never an error's text: it reaches the model (§6.4).
                Some(Input::ToolResult {
                    turn_id: action.turn_id.clone(),
                    call_id: action.call_id.clone(),
                    success: false,
                    output: None,
                    error: Some(Input::TOOL_FAILED.to_string()),
                })
            }
            (RequiredActionKind::Question, code) if plain => {
                return self.question_key(&action, code);
            }
            _ => return PromptAction::NotMine,
        };
        match answer {
            _ if self.is_sending() => PromptAction::Consumed,
            Some(input) => PromptAction::Answer(self.start_sending(input)),
            None => PromptAction::NotMine,
        }
    }

    /// ↑/↓ move the highlight, a digit highlights that option, Enter answers with it.
    fn question_key(&mut self, action: &RequiredAction, code: KeyCode) -> PromptAction {
        let options = self.question(action).options;
        if options.is_empty() {
            return PromptAction::NotMine;
        }
        let shown = options.len().min(MAX_OPTIONS);
        let current = self
            .highlight
            .as_ref()
            .filter(|(id, _)| *id == action.call_id)
            .map(|(_, i)| *i);
        let next = match code {
            KeyCode::Down => Some(current.map_or(0, |i| (i + 1).min(shown - 1))),
            KeyCode::Up => Some(current.map_or(0, |i| i.saturating_sub(1))),
            KeyCode::Char(d @ '1'..='9') => {
                let i = d as usize - '1' as usize;
                if i >= shown {
                    return PromptAction::NotMine;
                }
                Some(i)
            }
            KeyCode::Enter => {
                let Some(i) = current else {
                    return PromptAction::Explain(
                        "pick an option (its number, or ↑↓ then Enter), or type an answer in the box",
                    );
                };
                if self.is_sending() {
                    return PromptAction::Consumed;
                }
                let input = Input::QuestionAnswer {
                    call_id: action.call_id.clone(),
                    answer: options[i].clone(),
                };
                return PromptAction::Answer(self.start_sending(input));
            }
            _ => None,
        };
        match next {
            Some(i) => {
                self.highlight = Some((action.call_id.clone(), i));
                PromptAction::Consumed
            }
            None => PromptAction::NotMine,
        }
    }

    /// The question as best known: the event's details, else what the action's arguments
    /// carry, else its name.
    fn question(&self, action: &RequiredAction) -> QuestionDetails {
        if let Some(d) = self.questions.get(&action.call_id) {
            return d.clone();
        }
        let args = &action.arguments;
        let text = args
            .get("question")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| action.name.clone())
            .unwrap_or_default();
        let options = args
            .get("options")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let allow_freeform = args
            .get("allowFreeform")
            .or_else(|| args.get("allow_freeform"))
            .and_then(Value::as_bool);
        QuestionDetails {
            question: text,
            options,
            allow_freeform,
        }
    }

    fn approval(&self, action: &RequiredAction) -> ApprovalDetails {
        match self.approvals.get(&action.call_id) {
            Some(d) => ApprovalDetails {
                name: if d.name.is_empty() {
                    action.name.clone().unwrap_or_default()
                } else {
                    d.name.clone()
                },
                args: if d.args.is_null() {
                    action.arguments.clone()
                } else {
                    d.args.clone()
                },
                sensitive: d.sensitive,
            },
            None => ApprovalDetails {
                name: action.name.clone().unwrap_or_default(),
                args: action.arguments.clone(),
                sensitive: false,
            },
        }
    }

    /// Rows the prompt wants at `width` (borders included); 0 when nothing is pending.
    pub(crate) fn desired_height(&self, width: u16) -> u16 {
        if self.is_empty() {
            return 0;
        }
        let rows = self.content(inner_width(width), &Theme::default()).len() + 2;
        u16::try_from(rows).unwrap_or(u16::MAX)
    }

    /// Draws the shown action into `area`, clearing what is beneath.
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let Some(action) = self.current() else {
            return;
        };
        let sensitive =
            action.kind == RequiredActionKind::Approval && self.approval(action).sensitive;
        let border = if sensitive {
            theme.warning
        } else {
            theme.border_focused
        };
        let mut title = match action.kind {
            RequiredActionKind::Approval => " The agent asks to run a tool".to_string(),
            RequiredActionKind::Question => " The agent asks you".to_string(),
            RequiredActionKind::FunctionCall => " The agent needs a function result".to_string(),
            RequiredActionKind::Other(ref kind) => {
                format!(" The agent waits on {}", text::line(kind))
            }
        };
        if self.actions.len() > 1 {
            title.push_str(&format!(" · 1 of {}", self.actions.len()));
        }
        title.push(' ');
        let title = text::truncate(&title, usize::from(area.width.saturating_sub(2))).into_owned();
        Clear.render(area, buf);
        let mut lines = self.content(inner_width(area.width), theme);
        // Given less room than asked: cut from the middle, never the key hint at the end.
        let room = usize::from(area.height.saturating_sub(2)).max(1);
        if lines.len() > room
            && let Some(hint) = lines.pop()
        {
            lines.truncate(room - 1);
            lines.push(hint);
        }
        Paragraph::new(lines)
            .block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(border)
                    .padding(Padding::horizontal(1))
                    .title(Span::styled(title, theme.title)),
            )
            .render(area, buf);
    }

    /// The lines inside the border, each already cut to `width` cells.
    fn content(&self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let Some(action) = self.current() else {
            return Vec::new();
        };
        let mut lines = Vec::new();
        let hint = match &action.kind {
            RequiredActionKind::Approval => {
                let details = self.approval(action);
                let mut head = Vec::new();
                if details.sensitive {
                    head.push(Span::styled("⚠ sensitive ", theme.error));
                }
                head.push(Span::styled(tool_name(&details.name), theme.strong));
                lines.push(cut_line(head, width));
                // A sensitive command is read whole before it is approved.
                let max = if details.sensitive {
                    MAX_SENSITIVE_ARG_LINES
                } else {
                    MAX_ARG_LINES
                };
                push_wrapped(
                    &mut lines,
                    &args_text(&details.args),
                    width,
                    max,
                    theme.code,
                );
                let approve = if details.sensitive {
                    " approve (asks again) · "
                } else {
                    " approve · "
                };
                vec![
                    Span::styled("y", theme.key_hint),
                    Span::styled(approve, theme.dim),
                    Span::styled("n", theme.key_hint),
                    Span::styled(" deny · ", theme.dim),
                    Span::styled("Esc", theme.key_hint),
                    Span::styled(" back to typing", theme.dim),
                ]
            }
            RequiredActionKind::Question => self.question_lines(action, width, theme, &mut lines),
            RequiredActionKind::FunctionCall => {
                let name = tool_name(action.name.as_deref().unwrap_or_default());
                lines.push(cut_line(vec![Span::styled(name, theme.strong)], width));
                push_wrapped(
                    &mut lines,
                    &args_text(&action.arguments),
                    width,
                    MAX_ARG_LINES,
                    theme.code,
                );
                vec![
                    Span::styled("type the result in the box + Enter · ", theme.dim),
                    Span::styled("f", theme.key_hint),
                    Span::styled(" reports failure", theme.dim),
                ]
            }
            RequiredActionKind::Other(_) => {
                push_wrapped(
                    &mut lines,
                    &args_text(&action.arguments),
                    width,
                    MAX_ARG_LINES,
                    theme.code,
                );
                vec![Span::styled("answer it in the Gobare Console", theme.dim)]
            }
        };
        let hint = if self.is_sending() {
            vec![Span::styled("sending…", theme.accent)]
        } else if !self.focused && !matches!(action.kind, RequiredActionKind::Other(_)) {
            vec![
                Span::styled("Tab", theme.key_hint),
                Span::styled(" to decide (typing never answers)", theme.dim),
            ]
        } else {
            hint
        };
        lines.push(cut_line(hint, width));
        lines
    }

    fn question_lines(
        &self,
        action: &RequiredAction,
        width: usize,
        theme: &Theme,
        lines: &mut Vec<Line<'static>>,
    ) -> Vec<Span<'static>> {
        let question = self.question(action);
        push_wrapped(
            lines,
            &question.question,
            width,
            MAX_QUESTION_LINES,
            theme.strong,
        );
        let highlight = self
            .highlight
            .as_ref()
            .filter(|(id, _)| *id == action.call_id)
            .map(|(_, i)| *i);
        for (i, option) in question.options.iter().take(MAX_OPTIONS).enumerate() {
            let chosen = highlight == Some(i);
            let marker = if chosen { "›" } else { " " };
            let style = if chosen { theme.selection } else { theme.text };
            lines.push(cut_line(
                vec![
                    Span::styled(format!("{marker}{}. ", i + 1), theme.list_marker),
                    Span::styled(text::line(option).into_owned(), style),
                ],
                width,
            ));
        }
        if question.options.len() > MAX_OPTIONS {
            let more = question.options.len() - MAX_OPTIONS;
            lines.push(Line::from(Span::styled(
                format!("  … {more} more"),
                theme.dim,
            )));
        }
        let mut hint = Vec::new();
        if !question.options.is_empty() {
            let last = question.options.len().min(MAX_OPTIONS);
            hint.push(Span::styled(format!("↑↓ or 1-{last}"), theme.key_hint));
            hint.push(Span::styled(" pick, ", theme.dim));
            hint.push(Span::styled("Enter", theme.key_hint));
            hint.push(Span::styled(" answers", theme.dim));
            if question.free_text_allowed() {
                hint.push(Span::styled(" · or type an answer below", theme.dim));
            }
        } else {
            hint.push(Span::styled(
                "type your answer below, Enter sends",
                theme.dim,
            ));
        }
        hint
    }
}

impl QuestionDetails {
    /// Free text is allowed unless the question says otherwise, and always when there are
    /// no options to pick from (it could not be answered at all).
    fn free_text_allowed(&self) -> bool {
        self.options.is_empty() || self.allow_freeform != Some(false)
    }
}

/// Text columns inside the border and its one-cell side padding.
fn inner_width(width: u16) -> usize {
    usize::from(width.saturating_sub(4)).max(1)
}

fn tool_name(name: &str) -> String {
    if name.trim().is_empty() {
        "(unnamed tool)".into()
    } else {
        text::line(name).into_owned()
    }
}

/// Arguments for a person: an object as `key: value` lines (strings unquoted, so a command
/// reads as typed), anything else as compact JSON. Not yet sanitized.
fn args_text(args: &Value) -> String {
    match args {
        Value::Null => String::new(),
        Value::Object(map) if !map.is_empty() => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}: {s}"),
                other => format!("{k}: {other}"),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// Server text sanitized and wrapped to `width`, at most `max` lines; the last ends in `…`
/// when anything was cut.
fn push_wrapped(
    lines: &mut Vec<Line<'static>>,
    text: &str,
    width: usize,
    max: usize,
    style: Style,
) {
    if text.is_empty() {
        return;
    }
    let mut rows: Vec<String> = Vec::new();
    let mut cut = false;
    'outer: for line in text::lines(text) {
        for piece in text::split_at_width(&line, width) {
            if rows.len() == max {
                cut = true;
                break 'outer;
            }
            rows.push(piece.to_string());
        }
    }
    if cut && let Some(last) = rows.last_mut() {
        let kept = text::truncate(last, width.saturating_sub(1)).into_owned();
        *last = format!("{kept}…");
    }
    lines.extend(rows.into_iter().map(|r| Line::from(Span::styled(r, style))));
}

/// One line of already-sanitized spans, cut to `width` cells.
fn cut_line(spans: Vec<Span<'static>>, width: usize) -> Line<'static> {
    let mut left = width;
    let mut out = Vec::new();
    for span in spans {
        if left == 0 {
            break;
        }
        let text = text::truncate(&span.content, left).into_owned();
        left -= text::width(&text).min(left);
        out.push(Span::styled(text, span.style));
    }
    Line::from(out)
}

#[cfg(test)]
mod tests;
