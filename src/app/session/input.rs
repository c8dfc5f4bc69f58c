//! Terminal events → intents: keys (through `keys::route` and the key table), paste, mouse,
//! resize and focus. The input box and the required-action prompt get the keys that are theirs.

use super::SessionFront;
use super::decided_hold::HoldCause;
use super::mouse::{self, Target};
use crate::keys::Intent;
use crate::keys::mode::{Confirm, Mode};
use crate::keys::{self, KeyRoute, is_text};
use crate::ui::composer::ComposerAction;
use crate::ui::overlays::OverlayKey;
use crate::ui::prompt::PromptAction;
use crate::ui::search::QUERY_MAX_CHARS;
use color_eyre::Result;
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

/// Lines one wheel notch scrolls.
const WHEEL_LINES: i32 = 3;

impl SessionFront {
    pub(crate) fn on_terminal_event(&mut self, event: Event) -> Result<()> {
        match event {
            Event::Key(key) => self.on_key(key),
            Event::Paste(text) => {
                match self.screen.mode() {
                    Mode::Search => {
                        let mut query = self.screen.search.query().to_string();
                        query.extend(
                            text.lines()
                                .next()
                                .unwrap_or_default()
                                .chars()
                                .filter(|c| !c.is_control()),
                        );
                        let query: String = query.chars().take(QUERY_MAX_CHARS).collect();
                        self.search_for(&query);
                    }
                    // A paste never answers a confirmation, nor lands under an overlay: only
                    // in one that reads text now (a comment being written).
                    Mode::Overlay => {
                        if let Some(overlay) = self.screen.overlay_mut() {
                            overlay.paste(&text);
                        }
                    }
                    Mode::Confirming(_) => {}
                    _ => {
                        self.screen.modes.back_to_typing();
                        let was_empty = self.screen.composer.is_empty();
                        self.screen.composer.handle_paste(&text);
                        self.act_draft_typed(was_empty);
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
                if self.terminal_focused {
                    // Back to the window: the times on screen ("3m ago") catch up.
                    self.request_frame();
                }
            }
        }
        Ok(())
    }

    fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        // A key after the hold's moment (or its turn) is the box's, as the title now says.
        self.end_hold_if_over(super::decided_hold::key_time());
        let was_in_panes = self.screen.mode().pane_has_keys();
        self.route_key(key);
        self.end_search_left_behind(was_in_panes);
        self.request_frame();
    }

    fn route_key(&mut self, key: KeyEvent) {
        match keys::route(key, self.screen.mode(), &self.keymap) {
            KeyRoute::Do(intent) => self.dispatch(intent),
            KeyRoute::Input => self.key_to_input(key),
            KeyRoute::Prompt => self.key_to_prompt(key),
            KeyRoute::Search => self.edit_search(key),
            KeyRoute::Confirm(yes) => {
                if let Some(confirm) = self.screen.answered() {
                    self.act_confirmed(confirm, yes);
                }
            }
            KeyRoute::ExplainConfirm => {
                if let Mode::Confirming(confirm) = self.screen.mode() {
                    let why = confirm.enter_refusal();
                    self.notice(Some(why.into()));
                }
            }
            KeyRoute::Decline => {
                if let Some(confirm) = self.screen.answered() {
                    self.act_confirmed(confirm, false);
                    // What follows belongs to the sentence that declined: held, not text.
                    self.enter_decided();
                    self.hold_notice("not confirmed — keys are held; Esc to type".into());
                }
            }
            KeyRoute::Held => {
                let c = match key.code {
                    KeyCode::Char(c) if is_text(&key) => Some(c),
                    _ => None,
                };
                let held = self.screen.modes.hold(c).to_string();
                self.screen.composer.offer_back(&held);
                let cause = self.decided_hold.cause();
                self.hold_notice(super::decided_hold::held_notice(cause, &held));
            }
            KeyRoute::Overlay => self.key_to_overlay(key),
            // The overlays' and the fleet's own rows: read through their scopes.
            KeyRoute::View(_) | KeyRoute::Fleet(_) | KeyRoute::Ignore => {}
        }
    }

    /// A key for the open overlay.
    fn key_to_overlay(&mut self, key: KeyEvent) {
        let Some(overlay) = self.screen.overlay_mut() else {
            self.screen.modes.close_overlay();
            return;
        };
        match crate::ui::overlays::press(overlay, key) {
            OverlayKey::Handled => self.request_frame(),
            OverlayKey::Ignored => {}
            OverlayKey::Close => {
                self.screen.close_overlay();
                self.request_frame();
            }
            OverlayKey::Act(action) => self.act_overlay(action),
        }
    }

    /// A key for the required-action prompt (deciding mode). A printable key that decides
    /// nothing, pressed first, is the start of the person's text: it goes to the box. Enter
    /// with nothing picked answers with the box's text when there is one.
    fn key_to_prompt(&mut self, key: KeyEvent) {
        self.request_frame();
        if self.session.actions().nothing_listed() {
            // What was being decided went away (expired, answered elsewhere). A key meant
            // for it, or any key after an option was picked, is held: never text to send.
            if key.code == KeyCode::Enter && !self.screen.modes.deciding_touched() {
                // Enter alone answers nothing now and sends nothing: the box has the keys.
                self.screen.modes.back_to_typing();
                return self.notice(Some("that decision no longer waits — nothing sent".into()));
            }
            if self.screen.modes.deciding_touched() || crate::ui::prompt::may_decide(&key) {
                self.enter_held(HoldCause::DecisionGone);
                return self.route_key(key);
            }
            self.screen.modes.back_to_typing();
            return self.key_to_input(key);
        }
        if let KeyCode::Char(c @ ('a' | 'd')) = key.code
            && !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
            && self.act_rule_from_approval(c == 'a')
        {
            return;
        }
        match self.screen.prompt.handle_key(self.session.actions(), key) {
            PromptAction::Answer(input) => {
                self.enter_decided();
                let approval = matches!(input, gobare_api::model::Input::Approval { .. });
                self.dispatch(Intent::Answer(input));
                if approval {
                    self.act_note_after_decision();
                }
            }
            PromptAction::ConfirmSensitive(call_id) => {
                self.screen.ask(Confirm::ApproveSensitive { call_id });
            }
            // Enter with no option picked: the box's text answers, where it can.
            PromptAction::Explain(_) | PromptAction::NotMine
                if key.code == KeyCode::Enter && self.box_answers() =>
            {
                if self.act_answer_with_box() {
                    self.enter_decided();
                }
            }
            PromptAction::Explain(text) => self.notice(Some(text.into())),
            PromptAction::Consumed => self.screen.modes.touch_deciding(),
            PromptAction::NotMine if is_text(&key) && !self.screen.modes.deciding_touched() => {
                self.screen.modes.back_to_typing();
                self.key_to_input(key);
            }
            PromptAction::NotMine if is_text(&key) => {
                self.notice(Some("this key decides nothing here: Esc to type".into()))
            }
            PromptAction::NotMine => {}
        }
    }

    /// A key for the input box: typed text is text, whatever waits.
    fn key_to_input(&mut self, key: KeyEvent) {
        self.request_frame();
        let was_empty = self.screen.composer.is_empty();
        let action = self.screen.composer.handle_key(key);
        if key.code == KeyCode::Char('y') && key.modifiers == KeyModifiers::CONTROL {
            self.held_put_back();
        }
        self.act_draft_typed(was_empty);
        let intent = match action {
            ComposerAction::Send(text) => Intent::Send(text),
            ComposerAction::Steer(text) => Intent::Steer(text),
            ComposerAction::Context(text) => Intent::Context(text),
            ComposerAction::Cancel => Intent::Cancel,
            ComposerAction::EditExternally => Intent::EditExternally,
            ComposerAction::HistoryPrev => Intent::HistoryPrev,
            ComposerAction::HistoryNext => Intent::HistoryNext,
            ComposerAction::None | ComposerAction::Consumed => return,
        };
        self.dispatch(intent);
    }

    /// `/`: the search runs as it is typed; Enter keeps it (`n` / `N` step through the
    /// matches), Esc ends it (a `type:` filter stays, as the filter always did).
    fn edit_search(&mut self, key: KeyEvent) {
        let mut query = self.screen.search.query().to_string();
        match key.code {
            KeyCode::Enter => {
                self.screen.modes.leave_search();
                self.request_frame();
                return;
            }
            KeyCode::Esc => {
                self.screen.modes.leave_search();
                return self.end_search();
            }
            KeyCode::Up => return self.search_step(true),
            KeyCode::Down => return self.search_step(false),
            KeyCode::Backspace => {
                query.pop();
            }
            KeyCode::Char(c)
                if !c.is_control()
                    && !key.modifiers.contains(KeyModifiers::CONTROL)
                    && query.chars().count() < QUERY_MAX_CHARS =>
            {
                query.push(c)
            }
            _ => return,
        }
        self.search_for(&query);
    }

    fn on_mouse(&mut self, m: MouseEvent) {
        // The panes under an overlay are out of reach.
        if *self.screen.mode() == Mode::Overlay {
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
            (MouseEventKind::Down(MouseButton::Left), _) if *self.screen.mode() == Mode::Help => {
                Intent::ToggleHelp
            }
            // A click never answers a confirmation.
            (_, _) if matches!(self.screen.mode(), Mode::Confirming(_)) => return,
            (MouseEventKind::Down(MouseButton::Left), Target::Pane(p) | Target::Tab(p)) => {
                Intent::FocusPane(p)
            }
            (MouseEventKind::Down(MouseButton::Left), Target::Composer) => Intent::FocusInput,
            _ => return,
        };
        let was_in_panes = self.screen.mode().pane_has_keys();
        self.dispatch(intent);
        self.end_search_left_behind(was_in_panes);
    }
}

#[cfg(test)]
mod tests;
