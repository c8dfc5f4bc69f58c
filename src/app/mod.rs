//! The loop: terminal input, stream updates, background results and timers, in one
//! `tokio::select!`. Data flows one way: everything that happens becomes an update of the
//! model ([`SessionView`]) or the view state ([`UiState`]), which requests a frame; frames
//! are drawn only when requested (no fixed tick), at most 60 a second.
//!
//! Extension points: user intents go through [`App::dispatch`] (see [`intent`]); background
//! work reports through one channel of [`AppMsg`] handled in [`App::on_msg`].

pub mod cursor;
pub mod draw;
pub mod fetch;
pub mod frame;
pub mod input;
pub mod intent;
pub mod jobs;
pub mod keys;
pub mod mouse;
pub mod msg;
pub mod options;
pub mod replay;
pub mod stats;

pub use intent::Intent;
pub use msg::AppMsg;
pub use options::AppOptions;

use std::time::{Duration, Instant};

use color_eyre::Result;
use crossterm::event::EventStream;
use futures_util::StreamExt;
use tokio::sync::mpsc;

use crate::api::client::ApiClient;
use crate::api::error::{ApiError, ApiErrorKind};
use crate::api::model::ConnectionState;
use crate::api::stream::{self, StreamHandle, StreamTarget, StreamUpdate};
use crate::session::{Fetch, SessionView, Update};
use crate::store::{SessionState, StateStore};
use crate::terminal::{self, TerminationSignals, Tui};
use crate::ui::composer::Composer;
use crate::ui::prompt::PromptState;
use crate::ui::theme::Theme;
use crate::ui::{Areas, UiState};
use cursor::CursorSaver;
use fetch::{FetchQueue, Job};
use frame::FrameScheduler;
use replay::ReplayProgress;
use stats::Stats;

/// Stream updates applied per loop turn before input gets a look in (a long replay is
/// applied in slices so keys stay responsive and progress is drawn).
const MAX_BATCH: usize = 4096;
/// How often a settled turn whose artifacts are still publishing is re-read, and how many
/// times at most (a server that never sets the field must not be polled for ever).
const ARTIFACTS_POLL_EVERY: Duration = Duration::from_secs(2);
const ARTIFACTS_POLL_MAX: u32 = 30;
const MAX_FPS: u32 = 60;

/// Opens the full-screen app and runs it until the user quits, a termination signal
/// arrives, or a fatal error (the session does not exist). The terminal is restored on
/// every way out.
pub async fn run(opts: AppOptions) -> Result<()> {
    // Before entering: from here on SIGTERM/SIGHUP/SIGINT are ours to handle.
    let mut signals = TerminationSignals::new()?;
    let tui = terminal::enter(opts.mouse)?;
    let mut app = App::new(opts, tui);
    app.start();
    let result = app.run_loop(&mut signals).await;
    app.finish();
    drop(app); // restores the terminal before main prints any error
    result
}

/// A running app: the terminal, the model, the view state and the background plumbing.
pub struct App {
    pub(crate) tui: Tui,
    pub view: SessionView,
    pub ui: UiState,
    pub composer: Composer,
    pub prompt: PromptState,
    pub theme: Theme,
    pub client: ApiClient,
    pub session_id: String,
    /// Per-host state on disk (`None` in the demo) and this session's copy of it: the one
    /// copy the app keeps, so cursor, draft and history writes never clobber each other.
    pub store: Option<StateStore>,
    pub session_state: SessionState,
    /// Clone this to report background work back to the loop.
    pub msgs: mpsc::UnboundedSender<AppMsg>,
    msgs_rx: mpsc::UnboundedReceiver<AppMsg>,
    stream_options: stream::StreamOptions,
    stream: Option<StreamHandle>,
    frames: FrameScheduler,
    fetches: FetchQueue,
    replay: ReplayProgress,
    cursor: CursorSaver,
    pub stats: Stats,
    /// The input box has the keyboard (otherwise `ui.focus`'s pane does).
    pub input_focused: bool,
    pub help_open: bool,
    /// `/` typing a filter for the Events pane.
    pub filter_edit: Option<String>,
    /// Ctrl+C was pressed once with text in the box.
    quit_armed: bool,
    quit: bool,
    fatal: Option<color_eyre::Report>,
    /// The terminal window has focus (FocusGained/FocusLost; for notifications).
    pub terminal_focused: bool,
    /// Where things were at the last draw (mouse hit tests, page sizes).
    last_areas: Option<Areas>,
    /// Don't read the stream until the history backfill is applied (entries stay in order).
    hold_stream: bool,
    first_message: Option<String>,
    was_live: bool,
    session_loaded: bool,
    tick_at: Option<Instant>,
    artifacts_poll: ArtifactsPoll,
    /// The text of a message send in flight (one at a time; the box keeps it until accepted).
    sending: Option<String>,
}

#[derive(Debug, Default)]
struct ArtifactsPoll {
    turn: Option<String>,
    next: Option<Instant>,
    count: u32,
}

impl App {
    pub fn new(opts: AppOptions, tui: Tui) -> App {
        let (msgs, msgs_rx) = mpsc::unbounded_channel();
        let session_state = opts
            .store
            .as_ref()
            .map(|s| s.load_session(&opts.session_id))
            .unwrap_or_default();
        let view = SessionView::new(opts.session_id.clone())
            .with_origin(opts.api_host.clone(), opts.local_demo);
        App {
            tui,
            view,
            ui: UiState::new(),
            composer: Composer::new(),
            prompt: PromptState::default(),
            theme: Theme::from_env(),
            client: opts.client,
            session_id: opts.session_id,
            cursor: CursorSaver::new(session_state.cursor),
            store: opts.store,
            session_state,
            msgs,
            msgs_rx,
            stream_options: opts.stream,
            stream: None,
            frames: FrameScheduler::new(MAX_FPS),
            fetches: FetchQueue::default(),
            replay: ReplayProgress::new(false),
            stats: Stats::from_env(),
            input_focused: true,
            help_open: false,
            filter_edit: None,
            quit_armed: false,
            quit: false,
            fatal: None,
            terminal_focused: true,
            last_areas: None,
            hold_stream: false,
            first_message: opts.first_message,
            was_live: false,
            session_loaded: false,
            tick_at: None,
            artifacts_poll: ArtifactsPoll::default(),
            sending: None,
        }
    }

    /// Opens the stream per §11.1/§11.2 and queues the first reads; the first frame is
    /// drawn before any of them answers.
    fn start(&mut self) {
        let mut options = self.stream_options.clone();
        options.target = StreamTarget::Session(self.session_id.clone());
        let stored = self.session_state.cursor;
        if self.first_message.is_some() {
            // A new session: subscribe live-only, send once connected; a drop before the
            // first event replays the (tiny) history from 0 instead.
            options.from = None;
            options.replay_if_dropped_before_first_event = true;
        } else if let Some(cursor) = stored {
            // Exact resume: only what happened since; recent history comes from items,
            // applied before the stream so the transcript stays in order.
            options.from = Some(cursor);
            self.hold_stream = true;
            self.fetches.want(Job::Items);
        } else {
            // Exact: replay everything (the stream task follows truncation).
            options.from = Some(0);
        }
        self.replay = ReplayProgress::new(options.from.is_some());
        self.stream = Some(stream::spawn(options));
        self.fetches.want(Job::Session);
        self.fetches.want(Job::Turns);
        self.fetches.want(Job::Artifacts);
        if let Some(store) = &self.store
            && let Err(e) = store.set_last_session(&self.session_id)
        {
            tracing::warn!("cannot remember the last session: {e}");
        }
        self.frames.request();
    }

    async fn run_loop(&mut self, signals: &mut TerminationSignals) -> Result<()> {
        let mut events = EventStream::new();
        self.housekeeping(Instant::now())?;
        while !self.quit {
            let deadline = self.next_deadline(Instant::now());
            tokio::select! {
                event = events.next() => match event {
                    Some(Ok(event)) => self.on_terminal_event(event)?,
                    Some(Err(e)) => return Err(e.into()),
                    None => break, // the terminal went away
                },
                update = next_update(&mut self.stream), if !self.hold_stream => match update {
                    Some(update) => self.on_stream_batch(update),
                    None => self.stream = None, // the task ended (after reporting Failed)
                },
                Some(msg) = self.msgs_rx.recv() => self.on_msg(msg),
                () = sleep_until_opt(deadline) => {}
                signal = signals.recv() => {
                    tracing::info!(?signal, "terminating");
                    break;
                }
            }
            self.housekeeping(Instant::now())?;
        }
        match self.fatal.take() {
            Some(report) => Err(report),
            None => Ok(()),
        }
    }

    /// Saves the cursor and the statistics one last time.
    fn finish(&mut self) {
        self.save_cursor(Instant::now(), true);
        self.stats.frames = self.frames.frames_drawn();
        self.stats.write(Instant::now(), true);
    }

    /// Asks the loop to end after this turn.
    pub fn quit(&mut self) {
        self.quit = true;
    }

    /// Ends the app with an error (the terminal is restored before it is printed).
    pub fn fail(&mut self, report: color_eyre::Report) {
        self.fatal = Some(report);
        self.quit = true;
    }

    /// Something visible changed: draw at the next allowed moment.
    pub fn request_frame(&mut self) {
        self.frames.request();
    }

    /// Applies an update to the model, requesting a frame when it changed what is visible.
    pub fn apply(&mut self, update: Update) {
        if self.view.apply(update) {
            self.frames.request();
        }
    }

    /// Shows (or clears) a line in the status bar.
    pub fn notice(&mut self, text: Option<String>) {
        self.apply(Update::Notice(text));
    }

    /// Queues a read of `job` (coalesced, rate-limited).
    pub fn want(&mut self, job: Job) {
        self.fetches.want(job);
    }

    fn on_stream_batch(&mut self, first: StreamUpdate) {
        let now = Instant::now();
        self.on_stream(first, now);
        for _ in 1..MAX_BATCH {
            let Some(stream) = self.stream.as_mut() else {
                break;
            };
            match stream.updates.try_recv() {
                Ok(update) => self.on_stream(update, now),
                Err(_) => break,
            }
        }
        self.take_model_fetches();
    }

    fn on_stream(&mut self, update: StreamUpdate, now: Instant) {
        match update {
            StreamUpdate::Frame(frame) => {
                self.stats.events += 1;
                match frame.event {
                    Ok(event) => {
                        if event.seq.is_some() {
                            self.replay.on_persisted(now);
                        } else if self.replay.on_transient() {
                            self.frames.request();
                        }
                        self.apply(Update::Event(event));
                    }
                    Err(e) => self.apply(Update::Skipped {
                        reason: e.to_string(),
                    }),
                }
            }
            StreamUpdate::Skipped { reason } => self.apply(Update::Skipped { reason }),
            StreamUpdate::State(state) => self.on_connection(state, now),
        }
    }

    fn on_connection(&mut self, state: ConnectionState, now: Instant) {
        if state == ConnectionState::Live {
            self.replay.on_live(now);
            let reconnected = self.was_live && self.view.connection() != Some(&state);
            self.was_live = true;
            if reconnected {
                // What changed while away shows only in the resources (§11.3).
                self.fetches.want(Job::Session);
                self.fetches.want(Job::Turns);
            }
            if let Some(text) = self.first_message.take() {
                self.dispatch(Intent::SendFirst(text));
            }
        }
        self.apply(Update::Connection(state));
    }

    fn take_model_fetches(&mut self) {
        for fetch in self.view.take_fetches() {
            self.fetches.want(match fetch {
                Fetch::Session => Job::Session,
                Fetch::Turn(id) => Job::Turn(id),
            });
        }
    }

    /// Handles one result of background work.
    pub fn on_msg(&mut self, msg: AppMsg) {
        match msg {
            AppMsg::Fetched { job, result } => self.on_fetched(job, result),
            AppMsg::Sent { input, result } => self.on_sent(input, result),
        }
        self.take_model_fetches();
    }

    fn on_fetched(&mut self, job: Job, result: Result<Update, ApiError>) {
        self.fetches.finished(&job);
        if job == Job::Items {
            self.hold_stream = false;
        }
        match result {
            Ok(update) => {
                if let Update::Session(session) = &update {
                    self.session_loaded = true;
                    self.prompt.replace(&session.required_actions);
                }
                self.apply(update);
            }
            Err(e) if job == Job::Session && !self.session_loaded && is_fatal(&e) => {
                let mut e = e;
                if e.kind == ApiErrorKind::NotFound {
                    e.message = format!(
                        "session {} does not exist, or this token cannot see it",
                        crate::ui::sanitize::line(&self.session_id)
                    );
                }
                self.fail(e.into());
            }
            Err(e) => {
                tracing::warn!(?job, error = %e, "read failed");
                let what = match job {
                    Job::Session => "the session",
                    Job::Turns | Job::Turn(_) => "the turn",
                    Job::Items => "the history",
                    Job::Artifacts => "the artifacts",
                };
                self.notice(Some(format!("could not read {what}: {}", e.summary())));
            }
        }
    }

    /// Timers, background reads and the frame: run after every wake-up.
    fn housekeeping(&mut self, now: Instant) -> Result<()> {
        if self.replay.check_quiet(now) {
            self.frames.request();
        }
        self.tick(now);
        self.poll_artifacts(now);
        for job in self.fetches.start_ready(now) {
            jobs::spawn(&self.client, &self.session_id, job, self.msgs.clone());
        }
        self.save_cursor(now, false);
        if self.frames.due_at(now).is_some_and(|due| due <= now) {
            self.draw()?;
            self.frames.drawn(Instant::now());
        }
        self.stats.frames = self.frames.frames_drawn();
        self.stats.write(now, false);
        Ok(())
    }

    /// The elapsed-time clock: one tick a second, only while a turn runs.
    fn tick(&mut self, now: Instant) {
        if !self.view.turn_running() {
            self.tick_at = None;
            return;
        }
        match self.tick_at {
            None => self.tick_at = Some(now + Duration::from_secs(1)),
            Some(at) if now >= at => {
                let _ = at;
                self.apply(Update::Tick(unix_ms()));
                self.tick_at = Some(now + Duration::from_secs(1));
            }
            Some(_) => {}
        }
        // The first tick sets the clock at once so elapsed time shows immediately.
        if self.view.now_ms().is_none() {
            self.apply(Update::Tick(unix_ms()));
        }
    }

    fn poll_artifacts(&mut self, now: Instant) {
        let pending = self.view.artifacts_pending_turn().map(str::to_string);
        let poll = &mut self.artifacts_poll;
        if pending != poll.turn {
            if poll.turn.is_some() && pending.is_none() {
                // Published: list them.
                self.fetches.want(Job::Artifacts);
            }
            *poll = ArtifactsPoll {
                next: pending.as_ref().map(|_| now + ARTIFACTS_POLL_EVERY),
                turn: pending,
                count: 0,
            };
            return;
        }
        let (Some(turn), Some(next)) = (poll.turn.clone(), poll.next) else {
            return;
        };
        if now >= next {
            poll.count += 1;
            poll.next = (poll.count < ARTIFACTS_POLL_MAX).then(|| now + ARTIFACTS_POLL_EVERY);
            self.fetches.want(Job::Turn(turn));
        }
    }

    fn save_cursor(&mut self, now: Instant, force: bool) {
        let current = self.view.last_seq();
        let Some(due) = self.cursor.due_at(now, current) else {
            return;
        };
        if !(force || now >= due) {
            return;
        }
        self.cursor.saved(now, current);
        self.session_state.cursor = current;
        self.save_state(force);
    }

    /// Writes [`App::session_state`] to the store (off the loop unless `blocking`).
    pub fn save_state(&mut self, blocking: bool) {
        let Some(store) = self.store.clone() else {
            return;
        };
        self.session_state.saved_at = unix_ms();
        let state = self.session_state.clone();
        let id = self.session_id.clone();
        let write = move || {
            if let Err(e) = store.save_session(&id, &state) {
                tracing::warn!("cannot save the session state: {e}");
            }
        };
        if blocking {
            write();
        } else {
            tokio::task::spawn_blocking(write);
        }
    }

    /// The earliest moment something is due; `None` sleeps until input or news arrives.
    fn next_deadline(&self, now: Instant) -> Option<Instant> {
        [
            self.frames.due_at(now),
            self.fetches.wake_at(now),
            self.replay.quiet_deadline(),
            self.tick_at,
            self.artifacts_poll.next,
            self.cursor
                .due_at(now, self.view.last_seq())
                .filter(|_| self.store.is_some()),
            self.stats.due_at(now),
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

fn is_fatal(e: &ApiError) -> bool {
    matches!(
        e.kind,
        ApiErrorKind::NotFound | ApiErrorKind::Unauthorized | ApiErrorKind::Forbidden
    )
}

async fn next_update(stream: &mut Option<StreamHandle>) -> Option<StreamUpdate> {
    match stream {
        Some(s) => s.updates.recv().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d.into()).await,
        None => std::future::pending().await,
    }
}

pub(crate) fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
