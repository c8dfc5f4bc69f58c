//! Terminal events → intents: keys (through `keys::command_for`), paste, mouse, resize and
//! focus. The input box and the required-action prompt get the keys that are theirs.

use super::App;
use super::intent::Intent;
use super::keys::{self, KeyCommand, KeyContext};
use super::mouse::{self, Target};
use crate::ui::composer::ComposerAction;
use crate::ui::prompt::PromptAction;
use color_eyre::Result;
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind,
};
use gobare_api::model::RequiredActionKind;

/// Lines one wheel notch scrolls.
const WHEEL_LINES: i32 = 3;

impl App {
    pub(super) fn on_terminal_event(&mut self, event: Event) -> Result<()> {
        match event {
            Event::Key(key) => self.on_key(key),
            Event::Paste(text) => {
                if let Some(filter) = &mut self.filter_edit {
                    filter.push_str(text.lines().next().unwrap_or_default());
                    let f = filter.clone();
                    self.ui.set_event_filter(f);
                } else {
                    self.input_focused = true;
                    self.composer.handle_paste(&text);
                    self.act_draft_changed();
                }
                self.request_frame();
            }
            Event::Mouse(m) => self.on_mouse(m),
            // ratatui resizes its buffers at the next draw and repaints everything.
            Event::Resize(..) => self.request_frame(),
            Event::FocusGained | Event::FocusLost => {
                self.terminal_focused = matches!(event, Event::FocusGained);
                self.act_on_focus(self.terminal_focused);
            }
        }
        Ok(())
    }

    fn key_context(&self) -> KeyContext {
        KeyContext {
            input_focused: self.input_focused,
            input_has_text: !self.composer.is_empty(),
            help_open: self.help_open,
            approval_pending: self
                .prompt
                .current()
                .is_some_and(|a| a.kind == RequiredActionKind::Approval),
        }
    }

    fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if self.filter_edit.is_some() {
            self.edit_filter(key);
            return;
        }
        // "Cancel the running turn? … y/n" takes the next key, whatever it is.
        if self.act_confirm_key(key) {
            return;
        }
        let context = self.key_context();
        let command = self
            .keymap
            .command_for(key, !context.input_focused && !context.help_open)
            .unwrap_or_else(|| keys::command_for(key, context));
        if command != KeyCommand::ArmQuit {
            self.disarm_quit();
        }
        let intent = match command {
            KeyCommand::Quit => Intent::Quit,
            KeyCommand::ArmQuit => Intent::ArmQuit,
            KeyCommand::FocusNext => Intent::FocusNext,
            KeyCommand::FocusPrev => Intent::FocusPrev,
            KeyCommand::FocusInput => {
                self.dispatch(Intent::FocusInput);
                // Typing on a pane starts a message with that character.
                if matches!(key.code, KeyCode::Char(c) if c != 'i') {
                    self.key_to_input(key);
                }
                return;
            }
            KeyCommand::ScrollUp(n) => Intent::Scroll {
                pane: None,
                lines: -i32::from(n),
            },
            KeyCommand::ScrollDown(n) => Intent::Scroll {
                pane: None,
                lines: i32::from(n),
            },
            KeyCommand::PageUp => Intent::Page { up: true },
            KeyCommand::PageDown => Intent::Page { up: false },
            KeyCommand::ScrollTop => Intent::ScrollTop,
            KeyCommand::ScrollBottom => Intent::ScrollBottom,
            KeyCommand::ToggleZoom => Intent::ToggleZoom,
            KeyCommand::ToggleHelp => Intent::ToggleHelp,
            KeyCommand::ToggleMouseCapture => Intent::ToggleMouseCapture,
            KeyCommand::ToggleDeltas => Intent::ToggleDeltas,
            KeyCommand::StartEventFilter => Intent::StartEventFilter,
            KeyCommand::ToggleDiff => Intent::ToggleDiff,
            KeyCommand::Suspend => Intent::Suspend,
            KeyCommand::Refresh => Intent::Refresh,
            KeyCommand::OpenPicker => Intent::OpenPicker,
            KeyCommand::Approve | KeyCommand::Deny => {
                if let PromptAction::Answer(input) = self.prompt.handle_key(key) {
                    self.dispatch(Intent::Answer(input));
                }
                self.request_frame();
                return;
            }
            KeyCommand::ToInput => {
                self.key_to_input(key);
                return;
            }
            KeyCommand::Ignore => return,
        };
        self.dispatch(intent);
    }

    /// A key for the input box; the prompt sees it first while the box is empty.
    fn key_to_input(&mut self, key: KeyEvent) {
        self.request_frame();
        if !self.prompt.is_empty() && self.composer.is_empty() {
            match self.prompt.handle_key(key) {
                PromptAction::Answer(input) => return self.dispatch(Intent::Answer(input)),
                PromptAction::Consumed => return,
                PromptAction::NotMine => {}
            }
        }
        let action = self.composer.handle_key(key);
        self.act_draft_changed();
        let intent = match action {
            ComposerAction::Send(text) => Intent::Send(text),
            ComposerAction::Steer(text) => Intent::Steer(text),
            ComposerAction::Cancel => Intent::Cancel,
            ComposerAction::HistoryPrev => Intent::HistoryPrev,
            ComposerAction::HistoryNext => Intent::HistoryNext,
            ComposerAction::None | ComposerAction::Consumed => return,
        };
        self.dispatch(intent);
    }

    /// `/`: the filter applies as it is typed; Enter or Esc ends the editing.
    fn edit_filter(&mut self, key: KeyEvent) {
        let Some(filter) = self.filter_edit.as_mut() else {
            return;
        };
        match key.code {
            KeyCode::Enter | KeyCode::Esc => self.filter_edit = None,
            KeyCode::Backspace => {
                filter.pop();
            }
            KeyCode::Char(c) if !c.is_control() && filter.chars().count() < 64 => filter.push(c),
            _ => {}
        }
        if let Some(f) = self.filter_edit.clone() {
            self.ui.set_event_filter(f);
        }
        self.request_frame();
    }

    fn on_mouse(&mut self, m: MouseEvent) {
        let Some(areas) = &self.last_areas else {
            return;
        };
        let target = mouse::target_at(areas, m.column, m.row);
        let intent = match (m.kind, target) {
            (MouseEventKind::ScrollUp, Target::Pane(p)) => Intent::Scroll {
                pane: Some(p),
                lines: -WHEEL_LINES,
            },
            (MouseEventKind::ScrollDown, Target::Pane(p)) => Intent::Scroll {
                pane: Some(p),
                lines: WHEEL_LINES,
            },
            (MouseEventKind::Down(MouseButton::Left), _) if self.help_open => Intent::ToggleHelp,
            (MouseEventKind::Down(MouseButton::Left), Target::Pane(p) | Target::Tab(p)) => {
                Intent::FocusPane(p)
            }
            (MouseEventKind::Down(MouseButton::Left), Target::Composer) => Intent::FocusInput,
            _ => return,
        };
        self.dispatch(intent);
    }
}
