//! Terminal events → intents: keys (through `keys::command_for`), paste, mouse, resize and
//! focus. The input box and the required-action prompt get the keys that are theirs.

use super::App;
use super::intent::Intent;
use super::keys::{self, KeyRoute};
use super::mouse::{self, Target};
use crate::ui::composer::ComposerAction;
use crate::ui::mode::{Confirm, Mode};
use crate::ui::overlay::OverlayKey;
use crate::ui::prompt::PromptAction;
use color_eyre::Result;
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind,
};

/// Lines one wheel notch scrolls.
const WHEEL_LINES: i32 = 3;

impl App {
    pub(super) fn on_terminal_event(&mut self, event: Event) -> Result<()> {
        match event {
            Event::Key(key) => self.on_key(key),
            Event::Paste(text) => {
                match &mut self.screen.mode {
                    Mode::Filter(filter) => {
                        filter.push_str(text.lines().next().unwrap_or_default());
                        let f = filter.clone();
                        self.screen.events.set_filter(f);
                    }
                    // A paste never answers a confirmation, nor lands under an overlay.
                    Mode::Confirming(_) | Mode::Overlay => {}
                    _ => {
                        self.screen.mode = Mode::Typing;
                        self.screen.composer.handle_paste(&text);
                        self.act_draft_changed();
                    }
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

    fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        // Extra bindings from the config file act where commands do, never while a question
        // or the filter has the keys; plain letters only in pane navigation.
        let mode = &self.screen.mode;
        let bound = match mode {
            Mode::Typing | Mode::Navigating => self
                .keymap
                .intent_for(key, *mode == Mode::Navigating)
                .map(KeyRoute::Do),
            _ => None,
        };
        match bound.unwrap_or_else(|| keys::route(key, mode)) {
            KeyRoute::Do(intent) => self.dispatch(intent),
            KeyRoute::Input => self.key_to_input(key),
            KeyRoute::Prompt => self.key_to_prompt(key),
            KeyRoute::Filter => self.edit_filter(key),
            KeyRoute::Confirm(yes) => {
                if let Some(confirm) = self.screen.answered() {
                    self.act_confirmed(confirm, yes);
                }
            }
            KeyRoute::Overlay => self.key_to_overlay(key),
            KeyRoute::Ignore => {}
        }
    }

    /// A key for the open overlay.
    fn key_to_overlay(&mut self, key: KeyEvent) {
        let Some(overlay) = self.screen.overlay_mut() else {
            self.screen.mode = Mode::Navigating;
            return;
        };
        match overlay.handle_key(key) {
            OverlayKey::Handled => self.request_frame(),
            OverlayKey::Ignored => {}
            OverlayKey::Close => {
                self.screen.close_overlay();
                self.request_frame();
            }
            OverlayKey::Act(action) => self.act_overlay(action),
        }
    }

    /// A key for the required-action prompt (deciding mode). Enter with nothing picked
    /// answers with the box's text when there is one.
    fn key_to_prompt(&mut self, key: KeyEvent) {
        self.request_frame();
        match self.screen.prompt.handle_key(self.view.actions(), key) {
            PromptAction::Answer(input) => {
                self.screen.mode = Mode::Typing;
                self.dispatch(Intent::Answer(input));
            }
            PromptAction::ConfirmSensitive(call_id) => {
                self.screen.ask(Confirm::ApproveSensitive { call_id });
            }
            PromptAction::Explain(_)
                if key.code == KeyCode::Enter && !self.screen.composer.is_empty() =>
            {
                self.screen.mode = Mode::Typing;
                self.dispatch(Intent::Send(self.screen.composer.text()));
            }
            PromptAction::Explain(text) => self.notice(Some(text.into())),
            PromptAction::Consumed => {}
            PromptAction::NotMine if self.view.actions().nothing_listed() => {
                self.screen.mode = Mode::Typing
            }
            PromptAction::NotMine => {}
        }
    }

    /// A key for the input box: typed text is text, whatever waits.
    fn key_to_input(&mut self, key: KeyEvent) {
        self.request_frame();
        let action = self.screen.composer.handle_key(key);
        self.act_draft_changed();
        let intent = match action {
            ComposerAction::Send(text) => Intent::Send(text),
            ComposerAction::Steer(text) => Intent::Steer(text),
            ComposerAction::Context(text) => Intent::Context(text),
            ComposerAction::Cancel => Intent::Cancel,
            ComposerAction::HistoryPrev => Intent::HistoryPrev,
            ComposerAction::HistoryNext => Intent::HistoryNext,
            ComposerAction::None | ComposerAction::Consumed => return,
        };
        self.dispatch(intent);
    }

    /// `/`: the filter applies as it is typed; Enter or Esc ends the editing.
    fn edit_filter(&mut self, key: KeyEvent) {
        let Mode::Filter(filter) = &mut self.screen.mode else {
            return;
        };
        match key.code {
            KeyCode::Enter | KeyCode::Esc => self.screen.mode = Mode::Navigating,
            KeyCode::Backspace => {
                filter.pop();
            }
            KeyCode::Char(c) if !c.is_control() && filter.chars().count() < 64 => filter.push(c),
            _ => {}
        }
        if let Mode::Filter(f) = &self.screen.mode {
            let f = f.clone();
            self.screen.events.set_filter(f);
        }
        self.request_frame();
    }

    fn on_mouse(&mut self, m: MouseEvent) {
        // The panes under an overlay are out of reach.
        if self.screen.mode == Mode::Overlay {
            return;
        }
        let Some(areas) = self.screen.areas() else {
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
            (MouseEventKind::Down(MouseButton::Left), _) if self.screen.mode == Mode::Help => {
                Intent::ToggleHelp
            }
            // A click never answers a confirmation.
            (_, _) if matches!(self.screen.mode, Mode::Confirming(_)) => return,
            (MouseEventKind::Down(MouseButton::Left), Target::Pane(p) | Target::Tab(p)) => {
                Intent::FocusPane(p)
            }
            (MouseEventKind::Down(MouseButton::Left), Target::Composer) => Intent::FocusInput,
            _ => return,
        };
        self.dispatch(intent);
    }
}
