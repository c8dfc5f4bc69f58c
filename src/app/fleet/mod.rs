//! The fleet as a front of the one runtime (`crate::app::runtime`): its rows kept live by
//! [`FleetLive`]'s own task, drawn when something shown changed (coalesced by the same
//! `FrameScheduler` as a session's frames) or stopped being true (a clock's second, an
//! age's minute, a countdown). Rename, delete, fork and create run as tasks, with the
//! send retry policy, and come back as `FleetMsg`s: the fleet draws, reads keys and hears
//! signals while the API answers.

mod absence_glance;
mod absence_replay;
mod away;
pub mod details;
pub(crate) mod inbox;
mod inbox_notes;
pub mod live;
mod msg;
mod policy;
mod relisting;
pub mod todos_replay;

use crate::app::fleet::away::Absence;
use crate::app::fleet::inbox::{FleetInbox, InboxAnswers};
use crate::app::fleet::live::{Announcements, FleetLive, FleetNews};
pub(crate) use crate::app::fleet::msg::FleetMsg;
use crate::app::shared::frame::FrameScheduler;
use crate::app::shared::notifications::Notifier;
use crate::app::shared::settings::Settings;
use crate::keys::table as key_table;
use crate::notify::NotifyTarget;
use crate::terminal::Tui;
use crate::ui::fleet::{FleetAction, FleetView};
use crate::ui::fleet_help::{FleetHelp, HelpKey};
use crate::ui::inbox::InboxAction;
use crate::ui::theme::Theme;
use crossterm::event::{Event, KeyEventKind};
use gobare_api::client::{ApiClient, IdempotencyKey};
use gobare_api::error::ApiError;
use gobare_api::model::{CreateSession, Session};
use gobare_api::retry::SendRetry;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{Notify, mpsc};

const MAX_FPS: u32 = 60;
/// Frames the fleet's own updates draw at most a second: on a busy organization every event
/// is one, and a person reads rows no faster (keys still draw at [`MAX_FPS`]).
const REDRAWS_FPS: u32 = 4;

/// What the user chose in the fleet that takes it off the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FleetExit {
    Quit,
    Open(String),
    /// Open it with its changes view.
    OpenChanges(String),
}

/// What the fleet keeps while a session is in front: its live rows, its view state and its
/// looks, so Ctrl+O comes back to the same row.
pub(crate) struct FleetState {
    pub(crate) live: FleetLive,
    pub(crate) view: FleetView,
    settings: Settings,
    theme: Theme,
    help: FleetHelp,
    /// The decision inbox, kept open across a session opened from it.
    pub(crate) inbox: FleetInbox,
    /// "While you were away" (see [`crate::app::fleet::away`]).
    away: crate::app::fleet::away::FleetAway,
    /// Every session's deadlines, reclaimed workspace and sandbox budget, rung once
    /// whichever front is in front.
    pub(crate) alarms: crate::notify::fleet_alarms::FleetAlarms,
}

impl FleetState {
    pub(crate) fn new(
        live: FleetLive,
        settings: Settings,
        notice: Option<String>,
        store: Option<crate::store::StateStore>,
    ) -> FleetState {
        let mut view = FleetView::new();
        view.set_message(notice, true);
        live.choose(&settings.notify);
        let alarms = crate::notify::fleet_alarms::FleetAlarms::new(
            settings.notify.deadline_minutes,
            settings.budget.sandbox_minutes,
        );
        FleetState {
            live,
            view,
            alarms,
            theme: settings.theme(),
            away: crate::app::fleet::away::FleetAway::new(store, &settings.away),
            settings,
            help: FleetHelp::new(
                key_table::fleet_help_rows()
                    .into_iter()
                    .chain(crate::ui::fleet_legend::rows())
                    .collect(),
            ),
            inbox: FleetInbox::new(),
        }
    }

    /// A listener for the sessions that come to need the user, for a session in front.
    pub(crate) fn announcements(&self) -> Announcements {
        self.live.announcements()
    }

    /// `T`: the next theme, for this run; what to say of it.
    fn next_theme(&mut self) -> String {
        let settings = &mut self.settings;
        match crate::ui::theme::switch_to_next(
            settings.theme_name,
            settings.no_color,
            &settings.colors,
        ) {
            Ok((next, theme, said)) => {
                self.theme = theme;
                settings.theme_name = next;
                said
            }
            Err(said) => said,
        }
    }

    /// The theme chosen for this run (`T` in either front), as the other front left it.
    pub(crate) fn theme_name(&self) -> crate::ui::theme::ThemeName {
        self.settings.theme_name
    }

    /// Takes on the theme the other front chose.
    pub(crate) fn set_theme_name(&mut self, name: crate::ui::theme::ThemeName) {
        if name == self.settings.theme_name {
            return;
        }
        self.settings.theme_name = name;
        self.theme = self.settings.theme();
    }
}

/// The fleet on screen.
pub(crate) struct FleetFront {
    pub(crate) tui: Tui,
    pub(crate) state: FleetState,
    pub(super) client: ApiClient,
    pub(super) retry: SendRetry,
    notifier: Notifier,
    changed: Arc<Notify>,
    frames: FrameScheduler,
    /// Frames for the fleet's own updates, coalesced to [`REDRAWS_FPS`] before they ask for
    /// a frame.
    redraws: FrameScheduler,
    /// When a clock on screen next changes.
    clock: Option<Instant>,
    /// The rows whose details were last asked for: those on screen.
    wanted: Vec<String>,
    msgs: mpsc::UnboundedSender<FleetMsg>,
    msgs_rx: mpsc::UnboundedReceiver<FleetMsg>,
    /// A session being created: opened once it exists.
    creating: bool,
    /// The inbox's answers, each through its session's sender.
    answers: InboxAnswers,
    exit: Option<FleetExit>,
    pub(crate) stats: crate::app::shared::stats::Stats,
}

impl FleetFront {
    pub(crate) fn new(
        tui: Tui,
        mut state: FleetState,
        client: ApiClient,
        stats: crate::app::shared::stats::Stats,
    ) -> FleetFront {
        // What came to need the user while a session was open in front was that session's
        // own notifier's business, or is on the fleet now: not news.
        state.live.drain_needs_you();
        let notifier = Notifier::new(
            state.settings.notify_when,
            NotifyTarget::from_env(),
            gobare_api::clock::unix_ms(),
        )
        .choosing(&state.settings.notify);
        let changed = state.live.change_signal();
        let (msgs, msgs_rx) = mpsc::unbounded_channel();
        let mut frames = FrameScheduler::new(MAX_FPS);
        frames.request();
        // Answers sent from a front that is gone report to nobody: not "sending" forever.
        state.inbox.view.forget_sending();
        let reports = msgs.clone();
        let answers = InboxAnswers::new(
            client.clone(),
            Arc::new(move |session_id, event| {
                let answer = FleetMsg::Answer {
                    session_id,
                    event: Box::new(event),
                };
                reports.send(answer).is_ok()
            }),
        );
        if let Some((since_ms, replay)) = state.away.start() {
            match replay {
                Some(replay) => {
                    let away = msgs.clone();
                    let replayed = state.live.absence_replay(
                        crate::app::shared::jobs::Job::FleetAway.client(&client),
                        replay,
                    );
                    crate::app::shared::jobs::spawn(
                        crate::app::shared::jobs::Job::FleetAway,
                        async move {
                            let msg = match replayed.await {
                                Some(record) => FleetMsg::Away {
                                    since_ms,
                                    record: Box::new(record),
                                },
                                None => FleetMsg::AwayCut { since_ms },
                            };
                            let _ = away.send(msg);
                        },
                    );
                }
                // No cursor kept (nothing came on the org stream while the fleet was
                // last open): told from the rows once they are listed.
                None => state.away.glance_from(since_ms),
            }
        }
        FleetFront {
            tui,
            state,
            client,
            retry: SendRetry::default(),
            notifier,
            changed,
            frames,
            redraws: FrameScheduler::new(REDRAWS_FPS),
            clock: None,
            wanted: Vec::new(),
            msgs,
            msgs_rx,
            creating: false,
            answers,
            exit: None,
            stats,
        }
    }

    /// The fleet's waits, borrowed apart, for the runtime's one `select!`.
    pub(crate) fn sources(
        &mut self,
    ) -> (
        &mut mpsc::UnboundedReceiver<FleetMsg>,
        &mut Announcements,
        Arc<Notify>,
    ) {
        (
            &mut self.msgs_rx,
            self.state.live.announced_mut(),
            self.changed.clone(),
        )
    }

    pub(crate) fn exit(&self) -> Option<&FleetExit> {
        self.exit.as_ref()
    }

    pub(crate) fn quit(&mut self) {
        self.exit = Some(FleetExit::Quit);
    }

    /// Something shown changed: drawn with what else changes in the same tenth of a second.
    pub(crate) fn on_changed(&mut self) {
        self.redraws.request();
    }

    /// A session came to need the user: rung when now is the time.
    pub(crate) fn on_news(&mut self, news: &FleetNews) {
        if let Some(bytes) = self.notifier.fleet_news(news) {
            let backend = self.tui.backend_mut();
            if let Err(e) = backend.write_all(&bytes).and_then(|()| backend.flush()) {
                tracing::warn!(error = %e, "could not write a notification");
            }
        }
    }

    /// Draws when a frame is due; keeps the rows on screen read first.
    pub(crate) fn housekeeping(&mut self, now: Instant) -> color_eyre::Result<()> {
        self.glance_at_absence();
        if self.clock.is_some_and(|at| at <= now) {
            self.clock = None;
            self.frames.request();
        }
        if self.redraws.due_at(now).is_some_and(|due| due <= now) {
            self.redraws.drawn(now);
            self.frames.request();
        }
        let wall = gobare_api::clock::unix_ms();
        let mut alarms = Vec::new();
        if self.frames.due_at(now).is_some_and(|due| due <= now) {
            alarms = self.draw_frame(wall)?;
        }
        if alarms.is_empty() && self.state.alarms.next_at().is_some_and(|at| at <= wall) {
            alarms = self.state.alarms.ring(&self.state.live.model(), wall);
        }
        // Told at the fleet's pace, with its other news.
        for news in alarms {
            self.state.live.tell(news);
        }
        self.stats.frames = self.frames.frames_drawn();
        self.stats.events = self.state.live.model().generation();
        self.stats.write(now, false);
        Ok(())
    }

    /// Draws the frame (the digest on top, the fleet or its inbox below it) under the
    /// model's lock, and rings the alarms of what was drawn; keeps when it stops being
    /// true.
    fn draw_frame(&mut self, wall: i64) -> color_eyre::Result<Vec<FleetNews>> {
        let alarms;
        let started = Instant::now();
        let locked;
        let render_time;
        {
            let model = self.state.live.model();
            locked = started.elapsed();
            let budgets = crate::budget::Budgets::gather(
                &self.client,
                Some(crate::budget::slots::Counts::of(&model)),
            );
            let (view, help, theme, away) = (
                &mut self.state.view,
                &self.state.help,
                &self.state.theme,
                &self.state.away,
            );
            let inbox = &mut self.state.inbox;
            let mut rendered = std::time::Duration::ZERO;
            self.tui.draw(|f| {
                let render_started = Instant::now();
                let area = f.area();
                // The digest on top, the fleet below it: no row is hidden under it.
                let top = away.height(area);
                let list = ratatui::layout::Rect {
                    y: area.y + top,
                    height: area.height - top,
                    ..area
                };
                if inbox.open {
                    inbox.view.render(list, f.buffer_mut(), &model, theme, wall);
                } else {
                    view.render(list, f.buffer_mut(), &model, theme, wall);
                }
                crate::ui::budget_view::on_border(
                    list,
                    f.buffer_mut(),
                    &budgets.header_lines(wall),
                    theme,
                );
                away.render(area, f.buffer_mut(), theme);
                help.render(area, f.buffer_mut(), theme);
                rendered = render_started.elapsed();
            })?;
            render_time = rendered;
            // Under the same lock as the frame: what an alarm rings is what was drawn.
            alarms = self.state.alarms.ring(&model, wall);
        }
        let drawn = Instant::now();
        self.stats.frame_took(drawn - started, locked, render_time);
        self.frames.drawn(drawn);
        // Every row is read in turn; the rows on screen first.
        if self.state.view.on_screen() != self.wanted.as_slice() {
            self.wanted = self.state.view.on_screen().to_vec();
            self.state.live.want_details(&self.wanted);
        }
        let true_for = if self.state.inbox.open {
            self.state.inbox.view.true_for()
        } else {
            self.state.view.true_for()
        };
        self.clock = true_for.map(|wait| drawn + wait);

        Ok(alarms)
    }

    /// The next moment something is due: a frame, a clock, the statistics.
    pub(crate) fn next_deadline(&self, now: Instant) -> Option<Instant> {
        let clock = self.clock.filter(|_| self.frames.due_at(now).is_none());
        let alarm = alarm_due(self.state.alarms.next_at(), now);
        [
            self.frames.due_at(now),
            self.redraws.due_at(now),
            clock,
            self.stats.due_at(now),
            alarm,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    pub(crate) fn on_terminal_event(&mut self, event: Event) {
        let key = match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => key,
            Event::Resize(..) => {
                self.frames.request();
                return;
            }
            Event::FocusGained | Event::FocusLost => {
                let focused = matches!(event, Event::FocusGained);
                self.notifier.set_focused(focused);
                let absence = self.state.away.focus(focused, Instant::now());
                self.on_absence(absence);
                return;
            }
            _ => return,
        };
        self.frames.request();
        let scope = if self.state.inbox.open {
            self.state.inbox.view.scope()
        } else {
            self.state.view.scope()
        };
        match self.state.help.key(key, scope) {
            HelpKey::NotMine => {}
            HelpKey::Consumed => return,
            HelpKey::Quit => return self.quit(),
        }
        if self.state.inbox.open {
            return self.inbox_key(key);
        }
        // PgUp/PgDn scroll a digest longer than its box (its title says so), before the list.
        if matches!(
            key.code,
            crossterm::event::KeyCode::PageUp | crossterm::event::KeyCode::PageDown
        ) && !self.state.view.is_modal()
        {
            let size = self.tui.size().unwrap_or_default();
            let area = ratatui::layout::Rect::new(0, 0, size.width, size.height);
            let down = key.code == crossterm::event::KeyCode::PageDown;
            if self.state.away.scroll(area, down) {
                return;
            }
        }
        // Esc in the list closes the digest first (its title says so), before the filter.
        if key.code == crossterm::event::KeyCode::Esc
            && !self.state.view.is_modal()
            && self.state.away.dismiss()
        {
            return;
        }
        match self.state.view.handle_key(key) {
            FleetAction::Inbox | FleetAction::NextDecision => {
                self.state.inbox.open_at_soonest(&self.state.live, None);
            }
            FleetAction::Open(id) => self.exit = Some(FleetExit::Open(id)),
            FleetAction::OpenChanges(id) => self.exit = Some(FleetExit::OpenChanges(id)),
            FleetAction::New => self.create(),
            FleetAction::Quit => self.quit(),
            FleetAction::NextTheme => {
                let said = self.state.next_theme();
                self.state.view.set_message(Some(said), false);
            }
            FleetAction::Rename(id, title) => self.rename(id, title),
            FleetAction::Delete(id) => self.delete(id),
            FleetAction::Fork(id) => self.fork(id),
            FleetAction::SetLabels(id, labels) => self.set_labels(id, labels),
            FleetAction::SetMode(ids, mode) => self.set_mode(ids, mode),
            FleetAction::Consumed => {}
        }
    }

    /// An absence no event record tells, once the rows are listed: the reasons of a few
    /// failed sessions read off the loop, then told from the rows.
    fn glance_at_absence(&mut self) {
        let (since_ms, failed) = {
            let model = self.state.live.model();
            let Some(since_ms) = self.state.away.take_glance(model.is_loaded()) else {
                return;
            };
            let failed = crate::fleet::absence_glance::failed_since(&model, since_ms);
            (since_ms, failed)
        };
        let failed: Vec<String> = failed
            .into_iter()
            .take(crate::fleet::absence_glance::FAILED_READ)
            .collect();
        let client = crate::app::shared::jobs::Job::FleetAway.client(&self.client);
        let msgs = self.msgs.clone();
        crate::app::shared::jobs::spawn(crate::app::shared::jobs::Job::FleetAway, async move {
            let reasons = absence_glance::reasons(&client, &failed).await;
            let _ = msgs.send(FleetMsg::AwayGlance { since_ms, reasons });
        });
    }

    /// Focus went or came back: the fleet keeps what its stream brings meanwhile, and
    /// says it when the absence was long enough.
    fn on_absence(&mut self, absence: Absence) {
        let mut model = self.state.live.model();
        match absence {
            Absence::Nothing => {}
            Absence::Keep(since_ms) => model.start_absence(since_ms),
            Absence::Drop => drop(model.take_absence()),
            Absence::Show(since_ms) => {
                let Some(mut record) = model.take_absence() else {
                    return;
                };
                let digests = crate::fleet::absence_digest::digests(
                    &mut record,
                    &model,
                    gobare_api::clock::unix_ms(),
                );
                drop(model);
                self.state.away.show(since_ms, digests);
            }
        }
    }

    /// A key while the inbox is open.
    fn inbox_key(&mut self, key: crossterm::event::KeyEvent) {
        let action = {
            let model = self.state.live.model();
            self.state.inbox.view.handle_key(key, &model)
        };
        match action {
            InboxAction::Answer {
                session_id,
                input,
                note,
            } => self.answers.send_with_note(&session_id, input, note),
            InboxAction::Open(id) => {
                // Ctrl+O from it comes back to the inbox, and Esc from there to the fleet.
                self.state.inbox.view.set_back_to(None);
                self.exit = Some(FleetExit::Open(id));
            }
            InboxAction::Close => {
                if let Some(id) = self.state.inbox.close() {
                    self.exit = Some(FleetExit::Open(id));
                }
            }
            InboxAction::Consumed => {}
        }
    }

    /// The workspace clock of the session just left, for the inbox's deadlines.
    pub(crate) fn know_clock(&mut self, id: &str, clock: crate::deadline::WorkspaceClock) {
        if self.state.live.model().waits_mut().know_clock(id, clock) {
            self.frames.request();
        }
    }

    /// F3 from session `from`: the inbox, at the soonest deadline; Esc goes back to it.
    pub(crate) fn open_inbox(&mut self, from: &str) {
        self.state
            .inbox
            .open_at_soonest(&self.state.live, Some(from.to_string()));
        self.frames.request();
    }

    /// Runs one write off the loop; its answer comes back as a message.
    pub(super) fn spawn<F>(&mut self, saying: &str, write: F)
    where
        F: std::future::Future<Output = FleetMsg> + Send + 'static,
    {
        self.state.view.set_message(Some(saying.into()), false);
        let msgs = self.msgs.clone();
        crate::app::shared::jobs::spawn(crate::app::shared::jobs::Job::FleetWrite, async move {
            let _ = msgs.send(write.await);
        });
    }

    fn create(&mut self) {
        if self.creating {
            return;
        }
        self.creating = true;
        let (client, retry) = (self.client.clone(), self.retry.clone());
        let request = crate::sessions::create::create_request(&crate::cli::NewArgs::default());
        self.spawn("creating a session…", async move {
            FleetMsg::Created(Box::new(create(&client, &request, &retry).await))
        });
    }

    fn rename(&mut self, id: String, title: Option<String>) {
        let (client, retry) = (self.client.clone(), self.retry.clone());
        self.spawn("renaming…", async move {
            FleetMsg::Renamed(Box::new(
                set_title(&client, &retry, &id, title.as_deref()).await,
            ))
        });
    }

    fn delete(&mut self, id: String) {
        let (client, retry) = (self.client.clone(), self.retry.clone());
        self.spawn("deleting…", async move {
            let key = IdempotencyKey::new();
            let (result, _) = retry
                .run(|| client.delete_session(&id, &key), |_, _, _| {})
                .await;
            FleetMsg::Deleted { id, result }
        });
    }

    fn fork(&mut self, id: String) {
        let (client, retry) = (self.client.clone(), self.retry.clone());
        // The copy keeps the original's title: two rows alike. Its own says so.
        let original = self
            .state
            .live
            .model()
            .get(&id)
            .and_then(|r| r.label().map(str::to_string));
        let title = fork_title(original.as_deref());
        self.spawn("forking…", async move {
            let key = IdempotencyKey::new();
            let (result, _) = retry
                .run(|| client.fork_session(&id, &key), |_, _, _| {})
                .await;
            let named = match &result {
                Ok(fork) => {
                    let named = set_title(&client, &retry, &fork.id, Some(&title)).await;
                    Some((title.clone(), Box::new(named)))
                }
                Err(_) => None,
            };
            FleetMsg::Forked {
                result: Box::new(result),
                named,
            }
        });
    }

    pub(crate) fn on_msg(&mut self, msg: FleetMsg) {
        self.frames.request();
        let view = &mut self.state.view;
        let live = &self.state.live;
        match msg {
            msg @ (FleetMsg::LabelsSet(_) | FleetMsg::ModeSet { .. }) => self.on_policy_msg(msg),
            FleetMsg::Answer { session_id, event } => {
                let note_dropped = self.answers.settled(&session_id, &event);
                let inbox = &mut self.state.inbox;
                inbox.on_answer(&session_id, *event, &self.state.live);
                if note_dropped {
                    inbox.view.set_message(
                        Some("the decision was not taken, so its note was not sent".into()),
                        true,
                    );
                }
            }
            FleetMsg::Renamed(result) => match *result {
                Ok(session) => {
                    live.apply_session(&session);
                    view.set_message(Some("renamed".into()), false);
                }
                Err(e) => view.set_message(Some(refusal("rename", &e)), true),
            },
            FleetMsg::Deleted { id, result } => match result {
                Ok(()) => {
                    live.forget(&id);
                    view.set_message(Some("deleted".into()), false);
                }
                Err(e) => view.set_message(Some(refusal("delete", &e)), true),
            },
            FleetMsg::Forked { result, named } => self.on_forked(*result, named),
            FleetMsg::AwayCut { since_ms } => self.state.away.glance_from(since_ms),
            FleetMsg::AwayGlance { since_ms, reasons } => {
                let lines = crate::fleet::absence_glance::lines(
                    &live.model(),
                    since_ms,
                    gobare_api::clock::unix_ms(),
                    &reasons,
                );
                self.state.away.show_lines(since_ms, lines);
            }
            FleetMsg::Away {
                since_ms,
                mut record,
            } => {
                let digests = crate::fleet::absence_digest::digests(
                    &mut record,
                    &live.model(),
                    gobare_api::clock::unix_ms(),
                );
                self.state.away.show(since_ms, digests);
            }
            FleetMsg::Created(result) => self.on_created(*result),
        }
    }

    /// A fork made (its row selected) and named, or why not.
    fn on_forked(
        &mut self,
        result: Result<Session, ApiError>,
        named: Option<(String, Box<Result<Session, ApiError>>)>,
    ) {
        let (view, live) = (&mut self.state.view, &self.state.live);
        let fork = match result {
            Err(e) => return view.set_message(Some(refusal("fork", &e)), true),
            Ok(fork) => fork,
        };
        live.apply_session(&fork);
        view.select(&fork.id);
        match named.map(|(title, named)| (title, *named)) {
            Some((title, Ok(named))) => {
                live.apply_session(&named);
                view.set_message(
                    Some(format!("forked as “{title}”: the new session is selected")),
                    false,
                );
            }
            Some((_, Err(e))) => view.set_message(
                Some(format!("forked; {}", refusal("name the fork", &e))),
                true,
            ),
            None => {}
        }
    }

    /// A session created is opened (its row first: Ctrl+O from it comes back to it).
    fn on_created(&mut self, result: Result<Session, ApiError>) {
        self.creating = false;
        let (view, live) = (&mut self.state.view, &self.state.live);
        match result {
            Ok(session) => {
                live.apply_session(&session);
                view.select(&session.id);
                view.set_message(None, false);
                self.exit = Some(FleetExit::Open(session.id));
            }
            Err(e) => {
                if e.code == Some(gobare_api::model::ErrorCode::ProjectLimitExceeded) {
                    // The limit here, shown by the server: what the header says now.
                    crate::budget::slots::learn_limit(live.model().len());
                }
                view.set_message(
                    Some(format!("could not create the session: {}", e.summary())),
                    true,
                )
            }
        }
    }

    /// Takes the terminal and the fleet's state back for the next front.
    pub(crate) fn into_parts(self) -> (Tui, FleetState, crate::app::shared::stats::Stats) {
        let cursor = self.state.live.model().org_cursor();
        self.state.away.seen(cursor);
        (self.tui, self.state, self.stats)
    }
}

/// Creates a session, retrying retryable failures with the same key (a retry after a lost
/// answer returns the session created the first time, not a second one).
async fn create(
    client: &ApiClient,
    request: &CreateSession,
    retry: &SendRetry,
) -> Result<Session, ApiError> {
    crate::sessions::create::create_session(client, request, retry).await
}

async fn set_title(
    client: &ApiClient,
    retry: &SendRetry,
    id: &str,
    title: Option<&str>,
) -> Result<Session, ApiError> {
    let key = IdempotencyKey::new();
    let (result, _) = retry
        .run(|| client.set_title(id, title, &key), |_, _, _| {})
        .await;
    result
}

/// A fork's title: the original's name, marked (the original's title, else its first
/// message, cut to a title's length).
fn fork_title(original: Option<&str>) -> String {
    let name: String = original.unwrap_or("untitled").chars().take(80).collect();
    format!("{} (fork)", name.trim())
}

/// Why an action was refused, in a line: the server's message names a missing scope
/// (403), a running turn (409) or the session limit (429).
fn refusal(what: &str, e: &ApiError) -> String {
    format!("could not {what}: {}", e.summary())
}

/// When an alarm due at `at_ms` (Unix ms) is due on the monotonic clock.
pub(crate) fn alarm_due(at_ms: Option<i64>, now: Instant) -> Option<Instant> {
    let wait = at_ms?.saturating_sub(gobare_api::clock::unix_ms()).max(0);
    Some(now + std::time::Duration::from_millis(wait as u64))
}

#[cfg(test)]
mod test_sim;
