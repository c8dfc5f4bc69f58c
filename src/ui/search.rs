//! The search's view state and looks: the query, the hits found so far (they stream in,
//! newest first), which one is current, the search bar in the footer and the highlight of
//! matches in pane lines. `type:NAME` is the Events pane's type filter, as a search.

use super::theme::Theme;
use crate::search::Hit;
use crate::search::fold::{find_folded, folded};
use gobare_api::text;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};
use std::collections::VecDeque;

/// The prefix that makes a query the Events pane's type filter.
pub(crate) const TYPE_PREFIX: &str = "type:";
/// The longest query kept.
pub(crate) const QUERY_MAX_CHARS: usize = 64;

/// What the search is: the query, its hits and the current one.
#[derive(Debug, Default)]
pub(crate) struct SearchView {
    query: String,
    /// The query folded, for the highlighter (empty: nothing to highlight).
    needle: String,
    /// Oldest first, one per seq.
    hits: VecDeque<Hit>,
    /// Events rows whose type matches, counted in with the first batch of text hits (so
    /// the newest match of either kind becomes current).
    type_hits: Vec<Hit>,
    /// Index into `hits`.
    current: Option<usize>,
    /// The query has read the whole index.
    done: bool,
    /// Bumped by every new query; hits of an older one are dropped.
    generation: u64,
    /// The index had dropped its oldest events when the query started (past its bound).
    pub(crate) oldest_not_kept: bool,
    /// The query before the one typed now, for ↑ in an empty search bar.
    previous: String,
}

/// What a typed query means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum QueryKind {
    /// Search the session's text.
    Text(String),
    /// The Events pane's type filter.
    Type(String),
}

/// `type:NAME` is the type filter, anything else is text.
pub(crate) fn kind_of(query: &str) -> QueryKind {
    match query.strip_prefix(TYPE_PREFIX) {
        Some(name) => QueryKind::Type(name.trim().to_string()),
        None => QueryKind::Text(query.to_string()),
    }
}

impl SearchView {
    pub(crate) fn query(&self) -> &str {
        &self.query
    }

    /// The folded text to highlight (empty: none).
    pub(crate) fn needle(&self) -> &str {
        &self.needle
    }

    /// A new text query: the hits so far are dropped. Returns its generation.
    pub(crate) fn start(&mut self, query: &str) -> u64 {
        self.query = query.to_string();
        self.needle = match kind_of(query) {
            QueryKind::Text(t) => folded(&t),
            QueryKind::Type(_) => String::new(),
        };
        self.hits.clear();
        self.type_hits.clear();
        self.current = None;
        self.done = self.needle.is_empty();
        self.generation += 1;
        self.generation
    }

    /// Ends the search: no query, no highlight (the query is kept to recall).
    pub(crate) fn end(&mut self) {
        self.keep_previous();
        self.start("");
    }

    /// `/`: a new, empty query; the one before is kept to recall. Returns its generation.
    pub(crate) fn start_empty(&mut self) -> u64 {
        self.keep_previous();
        self.start("")
    }

    /// The query to recall with ↑ in the empty search bar (empty: none).
    pub(crate) fn previous(&self) -> &str {
        &self.previous
    }

    fn keep_previous(&mut self) {
        if !self.query.is_empty() {
            self.previous = std::mem::take(&mut self.query);
        }
    }

    /// A search is shown (hits highlighted, `n`/`N` step through them).
    pub(crate) fn is_active(&self) -> bool {
        !self.needle.is_empty()
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// The Events rows whose type holds the query (oldest first, no entry), for `n`/`N`
    /// and the count while the Events pane has the keys. Counted in with the next batch.
    pub(crate) fn include_type_hits(&mut self, generation: u64, hits: Vec<Hit>) {
        if generation == self.generation {
            self.type_hits = hits;
        }
    }

    /// Hits of query `generation` (text batches come newest first, each oldest first).
    /// Returns the hit to show when this batch made the first one current.
    pub(crate) fn add(&mut self, generation: u64, batch: Vec<Hit>, done: bool) -> Option<Hit> {
        if generation != self.generation {
            return None;
        }
        self.done |= done;
        let current_seq = self.current_hit().map(|h| h.seq);
        let type_hits = std::mem::take(&mut self.type_hits);
        let older_than_all = |batch: &[Hit]| {
            batch
                .last()
                .zip(self.hits.front())
                .is_none_or(|(last, first)| last.seq < first.seq)
        };
        if type_hits.is_empty() && older_than_all(&batch) {
            // The common case: older than every hit so far.
            for hit in batch.into_iter().rev() {
                self.hits.push_front(hit);
            }
        } else {
            self.merge(batch);
            self.merge(type_hits);
        }
        match current_seq {
            Some(seq) => {
                self.current = self.hits.binary_search_by_key(&seq, |h| h.seq).ok();
                None
            }
            None if !self.hits.is_empty() => {
                // The newest match: the nearest to where a reader usually is.
                self.current = Some(self.hits.len() - 1);
                self.current_hit()
            }
            None => None,
        }
    }

    /// Merges `more` (oldest first) into the hits by seq; a hit with an entry wins over a
    /// type hit of the same event.
    fn merge(&mut self, more: Vec<Hit>) {
        if more.is_empty() {
            return;
        }
        let old = std::mem::take(&mut self.hits);
        let mut merged = VecDeque::with_capacity(old.len() + more.len());
        let (mut a, mut b) = (old.into_iter().peekable(), more.into_iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.seq == y.seq => {
                    let (x, y) = (a.next(), b.next());
                    x.filter(|x| x.entry.is_some()).or(y)
                }
                (Some(x), Some(y)) if x.seq < y.seq => a.next(),
                (Some(_), Some(_)) | (None, _) => b.next(),
                (Some(_), None) => a.next(),
            };
            match next {
                Some(hit) => merged.push_back(hit),
                None => break,
            }
        }
        self.hits = merged;
    }

    /// Moves to the next older (`older`) or newer hit, wrapping around; returns it.
    pub(crate) fn step(&mut self, older: bool) -> Option<Hit> {
        let n = self.hits.len();
        let i = self.current?;
        self.current = Some(if older { (i + n - 1) % n } else { (i + 1) % n });
        self.current_hit()
    }

    pub(crate) fn current_hit(&self) -> Option<Hit> {
        self.hits.get(self.current?).copied()
    }

    /// "3/17": the current hit counted from the newest, and how many there are.
    pub(crate) fn count(&self) -> String {
        let n = self.hits.len();
        let more = if self.done { "" } else { "+" };
        match self.current {
            Some(i) => format!("{}/{n}{more}", n - i),
            None if self.done => "no match".to_string(),
            None => "searching…".to_string(),
        }
    }
}

/// The search bar over the footer while the query is typed. `evicted` is the seq of the
/// current hit when its entry is no longer in memory.
pub(crate) fn draw_bar(
    area: Rect,
    buf: &mut Buffer,
    search: &SearchView,
    evicted: Option<u64>,
    theme: &Theme,
) {
    let query = search.query();
    let mut spans = vec![
        Span::styled("search: ", theme.title),
        Span::styled(format!("{}▏", text::line(query)), theme.text),
    ];
    match kind_of(query) {
        QueryKind::Type(_) => {
            spans.push(Span::styled("  Events filtered by type", theme.dim));
        }
        QueryKind::Text(t) if t.is_empty() => {
            if !search.previous().is_empty() {
                spans.push(Span::styled(
                    format!("  ↑ {}", text::one_line(search.previous(), 24)),
                    theme.dim,
                ));
            }
            spans.push(Span::styled(
                "  type:NAME filters Events by type",
                theme.dim,
            ));
        }
        QueryKind::Text(_) => {
            spans.push(Span::styled(format!("  {}", search.count()), theme.accent));
            if let Some(seq) = evicted {
                spans.push(Span::styled(
                    format!(" · not in memory (event {seq})"),
                    theme.warning,
                ));
            }
            if search.oldest_not_kept {
                spans.push(Span::styled(
                    " · the oldest events are not searched",
                    theme.dim,
                ));
            }
        }
    }
    spans.push(Span::styled(
        "  Enter keep · ↑↓ newer/older · Esc end",
        theme.dim,
    ));
    Clear.render(area, buf);
    Paragraph::new(Line::from(spans)).render(area, buf);
}

/// The summary at the right of the status bar while a kept search is active.
pub(crate) fn summary(search: &SearchView, evicted: Option<u64>) -> String {
    let mut s = format!(
        "/{} {} · n older · N newer",
        text::one_line(search.query(), 24),
        search.count()
    );
    if let Some(seq) = evicted {
        s.push_str(&format!(" · not in memory (event {seq})"));
    }
    s
}

/// `line` with every occurrence of the folded `needle` in its spans restyled with `style`
/// patched over the span's own (a match across two spans is not marked).
pub(crate) fn highlight(line: Line<'static>, needle: &str, style: Style) -> Line<'static> {
    if needle.is_empty() {
        return line;
    }
    let found: Vec<_> = line
        .spans
        .iter()
        .map(|s| find_folded(&s.content, needle))
        .collect();
    if found.iter().all(Vec::is_empty) {
        return line;
    }
    let mut spans = Vec::with_capacity(line.spans.len() + 2);
    for (span, ranges) in line.spans.into_iter().zip(found) {
        if ranges.is_empty() {
            spans.push(span);
            continue;
        }
        let content = span.content.as_ref();
        let mut at = 0;
        for r in ranges {
            if r.start > at {
                spans.push(Span::styled(content[at..r.start].to_string(), span.style));
            }
            spans.push(Span::styled(
                content[r.clone()].to_string(),
                span.style.patch(style),
            ));
            at = r.end;
        }
        if at < content.len() {
            spans.push(Span::styled(content[at..].to_string(), span.style));
        }
    }
    Line {
        spans,
        style: line.style,
        alignment: line.alignment,
    }
}

#[cfg(test)]
mod tests {
    /// Search as it shows on the screen (snapshots).
    mod on_screen;
    use super::*;
    use ratatui::style::Modifier;

    fn hit(seq: u64) -> Hit {
        Hit {
            seq,
            entry: Some(seq),
        }
    }

    #[test]
    fn hits_stream_in_newest_first_and_the_newest_becomes_current() {
        let mut s = SearchView::default();
        let g = s.start("api");
        assert_eq!(s.count(), "searching…");
        assert_eq!(s.add(g, vec![hit(8), hit(9)], false), Some(hit(9)));
        assert_eq!(s.count(), "1/2+");
        assert_eq!(s.add(g, vec![hit(1), hit(2), hit(3)], true), None);
        assert_eq!(s.count(), "1/5");
        assert_eq!(s.step(true), Some(hit(8)));
        assert_eq!(s.count(), "2/5");
        assert_eq!(s.step(false), Some(hit(9)));
        assert_eq!(s.step(false), Some(hit(1)), "wraps to the oldest");
    }

    fn type_hit(seq: u64) -> Hit {
        Hit { seq, entry: None }
    }

    #[test]
    fn type_hits_are_stepped_and_counted_with_the_text_hits() {
        let mut s = SearchView::default();
        let g = s.start("tool");
        s.include_type_hits(g, vec![type_hit(7), type_hit(9), type_hit(12)]);
        assert_eq!(s.count(), "searching…", "counted in with the first batch");
        // The newest chunk: text hits around and on the type hits (9 shows in an entry).
        assert_eq!(s.add(g, vec![hit(9), hit(10)], false), Some(type_hit(12)));
        assert_eq!(s.count(), "1/4+");
        assert_eq!(s.step(true), Some(hit(10)));
        // An older chunk: the current hit stays current as the list grows below it.
        assert_eq!(s.add(g, vec![hit(2)], true), None);
        assert_eq!(s.count(), "2/5");
        let seqs: Vec<(u64, bool)> = (0..5)
            .map(|_| s.step(true).map(|h| (h.seq, h.entry.is_some())).unwrap())
            .collect();
        assert_eq!(
            seqs,
            [(9, true), (7, false), (2, true), (12, false), (10, true)],
            "one hit per event, the entry's kept, older to newer wrapping"
        );
    }

    #[test]
    fn type_hits_alone_are_found_and_dropped_by_a_new_query() {
        let mut s = SearchView::default();
        let g = s.start("turn");
        s.include_type_hits(g, vec![type_hit(1), type_hit(5)]);
        assert_eq!(s.add(g, vec![], true), Some(type_hit(5)));
        assert_eq!(s.count(), "1/2");
        let g = s.start("turn.");
        s.include_type_hits(g - 1, vec![type_hit(3)]);
        s.add(g, vec![], true);
        assert_eq!(s.count(), "no match");
    }

    #[test]
    fn a_new_empty_query_keeps_the_one_before_to_recall() {
        let mut s = SearchView::default();
        s.start("needle");
        s.start_empty();
        assert_eq!(
            s.query(),
            "",
            "`/` opens empty, not the kept query to append to"
        );
        assert!(!s.is_active());
        assert_eq!(s.previous(), "needle");
        // Opening again, or ending, with nothing typed keeps what there was to recall.
        s.start_empty();
        s.end();
        assert_eq!(s.previous(), "needle");
        s.start("type:approval");
        s.end();
        assert_eq!(s.previous(), "type:approval");
    }

    #[test]
    fn a_stale_querys_hits_are_dropped() {
        let mut s = SearchView::default();
        let old = s.start("ap");
        let new = s.start("api");
        assert_eq!(s.add(old, vec![hit(1)], true), None);
        assert_eq!(s.count(), "searching…");
        s.add(new, vec![], true);
        assert_eq!(s.count(), "no match");
    }

    #[test]
    fn a_type_query_is_the_filter_and_highlights_nothing() {
        assert_eq!(kind_of("type:agent"), QueryKind::Type("agent".into()));
        assert_eq!(kind_of("agent"), QueryKind::Text("agent".into()));
        let mut s = SearchView::default();
        s.start("type:tool");
        assert!(!s.is_active());
        s.start("Tool");
        assert!(s.is_active());
        assert_eq!(s.needle(), "tool");
    }

    #[test]
    fn matches_are_restyled_inside_spans() {
        let mark = Style::default().add_modifier(Modifier::REVERSED);
        let line = Line::from(vec![
            Span::raw("Run the API "),
            Span::styled("api tests", Style::default().add_modifier(Modifier::BOLD)),
        ]);
        let out = highlight(line, "api", mark);
        let parts: Vec<(&str, bool)> = out
            .spans
            .iter()
            .map(|s| {
                (
                    s.content.as_ref(),
                    s.style.add_modifier.contains(Modifier::REVERSED),
                )
            })
            .collect();
        assert_eq!(
            parts,
            vec![
                ("Run the ", false),
                ("API", true),
                (" ", false),
                ("api", true),
                (" tests", false)
            ]
        );
        assert!(out.spans[3].style.add_modifier.contains(Modifier::BOLD));
    }
}
