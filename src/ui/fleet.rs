//! The fleet view: one row per session (crews as trees), the ones that need the user first,
//! with the keys that move around it and the modes that ask before anything changes.
//!
//! In the list a letter is a command (`n`, `r`, `d`, `f`, `q`, `/`) or does nothing; text is
//! typed only in the visible filter or rename line. Delete and fork ask first.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::fleet::bands::Bands;
use crate::fleet::model::FleetModel;
use crate::fleet::order::{SortBy, ordered_by};
use crate::ui::theme::Theme;
use drawn_rows::DrawnRows;
use line_edit::{Edited, LineEdit};

mod draw;
mod drawn_rows;
mod line_edit;
mod mode_line;
mod rows;
mod usage_cell;

/// What a key in the fleet asks the caller to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FleetAction {
    /// Open this session in place.
    Open(String),
    /// Open this session with its changes view.
    OpenChanges(String),
    /// Create a session and open it.
    New,
    /// Set this session's title (`None` clears it); already confirmed.
    Rename(String, Option<String>),
    /// Delete this session; already confirmed.
    Delete(String),
    /// Fork this session; already confirmed.
    Fork(String),
    /// Set this session's labels (empty clears them); typed and shown before sent.
    SetLabels(String, std::collections::BTreeMap<String, String>),
    /// Set the approval mode of these sessions; already confirmed, naming how many.
    SetMode(Vec<String>, gobare_api::session_patch::ApprovalMode),
    /// Leave the fleet.
    Quit,
    /// Go to the next theme.
    NextTheme,
    /// Open the decision inbox.
    Inbox,
    /// The inbox, at the soonest deadline.
    NextDecision,
    /// The view used the key (or ignored it: it is modal).
    Consumed,
}

pub(crate) use crate::keys::fleet::{FleetKey, FleetScope};

/// Where the fleet's keys go.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
enum FleetMode {
    /// Moving in the list; letters are commands.
    #[default]
    List,
    /// Typing the filter.
    Filter,
    /// Typing a new title for the session.
    Rename { id: String, title: LineEdit },
    /// Asking before deleting the session.
    ConfirmDelete { id: String, label: String },
    /// Asking before forking the session.
    ConfirmFork { id: String, label: String },
    /// Typing the session's labels, `key=value` pairs.
    Labels { id: String, text: LineEdit },
    /// Asking before setting the approval mode of the sessions shown (`M` again: the
    /// next mode).
    ConfirmMode {
        ids: Vec<String>,
        mode: gobare_api::session_patch::ApprovalMode,
    },
}

/// Crew levels indented at most; deeper members line up with the deepest shown.
const MAX_INDENT_LEVELS: usize = 12;
/// Columns after the label.
const STATUS_COLS: usize = 24;
const TURN_COLS: usize = 13;
const QUEUE_COLS: usize = 4;
const WORKSPACE_COLS: usize = 15;
const ARTIFACT_COLS: usize = 4;
const USAGE_COLS: usize = 7;
const AGE_COLS: usize = 5;
/// The label of an untitled session whose first message is not known.
const UNTITLED: &str = "(untitled)";
const RENAME_CHARS: usize = 200;
/// Characters typed as labels: 16 labels of a short key and value.
const LABELS_CHARS: usize = 1_000;
/// How long rows keep their places after the selection last moved.
const ORDER_HOLD_MS: i64 = 2_000;

/// The fleet's view state: the selection (by session, so it stays on the same session as
/// the order changes), the scroll, the filter, the mode and the last message.
#[derive(Debug, Clone, Default)]
pub struct FleetView {
    selected_id: Option<String>,
    /// Where the selection was, for when its session leaves.
    selected_index: usize,
    offset: usize,
    page_rows: usize,
    filter: String,
    mode: FleetMode,
    message: Option<(String, bool)>,
    /// Ids in display order at the last draw (keys act on what was seen).
    shown: Vec<String>,
    /// Each shown row's depth in its crew.
    depths: Vec<u16>,
    /// What the order was computed from: the model's version and the filter.
    order_key: Option<((u64, u64), String)>,
    /// The selected row's label, for the confirm questions.
    selected_label: String,
    /// The selected row's title, where rename starts.
    selected_title: String,
    /// How old the selected row's usage read is, when old enough to say.
    selected_usage_age: Option<i64>,
    /// The selected row's labels as `key=value` text, where `l` starts.
    selected_labels: String,
    /// The list rows as last drawn, and the theme they were drawn in.
    drawn: DrawnRows,
    drawn_theme: Option<Theme>,
    /// The rows drawn at the last frame: `offset..end` of `shown`.
    drawn_end: usize,
    /// How long what the last frame showed stays true (a clock, an age, a countdown).
    true_for_ms: Option<i64>,
    /// A move key was pressed since the last frame: the order is held from then.
    moved: bool,
    /// Until when (Unix ms) rows keep their places while the selection moves: a row must
    /// not jump from under the cursor between two presses of ↓.
    hold_order_until: Option<i64>,
    /// The band each row is shown in: it follows the row's state once that has held.
    bands: Bands,
    /// The order within a band (`s` cycles it).
    sort: SortBy,
    /// A band settled while the order was held: made again when the hold ends.
    resort: bool,
}

impl FleetView {
    pub fn new() -> FleetView {
        FleetView::default()
    }

    /// The selected session's id.
    pub fn selected(&self) -> Option<&str> {
        self.selected_id.as_deref()
    }

    /// The order within a band.
    pub fn sort(&self) -> SortBy {
        self.sort
    }

    /// Shows only the rows matching `filter` (as typed after `/`), from the start.
    pub fn set_filter(&mut self, filter: String) {
        self.filter = filter;
        self.order_key = None;
    }

    /// Selects `id` (coming back from a session selects the row it was opened from).
    pub fn select(&mut self, id: &str) {
        self.selected_id = Some(id.to_string());
    }

    /// A line for the user: an outcome (`error` styles it as one). Server text is fine;
    /// it is sanitized when drawn.
    pub fn set_message(&mut self, message: Option<String>, error: bool) {
        self.message = message.map(|m| (m, error));
    }

    /// The sessions on screen at the last frame.
    pub fn on_screen(&self) -> &[String] {
        let end = self.drawn_end.min(self.shown.len());
        &self.shown[self.offset.min(end)..end]
    }

    /// How long the last frame stays true: the next second of a running clock or a
    /// countdown, the next minute of an age ("now" becomes "1m"); `None`: until something
    /// changes.
    pub fn true_for(&self) -> Option<std::time::Duration> {
        self.true_for_ms
            .map(|ms| std::time::Duration::from_millis(ms.max(1) as u64))
    }

    /// Whether the fleet is asking or taking text (keys are not commands then).
    pub fn is_modal(&self) -> bool {
        self.mode != FleetMode::List
    }

    /// Which rows of the key table have the keys now.
    pub(crate) fn scope(&self) -> FleetScope {
        match self.mode {
            FleetMode::List => FleetScope::List,
            FleetMode::Filter => FleetScope::Filter,
            FleetMode::Rename { .. } => FleetScope::Rename,
            FleetMode::Labels { .. } => FleetScope::Labels,
            FleetMode::ConfirmDelete { .. }
            | FleetMode::ConfirmFork { .. }
            | FleetMode::ConfirmMode { .. } => FleetScope::Confirm,
        }
    }

    /// A key, as the key table's rows for `Self::scope` route it.
    pub fn handle_key(&mut self, key: KeyEvent) -> FleetAction {
        if key.kind == KeyEventKind::Release {
            return FleetAction::Consumed;
        }
        match crate::keys::table::fleet_key(self.scope(), key.code, key.modifiers) {
            Some(meant) => self.handle(meant),
            None => self.unrouted(key),
        }
    }

    /// A key no row has: text while typing the filter or a title; nothing in the list or
    /// a question.
    fn unrouted(&mut self, key: KeyEvent) -> FleetAction {
        let KeyCode::Char(c) = key.code else {
            return FleetAction::Consumed;
        };
        if key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return FleetAction::Consumed;
        }
        match &mut self.mode {
            FleetMode::Filter => self.filter.push(c),
            FleetMode::Rename { title: line, .. } | FleetMode::Labels { text: line, .. } => {
                line.type_char(c)
            }
            _ => {}
        }
        FleetAction::Consumed
    }

    fn handle(&mut self, key: FleetKey) -> FleetAction {
        if key == FleetKey::Quit {
            return FleetAction::Quit;
        }
        match std::mem::take(&mut self.mode) {
            FleetMode::List => self.list_key(key),
            FleetMode::Filter => self.filter_key(key),
            FleetMode::Rename { id, mut title } => match title.key(key) {
                Edited::Cancelled => FleetAction::Consumed,
                Edited::Done => {
                    let title = title.text().trim().to_string();
                    FleetAction::Rename(id, (!title.is_empty()).then_some(title))
                }
                Edited::Editing => {
                    self.mode = FleetMode::Rename { id, title };
                    FleetAction::Consumed
                }
            },
            FleetMode::ConfirmDelete { id, label } => match key {
                FleetKey::Yes => FleetAction::Delete(id),
                FleetKey::No => FleetAction::Consumed,
                _ => {
                    self.mode = FleetMode::ConfirmDelete { id, label };
                    FleetAction::Consumed
                }
            },
            FleetMode::ConfirmFork { id, label } => match key {
                FleetKey::Yes => FleetAction::Fork(id),
                FleetKey::No => FleetAction::Consumed,
                _ => {
                    self.mode = FleetMode::ConfirmFork { id, label };
                    FleetAction::Consumed
                }
            },
            FleetMode::Labels { id, text } => self.labels_key(id, text, key),
            FleetMode::ConfirmMode { ids, mode } => match key {
                FleetKey::Yes => FleetAction::SetMode(ids, mode),
                FleetKey::No => FleetAction::Consumed,
                FleetKey::Mode => {
                    self.mode = FleetMode::ConfirmMode {
                        ids,
                        mode: mode.next(),
                    };
                    FleetAction::Consumed
                }
                _ => {
                    self.mode = FleetMode::ConfirmMode { ids, mode };
                    FleetAction::Consumed
                }
            },
        }
    }

    /// A key while the filter is typed: ↑ and ↓ still move in the list.
    fn filter_key(&mut self, key: FleetKey) -> FleetAction {
        match key {
            FleetKey::Cancel => self.filter.clear(),
            FleetKey::Done => {}
            FleetKey::Erase => {
                self.filter.pop();
                self.mode = FleetMode::Filter;
            }
            FleetKey::Up | FleetKey::Down => {
                self.mode = FleetMode::Filter;
                return self.list_key(key);
            }
            _ => self.mode = FleetMode::Filter,
        }
        FleetAction::Consumed
    }

    /// A key while session `id`'s labels are typed: Enter sends them once they parse.
    fn labels_key(&mut self, id: String, mut text: LineEdit, key: FleetKey) -> FleetAction {
        match text.key(key) {
            Edited::Cancelled => FleetAction::Consumed,
            Edited::Done => match crate::sessions::labels::parse(text.text()) {
                Ok(labels) => FleetAction::SetLabels(id, labels),
                Err(why) => {
                    self.message = Some((format!("not sent: {why}"), true));
                    self.mode = FleetMode::Labels { id, text };
                    FleetAction::Consumed
                }
            },
            Edited::Editing => {
                self.mode = FleetMode::Labels { id, text };
                FleetAction::Consumed
            }
        }
    }

    fn list_key(&mut self, key: FleetKey) -> FleetAction {
        let last = self.shown.len().saturating_sub(1);
        let index = self.current_index();
        let page = self.page_rows.max(1);
        // Step by step through the rows: they hold still until the selection rests (Home
        // and End jump, and see the order as it is).
        self.moved |= matches!(
            key,
            FleetKey::Up | FleetKey::Down | FleetKey::PageUp | FleetKey::PageDown
        );
        let target = match key {
            FleetKey::Open => {
                return self
                    .selected_shown()
                    .map_or(FleetAction::Consumed, FleetAction::Open);
            }
            FleetKey::Changes => {
                return self
                    .selected_shown()
                    .map_or(FleetAction::Consumed, FleetAction::OpenChanges);
            }
            FleetKey::New => return FleetAction::New,
            FleetKey::Inbox => return FleetAction::Inbox,
            FleetKey::NextDecision => return FleetAction::NextDecision,
            FleetKey::Theme => return FleetAction::NextTheme,
            FleetKey::Sort => {
                self.sort = self.sort.next();
                // Made again at the next frame, the selection kept on its session.
                self.order_key = None;
                return FleetAction::Consumed;
            }
            FleetKey::Filter => {
                self.mode = FleetMode::Filter;
                return FleetAction::Consumed;
            }
            FleetKey::ClearFilter => {
                self.filter.clear();
                return FleetAction::Consumed;
            }
            FleetKey::Mode => return self.ask_mode(),
            FleetKey::Labels | FleetKey::Rename | FleetKey::Delete | FleetKey::Fork => {
                return self.start_on_selected(key);
            }
            moving => match moved_to(moving, index, page, last) {
                Some(target) => target,
                None => return FleetAction::Consumed,
            },
        };
        let target = target.min(last);
        self.selected_index = target;
        self.selected_id = self.shown.get(target).cloned();
        FleetAction::Consumed
    }

    /// The selected session, when it is shown (keys act on what was seen).
    fn selected_shown(&self) -> Option<String> {
        self.selected_id
            .clone()
            .filter(|id| self.shown.contains(id))
    }

    /// `M`: asks before setting the approval mode of every session shown.
    fn ask_mode(&mut self) -> FleetAction {
        if self.shown.is_empty() {
            return FleetAction::Consumed;
        }
        self.message = None;
        self.mode = FleetMode::ConfirmMode {
            ids: self.shown.clone(),
            mode: gobare_api::session_patch::ApprovalMode::PerStep,
        };
        FleetAction::Consumed
    }

    /// Labels, rename, delete or fork of the selected session: the mode that types or asks
    /// first.
    fn start_on_selected(&mut self, key: FleetKey) -> FleetAction {
        let Some(id) = self.selected_shown() else {
            return FleetAction::Consumed;
        };
        self.message = None;
        self.mode = match key {
            // Editing starts from the labels as they are.
            FleetKey::Labels => FleetMode::Labels {
                id,
                text: LineEdit::new(&self.selected_labels, LABELS_CHARS),
            },
            // Rename starts from the title as it is: a fix is an edit, not a retype.
            FleetKey::Rename => FleetMode::Rename {
                id,
                title: LineEdit::new(&self.selected_title, RENAME_CHARS),
            },
            FleetKey::Delete => FleetMode::ConfirmDelete {
                id,
                label: self.selected_label.clone(),
            },
            _ => FleetMode::ConfirmFork {
                id,
                label: self.selected_label.clone(),
            },
        };
        FleetAction::Consumed
    }

    fn current_index(&self) -> usize {
        self.selected_id
            .as_ref()
            .and_then(|id| self.position(id))
            .unwrap_or(self.selected_index)
    }

    /// Where session `id` is shown: most often where the selection was last.
    fn position(&self, id: &str) -> Option<usize> {
        if self.shown.get(self.selected_index).is_some_and(|s| s == id) {
            return Some(self.selected_index);
        }
        self.shown.iter().position(|s| s == id)
    }

    /// Brings the shown order up to the model and the filter, unless the selection moved a
    /// moment ago: then rows keep their places (what left goes, what came waits) and the
    /// milliseconds the order is held for are given back.
    fn refresh_order(&mut self, model: &FleetModel, now_ms: i64) -> Option<i64> {
        let mut held_for = None;
        let refiltered = self
            .order_key
            .as_ref()
            .is_some_and(|(_, filter)| *filter != self.filter);
        let banded = self.bands.update(model, now_ms);
        let stale = banded
            || self.resort
            || self.order_key.as_ref().is_none_or(|(version, filter)| {
                *version != model.version() || *filter != self.filter
            });
        if std::mem::take(&mut self.moved) {
            self.hold_order_until = Some(now_ms + ORDER_HOLD_MS);
        }
        let holding = self
            .hold_order_until
            .filter(|&t| t > now_ms && !refiltered && self.order_key.is_some());
        if let (true, Some(hold)) = (stale, holding) {
            // Rows keep their places; what left goes, what came waits for the re-sort
            // when the selection rests.
            let mut keep = self.shown.iter().map(|id| model.get(id).is_some());
            let mut kept = Vec::with_capacity(self.depths.len());
            for &depth in &self.depths {
                if keep.next().unwrap_or(false) {
                    kept.push(depth);
                }
            }
            self.shown.retain(|id| model.get(id).is_some());
            self.depths = kept;
            held_for = Some(hold - now_ms);
            // A band that settled meanwhile is taken when the hold ends.
            self.resort |= banded;
        } else if stale {
            // The selected row keeps its line on the screen: the list moves around it.
            let anchor = self.selected_id.as_ref().and_then(|id| {
                let i = self.position(id)?;
                (self.offset..self.offset + self.page_rows.max(1))
                    .contains(&i)
                    .then(|| i - self.offset)
            });
            let bands = &self.bands;
            let rows = ordered_by(model, &self.filter, self.sort, &|row| {
                bands
                    .band(model, &row.id)
                    .unwrap_or_else(|| row.attention())
            });
            // The ids' strings are reused: no allocation per row when the order is redone.
            self.shown.resize_with(rows.len(), String::new);
            for (id, shown) in self.shown.iter_mut().zip(&rows) {
                id.clone_from(&shown.row.id);
            }
            self.depths.clear();
            self.depths.extend(rows.iter().map(|s| s.depth));
            self.order_key = Some((model.version(), self.filter.clone()));
            self.resort = false;
            if let Some(line) = anchor
                && let Some(i) = self.selected_id.as_ref().and_then(|id| self.position(id))
            {
                let most = self.shown.len().saturating_sub(self.page_rows.max(1));
                self.selected_index = i;
                self.offset = i.saturating_sub(line).min(most);
            }
        }
        if refiltered {
            // Every match from the top: a scroll kept from the longer list would hide some.
            self.offset = 0;
            self.selected_index = 0;
            self.selected_id = self.shown.first().cloned();
        }
        if let Some(settles) = self.bands.settles_in(now_ms) {
            held_for = Some(held_for.map_or(settles, |h: i64| h.min(settles)));
        }
        held_for
    }

    /// Keeps the shown order and the selection (a session that left hands the selection
    /// to the row now at its place). With no row yet (the first listing still coming) the
    /// selection asked for waits for it: Ctrl+O from a session lands on its row.
    fn remember(&mut self) {
        match self.selected_id.as_ref().and_then(|id| self.position(id)) {
            Some(i) => self.selected_index = i,
            None if self.shown.is_empty() => self.selected_index = 0,
            None => {
                let i = self.selected_index.min(self.shown.len().saturating_sub(1));
                self.selected_index = i;
                self.selected_id = self.shown.get(i).cloned();
            }
        }
    }
}

/// Resets every cell of `area`, as the `Clear` widget does, but a row at a time: `Clear`
/// goes column by column, across the whole buffer for each. The inbox's list too.
pub(crate) fn clear(area: Rect, buf: &mut Buffer) {
    let area = area.intersection(buf.area);
    for y in area.top()..area.bottom() {
        let start = buf.index_of(area.x, y);
        for cell in &mut buf.content[start..start + usize::from(area.width)] {
            cell.reset();
        }
    }
}

/// Where a list's selection goes for a key that moves it (`None`: the key does not move
/// it); past the end is clamped by the caller. The fleet and the inbox move alike.
pub(crate) fn moved_to(key: FleetKey, index: usize, page: usize, last: usize) -> Option<usize> {
    Some(match key {
        FleetKey::Up => index.saturating_sub(1),
        FleetKey::Down => index + 1,
        FleetKey::PageUp => index.saturating_sub(page),
        FleetKey::PageDown => index + page,
        FleetKey::Top => 0,
        FleetKey::Bottom => last,
        _ => return None,
    })
}

/// The first row to show so that `selected` is visible, moving as little as possible.
pub(crate) fn visible_offset(offset: usize, selected: usize, rows: usize) -> usize {
    if selected < offset {
        selected
    } else if selected >= offset + rows {
        selected + 1 - rows
    } else {
        offset
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod calm;

#[cfg(test)]
mod labels_tests;
#[cfg(test)]
mod one_count_tests;
#[cfg(test)]
mod order_tests;
#[cfg(test)]
mod task_fixture;
#[cfg(test)]
mod usage_tests;
