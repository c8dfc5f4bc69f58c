//! Wrapped lines per transcript entry, kept across frames: a frame lays out only entries
//! that changed (or a new width), so a long transcript costs what the screen shows.

use super::entry::{entry_lines, streaming_lines};
use crate::session::transcript::{Entry, Streaming};
use crate::ui::theme::Theme;
use ratatui::text::Line;
use std::collections::HashMap;
use std::rc::Rc;

/// Entries whose lines are kept across frames; beyond this, those the last frame did not
/// use are dropped. A screen shows far fewer, so the cache stays small and steady instead of
/// growing with every entry that ever scrolled past.
const CACHE_ENTRIES: usize = 512;

pub(crate) type Lines = Rc<Vec<Line<'static>>>;

#[derive(Debug)]
struct Cached {
    rev: u32,
    expanded: bool,
    /// The frame that last used these lines.
    used: u64,
    lines: Lines,
}

/// Wrapped lines per transcript entry for one width.
#[derive(Debug, Default)]
pub(crate) struct LineCache {
    width: u16,
    /// The theme the lines were styled with: another (switched live) lays them out again.
    theme: Option<Theme>,
    /// Counts frames, to tell which entries the current one used.
    frame: u64,
    entries: HashMap<u64, Cached>,
    streaming: Option<(u64, bool, Lines)>,
}

impl LineCache {
    pub(crate) fn lines(
        &mut self,
        entry: &Entry,
        width: u16,
        expanded: bool,
        theme: &Theme,
    ) -> Lines {
        self.set_width(width);
        if let Some(c) = self.entries.get_mut(&entry.id)
            && c.rev == entry.rev
            && c.expanded == expanded
        {
            c.used = self.frame;
            return c.lines.clone();
        }
        let lines: Lines = Rc::new(entry_lines(entry, width, expanded, theme));
        self.entries.insert(
            entry.id,
            Cached {
                rev: entry.rev,
                expanded,
                used: self.frame,
                lines: lines.clone(),
            },
        );
        lines
    }

    /// After a frame: past the cap, keeps only what this frame used.
    pub(crate) fn frame_done(&mut self) {
        if self.entries.len() > CACHE_ENTRIES {
            let frame = self.frame;
            self.entries.retain(|_, c| c.used == frame);
            self.entries.shrink_to(CACHE_ENTRIES);
        }
        self.frame += 1;
    }

    pub(crate) fn streaming(
        &mut self,
        s: &Streaming,
        rev: u64,
        width: u16,
        thinking: bool,
        theme: &Theme,
    ) -> Lines {
        self.set_width(width);
        if let Some((r, t, lines)) = &self.streaming
            && *r == rev
            && *t == thinking
        {
            return lines.clone();
        }
        let lines: Lines = Rc::new(streaming_lines(s, width, thinking, theme));
        self.streaming = Some((rev, thinking, lines.clone()));
        lines
    }

    /// Entries currently laid out (a screenful plus what scrolled by).
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn set_width(&mut self, width: u16) {
        if width != self.width {
            self.width = width;
            self.entries.clear();
            self.streaming = None;
        }
    }

    /// Before a frame: lines styled with another theme are laid out again.
    pub(crate) fn set_theme(&mut self, theme: &Theme) {
        if self.theme.as_ref() != Some(theme) {
            self.theme = Some(theme.clone());
            self.entries.clear();
            self.streaming = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::transcript::EntryKind;
    use crate::ui::theme::Depth;

    #[test]
    fn a_theme_switched_live_styles_every_kept_line_again() {
        let entry = Entry {
            id: 1,
            rev: 0,
            created_at: None,
            kind: EntryKind::Agent {
                text: "a `code` span".into(),
            },
        };
        let colours = |lines: &Lines| -> Vec<Option<ratatui::style::Color>> {
            lines
                .iter()
                .flat_map(|l| l.spans.iter().map(|s| s.style.fg))
                .collect()
        };
        let (dark, light) = (Theme::default(), Theme::light(Depth::Indexed256));
        let mut cache = LineCache::default();
        cache.set_theme(&dark);
        let before = colours(&cache.lines(&entry, 40, false, &dark));
        cache.set_theme(&dark);
        assert!(Rc::ptr_eq(
            &cache.lines(&entry, 40, false, &dark),
            &cache.lines(&entry, 40, false, &dark)
        ));
        cache.set_theme(&light);
        let after = colours(&cache.lines(&entry, 40, false, &light));
        assert_ne!(before, after, "the lines kept the old theme's colours");
    }
}
