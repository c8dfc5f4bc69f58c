//! Walking a list page by page (`?after=<last_id>` while `has_more`, §3) without trusting
//! the server to end it: a cursor sent before, more pages or more entries than the caller
//! can use, each stop the walk and say so. Every list read in full goes through here.
//!
//! [`Pager`] is the decision alone (no IO); [`read_all`] runs it over a fetch function.

use crate::client::Page;
use crate::error::ApiError;
use crate::model::List;
use crate::unreadable::Unreadable;
use std::collections::HashSet;
use std::fmt;

/// How far one walk through a list may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLimits {
    /// Pages read at most.
    pub pages: usize,
    /// Entries kept at most.
    pub items: usize,
}

/// Why a walk stopped while the server still said there was more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutReason {
    /// The server sent a cursor it had sent before: following it would loop.
    RepeatedCursor,
    /// [`PageLimits::pages`] pages were read.
    PageLimit,
    /// [`PageLimits::items`] entries were kept.
    ItemLimit,
}

/// A walk that stopped before the end the server promised: why, and how much it had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    /// Why it stopped.
    pub reason: CutReason,
    /// Pages read.
    pub pages: usize,
    /// Entries kept.
    pub items: usize,
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.reason {
            CutReason::RepeatedCursor => "the server sent a page cursor it had sent before",
            CutReason::PageLimit => "that is the most pages read of one list",
            CutReason::ItemLimit => "that is the most entries kept of one list",
        };
        write!(
            f,
            "the list was cut at {} entries after {} pages ({why})",
            self.items, self.pages
        )
    }
}

/// What to do after a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Ask for the page after this cursor.
    Next(String),
    /// The list ended.
    Done,
    /// Stop here, though the server said there was more.
    Cut(Cut),
}

/// The decision of a walk through one list: fed each page's facts, says whether to go on.
#[derive(Debug)]
pub struct Pager {
    limits: PageLimits,
    seen: HashSet<String>,
    pages: usize,
    items: usize,
}

impl Pager {
    /// A walk that has read nothing yet.
    pub fn new(limits: PageLimits) -> Pager {
        Pager {
            limits,
            seen: HashSet::new(),
            pages: 0,
            items: 0,
        }
    }

    /// How many of a page's `count` entries may be kept (the rest are over the limit).
    pub fn room(&self, count: usize) -> usize {
        count.min(self.limits.items.saturating_sub(self.items))
    }

    /// After a page of `count` entries (already limited by [`Pager::room`]) that said
    /// `has_more` and continues after `cursor`: where to go next.
    pub fn step(&mut self, count: usize, has_more: bool, cursor: Option<&str>) -> Step {
        self.pages += 1;
        self.items += count;
        let Some(cursor) = cursor.filter(|_| has_more) else {
            return Step::Done;
        };
        let reason = if self.items >= self.limits.items {
            CutReason::ItemLimit
        } else if !self.seen.insert(cursor.to_string()) {
            CutReason::RepeatedCursor
        } else if self.pages >= self.limits.pages {
            CutReason::PageLimit
        } else {
            return Step::Next(cursor.to_string());
        };
        Step::Cut(Cut {
            reason,
            pages: self.pages,
            items: self.items,
        })
    }
}

/// Every entry of a list, or as many as the limits allowed and why it stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed<T> {
    /// The entries read, in the list's order.
    pub items: Vec<T>,
    /// `Some` when the walk stopped before the server's end.
    pub cut: Option<Cut>,
    /// Entries left out because they could not be read (a page read entry by entry).
    pub unreadable: Vec<Unreadable>,
}

/// How a walk through a list ended.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Walked {
    /// `Some` when the walk stopped before the server's end.
    pub cut: Option<Cut>,
    /// Entries the pages left out because they could not be read.
    pub unreadable: Vec<Unreadable>,
}

/// Reads `first` and the pages after it through `fetch`, as [`Pager`] decides. A page
/// without `last_id` continues after its last entry's id (`id_of`).
pub async fn read_all<T, F, Fut>(
    first: Page,
    limits: PageLimits,
    id_of: fn(&T) -> &str,
    fetch: F,
) -> Result<Listed<T>, ApiError>
where
    F: FnMut(Page) -> Fut,
    Fut: Future<Output = Result<List<T>, ApiError>>,
{
    let mut items = Vec::new();
    let take = |page| {
        items.extend(page);
        true
    };
    let Walked { cut, unreadable } = read_each(first, limits, id_of, fetch, take).await?;
    Ok(Listed {
        items,
        cut,
        unreadable,
    })
}

/// [`read_all`], handing each page's entries to `take` as it arrives (a reader that
/// needs the first pages before the last one is read); `take` returns whether to go on
/// (a reader that has what it needs stops there, as at the list's end). Says whether the
/// walk was cut and what the pages left out.
pub async fn read_each<T, F, Fut>(
    first: Page,
    limits: PageLimits,
    id_of: fn(&T) -> &str,
    mut fetch: F,
    mut take: impl FnMut(Vec<T>) -> bool,
) -> Result<Walked, ApiError>
where
    F: FnMut(Page) -> Fut,
    Fut: Future<Output = Result<List<T>, ApiError>>,
{
    let mut pager = Pager::new(limits);
    let mut page = first;
    let mut walked = Walked::default();
    loop {
        let mut list = fetch(page.clone()).await?;
        walked.unreadable.append(&mut list.unreadable);
        list.data.truncate(pager.room(list.data.len()));
        let cursor = list
            .last_id
            .take()
            .or_else(|| list.data.last().map(|e| id_of(e).to_string()));
        let count = list.data.len();
        if !take(list.data) {
            return Ok(walked);
        }
        match pager.step(count, list.has_more, cursor.as_deref()) {
            Step::Next(cursor) => page = page.after(cursor),
            Step::Done => return Ok(walked),
            Step::Cut(cut) => {
                tracing::warn!(%cut, "stopped reading a list");
                walked.cut = Some(cut);
                return Ok(walked);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: PageLimits = PageLimits {
        pages: 5,
        items: 1_000,
    };

    fn cut(reason: CutReason, pages: usize, items: usize) -> Step {
        Step::Cut(Cut {
            reason,
            pages,
            items,
        })
    }

    #[test]
    fn a_list_ends_when_the_server_says_so_or_gives_no_cursor() {
        let mut pager = Pager::new(LIMITS);
        assert_eq!(pager.step(10, true, Some("a")), Step::Next("a".into()));
        assert_eq!(pager.step(10, false, Some("b")), Step::Done);
        assert_eq!(Pager::new(LIMITS).step(0, true, None), Step::Done);
    }

    #[test]
    fn the_same_cursor_again_stops_the_walk() {
        let mut pager = Pager::new(LIMITS);
        assert_eq!(pager.step(1, true, Some("a")), Step::Next("a".into()));
        assert_eq!(
            pager.step(1, true, Some("a")),
            cut(CutReason::RepeatedCursor, 2, 2)
        );
    }

    #[test]
    fn two_cursors_in_a_cycle_stop_the_walk() {
        let mut pager = Pager::new(LIMITS);
        assert_eq!(pager.step(1, true, Some("a")), Step::Next("a".into()));
        assert_eq!(pager.step(1, true, Some("b")), Step::Next("b".into()));
        assert_eq!(
            pager.step(1, true, Some("a")),
            cut(CutReason::RepeatedCursor, 3, 3)
        );
    }

    #[test]
    fn a_new_cursor_every_time_stops_at_the_page_limit() {
        let mut pager = Pager::new(LIMITS);
        for n in 1..LIMITS.pages {
            assert_eq!(
                pager.step(0, true, Some(&n.to_string())),
                Step::Next(n.to_string())
            );
        }
        assert_eq!(
            pager.step(0, true, Some("last")),
            cut(CutReason::PageLimit, LIMITS.pages, 0)
        );
    }

    #[test]
    fn entries_beyond_the_item_limit_are_not_kept() {
        let mut pager = Pager::new(LIMITS);
        assert_eq!(pager.room(600), 600);
        assert_eq!(pager.step(600, true, Some("a")), Step::Next("a".into()));
        assert_eq!(pager.room(600), 400);
        assert_eq!(
            pager.step(400, true, Some("b")),
            cut(CutReason::ItemLimit, 2, 1_000)
        );
        // The last page may end the list exactly at the limit.
        let mut pager = Pager::new(LIMITS);
        assert_eq!(pager.step(1_000, false, Some("a")), Step::Done);
    }

    #[test]
    fn a_cut_says_why_and_how_much_was_read() {
        let cut = Cut {
            reason: CutReason::RepeatedCursor,
            pages: 3,
            items: 250,
        };
        assert_eq!(
            cut.to_string(),
            "the list was cut at 250 entries after 3 pages \
             (the server sent a page cursor it had sent before)"
        );
    }
}
