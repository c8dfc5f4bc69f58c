//! The fleet's "while you were away": when the fleet opens and was last seen before (a
//! restart), or focus comes back after `[away] unfocused_minutes`, what moved since is
//! shown at the top of the fleet until Esc, built from what the fleet reads anyway
//! ([`crate::away::fleet_record`]): the org stream while focus was away, or replayed from
//! the cursor kept when the fleet was last seen. When it was last seen, and the stream's
//! cursor then, are written when it is left.

use std::time::Instant;

use super::absence_replay::Replay;
use crate::away::config::AwaySettings;
use crate::away::digest::Digest;
use crate::store::StateStore;
use crate::ui::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// What the fleet does with the absence it keeps, as focus goes and comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Absence {
    Nothing,
    /// Focus left at this time (Unix ms): keep what the stream brings from now.
    Keep(i64),
    /// Back after long enough: show what was kept since this time.
    Show(i64),
    /// Back too soon to say anything: forget it.
    Drop,
}

/// The fleet's digest, from the mark to on screen.
#[derive(Debug)]
pub(crate) struct FleetAway {
    settings: AwaySettings,
    store: Option<StateStore>,
    /// The absence to digest: the last visit (Unix ms) and the org stream's cursor then,
    /// until replayed.
    since: Option<(i64, Option<u64>)>,
    /// Focus left at (monotonic, wall).
    unfocused: Option<(Instant, i64)>,
    shown: Option<(Vec<Digest>, i64)>,
    /// Lines of the shown digest scrolled past.
    scroll: usize,
}

impl FleetAway {
    /// The last visit, from the store (none: the fleet is new here, nothing to say).
    pub(crate) fn new(store: Option<StateStore>, settings: &AwaySettings) -> FleetAway {
        let since = settings
            .digest
            .then(|| store.as_ref().and_then(StateStore::fleet_seen_with_cursor))
            .flatten();
        FleetAway {
            settings: settings.clone(),
            store,
            since,
            unfocused: None,
            shown: None,
            scroll: 0,
        }
    }

    /// The absence since the last visit, once: where its replay starts and ends (`None`
    /// without a cursor kept: then the sessions that moved are read one by one).
    pub(crate) fn start(&mut self) -> Option<(i64, Option<Replay>)> {
        let (since_ms, cursor) = self.since.take()?;
        let replay = cursor.map(|cursor| Replay {
            since_ms,
            cursor,
            until_ms: gobare_api::clock::unix_ms(),
            visits: self.store.clone(),
        });
        Some((since_ms, replay))
    }

    /// Where the app keeps its state (the local logs a digest may read).
    pub(crate) fn store(&self) -> Option<StateStore> {
        self.store.clone()
    }

    /// The digests of the absence since `since_ms`: shown when something happened.
    pub(crate) fn show(&mut self, since_ms: i64, digests: Vec<Digest>) {
        let digests: Vec<Digest> = digests.into_iter().filter(|d| d.has_news()).collect();
        if !digests.is_empty() {
            let away_ms = gobare_api::clock::unix_ms() - since_ms;
            self.shown = Some((digests, away_ms));
            self.scroll = 0;
        }
    }

    /// Focus left or came back: what to do with the absence the fleet keeps.
    pub(crate) fn focus(&mut self, focused: bool, now: Instant) -> Absence {
        let Some(after_ms) = self.settings.unfocused_ms() else {
            return Absence::Nothing;
        };
        if !focused {
            if self.unfocused.is_some() {
                return Absence::Nothing;
            }
            let at_ms = gobare_api::clock::unix_ms();
            self.unfocused = Some((now, at_ms));
            return Absence::Keep(at_ms);
        }
        let Some((at, at_ms)) = self.unfocused.take() else {
            return Absence::Nothing;
        };
        if now.saturating_duration_since(at).as_millis() as i64 >= after_ms {
            Absence::Show(at_ms)
        } else {
            Absence::Drop
        }
    }

    /// Esc: the digest goes, if one is shown.
    pub(crate) fn dismiss(&mut self) -> bool {
        self.shown.take().is_some()
    }

    /// PgUp/PgDn while a digest longer than its box is shown (its title says so): scrolled
    /// by a box's worth; `false` when there is nothing to scroll (the list has the key).
    pub(crate) fn scroll(&mut self, area: Rect, down: bool) -> bool {
        let Some((digests, _)) = &self.shown else {
            return false;
        };
        let room = crate::ui::away_banner::scroll_room(area, digests, true);
        if room == 0 {
            return false;
        }
        let page = usize::from(self.height(area).saturating_sub(3)).max(1);
        self.scroll = if down {
            (self.scroll + page).min(room)
        } else {
            self.scroll.saturating_sub(page)
        };
        true
    }

    /// The fleet is left (a session opened, or the app quit): seen now, its org stream
    /// at `cursor`.
    pub(crate) fn seen(&self, cursor: Option<u64>) {
        if let Some(store) = &self.store
            && let Err(e) = store.set_fleet_seen(gobare_api::clock::unix_ms(), cursor)
        {
            tracing::warn!(error = %e, "cannot remember when the fleet was seen");
        }
    }

    /// The rows the digest takes at the top of `area` (the fleet is drawn below them).
    pub(crate) fn height(&self, area: Rect) -> u16 {
        self.shown.as_ref().map_or(0, |(digests, _)| {
            crate::ui::away_banner::height(area, digests, true)
        })
    }

    /// Draws the digest at the top of `area`, when one is shown.
    pub(crate) fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if let Some((digests, away_ms)) = &self.shown {
            crate::ui::away_banner::render(area, buf, digests, true, *away_ms, self.scroll, theme);
        }
    }
}
