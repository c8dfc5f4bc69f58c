//! The root of the screen: it owns every pane and widget with its view state (focus, zoom,
//! scroll, the input box, the prompt, the mode), decides where they go and draws the whole
//! frame, status bar and overlays included. The app changes it through methods and draws
//! it in one call.

use super::component::{Ctx, PaneComponent};
use super::composer::Composer;
use super::events::EventsPane;
use super::layout::{self, Areas, LayoutSpec};
use super::overlays::Overlay;
use super::pane::Pane;
use super::prompt::PromptState;
use super::search::{self, SearchView};
use super::text::hyperlink::{self, Link};
use super::theme::Theme;
use super::transcript::TranscriptPane;
use super::turn::TurnPane;
use super::workspace::WorkspacePane;
use super::{confirm, footer, help};
use crate::keys::mode::{Confirm, Mode, Modes};
use crate::session::Session;
use gobare_api::text;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

mod selection;

/// Rows always left to the panes, however tall the input area wants to be.
const MIN_PANE_ROWS: u16 = 6;

#[derive(Default)]
pub struct Screen {
    /// The pane that scroll keys move (highlighted while navigating).
    focus: Pane,
    /// The focused pane fills the screen.
    zoomed: bool,
    pub(crate) transcript: TranscriptPane,
    pub(crate) events: EventsPane,
    turn: TurnPane,
    workspace: WorkspacePane,
    pub(crate) composer: Composer,
    pub(crate) prompt: PromptState,
    /// Where keys go; the screen always shows it (see [`Mode`]).
    pub(crate) modes: Modes,
    /// The input box's title: the mode and its keys, drawn from the key table by the app.
    mode_title: String,
    /// The status bar's word on where keys go, and whether it is the panes' (drawn loud).
    status_hint: (String, bool),
    /// The key list's rows (keys, what they do), from the key table.
    help_rows: Vec<(String, String)>,
    /// Rows of the key list scrolled past.
    pub(crate) help_scroll: u16,
    /// The search: its query, hits and the current one (drawn as highlights and a bar).
    pub(crate) search: SearchView,
    /// The overlay open over the panes, if any (it has the keys: [`Mode::Overlay`]).
    overlay: Option<Box<dyn Overlay>>,
    /// Kept while the overlay is open and dropped with it: the handles of the jobs that
    /// fill it, so they end when it closes.
    overlay_jobs: Vec<Box<dyn std::any::Any + Send>>,
    /// Where things were at the last draw (mouse hit tests, page sizes).
    last_areas: Option<Areas>,
    /// Web links drawn in the transcript and workspace panes at the last draw.
    links: Vec<Link>,
}

impl Screen {
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks `confirm` in the input area; the answer comes back to the mode it was asked
    /// from (see [`Screen::answered`]).
    pub(crate) fn ask(&mut self, confirm: Confirm) {
        self.modes.ask(confirm);
    }

    /// Where keys go now.
    pub(crate) fn mode(&self) -> &Mode {
        self.modes.current()
    }

    /// The input box's title for the next frames.
    pub(crate) fn set_mode_title(&mut self, title: String) {
        self.mode_title = title;
    }

    /// The last frame showed a relative time ("3m ago"), which a clock's minute changes.
    /// What the prompt shows depends on: the mode, the clock, the box's text.
    pub(crate) fn prepare_prompt(&mut self, view: &Session) {
        self.prompt.set_focused(*self.mode() == Mode::Deciding);
        self.prompt.set_now(view.now_ms());
        self.prompt.set_workspace(
            *view.workspace().clock(),
            crate::deadline::workspace_lifetime_ms(),
        );
        self.prompt.set_with_note(!self.composer.is_empty());
        // The panel must not say "Tab to decide" above the question deciding it.
        self.prompt.set_confirming(matches!(
            self.mode(),
            Mode::Confirming(Confirm::ApproveSensitive { .. })
        ));
        // Where the request is cut, the mark names the key that shows it whole here.
        let whole = match self.mode() {
            Mode::Confirming(confirm) if !confirm.is_of_a_decision() => None,
            mode => crate::keys::table::whole_request_hint(crate::keys::scope_of(mode)),
        };
        self.prompt.set_whole_with(whole);
    }

    /// The input box's title: the mode and its keys.
    pub(crate) fn mode_title(&self) -> &str {
        &self.mode_title
    }

    pub(crate) fn shows_relative_times(&self) -> bool {
        self.transcript.drew_relative_time
    }

    /// The status bar's word on where keys go.
    pub(crate) fn set_status_hint(&mut self, hint: String, panes: bool) {
        self.status_hint = (hint, panes);
    }

    /// The key list's rows.
    pub(crate) fn set_help_rows(&mut self, rows: Vec<(String, String)>) {
        self.help_rows = rows;
    }

    pub(crate) fn help_rows(&self) -> &[(String, String)] {
        &self.help_rows
    }

    /// The confirmation shown, taken away: keys go back where they were before it.
    pub(crate) fn answered(&mut self) -> Option<Confirm> {
        self.modes.answered()
    }

    /// Opens `overlay` over the panes with the keys; closing it goes back to the mode it
    /// was opened from. An open overlay is replaced.
    pub(crate) fn open_overlay(&mut self, overlay: Box<dyn Overlay>) {
        self.modes.open_overlay();
        self.overlay = Some(overlay);
        self.overlay_jobs.clear();
    }

    /// Keeps `job` (a handle that ends a job when dropped) until the open overlay closes
    /// or is replaced; with no overlay open it is dropped now.
    pub(crate) fn tie_to_overlay(&mut self, job: Box<dyn std::any::Any + Send>) {
        if self.overlay.is_some() {
            self.overlay_jobs.push(job);
        }
    }

    /// Closes the overlay; keys go back where they were before it opened.
    pub(crate) fn close_overlay(&mut self) {
        self.overlay_jobs.clear();
        if self.overlay.take().is_some() {
            self.modes.close_overlay();
        }
    }

    /// Whether an overlay covers the panes (its keys or a question asked over it).
    pub(crate) fn overlay_open(&self) -> bool {
        self.overlay.is_some()
    }

    /// The open overlay, to hand it a key.
    pub(crate) fn overlay_mut(&mut self) -> Option<&mut (dyn Overlay + 'static)> {
        self.overlay.as_deref_mut()
    }

    /// Web links drawn at the last draw (written again as OSC 8 hyperlinks).
    pub(crate) fn links(&self) -> &[Link] {
        &self.links
    }

    /// The open overlay when it is a `T` (to hand it what a background job brought back).
    pub(crate) fn overlay_as<T: Overlay>(&mut self) -> Option<&mut T> {
        let overlay: &mut dyn std::any::Any = self.overlay.as_deref_mut()?;
        overlay.downcast_mut::<T>()
    }

    pub(crate) fn focus(&self) -> Pane {
        self.focus
    }

    /// How many times the Turn and Workspace panes built their lines so far.
    #[cfg(test)]
    pub(crate) fn short_pane_builds(&self) -> (usize, usize) {
        (self.turn.lines.builds, self.workspace.lines.builds)
    }

    /// Gives `pane` the keys (pane navigation).
    pub fn navigate(&mut self, pane: Pane) {
        self.focus = pane;
        self.modes.enter_panes();
    }

    pub(crate) fn set_focus(&mut self, pane: Pane) {
        self.focus = pane;
    }

    pub(crate) fn zoomed(&self) -> bool {
        self.zoomed
    }

    pub fn set_zoomed(&mut self, zoomed: bool) {
        self.zoomed = zoomed;
    }

    /// Hides or shows `agent.text` / `agent.thinking` rows in the Events pane.
    pub fn set_hide_deltas(&mut self, hide: bool) {
        self.events.hide_deltas = hide;
    }

    /// Where everything was at the last draw.
    pub fn areas(&self) -> Option<&Areas> {
        self.last_areas.as_ref()
    }

    /// Transcript entries whose wrapped lines are cached (for memory figures).
    pub fn line_cache_len(&self) -> usize {
        self.transcript.cached_entries()
    }

    fn pane(&self, pane: Pane) -> &dyn PaneComponent {
        match pane {
            Pane::Transcript => &self.transcript,
            Pane::Events => &self.events,
            Pane::Turn => &self.turn,
            Pane::Workspace => &self.workspace,
        }
    }

    fn pane_mut(&mut self, pane: Pane) -> &mut dyn PaneComponent {
        match pane {
            Pane::Transcript => &mut self.transcript,
            Pane::Events => &mut self.events,
            Pane::Turn => &mut self.turn,
            Pane::Workspace => &mut self.workspace,
        }
    }

    /// Scrolls `pane` (the focused one when `None`) by `lines`; negative is up (older).
    pub fn scroll(&mut self, pane: Option<Pane>, lines: i64) {
        let pane = pane.unwrap_or(self.focus);
        self.pane_mut(pane).scroll_by(lines);
    }

    /// The focused pane back to its newest content.
    pub(crate) fn scroll_home(&mut self) {
        self.pane_mut(self.focus).scroll_home();
    }

    /// Whether `pane` shows its newest content.
    pub fn follows(&self, pane: Pane) -> bool {
        self.pane(pane).follows()
    }

    /// Expands or collapses the diff or long message nearest the bottom of the transcript.
    /// Returns whether there was one.
    pub fn toggle_nearest_expandable(&mut self, view: &Session) -> bool {
        self.transcript.toggle_nearest_expandable(view)
    }

    /// Rows of `pane` at the last draw (a guess before the first).
    pub(crate) fn pane_height(&self, pane: Pane) -> u16 {
        self.last_areas
            .as_ref()
            .and_then(|a| a.panes.iter().find(|(p, _)| *p == pane))
            .map_or(20, |(_, r)| r.height)
    }

    /// A pane's border is highlighted while it has the keys.
    fn pane_has_keys(&self) -> bool {
        self.mode().pane_has_keys()
    }

    /// The budgets the Workspace pane shows.
    pub(crate) fn set_budgets(&mut self, budgets: crate::budget::Budgets) {
        self.workspace.budgets = budgets;
    }

    /// Draws the whole frame. `status` is shown at the right of the status bar (replay
    /// progress).
    pub fn draw(&mut self, frame: &mut Frame, view: &Session, theme: &Theme, status: Option<&str>) {
        let ctx = Ctx { view, theme };
        let area = frame.area();
        let confirming = match self.mode() {
            Mode::Confirming(c) => Some(c.question()),
            _ => None,
        };
        let (areas, input_heights) = self.lay_out(area, &ctx, confirming.as_deref());
        let evicted = self.mark_search_hits(view);
        if let Some(tabs) = areas.tabs {
            let shown = areas.panes.first().map(|(p, _)| *p);
            draw_tabs(frame, tabs, shown, theme);
        }
        let keys_on_pane = self.pane_has_keys();
        for &(pane, rect) in &areas.panes {
            let focused = keys_on_pane && pane == self.focus;
            let block = pane_block(self.pane(pane), &ctx, focused);
            let inner = block.inner(rect);
            frame.render_widget(block, rect);
            self.pane_mut(pane).render(frame, inner, &ctx);
        }
        footer::draw(
            frame,
            areas.footer,
            view,
            theme,
            (&self.status_hint.0, self.status_hint.1),
        );
        self.draw_input_area(
            frame.buffer_mut(),
            areas.composer,
            &ctx,
            input_heights,
            confirming.as_deref(),
        );
        let buf = frame.buffer_mut();
        self.draw_footer_label(buf, areas.footer, status, evicted, theme);
        if let Some(overlay) = &mut self.overlay {
            // The margin around it too: no piece of a pane's border left on its edges.
            Clear.render(area, buf);
            overlay.render(area, buf, theme);
            // A question asked over an overlay (Ctrl+C's "Quit?") is drawn over it: the
            // next key answers it, so it must be seen.
            if confirming.is_some() {
                self.draw_input_area(
                    buf,
                    areas.composer,
                    &ctx,
                    input_heights,
                    confirming.as_deref(),
                );
            }
        }
        if *self.mode() == Mode::Help {
            help::render(area, buf, theme, self.help_scroll, &self.help_rows);
        }
        // Read from the finished frame. Nothing is linked while the key list or an overlay
        // covers part of a pane: a URL cut by its border would link another address.
        self.links = if matches!(self.mode(), Mode::Help | Mode::Overlay) {
            Vec::new()
        } else {
            areas
                .panes
                .iter()
                .filter(|(p, _)| matches!(p, Pane::Transcript | Pane::Workspace))
                .flat_map(|&(_, rect)| hyperlink::find(buf, rect))
                .collect()
        };
        self.last_areas = Some(areas);
    }

    /// The frame's lay-out: where each pane, the input area and the status bar go, and the
    /// rows of the input box and of the prompt above it. Nothing is drawn.
    fn lay_out(&mut self, area: Rect, ctx: &Ctx, confirming: Option<&str>) -> (Areas, (u16, u16)) {
        let Ctx { view, theme } = *ctx;
        let composer_rows = self.composer.desired_height(area.width);
        let facts = view.actions();
        self.prepare_prompt(view);
        let prompt_rows = self.prompt.lay_out(facts, area.width, theme);
        let confirm_rows = confirming.map_or(0, |q| {
            confirm::desired_height(q, &self.mode_title, area.width)
        });
        let room = area.height.saturating_sub(MIN_PANE_ROWS + 1).max(3);
        // A confirmation takes the input area (and never less than it asks for).
        let input_rows =
            (composer_rows.max(confirm_rows) + prompt_rows).min(room.max(confirm_rows));
        let (focus, zoomed, typing) = (self.focus, self.zoomed, !self.pane_has_keys());
        let (turn, workspace) = (&mut self.turn, &mut self.workspace);
        let mut wanted = |pane: Pane, width: u16| match pane {
            Pane::Turn => turn.rows_wanted(width, ctx),
            Pane::Workspace => workspace.rows_wanted(width, ctx),
            Pane::Transcript | Pane::Events => None,
        };
        let areas = layout::areas(
            area,
            &mut LayoutSpec {
                focus,
                zoomed,
                typing,
                composer_height: input_rows,
                rows_wanted: &mut wanted,
            },
        );
        (areas, (composer_rows, prompt_rows))
    }

    /// Gives the panes the search's needle and current hit to mark; returns the current
    /// hit's seq when its entry went with the transcript's budget.
    fn mark_search_hits(&mut self, view: &Session) -> Option<u64> {
        let current = self.search.current_hit();
        self.transcript.highlight = self.search.needle().to_string();
        self.transcript.current_entry = current.and_then(|h| h.entry);
        self.events.highlight = self.search.needle().to_string();
        self.events.current_seq = current.map(|h| h.seq);
        current
            .filter(|h| {
                h.entry
                    .is_some_and(|e| e < view.transcript().first_kept_id())
            })
            .map(|h| h.seq)
    }

    /// The right of the status bar: the search bar while searching, else `status` (replay
    /// progress), else the search's place while `n`/`N` step through it.
    fn draw_footer_label(
        &self,
        buf: &mut Buffer,
        footer: Rect,
        status: Option<&str>,
        evicted: Option<u64>,
        theme: &Theme,
    ) {
        if *self.mode() == Mode::Search {
            search::draw_bar(footer, buf, &self.search, evicted, theme);
        } else if let Some(label) = status {
            right_aligned(footer, label, theme.warning, buf);
        } else if self.search.is_active() && self.pane_has_keys() {
            // `n` / `N` step through it only in the panes; it ends when they give the keys
            // back to the box.
            let label = search::summary(&self.search, evicted);
            right_aligned(footer, &label, theme.accent, buf);
        }
    }

    /// The prompt above the input box, or a confirmation in the box's place.
    fn draw_input_area(
        &mut self,
        buf: &mut Buffer,
        input: Rect,
        ctx: &Ctx,
        (composer_rows, prompt_rows): (u16, u16),
        confirming: Option<&str>,
    ) {
        let theme = ctx.theme;
        let facts = ctx.view.actions();
        // The input box keeps its rows; the prompt gets what is left above it.
        let prompt_rows = input.height.saturating_sub(composer_rows).min(prompt_rows);
        let [prompt_area, composer_area] =
            Layout::vertical([Constraint::Length(prompt_rows), Constraint::Min(0)]).areas(input);
        if prompt_rows > 0 {
            self.prompt.render(facts, prompt_area, buf, theme);
        }
        let running = ctx.view.turn_running();
        self.composer.set_turn_running(running);
        self.composer.set_title(self.mode_title.clone());
        match confirming {
            Some(question) => {
                let rows = composer_area
                    .height
                    .max(confirm::desired_height(
                        question,
                        &self.mode_title,
                        input.width,
                    ))
                    .min(input.height);
                let confirm_area = Rect {
                    y: input.bottom().saturating_sub(rows),
                    height: rows,
                    ..input
                };
                confirm::render(question, &self.mode_title, confirm_area, buf, theme);
            }
            None => self
                .composer
                .render(composer_area, buf, theme, self.modes.current().into()),
        }
    }
}

fn pane_block<'a>(pane: &dyn PaneComponent, ctx: &Ctx, focused: bool) -> Block<'a> {
    let theme = ctx.theme;
    let mut title = format!(" {} {}", pane.pane().title(), pane.title_detail(ctx));
    if !pane.follows() {
        title.push_str("(scrolled) ");
    }
    let (border, title_style) = if focused {
        (
            theme.border_focused,
            theme.border_focused.patch(theme.title),
        )
    } else {
        (theme.border, theme.title)
    };
    Block::default()
        .borders(Borders::ALL)
        .border_style(border)
        .title(Span::styled(title, title_style))
}

fn draw_tabs(frame: &mut Frame, area: Rect, shown: Option<Pane>, theme: &Theme) {
    let spans: Vec<Span> = Pane::ALL
        .iter()
        .map(|&p| {
            let style = if Some(p) == shown {
                theme.border_focused.patch(theme.title)
            } else {
                theme.dim
            };
            Span::styled(format!(" {} ", p.title()), style)
        })
        .collect();
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// ` text ` at the right end of `area`, over whatever is there.
fn right_aligned(area: Rect, text: &str, style: Style, buf: &mut Buffer) {
    let label = format!(" {text} ");
    let width = u16::try_from(text::width(&label))
        .unwrap_or(u16::MAX)
        .min(area.width);
    let rect = Rect {
        x: area.right().saturating_sub(width),
        width,
        ..area
    };
    Clear.render(rect, buf);
    Paragraph::new(Span::styled(label, style)).render(rect, buf);
}
