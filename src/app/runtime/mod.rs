//! The one runtime: the terminal entered once, the termination signals, the settings read
//! once, and the one `tokio::select!` over terminal input, the front's own sources, its
//! timers and the signals. The front is the fleet or a session; Enter on a fleet row and
//! Ctrl+O from a session switch it in place (the alternate screen is never left between
//! them), the fleet kept live behind a session so Ctrl+O comes back to the same row.
//!
//! Nothing here awaits the network: each front runs its API calls as tasks that report back
//! as messages, so the loop always draws, reads keys and hears signals.

mod theme_asked;

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Instant;

use color_eyre::Result;
use color_eyre::eyre::{WrapErr, eyre};
use futures_util::StreamExt;
use tokio::sync::{Notify, mpsc};

use crate::app::fleet::details::READS_PER_MINUTE;
use crate::app::fleet::live::{Announcements, FleetLive, FleetNews, FleetSource, POLL_PERIOD};
use crate::app::fleet::{FleetExit, FleetFront, FleetMsg, FleetState};
use crate::app::session::{AppMsg, AppOptions, SessionFront};
use crate::app::shared::settings::Settings;
use crate::app::shared::stats::Stats;
use crate::app::shared::unsaved::Unsaved;
use crate::config::Config;
use crate::store::StateStore;
use crate::terminal::late_answers::LateAnswers;
use crate::terminal::paste_tail::PasteTail;
use crate::terminal::{self, TerminationSignals, Tui};
use gobare_api::stream::{StreamHandle, StreamTarget, StreamUpdate};
use theme_asked::ThemeAsked;

/// How often the fleet behind a session is looked at for its alarms, at most.
const FLEET_LOOK_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

const NEEDS_TTY: &str = "the full-screen interface needs an interactive terminal \
                         (for a pipe, use `gobare-tui tail`)";

/// What the runtime shows first.
pub(crate) enum Start {
    /// A session; `first_message` is a brand-new session's first message, sent once its
    /// stream is open (§11.1).
    Session {
        id: String,
        first_message: Option<String>,
    },
    /// The fleet (one crew when `root`), with `notice` on its message line and `selected`'s
    /// row selected.
    Fleet {
        notice: Option<String>,
        root: Option<String>,
        selected: Option<String>,
        /// The fleet's filter to start with (`fleet --label K=V` gives `K=V`).
        filter: Option<String>,
    },
}

/// What is in front.
enum Front {
    Session(Box<SessionFront>),
    Fleet(Box<FleetFront>),
}

/// What woke the loop.
enum Woken {
    Terminal(Option<std::io::Result<crossterm::event::Event>>),
    Stream(Option<StreamUpdate>),
    Session(AppMsg),
    Fleet(Box<FleetMsg>),
    News(Option<FleetNews>),
    Changed,
    Timer,
    Signal,
    /// The terminal answered what its background is (or did not, in time).
    Theme(crate::ui::theme::ThemeName),
}

/// A front's waits, borrowed apart from the rest of it so the one `select!` can hold them
/// all at once; the ones a front lacks stay `None` (never ready).
#[derive(Default)]
struct Sources<'a> {
    stream: Option<&'a mut StreamHandle>,
    session_msgs: Option<&'a mut mpsc::UnboundedReceiver<AppMsg>>,
    fleet_msgs: Option<&'a mut mpsc::UnboundedReceiver<FleetMsg>>,
    news: Option<&'a mut Announcements>,
    changed: Option<Arc<Notify>>,
}

/// Runs the app from `start` until the user quits, a termination signal arrives or a
/// fatal error (a session that does not exist). The terminal is restored on every way out,
/// before any error or unsaved text is printed.
pub(crate) async fn run(config: Config, start: Start) -> Result<()> {
    if let (Some(why), Start::Fleet { .. }) = (&config.screen_reader, &start) {
        // The fleet is a full screen of columns, redrawn in place: nothing a screen reader
        // can follow. Said before anything is drawn, with what does the same job in lines.
        return Err(crate::cli::UsageError(format!(
            "the fleet is a full-screen view, and the screen-reader mode is on ({why}): \
             `gobare-tui list` prints every session, the ones waiting on you first, and \
             `gobare-tui attach SESSION_ID` opens one"
        ))
        .into());
    }
    // Checked first: crossterm would otherwise fall back to /dev/tty and take over the
    // controlling terminal of a process whose output goes elsewhere.
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        return Err(eyre!(NEEDS_TTY));
    }
    let (mut settings, file_warnings) = Settings::from_sections(&config.file.sections);
    for warning in &file_warnings {
        tracing::warn!("{warning}");
        eprintln!("gobare-tui: {warning}");
    }
    let warnings: Vec<String> = config
        .warnings
        .iter()
        .cloned()
        .chain(file_warnings)
        .collect();
    // Before entering: from here on SIGTERM/SIGHUP/SIGINT are ours to handle.
    let mut signals = TerminationSignals::new()?;
    let tui = match config.screen_reader {
        Some(_) => terminal::enter_lines(),
        None => terminal::enter(true),
    }
    .wrap_err(NEEDS_TTY)?;
    let mut theme_asked = None;
    if config.screen_reader.is_none() {
        match theme_asked::ask(settings.theme_name) {
            Ok(name) => settings.theme_name = name,
            Err(asked) => theme_asked = Some(asked),
        }
    }
    let title = config
        .screen_reader
        .is_none()
        .then(crate::terminal::title::TitleKeeper::default);
    let mut runtime = Runtime {
        config,
        settings,
        warnings,
        fleet: None,
        unsaved: Vec::new(),
        title,
        counted: None,
        fleet_looked: None,
        theme_asked,
        answers: LateAnswers::default(),
        events_due: VecDeque::new(),
        fleet_filter: None,
    };
    let stats = Stats::from_env();
    let front = match start {
        Start::Session { id, first_message } => {
            runtime.session_front(tui, stats, &id, first_message, false)
        }
        Start::Fleet {
            notice,
            root,
            selected,
            filter,
        } => {
            runtime.fleet_filter = filter;
            runtime.fleet_front(tui, stats, notice, root, selected)
        }
    };
    let result = match front {
        Ok(front) => runtime.serve(front, &mut signals).await,
        Err(e) => Err(e),
    };
    // A notify command's children do not outlive the app.
    crate::notify::command::end_left_running();
    // The terminal is restored (the last front dropped) before anything is printed.
    for unsaved in runtime.unsaved.iter().filter(|u| u.has_text()) {
        // A failed write to stderr leaves nothing more to try: the log has the failure.
        let _ = unsaved.report(&std::env::temp_dir(), &mut std::io::stderr().lock());
    }
    result
}

/// What lasts across fronts.
struct Runtime {
    /// The filter the fleet starts with, taken when it is first shown.
    fleet_filter: Option<String>,
    config: Config,
    /// The config file's settings, read once (warnings said once, on the first front).
    settings: Settings,
    warnings: Vec<String>,
    /// The fleet kept live while a session is in front (`None` until first shown).
    fleet: Option<FleetState>,
    /// What the disk refused, said once the screen has closed.
    unsaved: Vec<Unsaved>,
    /// The terminal's title, counting the decisions waiting (`None`: the screen-reader mode).
    title: Option<crate::terminal::title::TitleKeeper>,
    /// The fleet's generation when its figures were last counted, and the figures.
    counted: Option<(u64, crate::budget::slots::Counts)>,
    /// When the fleet behind the session in front was last looked at for its alarms.
    fleet_looked: Option<Instant>,
    /// The `auto` theme's question while its answer is on the way: the terminal's input is
    /// not read meanwhile, and the session in front draws nothing.
    theme_asked: Option<ThemeAsked>,
    /// Late terminal answers taken out of the keys.
    answers: LateAnswers,
    /// Terminal events read and let through, handed to the front one per turn of the loop.
    events_due: VecDeque<crossterm::event::Event>,
}

impl Runtime {
    /// The loop: one `select!`, fronts switched in place.
    async fn serve(&mut self, mut front: Front, signals: &mut TerminationSignals) -> Result<()> {
        let mut events = terminal::events().lock().await;
        loop {
            let now = Instant::now();
            let housekept = match &mut front {
                Front::Session(app) => app.housekeeping(now),
                Front::Fleet(fleet) => fleet.housekeeping(now),
            };
            if let Err(e) = housekept {
                return self.end(front, Err(e));
            }
            front = match self.switch(front)? {
                Some(front) => front,
                None => return Ok(()),
            };
            self.fleet_figures(&mut front);
            self.fleet_alarms(&mut front);
            let now = Instant::now();
            // With a session in front, the fleet behind is heard at most every
            // FLEET_LOOK_EVERY: a change in between wakes the loop at the window's end.
            let look_at = self.fleet_looked.map(|at| at + FLEET_LOOK_EVERY);
            let fleet_changed = match (&front, &self.fleet) {
                (Front::Session(_), Some(fleet)) if look_at.is_none_or(|at| at <= now) => {
                    Some(fleet.live.change_signal())
                }
                _ => None,
            };
            let deadline = match &front {
                Front::Session(app) => {
                    let alarm = self.fleet.as_ref().and_then(|fleet| {
                        let due = crate::app::fleet::alarm_due(fleet.alarms.next_at(), now);
                        due.into_iter().chain(look_at.filter(|at| *at > now)).min()
                    });
                    app.next_deadline(now).into_iter().chain(alarm).min()
                }
                Front::Fleet(fleet) => fleet.next_deadline(now),
            };
            let title_due = self.title.as_ref().and_then(|t| t.due_at());
            let deadline = deadline
                .into_iter()
                .chain(self.answers.release_at())
                .chain(title_due)
                .min();
            let asking = self.theme_asked.is_some();
            let from_due = !self.events_due.is_empty();
            let woken = if let Some(event) = self.events_due.pop_front() {
                Woken::Terminal(Some(Ok(event)))
            } else {
                let sources = match &mut front {
                    Front::Session(app) => {
                        let (stream, msgs, news) = app.sources();
                        Sources {
                            stream,
                            session_msgs: Some(msgs),
                            news,
                            changed: fleet_changed,
                            ..Sources::default()
                        }
                    }
                    Front::Fleet(fleet) => {
                        let (msgs, news, changed) = fleet.sources();
                        Sources {
                            fleet_msgs: Some(msgs),
                            news: Some(news),
                            changed: Some(changed),
                            ..Sources::default()
                        }
                    }
                };
                tokio::select! {
                    event = next_event(&mut events, asking) => Woken::Terminal(event),
                    name = theme_answered(self.theme_asked.as_mut()) => Woken::Theme(name),
                    update = next_update(sources.stream) => Woken::Stream(update),
                    Some(msg) = recv(sources.session_msgs) => Woken::Session(msg),
                    Some(msg) = recv(sources.fleet_msgs) => Woken::Fleet(Box::new(msg)),
                    news = next_news(sources.news) => Woken::News(news),
                    () = notified(sources.changed) => Woken::Changed,
                    () = sleep_until(deadline) => Woken::Timer,
                    signal = signals.recv() => {
                        tracing::info!(?signal, "terminating");
                        Woken::Signal
                    }
                }
            };
            let woken = match woken {
                Woken::Theme(name) => {
                    self.theme_asked = None;
                    self.theme_known(&mut front, name);
                    continue;
                }
                Woken::Terminal(Some(Ok(event))) if !from_due => {
                    let now = Instant::now();
                    for event in with_paste_tail(event, &mut events).await {
                        let let_through = self.answers.take(event, now);
                        self.events_due.extend(let_through);
                    }
                    continue;
                }
                Woken::Timer => {
                    let released = self.answers.released(Instant::now());
                    self.events_due.extend(released);
                    Woken::Timer
                }
                woken => woken,
            };
            if let Err(e) = on_woken(&mut front, woken) {
                return self.end(front, Err(e));
            }
        }
    }

    /// The fleet's figures where a front shows them: the terminal's title counts the
    /// decisions waiting (across the fleet when it is known, else in the session in front),
    /// the session's Workspace pane shows the slots.
    fn fleet_figures(&mut self, front: &mut Front) {
        let live = match &*front {
            Front::Fleet(fleet) => Some(&fleet.state.live),
            Front::Session(_) => self.fleet.as_ref().map(|state| &state.live),
        };
        let counts = live.map(|live| {
            // Counted again only when the fleet moved on: a busy organization wakes the
            // loop thousands of times a second.
            let model = live.model();
            let generation = model.generation();
            match self.counted {
                Some((seen, counts)) if seen == generation => counts,
                _ => {
                    let counts = crate::budget::slots::Counts::of(&model);
                    self.counted = Some((generation, counts));
                    counts
                }
            }
        });
        let waiting = match (counts, &mut *front) {
            (Some(counts), _) => counts.waiting,
            (None, Front::Session(app)) => app.session.actions().listed().count(),
            (None, Front::Fleet(_)) => 0,
        };
        if let Front::Session(app) = front {
            app.set_fleet_counts(counts);
        }
        let now = Instant::now();
        let Some(bytes) = self.title.as_mut().and_then(|k| k.update(waiting, now)) else {
            return;
        };
        use std::io::Write;
        let backend = match front {
            Front::Fleet(fleet) => fleet.tui.backend_mut(),
            Front::Session(app) => app.tui.backend_mut(),
        };
        if let Err(e) = backend.write_all(&bytes).and_then(|()| backend.flush()) {
            tracing::warn!(error = %e, "could not set the terminal's title");
        }
    }

    /// The fleet's alarms, with a session in front (the fleet's front rings its own as it
    /// draws): every session's, that one's included. The fleet is looked at again at most
    /// every [`FLEET_LOOK_EVERY`], a deadline when it comes.
    fn fleet_alarms(&mut self, front: &mut Front) {
        let (Front::Session(_), Some(fleet)) = (front, self.fleet.as_mut()) else {
            self.fleet_looked = None;
            return;
        };
        let (now, wall) = (Instant::now(), gobare_api::clock::unix_ms());
        let look = self
            .fleet_looked
            .is_none_or(|at| at + FLEET_LOOK_EVERY <= now);
        if !look && fleet.alarms.next_at().is_none_or(|at| at > wall) {
            return;
        }
        let model = fleet.live.model();
        // The window starts only when there was something to look at: a quiet fleet
        // wakes nobody.
        if look && !fleet.alarms.has_looked_at(&model) {
            self.fleet_looked = Some(now);
        }
        let news = fleet.alarms.ring(&model, wall);
        drop(model);
        // Told at the fleet's pace: they come back as its news.
        for news in news {
            fleet.live.tell(news);
        }
    }

    /// The front that follows `front` when it is done; `None` when the app ends.
    fn switch(&mut self, front: Front) -> Result<Option<Front>> {
        match front {
            Front::Session(mut app) => {
                if !app.done() {
                    return Ok(Some(Front::Session(app)));
                }
                if let Some(report) = app.take_fatal() {
                    return self.end(Front::Session(app), Err(report)).map(|()| None);
                }
                if !app.acting.wants_picker() {
                    return self.end(Front::Session(app), Ok(())).map(|()| None);
                }
                let opened = app.session_id.clone();
                let inbox = app.acting.wants_inbox();
                let alarms = app.take_alarms();
                let clock = *app.session.workspace().clock();
                // A theme chosen with T lasts the run, whichever front it was chosen in.
                self.settings.theme_name = app.theme_name;
                let (tui, stats) = self.leave_session(app);
                let mut front = self.fleet_front(tui, stats, None, None, Some(opened.clone()))?;
                if let Front::Fleet(fleet) = &mut front {
                    fleet.know_clock(&opened, clock);
                    if let Some(alarms) = alarms {
                        fleet.state.alarms.adopt(&opened, alarms);
                    }
                }
                if let (true, Front::Fleet(fleet)) = (inbox, &mut front) {
                    fleet.open_inbox(&opened);
                }
                Ok(Some(front))
            }
            Front::Fleet(fleet) => {
                let (id, open_changes) = match fleet.exit().cloned() {
                    None => return Ok(Some(Front::Fleet(fleet))),
                    Some(FleetExit::Quit) => {
                        return self.end(Front::Fleet(fleet), Ok(())).map(|()| None);
                    }
                    Some(FleetExit::Open(id)) => (id, false),
                    Some(FleetExit::OpenChanges(id)) => (id, true),
                };
                let (tui, mut state, stats) = fleet.into_parts();
                state.view.select(&id);
                self.settings.theme_name = state.theme_name();
                self.fleet = Some(state);
                self.session_front(tui, stats, &id, None, open_changes)
                    .map(Some)
            }
        }
    }

    /// A session's front on `tui`, with the fleet behind it when there is one.
    fn session_front(
        &mut self,
        tui: Tui,
        stats: Stats,
        id: &str,
        first_message: Option<String>,
        open_changes: bool,
    ) -> Result<Front> {
        let warnings = self.take_warnings();
        let mut options = match AppOptions::for_session(&self.config, id, &self.settings, warnings)
        {
            Ok(options) => options,
            Err(e) => {
                // Answered while the terminal is still ours.
                self.settle_theme();
                return Err(e);
            }
        };
        options.first_message = first_message;
        options.open_changes = open_changes;
        options.fleet = self.fleet.as_ref().map(FleetState::announcements);
        let mut tui = tui;
        if let Err(e) = tui.set_mouse_capture(options.mouse) {
            tracing::warn!("cannot turn mouse capture on: {e}");
        }
        let mut app = SessionFront::new(options, tui);
        app.stats = stats;
        if self.theme_asked.is_some() {
            app.theme_pending();
        }
        app.start();
        Ok(Front::Session(Box::new(app)))
    }

    /// The fleet's front on `tui`: the fleet kept live so far, else a new one.
    fn fleet_front(
        &mut self,
        tui: Tui,
        stats: Stats,
        notice: Option<String>,
        root: Option<String>,
        selected: Option<String>,
    ) -> Result<Front> {
        // The fleet is drawn from its start: its theme is waited for.
        self.settle_theme();
        let client = self.config.client().map_err(|e| eyre!(e.summary()))?;
        let mut state = match self.fleet.take() {
            Some(state) => state,
            None => {
                let stream = self
                    .config
                    .stream_options(StreamTarget::Org { root: root.clone() }, None)
                    .map_err(|e| eyre!(e.summary()))?;
                let store = StateStore::open(&self.config.state_dir, &self.config.api).ok();
                // The org stream carries the fleet's liveness; its reads (lists, rows'
                // sessions and details) are background work, within half the budget at
                // any size, whether the fleet is in front or behind a session.
                let live = FleetLive::start(FleetSource {
                    client: client.with_class(gobare_api::schedule::RequestClass::Background),
                    stream,
                    root,
                    store: store.clone(),
                    poll_every: POLL_PERIOD,
                    reads_per_minute: READS_PER_MINUTE,
                });
                let warnings = self.take_warnings();
                let notice =
                    notice.or_else(|| (!warnings.is_empty()).then(|| warnings.join(" · ")));
                FleetState::new(live, self.settings.clone(), notice, store)
            }
        };
        state.set_theme_name(self.settings.theme_name);
        if let Some(id) = &selected {
            state.view.select(id);
        }
        if let Some(filter) = self.fleet_filter.take() {
            state.view.set_filter(filter);
        }
        let mut tui = tui;
        if let Err(e) = tui.set_mouse_capture(false) {
            tracing::warn!("cannot turn mouse capture off: {e}");
        }
        Ok(Front::Fleet(Box::new(FleetFront::new(
            tui, state, client, stats,
        ))))
    }

    /// The configuration's warnings, for the first front to show (once).
    fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Saves what the session keeps and hands back the terminal and the counters.
    fn leave_session(&mut self, mut app: Box<SessionFront>) -> (Tui, Stats) {
        if let Some(unsaved) = app.finish() {
            self.unsaved.push(unsaved);
        }
        app.end_lines();
        app.into_parts()
    }

    /// The theme, once asked, waited for here.
    fn settle_theme(&mut self) {
        if let Some(asked) = self.theme_asked.take() {
            self.settings.theme_name = asked.wait();
        }
    }

    /// The terminal's answer: the theme of the front in front and of those to come.
    fn theme_known(&mut self, front: &mut Front, name: crate::ui::theme::ThemeName) {
        self.settings.theme_name = name;
        match front {
            Front::Session(app) => app.theme_known(name),
            Front::Fleet(fleet) => fleet.state.set_theme_name(name),
        }
    }

    /// Ends the run with `front` in front: what it keeps is saved, the terminal restored.
    fn end(&mut self, front: Front, result: Result<()>) -> Result<()> {
        // A late answer would otherwise reach the shell as typed text.
        self.settle_theme();
        match front {
            Front::Session(app) => {
                let (tui, mut stats) = self.leave_session(app);
                stats.write(std::time::Instant::now(), true);
                drop(tui);
            }
            Front::Fleet(fleet) => {
                let (tui, state, mut stats) = fleet.into_parts();
                stats.write(std::time::Instant::now(), true);
                self.fleet = Some(state);
                drop(tui);
            }
        }
        match result {
            // A terminal that went away (window closed) fails the next draw or read with
            // EIO, possibly before its SIGHUP is handled: that is the user leaving.
            Err(e) if terminal::hung_up() => {
                tracing::info!("terminal hung up: {e}");
                Ok(())
            }
            result => result,
        }
    }
}

/// Hands what woke the loop to the front in front.
fn on_woken(front: &mut Front, woken: Woken) -> Result<()> {
    match (front, woken) {
        (_, Woken::Timer) => {}
        (Front::Session(app), Woken::Terminal(event)) => match event {
            Some(Ok(event)) => app.on_terminal_event(event)?,
            Some(Err(e)) => return Err(e.into()),
            None => app.quit(), // the terminal went away
        },
        (Front::Fleet(fleet), Woken::Terminal(event)) => match event {
            Some(Ok(event)) => fleet.on_terminal_event(event),
            Some(Err(e)) => return Err(e.into()),
            None => fleet.quit(),
        },
        (Front::Session(app), Woken::Signal) => app.quit(),
        (Front::Fleet(fleet), Woken::Signal) => fleet.quit(),
        (Front::Session(app), Woken::Stream(update)) => app.on_stream_update(update),
        (Front::Session(app), Woken::Session(msg)) => app.on_msg(msg),
        (Front::Session(app), Woken::News(news)) => app.on_fleet_news(news),
        (Front::Fleet(fleet), Woken::Fleet(msg)) => fleet.on_msg(*msg),
        (Front::Fleet(fleet), Woken::News(Some(news))) => fleet.on_news(&news),
        (Front::Fleet(fleet), Woken::Changed) => fleet.on_changed(),
        // A source of the other front: none is polled while it is not in front.
        _ => {}
    }
    Ok(())
}

/// `event`, and when it is a paste, what arrived with it taken into it: the paste, then the
/// first event after it that is not its own, if one had arrived.
async fn with_paste_tail(
    event: crossterm::event::Event,
    events: &mut crossterm::event::EventStream,
) -> Vec<crossterm::event::Event> {
    let crossterm::event::Event::Paste(text) = event else {
        return vec![event];
    };
    let mut paste = PasteTail::new(text);
    loop {
        // Only what has arrived already: polled once, never waited for.
        let ready = std::future::poll_fn(|cx| {
            std::task::Poll::Ready(futures_util::StreamExt::poll_next_unpin(events, cx))
        })
        .await;
        match ready {
            std::task::Poll::Ready(Some(Ok(next))) => {
                if !paste.take(&next) {
                    return vec![paste.into_paste(), next];
                }
            }
            std::task::Poll::Ready(Some(Err(e))) => {
                // The next read says it again, in its turn.
                tracing::warn!(error = %e, "terminal read failed after a paste");
                break;
            }
            std::task::Poll::Ready(None) | std::task::Poll::Pending => break,
        }
    }
    vec![paste.into_paste()]
}

/// The terminal's next event; none while the theme's answer is read (the one reader).
async fn next_event(
    events: &mut crossterm::event::EventStream,
    asking: bool,
) -> Option<std::io::Result<crossterm::event::Event>> {
    if asking {
        return std::future::pending().await;
    }
    events.next().await
}

async fn theme_answered(asked: Option<&mut ThemeAsked>) -> crate::ui::theme::ThemeName {
    match asked {
        Some(asked) => asked.answered().await,
        None => std::future::pending().await,
    }
}

async fn next_update(stream: Option<&mut StreamHandle>) -> Option<StreamUpdate> {
    match stream {
        Some(s) => s.updates.recv().await,
        None => std::future::pending().await,
    }
}

async fn recv<T>(receiver: Option<&mut mpsc::UnboundedReceiver<T>>) -> Option<T> {
    match receiver {
        Some(r) => r.recv().await,
        None => std::future::pending().await,
    }
}

async fn next_news(news: Option<&mut Announcements>) -> Option<FleetNews> {
    match news {
        Some(news) => news.next().await,
        None => std::future::pending().await,
    }
}

async fn notified(changed: Option<Arc<Notify>>) {
    match changed {
        Some(changed) => changed.notified().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d.into()).await,
        None => std::future::pending().await,
    }
}
