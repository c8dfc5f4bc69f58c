//! The fleet's list rows as last drawn, kept per session until what they show moves on: a
//! frame copies the cells of unchanged rows instead of laying their text out again.

use std::collections::HashMap;

use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::{Position, Rect};
use ratatui::text::Line;

/// What a drawn row depends on; the row is drawn again when any of it differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct RowKey {
    /// The model instance and the row's version in it.
    pub(super) model: u64,
    pub(super) version: u64,
    pub(super) depth: u16,
    pub(super) selected: bool,
    pub(super) width: u16,
    /// What time moves: the running turn's seconds and the age as shown.
    pub(super) clock: Option<u64>,
    pub(super) age: (i64, &'static str),
    /// A running workspace's usage as shown (minutes) and whether its read is old.
    pub(super) usage: (Option<u64>, bool),
}

#[derive(Debug, Clone)]
struct Drawn {
    key: RowKey,
    cells: Vec<Cell>,
}

/// Rows drawn in the last frame (kept) and in this one (being drawn).
#[derive(Debug, Clone, Default)]
pub(super) struct DrawnRows {
    last: HashMap<String, Drawn>,
    this: HashMap<String, Drawn>,
}

impl DrawnRows {
    /// Forgets every row (the theme changed).
    pub(super) fn clear(&mut self) {
        self.last.clear();
        self.this.clear();
    }

    /// Puts session `id`'s row at (`x`, `y`): its cells from the last frame when `key` is
    /// unchanged, else `line` laid out over `key.width` cells as `Buffer::set_line` does
    /// on a cleared row.
    pub(super) fn draw(
        &mut self,
        buf: &mut Buffer,
        x: u16,
        y: u16,
        id: &str,
        key: RowKey,
        line: impl FnOnce() -> Line<'static>,
    ) {
        let fits = key.width > 0
            && buf.area.contains(Position::new(x, y))
            && buf
                .area
                .contains(Position::new(x + key.width.saturating_sub(1), y));
        if !fits {
            buf.set_line(x, y, &line(), key.width);
            return;
        }
        let (id, drawn) = match self.last.remove_entry(id) {
            Some((id, drawn)) if drawn.key == key => (id, drawn),
            Some((id, _)) => (id, lay_out(key, &line())),
            None => (id.to_string(), lay_out(key, &line())),
        };
        let start = buf.index_of(x, y);
        buf.content[start..start + drawn.cells.len()].clone_from_slice(&drawn.cells);
        self.this.insert(id, drawn);
    }

    /// Ends a frame: rows not drawn in it are forgotten.
    pub(super) fn end_frame(&mut self) {
        self.last.clear();
        std::mem::swap(&mut self.last, &mut self.this);
    }
}

fn lay_out(key: RowKey, line: &Line<'_>) -> Drawn {
    let mut row = Buffer::empty(Rect::new(0, 0, key.width, 1));
    row.set_line(0, 0, line, key.width);
    Drawn {
        key,
        cells: row.content,
    }
}
