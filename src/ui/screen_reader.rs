//! The screen-reader mode's front: the session as lines a screen reader follows, written
//! once and never redrawn, with the input as a plain line editor on the last line.
//!
//! What it writes: role-labelled lines ("you: …", "agent: …", "tool bash ls: ok — …"), each
//! entry once it has settled; "working" once when a turn starts (no spinner); what waits on
//! the user with its keys, once per action; each mode change, notice and connection change
//! once. What it never writes: the alternate screen, a clear of the screen, an absolute or
//! upward cursor move. The input line is rewritten in place with a carriage return, an
//! erase to the end of the line and a move right, as a line editor does, and is cut to a
//! window around the cursor so that it never wraps onto a second row.
//!
//! It reads the same session model and screen state the full-screen front draws, and keys
//! reach the app through the same router: only what is drawn differs.

pub(crate) mod words;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::keys::mode::Mode;
use crate::session::Session;
use crate::session::transcript::EntryKind;
use crate::ui::prompt::PromptState;
use crate::ui::screen::Screen;
use gobare_api::stream::ConnectionState;
use gobare_api::text;

/// Entries of the history said when the front opens on a session that has one; the rest is
/// counted in one line (the export has it all).
const HISTORY_SAID: usize = 10;

/// Erase from the cursor to the end of the line (EL 0).
const ERASE_TO_END: &str = "\x1b[K";

/// What has been said, so nothing is said twice.
#[derive(Default)]
pub(crate) struct ScreenReader {
    /// Said at the top: what turned the mode on.
    greeting: Option<String>,
    /// Entries below this id are all said (or passed over as history).
    said_below: u64,
    /// Entries at or above `said_below` already said, with the revision said (a todo list
    /// changes in place and is said again).
    said: HashMap<u64, u32>,
    /// The history before the front opened has been dealt with.
    history_done: bool,
    /// A turn was running at the last frame.
    was_running: bool,
    /// The waiting action announced, with the mode it was announced in.
    action_said: Option<(String, bool)>,
    /// The highlighted option of a question, last said.
    option_said: Option<(String, usize)>,
    mode_said: Option<Mode>,
    notice_said: Option<String>,
    /// The connection was live at the last frame.
    was_live: Option<bool>,
    /// The input line as last written (label, text, cursor), to write it only on a change.
    input_shown: Option<(String, usize)>,
    /// The todo list as last said: a change says only what changed.
    todos_said: Vec<gobare_api::model::TodoItem>,
    /// Lines only: no input line (`follow`).
    follow: bool,
    /// `follow`'s clock: while set, a turn's ending whose outcome is not read yet holds
    /// what follows it, so the story is told in order (see [`ENDING_WAIT`]).
    clock: Option<Instant>,
    /// Turn endings waiting for their outcome, by entry id, since when.
    endings_waiting: HashMap<u64, Instant>,
    /// `follow`: the connection's changes, for stderr (stdout holds the session alone).
    aside: Vec<String>,
}

/// How long a turn's ending waits for its outcome before it is said without one (and what
/// came after it with it): once, never again when the outcome comes later.
pub(crate) const ENDING_WAIT: Duration = Duration::from_secs(10);

impl ScreenReader {
    /// The front for the interactive mode; `why` is what turned it on, said first.
    pub(crate) fn new(why: &str, session_id: &str) -> ScreenReader {
        ScreenReader {
            greeting: Some(format!(
                "gobare-tui screen-reader mode, turned on by {why}. Session {}. \
                 Enter sends; Tab decides when the agent waits; F1 lists the keys; \
                 Ctrl+C quits.",
                text::one_line(session_id, 64)
            )),
            ..ScreenReader::default()
        }
    }

    /// The front for `follow`: the same lines, no input line and no keys to offer.
    pub(crate) fn following() -> ScreenReader {
        ScreenReader {
            follow: true,
            ..ScreenReader::default()
        }
    }

    /// `follow`: the time now, for the endings held (set before each [`Self::new_lines`]).
    pub(crate) fn set_clock(&mut self, now: Instant) {
        self.clock = Some(now);
    }

    /// When the oldest ending held gives up waiting for its outcome.
    pub(crate) fn ending_deadline(&self) -> Option<Instant> {
        self.endings_waiting
            .values()
            .min()
            .map(|since| *since + ENDING_WAIT)
    }

    /// `follow`: the connection's changes since the last call, for stderr.
    pub(crate) fn take_aside(&mut self) -> Vec<String> {
        std::mem::take(&mut self.aside)
    }

    /// The input line must be written again (the terminal was given to another program).
    pub(crate) fn forget_input_line(&mut self) {
        self.input_shown = None;
    }

    /// The bytes that bring the terminal up to date with `view` and `screen`: new lines
    /// above the input line, then the input line if it changed. `catching_up`: history is
    /// still replaying, and is said once it has. `width`: the terminal's columns.
    pub(crate) fn frame(
        &mut self,
        view: &Session,
        screen: &Screen,
        catching_up: bool,
        width: u16,
    ) -> Vec<u8> {
        let lines = self.new_lines(view, Some(screen), catching_up);
        let mut out = String::new();
        if !lines.is_empty() {
            out.push('\r');
            out.push_str(ERASE_TO_END);
            for line in &lines {
                out.push_str(line);
                out.push_str("\r\n");
            }
            self.input_shown = None;
        }
        if !self.follow {
            let (label, body, cursor) = input_line(screen, width);
            let shown = (format!("{label}{body}"), cursor);
            if self.input_shown.as_ref() != Some(&shown) {
                out.push('\r');
                out.push_str(ERASE_TO_END);
                out.push_str(&shown.0);
                out.push('\r');
                if shown.1 > 0 {
                    out.push_str(&format!("\x1b[{}C", shown.1));
                }
                self.input_shown = Some(shown);
            }
        }
        out.into_bytes()
    }

    /// The lines to say now, in order: greeting, connection, entries, working, what
    /// waits, the mode, the notice.
    pub(crate) fn new_lines(
        &mut self,
        view: &Session,
        screen: Option<&Screen>,
        catching_up: bool,
    ) -> Vec<String> {
        let mut out = Vec::new();
        out.extend(self.greeting.take());
        self.connection_lines(view, &mut out);
        if self.follow {
            // The whole history is said as it replays; what waited in it is long over.
            self.history_done = true;
        } else if catching_up && !self.history_done {
            return out;
        }
        if !self.history_done {
            self.history_done = true;
            self.pass_over_history(view, &mut out);
        }
        if self.entry_lines(view, &mut out) {
            // An ending waits for its outcome: what happened after it waits too.
            return out;
        }
        let running = view.turn_running() && !catching_up;
        if running && !self.was_running {
            out.push("agent: working".into());
        }
        self.was_running = running;
        match screen {
            Some(screen) => {
                self.action_lines(view, screen, &mut out);
                self.mode_lines(screen, &mut out);
            }
            None if catching_up => {}
            None => self.waiting_lines(view, &mut out),
        }
        let notice = view.notice().map(|n| text::one_line(&n.text, 500));
        if notice.is_some() && notice != self.notice_said {
            out.push(format!("note: {}", notice.clone().unwrap_or_default()));
        }
        self.notice_said = notice;
        out
    }

    fn connection_lines(&mut self, view: &Session, out: &mut Vec<String>) {
        let live = match view.connection() {
            Some(ConnectionState::Live) => true,
            Some(ConnectionState::Retrying { .. } | ConnectionState::Open { .. }) => false,
            _ => return,
        };
        // `follow`'s stdout is the session; how the connection went is said beside it.
        let out = if self.follow { &mut self.aside } else { out };
        match (self.was_live, live) {
            (Some(true), false) => out.push("connection lost; reconnecting".into()),
            (Some(false), true) => out.push("connected again".into()),
            _ => {}
        }
        self.was_live = Some(live);
    }

    /// The history the front opened on: its last entries are said, the rest counted.
    fn pass_over_history(&mut self, view: &Session, out: &mut Vec<String>) {
        let transcript = view.transcript();
        let kept = transcript.entries().len();
        let unsaid = transcript.first_kept_id() as usize + kept.saturating_sub(HISTORY_SAID);
        if unsaid > 0 {
            let id = text::one_line(view.session_id(), 64);
            out.push(format!(
                "{unsaid} earlier entries are not read out; `gobare-tui export {id}` writes them all"
            ));
        }
        self.said_below = transcript.next_id() - kept.min(HISTORY_SAID) as u64;
    }

    /// Says the entries settled since the last call. Returns whether a turn's ending holds
    /// the rest back (`follow`, its outcome not read yet).
    fn entry_lines(&mut self, view: &Session, out: &mut Vec<String>) -> bool {
        let transcript = view.transcript();
        let mut first_open = None;
        let mut held = false;
        let from = self.said_below.max(transcript.first_kept_id());
        for entry in transcript
            .entries()
            .iter()
            .skip((from - transcript.first_kept_id()) as usize)
        {
            let updated_in_place = matches!(entry.kind, EntryKind::Todos { .. });
            let said = self.said.get(&entry.id).copied();
            let due = match said {
                None => true,
                Some(rev) => updated_in_place && rev != entry.rev,
            };
            if due {
                let ending_unread =
                    matches!(&entry.kind, EntryKind::TurnEnd(t) if t.outcome.is_none());
                if ending_unread && let Some(now) = self.clock {
                    let since = *self.endings_waiting.entry(entry.id).or_insert(now);
                    if now < since + ENDING_WAIT {
                        first_open.get_or_insert(entry.id);
                        held = true;
                        break;
                    }
                }
                self.endings_waiting.remove(&entry.id);
                let lines = match (&entry.kind, said) {
                    (EntryKind::Todos { items }, Some(_)) => {
                        Some(words::todo_updates(&self.todos_said, items))
                    }
                    (EntryKind::TurnEnd(_), _) if ending_unread && self.clock.is_some() => {
                        Some(vec![words::ENDING_UNREAD.to_string()])
                    }
                    (kind, _) => words::entry_words(kind),
                };
                if let Some(lines) = lines {
                    out.extend(lines);
                    self.said.insert(entry.id, entry.rev);
                }
                if let EntryKind::Todos { items } = &entry.kind {
                    self.todos_said.clone_from(items);
                }
            }
            let open = updated_in_place || !self.said.contains_key(&entry.id);
            if open && first_open.is_none() {
                first_open = Some(entry.id);
            }
        }
        self.said_below = first_open.unwrap_or(transcript.next_id());
        let below = self.said_below;
        self.said.retain(|id, _| *id >= below);
        // An ending no longer kept waits for nothing.
        let first_kept = transcript.first_kept_id();
        self.endings_waiting.retain(|id, _| *id >= first_kept);
        held
    }

    /// `follow`: what waits on the user, once per action, without keys.
    fn waiting_lines(&mut self, view: &Session, out: &mut Vec<String>) {
        let prompt = PromptState::default();
        let facts = view.actions();
        let current = PromptState::current(facts).map(|a| a.call_id.clone());
        if let Some(call_id) = &current
            && self.action_said.as_ref().map(|(id, _)| id) != Some(call_id)
        {
            let mut lines = prompt.spoken(facts);
            // The key hint is the panel's last line: it is not this program's to offer.
            lines.pop();
            out.extend(waiting_for_you(lines, 0));
            out.push(format!(
                "answer it with `gobare-tui attach {}`",
                text::one_line(view.session_id(), 64)
            ));
        }
        self.action_said = current.map(|id| (id, false));
    }

    /// What waits: said when it first shows, and again (its keys) when Tab starts deciding.
    fn action_lines(&mut self, view: &Session, screen: &Screen, out: &mut Vec<String>) {
        let facts = view.actions();
        let Some(action) = PromptState::current(facts) else {
            self.action_said = None;
            self.option_said = None;
            return;
        };
        let deciding = *screen.mode() == Mode::Deciding;
        let key = (action.call_id.clone(), deciding);
        if self.action_said.as_ref() != Some(&key) {
            let first_time = self.action_said.as_ref().map(|(id, _)| id) != Some(&key.0);
            let lines = screen.prompt.spoken(facts);
            if first_time {
                // The key hint, the panel's last line, is the app's own.
                out.extend(waiting_for_you(lines, 1));
            } else if deciding {
                out.extend(lines.last().cloned());
            }
            self.action_said = Some(key);
        }
        let option = screen.prompt.highlighted_option(facts);
        if option != self.option_said
            && let Some((_, i)) = &option
            && let Some(o) = facts.question(action).options.get(*i)
        {
            out.push(format!("option {}: {}", i + 1, text::one_line(o, 300)));
        }
        self.option_said = option;
    }

    fn mode_lines(&mut self, screen: &Screen, out: &mut Vec<String>) {
        let mode = screen.mode().clone();
        if self.mode_said.as_ref() == Some(&mode) {
            return;
        }
        let first = self.mode_said.is_none();
        self.mode_said = Some(mode.clone());
        if first && mode == Mode::Typing {
            return;
        }
        match &mode {
            Mode::Confirming(c) => out.push(format!("{} {}", c.question(), screen.mode_title())),
            Mode::Help => {
                out.push("keys:".into());
                for (keys, what) in screen.help_rows() {
                    out.push(format!("  {keys}: {what}"));
                }
                out.push("Esc closes the key list".into());
            }
            Mode::Overlay => {
                out.push("a view opened that this mode does not read out; Esc closes it".into())
            }
            // Deciding says its keys with the action.
            Mode::Deciding => {}
            _ => out.push(screen.mode_title().to_string()),
        }
    }
}

/// What waits, said: its title after "waiting for you", then the panel's lines (the
/// server's question, command or arguments) indented, all but the last `own` lines.
fn waiting_for_you(lines: Vec<String>, own: usize) -> Vec<String> {
    let indented = lines.len().saturating_sub(own);
    lines
        .into_iter()
        .enumerate()
        .map(|(i, line)| match i {
            0 => format!("waiting for you: {line}"),
            i if i < indented => words::continued(&line),
            _ => line,
        })
        .collect()
}

/// The input line: a label saying where keys go, the text around the cursor, and the
/// cursor's column on screen, all within `width` cells.
fn input_line(screen: &Screen, width: u16) -> (String, String, usize) {
    let (label, line, cursor) = match screen.mode() {
        Mode::Typing => {
            let (line, cursor, row, rows) = screen.composer.cursor_line();
            let label = if rows > 1 {
                format!("line {} of {rows}> ", row + 1)
            } else {
                "> ".to_string()
            };
            (label, line, cursor)
        }
        Mode::Search => {
            let query = screen.search.query().to_string();
            let cursor = query.chars().count();
            ("search> ".to_string(), query, cursor)
        }
        Mode::Deciding => ("decide> ".to_string(), String::new(), 0),
        Mode::Decided => ("decided> ".to_string(), String::new(), 0),
        Mode::Confirming(_) => ("y or n> ".to_string(), String::new(), 0),
        Mode::Navigating => ("panes> ".to_string(), String::new(), 0),
        Mode::Help => ("keys> ".to_string(), String::new(), 0),
        Mode::Overlay => ("view> ".to_string(), String::new(), 0),
    };
    let line = text::line(&line).into_owned();
    let room = usize::from(width)
        .saturating_sub(text::width(&label) + 1)
        .max(1);
    let (shown, at) = window(&line, cursor, room);
    let cursor_cells = text::width(&label) + at;
    (label, shown, cursor_cells)
}

/// The part of `line` shown in `room` cells with the cursor (a char index) in it, and the
/// cursor's cell within it.
fn window(line: &str, cursor: usize, room: usize) -> (String, usize) {
    let chars: Vec<char> = line.chars().collect();
    let cursor = cursor.min(chars.len());
    let cell = |c: &char| unicode_width::UnicodeWidthChar::width(*c).unwrap_or(0);
    // Start as far left as keeps the cursor in view.
    let mut start = cursor;
    let mut used = 1; // the cursor's own cell
    while start > 0 && used + cell(&chars[start - 1]) <= room {
        start -= 1;
        used += cell(&chars[start]);
    }
    let mut shown = String::new();
    let mut cells = 0;
    for c in &chars[start..] {
        if cells + cell(c) > room {
            break;
        }
        cells += cell(c);
        shown.push(*c);
    }
    let at = chars[start..cursor].iter().map(cell).sum();
    (shown, at)
}

#[cfg(test)]
mod tests;
