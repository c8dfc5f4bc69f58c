//! The required-action prompt: what the agent waits for (§9.4), drawn above the input box
//! while `session.required_actions` is non-empty, with the keys that answer it.
//!
//! Only the first listed action is shown (with "1 of N"); answering it reveals the next.
//! What is asked (the list, a question's options, an approval's `sensitive` flag) is the
//! session model's ([`Actions`]); this widget keeps only its view state: the answer in
//! flight, the highlighted option, whether it has the keys. Keys reach it only in the
//! deciding mode (see `keys`).

use crate::readable::times::countdown;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Padding, Paragraph, Widget};
use serde_json::Value;

use crate::deadline::{self, Deadline, WorkspaceClock};
use crate::session::actions::{Actions, QuestionDetails};
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

/// Lines of tool arguments shown before cutting.
const MAX_ARG_LINES: usize = 6;
/// A sensitive action's arguments: enough for any real command, still with a mark if cut.
const MAX_SENSITIVE_ARG_LINES: usize = 24;
/// Lines of question text shown before cutting.
const MAX_QUESTION_LINES: usize = 4;
/// The width the screen-reader mode lays the panel out at: wide enough that nothing is cut.
const SPOKEN_WIDTH: usize = 4_000;
/// Options shown before "… N more".
const MAX_OPTIONS: usize = 9;

/// The prompt's view state; what it shows is read from [`Actions`].
#[derive(Debug, Clone, Default)]
pub struct PromptState {
    /// The call whose answer is being sent: no second answer until it closes or fails.
    sending: Option<String>,
    /// The highlighted option of the shown question, with the call it belongs to (a new
    /// first action starts with nothing highlighted).
    highlight: Option<(String, usize)>,
    /// The prompt has the keys (deciding mode): its hint lists them; otherwise it says how
    /// to get there.
    focused: bool,
    /// Its sensitive approval's second step is asked below: the hint points there.
    confirming: bool,
    /// The wall clock of this frame (unix ms), for a function call's countdown.
    now_ms: Option<i64>,
    /// The box holds text: an approval's decision takes it along as a note.
    with_note: bool,
    /// The note is being typed on a line below (the inbox): letters are the note there.
    typing_note: bool,
    /// This frame's lines and the inner width they were cut to ([`PromptState::lay_out`]),
    /// so sizing and drawing build them once.
    laid_out: Option<(usize, Vec<Line<'static>>)>,
    /// Where Esc goes, as the hint says it (`None`: "back to typing", the session's box).
    back: Option<&'static str>,
    /// The key that opens a line to type an answer on (`None`: the session's box below
    /// takes the text).
    typed_with: Option<&'static str>,
    /// The key that shows the request whole, as its hint says it, where the keys are now
    /// (`None`: no key here does).
    whole_with: Option<&'static str>,
    /// The session's workspace clock and the lifetime it counts to: a parked turn's
    /// deadline (§5). `None`: only a function call's `expires_at` is shown.
    workspace: Option<(WorkspaceClock, i64)>,
}

impl PromptState {
    /// The call was resolved or answered, or its answer's send failed: it can be answered
    /// again if it is still listed.
    pub(crate) fn send_over(&mut self, call_id: &str) {
        if self.sending.as_deref() == Some(call_id) {
            self.sending = None;
        }
    }

    /// The action shown and answered.
    pub(crate) fn current(facts: &Actions) -> Option<&RequiredAction> {
        facts.listed().next()
    }

    /// Whether the shown action's answer is in flight.
    pub(crate) fn is_sending(&self, facts: &Actions) -> bool {
        Self::current(facts).is_some_and(|a| self.sending.as_deref() == Some(a.call_id.as_str()))
    }

    /// Answers the shown question or function call with text typed in the composer.
    /// `None` when the text is blank, the action is an approval (y/n only), a question
    /// without free text gets something other than one of its options, or an answer is
    /// already in flight.
    pub fn answer_with_text(&mut self, facts: &Actions, text: &str) -> Option<Input> {
        if text.trim().is_empty() || self.is_sending(facts) {
            return None;
        }
        let action = Self::current(facts)?;
        let input = match action.kind {
            RequiredActionKind::Question => {
                let question = facts.question(action);
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
        self.sending = crate::session::actions::answered_call(&input).map(str::to_string);
        input
    }

    /// Whether the prompt has the keys (changes its hint).
    pub(crate) fn set_focused(&mut self, focused: bool) {
        self.focused = focused;
    }

    /// The clock the countdown is drawn against.
    pub(crate) fn set_now(&mut self, now_ms: Option<i64>) {
        self.now_ms = now_ms;
    }

    /// Whether the box holds text an approval's decision would take along as a note.
    pub(crate) fn set_with_note(&mut self, with_note: bool) {
        self.with_note = with_note;
    }

    /// Whether the note is being typed on a line below: the hint says y and n are its
    /// letters there, not a decision.
    pub(crate) fn set_typing_note(&mut self, typing_note: bool) {
        self.typing_note = typing_note;
    }

    /// The workspace clock the shown action's deadline is estimated from.
    pub(crate) fn set_workspace(&mut self, clock: WorkspaceClock, lifetime_ms: i64) {
        self.workspace = Some((clock, lifetime_ms));
    }

    /// What the hint says Esc goes back to (the inbox's list, rather than the box).
    pub(crate) fn set_back(&mut self, back: &'static str) {
        self.back = Some(back);
    }

    /// Text is typed on a line `key` opens, not in a box below (the inbox's `t`).
    pub(crate) fn set_typed_with(&mut self, key: &'static str) {
        self.typed_with = Some(key);
    }

    /// The hint of the key that shows the request whole (the inspector), offered where the
    /// request is cut to fit; `None` where no key does.
    pub(crate) fn set_whole_with(&mut self, hint: Option<&'static str>) {
        self.whole_with = hint;
    }

    /// Where a typed answer goes, as the hints say it: "below", or "after t".
    fn typed_where(&self) -> String {
        match self.typed_with {
            Some(key) => format!("after {key}"),
            None => "below".into(),
        }
    }

    /// Whether the sensitive approval's second step is being asked (changes its hint).
    pub(crate) fn set_confirming(&mut self, confirming: bool) {
        self.confirming = confirming;
    }

    /// The approval of `call_id` after its sensitive confirmation, if it still waits.
    pub(crate) fn approve_confirmed(&mut self, facts: &Actions, call_id: &str) -> Option<Input> {
        self.decide_confirmed(facts, call_id, true)
    }

    /// The decision on approval `call_id` after a confirmation, if it still waits.
    pub(crate) fn decide_confirmed(
        &mut self,
        facts: &Actions,
        call_id: &str,
        approved: bool,
    ) -> Option<Input> {
        let current = Self::current(facts)?;
        if current.call_id != call_id || self.is_sending(facts) {
            return None;
        }
        Some(self.start_sending(Input::Approval {
            call_id: call_id.to_string(),
            approved,
        }))
    }

    pub fn handle_key(&mut self, facts: &Actions, key: KeyEvent) -> PromptAction {
        if key.kind == KeyEventKind::Release {
            return PromptAction::NotMine;
        }
        let Some(action) = Self::current(facts).cloned() else {
            return PromptAction::NotMine;
        };
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let answer = match (&action.kind, key.code) {
            (RequiredActionKind::Approval, KeyCode::Char('y' | 'Y'))
                if plain && facts.approval(&action).sensitive =>
            {
                if self.is_sending(facts) {
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
                return self.question_key(facts, &action, code);
            }
            _ => return PromptAction::NotMine,
        };
        match answer {
            _ if self.is_sending(facts) => PromptAction::Consumed,
            Some(input) => PromptAction::Answer(self.start_sending(input)),
            None => PromptAction::NotMine,
        }
    }

    /// ↑/↓ move the highlight, a digit highlights that option, Enter answers with it.
    fn question_key(
        &mut self,
        facts: &Actions,
        action: &RequiredAction,
        code: KeyCode,
    ) -> PromptAction {
        let options = facts.question(action).options;
        if options.is_empty() {
            return PromptAction::NotMine;
        }
        let shown = options.len().min(MAX_OPTIONS);
        let current = self.highlighted(&action.call_id);
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
                    return PromptAction::Explain(if facts.question(action).free_text_allowed() {
                        "pick an option (its number, or ↑↓ then Enter), or type an answer in the box"
                    } else {
                        "pick one of its options: its number, or ↑↓ then Enter"
                    });
                };
                if self.is_sending(facts) {
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

    /// Builds this frame's lines at `width` (after focus and confirming are set) and returns
    /// the rows the prompt wants, borders included; 0 when nothing is pending.
    pub(crate) fn lay_out(&mut self, facts: &Actions, width: u16, theme: &Theme) -> u16 {
        if facts.nothing_listed() {
            self.laid_out = None;
            return 0;
        }
        let width = inner_width(width);
        let lines = self.content(facts, width, theme);
        let rows = lines.len() + 2;
        self.laid_out = Some((width, lines));
        u16::try_from(rows).unwrap_or(u16::MAX)
    }

    /// Draws the shown action into `area`, clearing what is beneath.
    pub fn render(&self, facts: &Actions, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let Some(action) = Self::current(facts) else {
            return;
        };
        let sensitive =
            action.kind == RequiredActionKind::Approval && facts.approval(action).sensitive;
        let border = if sensitive {
            theme.warning
        } else {
            theme.border_focused
        };
        let title = format!(" {} ", self.title(facts, action));
        let title = text::truncate(&title, usize::from(area.width.saturating_sub(2))).into_owned();
        Clear.render(area, buf);
        let width = inner_width(area.width);
        let mut lines = match &self.laid_out {
            Some((laid, lines)) if *laid == width => lines.clone(),
            _ => self.content(facts, width, theme),
        };
        // Given less room than asked: cut from the middle, never the key hint at the end;
        // a question keeps its options in sight, scrolled to the highlighted one.
        let room = usize::from(area.height.saturating_sub(2)).max(1);
        if lines.len() > room
            && let Some(hint) = lines.pop()
        {
            let rows = room - 1;
            lines = match self.option_lines(facts, action, width, theme) {
                Some((first, count, highlight)) => {
                    // The question's first line for context, when there is room for it.
                    let context = usize::from(rows >= 2 && first > 0);
                    let window = rows - context;
                    let focus = highlight.unwrap_or(0);
                    let start = if focus < window {
                        0
                    } else {
                        focus + 1 - window
                    };
                    let end = (start + window).min(count);
                    let mut kept: Vec<Line<'static>> =
                        lines.iter().take(context).cloned().collect();
                    kept.extend(lines[first + start..first + end].iter().cloned());
                    kept
                }
                None => {
                    // Never a cut without a mark: what is not shown is counted, and the key
                    // that shows it whole named. The mark's rows are counted as for the
                    // most lines it could say, which never takes fewer.
                    let mark_rows = self.cut_mark(lines.len(), width).len().min(rows);
                    let shown = rows - mark_rows;
                    let cut = lines.len() - shown;
                    let mut mark = self.cut_mark(cut, width);
                    if mark.len() > mark_rows {
                        mark = vec![text::truncate(&mark.join(" "), width).into_owned()];
                        mark.truncate(mark_rows);
                    }
                    let mut kept: Vec<Line<'static>> = lines.into_iter().take(shown).collect();
                    kept.extend(
                        mark.into_iter()
                            .map(|row| Line::from(Span::styled(row, theme.warning))),
                    );
                    kept
                }
            };
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

    /// The mark where `cut` lines of the request are not shown, wrapped to `width`.
    fn cut_mark(&self, cut: usize, width: usize) -> Vec<String> {
        let mark = match self.whole_with {
            Some(hint) => format!("… {cut} lines cut · {hint}"),
            None => format!("… {cut} lines cut: a taller terminal shows them"),
        };
        text::wrap(&mark, width)
    }

    /// The panel's title: what waits, how many, how long it may.
    fn title(&self, facts: &Actions, action: &RequiredAction) -> String {
        let mut title = match action.kind {
            RequiredActionKind::Approval => "The agent asks to run a tool".to_string(),
            RequiredActionKind::Question => "The agent asks you".to_string(),
            RequiredActionKind::FunctionCall => "The agent needs a function result".to_string(),
            RequiredActionKind::Other(ref kind) => {
                format!("The agent waits on {}", text::line(kind))
            }
        };
        let listed = facts.listed().count();
        if listed > 1 {
            title.push_str(&format!(" · 1 of {listed}"));
        }
        if let Some(left) = self.deadline(action) {
            title.push_str(" · ");
            title.push_str(&left);
        }
        title
    }

    /// The shown action's deadline: a function call's timeout exactly ("expires in 42s"),
    /// else the workspace lifetime estimated ("≈ 1h 12m left"); nothing when unknown.
    fn deadline(&self, action: &RequiredAction) -> Option<String> {
        let (Some((clock, lifetime)), Some(now)) = (&self.workspace, self.now_ms) else {
            return countdown(action.expires_at, self.now_ms);
        };
        match deadline::deadline(&action.kind, action.expires_at, clock, *lifetime, now) {
            Deadline::Exact(_) => countdown(action.expires_at, self.now_ms),
            d @ (Deadline::Estimate(_) | Deadline::Paused(_)) if d.is_past(now) => {
                Some("workspace lifetime over".into())
            }
            d @ (Deadline::Estimate(_) | Deadline::Paused(_)) => {
                Some(format!("{} left (workspace lifetime)", d.show(now)))
            }
            Deadline::None | Deadline::Unknown => None,
        }
    }

    /// What the panel shows, as plain lines for the screen-reader mode: the title, then
    /// its lines uncut (options numbered, the key hint last).
    pub(crate) fn spoken(&self, facts: &Actions) -> Vec<String> {
        let Some(action) = Self::current(facts) else {
            return Vec::new();
        };
        let mut lines = vec![self.title(facts, action)];
        let plain = Theme::no_color();
        lines.extend(
            self.content(facts, SPOKEN_WIDTH, &plain)
                .iter()
                .map(|l| {
                    let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
                    text.trim_end().to_string()
                })
                .filter(|l| !l.trim().is_empty()),
        );
        lines
    }

    /// The lines inside the border, each already cut to `width` cells.
    fn content(&self, facts: &Actions, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let Some(action) = Self::current(facts) else {
            return Vec::new();
        };
        let mut lines = Vec::new();
        let hint = match &action.kind {
            RequiredActionKind::Approval => {
                self.approval_lines(facts, action, width, theme, &mut lines)
            }
            RequiredActionKind::Question => self.question_lines(
                &facts.question(action),
                &action.call_id,
                width,
                theme,
                &mut lines,
            ),
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
                let typed = match self.typed_with {
                    Some(key) => format!("{key} types the result + Enter · "),
                    None => "type the result in the box + Enter · ".into(),
                };
                vec![
                    Span::styled(typed, theme.dim),
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
        let hint = self.hint(facts, action, hint, theme);
        lines.push(cut_line(hint, width));
        lines
    }

    /// An approval's lines (the tool, its arguments, what a note does) into `lines`; returns
    /// its keys.
    fn approval_lines(
        &self,
        facts: &Actions,
        action: &RequiredAction,
        width: usize,
        theme: &Theme,
        lines: &mut Vec<Line<'static>>,
    ) -> Vec<Span<'static>> {
        let details = facts.approval(action);
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
        push_wrapped(lines, &args_text(&details.args), width, max, theme.code);
        // Only while deciding: typing a note must not read like a decision made.
        let with_note = self.with_note && self.focused;
        let note = if with_note { " + note" } else { "" };
        let approve = if details.sensitive {
            format!(" approve{note} (asks again) · ")
        } else {
            format!(" approve{note} · ")
        };
        if with_note {
            // The inbox has no box: its note is typed on a line of its own.
            let which = if self.typed_with.is_some() {
                "the note goes along (a steer)"
            } else {
                "the box's text goes along as a note (a steer)"
            };
            push_wrapped(
                lines,
                &format!(
                    "{which}; a note never narrows what is approved: to change what \
                     runs, deny with a note"
                ),
                width,
                3,
                theme.warning,
            );
        }
        vec![
            Span::styled("y", theme.key_hint),
            Span::styled(approve, theme.dim),
            Span::styled("n", theme.key_hint),
            Span::styled(format!(" deny{note} · "), theme.dim),
            Span::styled("Esc", theme.key_hint),
            Span::styled(
                format!(" {}", self.back.unwrap_or("back to typing")),
                theme.dim,
            ),
        ]
    }

    /// The prompt's last line: what is under way (a send, a confirmation, a note), the way
    /// in when the prompt does not have the keys, else `keys`, the action's own.
    fn hint(
        &self,
        facts: &Actions,
        action: &RequiredAction,
        keys: Vec<Span<'static>>,
        theme: &Theme,
    ) -> Vec<Span<'static>> {
        if self.is_sending(facts) {
            vec![Span::styled("sending…", theme.accent)]
        } else if self.confirming {
            vec![Span::styled(
                "confirm below: y approves, n goes back",
                theme.accent,
            )]
        } else if self.typing_note {
            vec![Span::styled(
                "typing the note below: Enter keeps it, then y or n decides",
                theme.accent,
            )]
        } else if !self.focused && !matches!(action.kind, RequiredActionKind::Other(_)) {
            // Typed text answers only what asks for text, and the box's title says so.
            let rest = match action.kind {
                RequiredActionKind::Question if !facts.question(action).free_text_allowed() => {
                    " to pick one of its options (it takes no other answer)"
                }
                RequiredActionKind::Question => " to pick · or type an answer below + Enter",
                RequiredActionKind::FunctionCall => " to decide · or type the result below + Enter",
                _ => " to decide (typing never answers)",
            };
            vec![
                Span::styled("Tab", theme.key_hint),
                Span::styled(rest, theme.dim),
            ]
        } else {
            keys
        }
    }

    /// The shown question's highlighted option: its call and index.
    pub(crate) fn highlighted_option(&self, facts: &Actions) -> Option<(String, usize)> {
        let action = Self::current(facts)?;
        self.highlighted(&action.call_id)
            .map(|i| (action.call_id.clone(), i))
    }

    /// The highlighted option, if it belongs to the call `call_id`.
    fn highlighted(&self, call_id: &str) -> Option<usize> {
        self.highlight
            .as_ref()
            .filter(|(id, _)| id == call_id)
            .map(|(_, i)| *i)
    }

    /// A question's options among its lines: the first one's index, how many, and which
    /// is highlighted.
    fn option_lines(
        &self,
        facts: &Actions,
        action: &RequiredAction,
        width: usize,
        theme: &Theme,
    ) -> Option<(usize, usize, Option<usize>)> {
        if action.kind != RequiredActionKind::Question {
            return None;
        }
        let question = facts.question(action);
        if question.options.is_empty() {
            return None;
        }
        let mut head = Vec::new();
        push_wrapped(
            &mut head,
            &question.question,
            width,
            MAX_QUESTION_LINES,
            theme.strong,
        );
        let highlight = self.highlighted(&action.call_id);
        Some((
            head.len(),
            question.options.len().min(MAX_OPTIONS),
            highlight,
        ))
    }

    fn question_lines(
        &self,
        question: &QuestionDetails,
        call_id: &str,
        width: usize,
        theme: &Theme,
        lines: &mut Vec<Line<'static>>,
    ) -> Vec<Span<'static>> {
        push_wrapped(
            lines,
            &question.question,
            width,
            MAX_QUESTION_LINES,
            theme.strong,
        );
        let highlight = self.highlighted(call_id);
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
                let typed = format!(" · or type an answer {}", self.typed_where());
                hint.push(Span::styled(typed, theme.dim));
            }
        } else {
            let typed = format!("type your answer {}, Enter sends", self.typed_where());
            hint.push(Span::styled(typed, theme.dim));
        }
        hint
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
pub(crate) fn args_text(args: &Value) -> String {
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

/// Whether `key` decides something at some prompt (y/n on an approval, f on a call, a digit
/// or Enter on a question, a/d for a rule): pressed while the prompt had the keys, it was
/// meant for a decision even if that decision has just gone.
pub(crate) fn may_decide(key: &KeyEvent) -> bool {
    if key
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
    {
        return false;
    }
    match key.code {
        KeyCode::Enter => true,
        KeyCode::Char(c) => matches!(c, 'y' | 'Y' | 'n' | 'N' | 'f' | 'a' | 'd' | '1'..='9'),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
