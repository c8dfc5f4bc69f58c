//! The session front: one session on screen, run by the runtime (`crate::app::runtime`) when a
//! session is in front. Everything that happens to it (a key, a stream update, a background
//! result, a timer) becomes an update of the model ([`Session`]) or of the view state
//! ([`Screen`]), which requests a frame; frames are drawn only when requested (no fixed tick),
//! at most 60 a second. An idle session schedules no timer at all: the clock ticks only while a
//! turn runs, polls only while something is pending.
//!
//! Extension points:
//! - user intents: add a `crate::keys::Intent` variant, produce it in `input.rs` (keys, paste, mouse),
//!   carry it out in `SessionFront::dispatch`;
//! - background work: spawn it with a clone of `SessionFront::msgs`, report one `AppMsg` (add a
//!   variant), handle it in `SessionFront::on_msg`;
//! - stream events as they are applied: `SessionFront::on_stream` (notifications, prompt glue);
//! - model reads: `SessionFront::want` a `reading::fetch::FetchJob` (coalesced, 60/min budget);
//! - state on disk: the saved session ([`crate::app::shared::saved_session::SavedSession`], through `acting`), written by
//!   `crate::app::shared::saving::StateSaver`; status line:
//!   `SessionFront::notice`; terminal focus: `SessionFront::terminal_focused`.

pub(crate) mod acting;
mod alarms;
mod away_digest;
mod budgets;
mod changes;
mod decided_hold;
mod decision_seen;
pub(crate) mod draw;
mod editor;
mod exporting;
pub(crate) mod input;
pub(crate) mod intent;
mod looking;
pub(crate) mod mouse;
pub(crate) mod msg;
pub(crate) mod options;
pub(crate) mod overlay_jobs;
pub(crate) mod overlay_msg;
pub(crate) mod pending_sends;
mod policy;
mod preview;
pub(crate) mod reading;
mod search;
mod timers;
mod token_scopes;

pub(crate) use msg::AppMsg;
pub(crate) use options::AppOptions;

use std::time::Instant;

use tokio::sync::mpsc;

#[cfg(debug_assertions)]
use crate::app::shared::debug_panic;
use crate::app::shared::frame::FrameScheduler;
use crate::app::shared::saved_session::LockOrRecover;
use crate::app::shared::stats::Stats;
use crate::app::shared::{heap, shell, unsaved};
use crate::session::{Notice, Session, Severity, Update};
use crate::store::StateStore;
use crate::terminal::Tui;
use crate::ui::Screen;
use crate::ui::theme::Theme;
use gobare_api::client::ApiClient;
use gobare_api::stream::{self, StreamHandle, StreamTarget};
use reading::artifacts::ArtifactsPoll;
use reading::fetch::{FetchJob, FetchQueue};
use reading::replay::ReplayProgress;
use reading::{silence, turn_pages};

/// Stream updates applied per loop turn before input gets a look in (a long replay is
/// applied in slices so keys stay responsive and progress is drawn).
pub(crate) const MAX_BATCH: usize = 4096;
const MAX_FPS: u32 = 60;

/// The session front: the terminal, the session model, the view state and the background
/// plumbing of the one session in front.
pub(crate) struct SessionFront {
    pub(crate) tui: Tui,
    pub(crate) session: Session,
    /// Everything on screen and its view state: panes, input box, prompt, mode.
    pub(crate) screen: Screen,
    pub(crate) theme: Theme,
    /// The theme's name, for the key that goes to the next one.
    pub(crate) theme_name: crate::ui::theme::ThemeName,
    /// `[theme] no_color`: no theme to switch to.
    pub(crate) no_color: bool,
    /// `[theme.colors]`: kept over every theme switched to.
    pub(crate) colors: crate::ui::theme::ColorOverrides,
    pub(crate) client: ApiClient,
    pub(crate) session_id: String,
    /// Per-host state on disk (`None` in the demo) and this session's copy of it: the one
    /// copy the app keeps, so cursor, draft and history writes never clobber each other.
    pub(crate) store: Option<StateStore>,
    /// Clone this to report background work back to the loop.
    pub(crate) msgs: mpsc::UnboundedSender<AppMsg>,
    msgs_rx: mpsc::UnboundedReceiver<AppMsg>,
    stream_options: stream::StreamOptions,
    stream: Option<StreamHandle>,
    /// The local event log of persisted events (`None`: nowhere to keep it).
    event_log: Option<crate::store::event_log_writer::EventLogAppender>,
    event_log_max_bytes: u64,
    frames: FrameScheduler,
    fetches: FetchQueue,
    replay: ReplayProgress,
    /// Heap trims while a long session churns entries.
    trim: heap::TrimSchedule,
    pub(crate) stats: Stats,
    quit: bool,
    fatal: Option<color_eyre::Report>,
    /// The terminal window has focus (FocusGained/FocusLost; for notifications).
    pub(crate) terminal_focused: bool,
    first_message: Option<String>,
    /// Open the changes view once started (`D` on a fleet row).
    open_changes: bool,
    /// What the open changes view shows, to read it again.
    changes_range: Option<crate::changes::session_changes::Range>,
    /// The demo keeps its sessions: quitting loses only a running turn.
    demo_kept: bool,
    was_live: bool,
    /// The stream open and saying nothing: how long, and the reads that stand in for it.
    silence: silence::StreamSilence,
    /// Whether a read waits for the request budget (the scheduler says), to show it.
    budget_wait: tokio::sync::watch::Receiver<Option<gobare_api::schedule::Wait>>,
    session_loaded: bool,
    /// Which pages of turns were read for the separators' outcomes, and which to read next.
    turn_pages: turn_pages::TurnPages,
    tick_at: Option<Instant>,
    /// When usage was last asked for while a turn runs.
    usage_read_at: Option<Instant>,
    /// Extra key bindings from the config file.
    keymap: crate::keys::keymap::KeyMap,
    /// What opens a link (`[links] open`; empty: the system's opener).
    open_command: String,
    /// A test's record of what copying would write: when set, the bytes go here and neither
    /// the terminal nor tmux's buffer is touched (a test run must not set anyone's clipboard).
    #[cfg(test)]
    pub(crate) clipboard_record: Option<Vec<u8>>,
    /// The SSH gateway from the config file; `None`: the shell key says how to set it.
    shell: Option<shell::ShellConfig>,
    /// Where saved artifacts go, each session in its own directory below (a full path).
    downloads_root: std::path::PathBuf,
    /// When the status-bar notice clears itself (questions awaiting a key do not).
    notice_expires_at: Option<Instant>,
    /// How long keys stay held after a decision (see [`decided_hold`]).
    decided_hold: decided_hold::DecidedHold,
    /// When the waiting decision was first drawn: Tab decides only one on screen a moment.
    pub(crate) decision_seen: decision_seen::DecisionSeen,
    artifacts_poll: ArtifactsPoll,
    /// An export is being written (`x`): one at a time.
    exporting: bool,
    /// The seq before which dropped entries were last read back from the local event log (a
    /// page is asked for once per position).
    read_back_before: Option<u64>,
    /// Sends, history, draft and notifications (see [`acting`]).
    pub(crate) acting: acting::Acting,
    /// Deadlines, a reclaimed workspace, the sandbox budget (see [`alarms`]); `None`
    /// with a fleet behind, whose alarms ring for every session.
    alarms: Option<crate::notify::alarms::SessionAlarms>,
    /// The "while you were away" digest (see [`away_digest`]).
    away: away_digest::AwayDigest,
    /// The fleet's slots and what waits, from the fleet behind (see [`budgets`]).
    fleet_counts: Option<crate::budget::slots::Counts>,
    /// The fleet behind the app, announcing its sessions that come to need the user.
    fleet: Option<crate::app::shared::announcements::Announcements>,
    /// The screen-reader mode's front: lines instead of frames.
    pub(crate) spoken: Option<crate::ui::screen_reader::ScreenReader>,
    /// The search index and the query running over it (see [`search`]).
    searching: search::Searching,
    /// Debug builds: panic once the first frame is drawn (see [`debug_panic`]).
    #[cfg(debug_assertions)]
    debug_panic: bool,
}

impl SessionFront {
    pub(crate) fn new(opts: AppOptions, tui: Tui) -> SessionFront {
        let (msgs, msgs_rx) = mpsc::unbounded_channel();
        let acting = acting::Acting::new(
            &opts.client,
            &opts.session_id,
            opts.store.as_ref(),
            &opts.settings,
            msgs.clone(),
        );
        // Warnings went to stderr before the screen opened and covered them.
        let session = Session::new(opts.session_id.clone())
            .with_origin(opts.api_host.clone(), opts.local_demo)
            .with_transcript_budget(opts.settings.transcript_budget)
            .with_sandbox_budget(opts.settings.budget.sandbox_minutes)
            .with_config_warnings(opts.warnings.clone());
        let spoken = opts
            .screen_reader
            .as_deref()
            .map(|why| crate::ui::screen_reader::ScreenReader::new(why, &opts.session_id));
        SessionFront {
            tui,
            session,
            screen: {
                let mut screen = Screen::new();
                screen.set_help_rows(crate::keys::table::help_rows());
                screen
            },
            theme: opts.settings.theme(),
            theme_name: opts.settings.theme_name,
            no_color: opts.settings.no_color,
            colors: opts.settings.colors.clone(),
            keymap: opts.settings.keys.clone(),
            open_command: opts.settings.open_command.clone(),
            #[cfg(test)]
            clipboard_record: None,
            shell: opts.settings.shell.clone(),
            downloads_root: crate::downloads::save_dir::root_here(
                opts.settings.downloads_dir.as_deref(),
            ),
            budget_wait: opts.client.scheduler().waiting(),
            client: opts.client,
            session_id: opts.session_id,
            store: opts.store,
            msgs,
            msgs_rx,
            stream_options: opts.stream,
            stream: None,
            event_log: None,
            event_log_max_bytes: opts.settings.event_log_max_bytes,
            frames: FrameScheduler::new(MAX_FPS),
            fetches: FetchQueue::default(),
            replay: ReplayProgress::new(false),
            trim: heap::TrimSchedule::new(Instant::now()),
            stats: Stats::from_env(),
            quit: false,
            fatal: None,
            terminal_focused: true,
            first_message: opts.first_message,
            open_changes: opts.open_changes,
            changes_range: None,
            demo_kept: opts.demo_kept,
            was_live: false,
            silence: Default::default(),
            session_loaded: false,
            turn_pages: turn_pages::TurnPages::default(),
            tick_at: None,
            usage_read_at: None,
            notice_expires_at: None,
            decided_hold: Default::default(),
            decision_seen: Default::default(),
            artifacts_poll: ArtifactsPoll::default(),
            exporting: false,
            read_back_before: None,
            acting,
            alarms: opts
                .fleet
                .is_none()
                .then(|| alarms::for_session(&opts.settings)),
            away: away_digest::AwayDigest::new(&opts.settings.away),
            fleet_counts: None,
            fleet: opts.fleet,
            spoken,
            searching: search::Searching::with_event_log_limit(opts.settings.event_log_max_bytes),
            #[cfg(debug_assertions)]
            debug_panic: debug_panic::requested(),
        }
    }

    /// Opens the stream per §11.1/§11.2 and queues the first reads; the first frame is
    /// drawn before any of them answers.
    pub(crate) fn start(&mut self) {
        self.act_restore_sensitive();
        // Before the replay: the last visit's mark is read before anything moves it.
        self.away_start();
        // The local event log first: the panes show what they showed before quitting, and the
        // stream then brings only what is new.
        let event_log_kept = self.open_event_log();
        self.session.set_event_log_here(event_log_kept);
        let mut options = self.stream_options.clone();
        options.target = StreamTarget::Session(self.session_id.clone());
        // Exact, never live-only (that would leave a gap): after the local event log's last event,
        // or the whole history (the stream task follows truncation) when there is none.
        let resume_from = self.event_log_resume_point().or(Some(0));
        if self.first_message.is_some() {
            // A new session: subscribe live-only, send once connected; a drop before the
            // first event replays the (tiny) history from 0 instead.
            options.from = None;
            options.replay_if_dropped_before_first_event = true;
        } else {
            options.from = resume_from;
        }
        self.replay = ReplayProgress::new(options.from.is_some());
        // The raw JSON is kept only to be logged.
        options.profile = stream::StreamProfile::applied_by_consumer(event_log_kept);
        self.stream = Some(stream::spawn(options));
        self.fetches.want(FetchJob::Session);
        self.fetches.want(FetchJob::Turns);
        self.fetches.want(FetchJob::Artifacts);
        self.read_token_scopes();
        if std::mem::take(&mut self.open_changes) {
            self.act_open_changes();
        }
        self.acting_start();
        self.frames.request();
    }

    /// Ctrl+R after the stream stopped for good (a refusal retrying cannot fix): a new
    /// stream, exactly after the last event applied (else where the first one started).
    pub(crate) fn reopen_stream(&mut self) {
        let mut options = self.stream_options.clone();
        options.target = StreamTarget::Session(self.session_id.clone());
        let started_from = self
            .acting
            .saved_session()
            .map(|m| m.lock_or_recover())
            .map_or(Some(0), |m| m.stream_from());
        options.from = self.session.last_seq().or(started_from);
        options.profile = stream::StreamProfile::applied_by_consumer(self.event_log.is_some());
        tracing::info!(from = ?options.from, "reopening the event stream");
        self.stream = Some(stream::spawn(options));
    }

    /// The user quit (or the terminal went away, or a signal came): the runtime ends this
    /// front.
    pub(crate) fn done(&self) -> bool {
        self.quit
    }

    /// Why the app must end, when it cannot go on (the session does not exist).
    pub(crate) fn take_fatal(&mut self) -> Option<color_eyre::Report> {
        self.fatal.take()
    }

    /// A session of the fleet behind came to need the user, or the fleet is gone.
    pub(crate) fn on_fleet_news(&mut self, news: Option<crate::fleet::news::FleetNews>) {
        match news {
            Some(news) => self.act_on_fleet_news(&news),
            None => self.fleet = None,
        }
    }

    /// The session's waits, borrowed apart, for the runtime's `select!`: its stream, its
    /// background results and the fleet behind it.
    pub(crate) fn sources(
        &mut self,
    ) -> (
        Option<&mut StreamHandle>,
        &mut mpsc::UnboundedReceiver<AppMsg>,
        Option<&mut crate::app::shared::announcements::Announcements>,
    ) {
        (self.stream.as_mut(), &mut self.msgs_rx, self.fleet.as_mut())
    }

    /// The terminal and the counters, for the next front.
    pub(crate) fn into_parts(self: Box<Self>) -> (Tui, Stats) {
        let app = *self;
        (app.tui, app.stats)
    }

    /// Saves the cursor and the statistics one last time; what the disk refused is handed
    /// back, to be said once the screen has closed.
    pub(crate) fn finish(&mut self) -> Option<unsaved::Unsaved> {
        self.close_event_log();
        self.save_cursor();
        let unsaved = self.act_flush();
        self.write_stats(Instant::now(), true);
        unsaved
    }

    /// The counters as they are now, written if due (or `force`).
    fn write_stats(&mut self, now: Instant, force: bool) {
        self.stats.frames = self.frames.frames_drawn();
        self.stats.dropped = self.session.transcript().dropped();
        self.stats.write(now, force);
    }

    /// Asks the loop to end after this turn.
    pub(crate) fn quit(&mut self) {
        self.quit = true;
    }

    /// Ends the app with an error (the terminal is restored before it is printed).
    pub(crate) fn fail(&mut self, report: color_eyre::Report) {
        self.fatal = Some(report);
        self.quit = true;
    }

    /// The screen-reader mode leaves the shell a fresh line below its input line.
    pub(crate) fn end_lines(&mut self) {
        use std::io::Write;
        if self.spoken.is_some() {
            let backend = self.tui.backend_mut();
            let _ = backend.write_all(b"\r\n").and_then(|()| backend.flush());
        }
    }

    /// The theme is still being asked: nothing is drawn until [`SessionFront::theme_known`]; the
    /// stream is applied meanwhile.
    pub(crate) fn theme_pending(&mut self) {
        self.frames.hold();
    }

    /// The theme the terminal's answer picked: the first frame may be drawn.
    pub(crate) fn theme_known(&mut self, name: crate::ui::theme::ThemeName) {
        self.theme_name = name;
        self.theme =
            Theme::for_terminal(name, self.no_color, &self.colors).unwrap_or_else(Theme::no_color);
        self.frames.release();
        self.frames.request();
    }

    /// Something visible changed: draw at the next allowed moment.
    pub(crate) fn request_frame(&mut self) {
        self.frames.request();
    }

    /// Applies an update to the model, requesting a frame when it changed what is visible.
    pub(crate) fn apply(&mut self, update: Update) {
        if self.session.apply(update) {
            self.frames.request();
        }
    }

    /// Shows (or clears) a line in the status bar; it clears itself after [`NOTICE_LIFETIME`]
    /// unless it asks a question.
    pub(crate) fn notice(&mut self, text: Option<String>) {
        match text {
            Some(text) => self.notice_at(Severity::Info, text),
            None => {
                self.notice_expires_at = None;
                self.apply(Update::Notice(None));
            }
        }
    }

    /// A status-bar line coloured by how much it matters.
    pub(crate) fn notice_at(&mut self, severity: Severity, text: String) {
        self.notice_expires_at = Some(Instant::now() + NOTICE_LIFETIME);
        self.apply(Update::Notice(Some(Notice::new(severity, text))));
    }

    /// `s`: the UI gives the terminal to `ssh` into the workspace and comes back when it
    /// exits; off (and saying how to turn it on) until `[shell]` is configured.
    pub(crate) fn open_shell(&mut self) {
        let Some(shell) = self.shell.clone() else {
            self.notice(Some(shell::HOW_TO_TURN_ON.into()));
            return;
        };
        let id = self.session_id.clone();
        let outside = self.tui.run_outside(|| shell.run(&id));
        if let Some(spoken) = &mut self.spoken {
            spoken.forget_input_line();
        }
        match outside {
            Err(e) => self.fail(e.into()),
            Ok(Ok(status)) if status.success() => self.notice(Some("back from the shell".into())),
            Ok(Ok(status)) => self.notice_at(
                Severity::Warn,
                format!("ssh ended with {status} — the UI is back"),
            ),
            Ok(Err(e)) => self.notice_at(Severity::Error, format!("could not run ssh: {e}")),
        }
    }

    /// Queues a read of `job` (coalesced, rate-limited).
    pub(crate) fn want(&mut self, job: FetchJob) {
        self.fetches.want(job);
    }
}

/// How long a status-bar notice stays before the key hints come back.
const NOTICE_LIFETIME: std::time::Duration = std::time::Duration::from_secs(10);
