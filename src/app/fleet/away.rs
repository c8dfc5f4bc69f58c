//! The fleet's "while you were away": when the fleet opens and was last seen before (a
//! restart), or focus comes back after `[away] unfocused_minutes`, every session that moved
//! since is digested off the loop ([`crate::away::gather`]) and shown at the top of the
//! fleet until Esc. When the fleet was last seen is written when it is left.

use std::time::Instant;

use crate::away::config::AwaySettings;
use crate::away::digest::Digest;
use crate::away::gather::{Gathered, gather};
use crate::store::StateStore;
use crate::ui::theme::Theme;
use gobare_api::client::ApiClient;
use gobare_api::error::ApiError;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// The fleet's digest, from the mark to on screen.
#[derive(Debug)]
pub(crate) struct FleetAway {
    settings: AwaySettings,
    store: Option<StateStore>,
    /// The absence to digest, from (Unix ms): the last visit until gathered.
    since: Option<i64>,
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
            .then(|| store.as_ref().and_then(StateStore::fleet_seen))
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

    /// The digest of the absence to run off the loop, if one is due (once per absence):
    /// it gives back the absence's start and what was gathered.
    pub(crate) fn start(
        &mut self,
        client: &ApiClient,
    ) -> Option<impl Future<Output = (i64, Result<Gathered, ApiError>)> + Send + 'static> {
        let since_ms = self.since.take()?;
        let (client, store) = (
            client.with_class(gobare_api::schedule::RequestClass::Background),
            self.store.clone(),
        );
        Some(async move {
            let now_ms = gobare_api::clock::unix_ms();
            (
                since_ms,
                gather(&client, store.as_ref(), since_ms, now_ms, None).await,
            )
        })
    }

    /// The digest came back: shown when something happened.
    pub(crate) fn gathered(&mut self, since_ms: i64, result: Result<Gathered, ApiError>) {
        match result {
            Ok(gathered) => {
                let digests: Vec<Digest> = gathered
                    .digests
                    .into_iter()
                    .filter(|d| d.has_news())
                    .collect();
                if !digests.is_empty() {
                    let away_ms = gobare_api::clock::unix_ms() - since_ms;
                    self.shown = Some((digests, away_ms));
                    self.scroll = 0;
                }
            }
            Err(e) => tracing::warn!(error = %e, "the fleet's digest could not be read"),
        }
    }

    /// Focus left or came back; `true` when a digest is now due ([`FleetAway::start`]).
    pub(crate) fn focus(&mut self, focused: bool, now: Instant) -> bool {
        let Some(after_ms) = self.settings.unfocused_ms() else {
            return false;
        };
        if !focused {
            self.unfocused
                .get_or_insert((now, gobare_api::clock::unix_ms()));
            return false;
        }
        let Some((at, at_ms)) = self.unfocused.take() else {
            return false;
        };
        if now.saturating_duration_since(at).as_millis() as i64 >= after_ms {
            self.since = Some(at_ms);
            return true;
        }
        false
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

    /// The fleet is left (a session opened, or the app quit): seen now.
    pub(crate) fn seen(&self) {
        if let Some(store) = &self.store
            && let Err(e) = store.set_fleet_seen(gobare_api::clock::unix_ms())
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
