//! Keeps a [`FleetModel`] live: the org stream (the same resumable stream the session
//! uses, so it resumes silently from its cursor), a complete listing at the start, reads of
//! the sessions the stream asks about, first messages of untitled sessions, each row's
//! turns, usage and artifacts (read by [`DetailReader`] off this task's loop), and — when
//! the stream is refused — the list polled instead, with a note saying so. What keeps it
//! from knowing (unreachable, refused) is said as a [`Trouble`]. Sessions that come to need
//! the user, or whose turn failed, are announced once each.
//!
//! The task runs until its [`FleetLive`] is dropped, also while a session is open in front.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::StreamExt;
use gobare_api::client::{ApiClient, SessionFilter};
use gobare_api::error::ApiErrorKind;
use gobare_api::model::{EventPayload, SessionStatus, TurnStatus};
use gobare_api::stream::{self, ConnectionState, StreamOptions, StreamUpdate};
use gobare_api::text;
use tokio::sync::{Notify, broadcast, mpsc};
use tokio::time::Instant;

use super::details::{DetailAsks, DetailReader, DetailReads, DetailsRead};
use super::relisting::{self, RELIST_PERIOD, Refresh};
pub use crate::app::shared::announcements::Announcements;
use crate::fleet::announced::Announced;
use crate::fleet::model::{Applied, FleetModel};
pub use crate::fleet::news::FleetNews;
use crate::fleet::news::{announcement, news_title};
use crate::fleet::pacer::Pacer;
use crate::fleet::trouble::Trouble;
use crate::notify::choice::NotifyChoice;
use crate::sessions::first_message;
use crate::sessions::left_out::LeftOut;
use crate::sessions::list_all;
use crate::store::StateStore;

/// How long reads the stream asked for are gathered before they are made: at thousands of
/// events a second, one read per session per event would spend the rate budget in a blink.
const REFRESH_DELAY: Duration = Duration::from_secs(2);
/// How far past the fleet's opening a todos replay reads ([`super::todos_replay`]).
const REPLAY_OVERLAP_MS: i64 = 10_000;
/// Reads in flight at once.
const CONCURRENT_READS: usize = 4;
/// How often the list is read while the stream is refused.
pub const POLL_PERIOD: Duration = Duration::from_secs(10);
/// How often a working session's usage is read again.
const USAGE_PERIOD: Duration = Duration::from_secs(60);
/// The longest wait between attempts at a list that fails.
const LONGEST_RETRY: Duration = Duration::from_secs(30);
/// How long the first listing waits for the org stream to open.
const OPEN_WAIT: Duration = Duration::from_secs(3);
/// Stream updates applied under one lock.
const BATCH: usize = 512;
/// Announcements a listener may fall behind by; older ones are dropped (a flood of them is
/// not read one by one anyway).
const ANNOUNCEMENTS: usize = 256;

/// A live fleet: the shared model and what wakes its viewers.
pub struct FleetLive {
    model: Arc<Mutex<FleetModel>>,
    changed: Arc<Notify>,
    needs_you: broadcast::Sender<FleetNews>,
    /// The fleet screen's own listener.
    announced: Announcements,
    details: mpsc::UnboundedSender<Vec<String>>,
    /// What is told, paced: what the task and the fronts' alarms hear.
    paced: Paced,
    /// Where the workspace clocks are kept across runs.
    store: Option<StateStore>,
    /// The org stream's options: an absence's replay opens one of its own.
    stream: StreamOptions,
    task: tokio::task::JoinHandle<()>,
}

/// The fleet's news on its way to being told ([`crate::fleet::pacer`]), shared by the task and
/// the fronts (their alarms), and the kinds `[notify] on` chose.
#[derive(Clone, Default)]
struct Paced {
    pacer: Arc<Mutex<Pacer>>,
    choice: Arc<Mutex<NotifyChoice>>,
    /// Wakes the task when news was heard.
    heard: Arc<Notify>,
}

impl Paced {
    fn hear(&self, news: FleetNews) {
        let wanted = self
            .choice
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .wants(news.kind);
        if wanted {
            let mut pacer = self.pacer.lock().unwrap_or_else(|p| p.into_inner());
            pacer.hear(news, Instant::now());
            self.heard.notify_one();
        }
    }

    fn pacer(&self) -> MutexGuard<'_, Pacer> {
        self.pacer.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for FleetLive {
    fn drop(&mut self) {
        self.task.abort();
        // What was learnt since the last minute's save is not lost with the run.
        if let Some(store) = &self.store {
            let clocks = saved_clocks(&lock(&self.model));
            if let Err(e) = store.save_workspace_clocks(&clocks) {
                tracing::warn!("cannot keep the workspace clocks: {e}");
            }
        }
    }
}

/// What the task needs to reach the API.
pub struct FleetSource {
    pub client: ApiClient,
    /// The org stream's options (target `Org`, live from now).
    pub stream: StreamOptions,
    /// `Some(id)`: one crew (that session and its subtree).
    pub root: Option<String>,
    pub store: Option<StateStore>,
    /// How often the list is read while the stream is refused ([`POLL_PERIOD`]).
    pub poll_every: Duration,
    /// The share of the rate budget each row's own reads take
    /// ([`super::details::READS_PER_MINUTE`]).
    pub reads_per_minute: u32,
}

impl FleetLive {
    /// Starts keeping a fleet live on the current runtime.
    pub fn start(source: FleetSource) -> FleetLive {
        let model = Arc::new(Mutex::new(FleetModel::new()));
        let changed = Arc::new(Notify::new());
        let (needs_you, receiver) = broadcast::channel(ANNOUNCEMENTS);
        let (details, wanted) = mpsc::unbounded_channel();
        let paced = Paced::default();
        let store = source.store.clone();
        let stream = source.stream.clone();
        let task = crate::app::shared::jobs::spawn(
            crate::app::shared::jobs::Job::FleetLive,
            run(
                source,
                model.clone(),
                changed.clone(),
                needs_you.clone(),
                wanted,
                paced.clone(),
            ),
        );
        FleetLive {
            model,
            changed,
            needs_you,
            announced: Announcements::new(receiver),
            details,
            paced,
            store,
            stream,
            task,
        }
    }

    /// The digest's record of an absence the fleet did not see (it was not running),
    /// from the org stream replayed from where it was ([`super::absence_replay`]).
    pub(crate) fn absence_replay(
        &self,
        client: ApiClient,
        replay: super::absence_replay::Replay,
    ) -> impl std::future::Future<Output = Option<crate::away::fleet_record::AbsenceRecord>>
    + Send
    + 'static {
        super::absence_replay::replay(client, self.stream.clone(), self.model.clone(), replay)
    }

    /// The kinds of news to tell (`[notify] on`); others are never heard.
    pub(crate) fn choose(&self, choice: &NotifyChoice) {
        *self.paced.choice.lock().unwrap_or_else(|p| p.into_inner()) = choice.clone();
    }

    /// News a front found (an alarm), told at the fleet's pace like the rest.
    pub(crate) fn tell(&self, news: FleetNews) {
        self.paced.hear(news);
    }

    /// The model, locked (briefly: the task waits while it is held).
    pub fn model(&self) -> MutexGuard<'_, FleetModel> {
        lock(&self.model)
    }

    /// Resolves when something visible changed since the last call.
    pub async fn changed(&self) {
        self.changed.notified().await
    }

    /// What [`FleetLive::changed`] waits on, to wait without borrowing the fleet.
    pub fn change_signal(&self) -> Arc<Notify> {
        self.changed.clone()
    }

    /// The next session that came to need the user.
    pub async fn next_needs_you(&mut self) -> Option<FleetNews> {
        self.announced.next().await
    }

    /// The fleet's own listener, to wait on without borrowing the rest of the fleet.
    pub(crate) fn announced_mut(&mut self) -> &mut Announcements {
        &mut self.announced
    }

    /// A listener of its own for the sessions that come to need the user from now on (for
    /// the app on a session while the fleet is kept live behind it).
    pub fn announcements(&self) -> Announcements {
        Announcements::new(self.needs_you.subscribe())
    }

    /// Rows worth their usage and artifacts: read once each (again after their turn ends).
    pub fn want_details(&self, ids: &[String]) {
        let _ = self.details.send(ids.to_vec());
    }

    /// Forgets the sessions that came to need the user so far, told or still being held.
    pub fn drain_needs_you(&mut self) {
        self.announced = self.announcements();
        self.paced.pacer().forget_heard();
    }

    /// A session read or written here (renamed, forked) shows at once.
    pub fn apply_session(&self, session: &gobare_api::model::Session) {
        let applied = self.model().apply_session(session);
        if applied.visible {
            self.changed.notify_one();
        }
    }

    /// A session deleted here leaves at once.
    pub fn forget(&self, id: &str) {
        let applied = self.model().remove(id);
        if applied.visible {
            self.changed.notify_one();
        }
    }
}

fn lock(model: &Mutex<FleetModel>) -> MutexGuard<'_, FleetModel> {
    // A panic while applying leaves a model that is still one of its states.
    model
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

struct Task {
    client: ApiClient,
    /// Sessions whose details were asked for (all rows once; again as their turns end).
    detailed: Mutex<std::collections::HashSet<String>>,
    filter: SessionFilter,
    store: Option<StateStore>,
    model: Arc<Mutex<FleetModel>>,
    changed: Arc<Notify>,
    needs_you: broadcast::Sender<FleetNews>,
    /// The server, as the trouble lines name it.
    host: String,
    asks: DetailAsks,
    announced: Mutex<Announced>,
    /// When the list was last asked for: lists the stream asks for keep a gap between them.
    last_listed: Mutex<Option<Instant>>,
    /// The stream dropped and is being reopened: its next `Live` is a reconnect.
    reconnecting: std::sync::atomic::AtomicBool,
    paced: Paced,
}

/// How a list read went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listed {
    Read,
    /// Failed; `retries`: trying again can help.
    Failed {
        retries: bool,
    },
}

impl Task {
    fn report(&self, applied: Applied, news: impl IntoIterator<Item = FleetNews>) {
        if applied.visible {
            self.changed.notify_one();
        }
        for one in news {
            self.paced.hear(one);
        }
    }

    /// What the pacer has to tell now, told to every listener.
    fn tell_paced(&self) {
        let model = lock(&self.model);
        let told = self.paced.pacer().take_due_of(Instant::now(), &model);
        drop(model);
        if let Some(news) = told {
            // No listener now (none has subscribed yet): nobody to tell.
            let _ = self.needs_you.send(news);
        }
    }

    fn announced(&self) -> MutexGuard<'_, Announced> {
        self.announced.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The rows of `ids` that wait on an action not told yet, as news.
    fn news_of_waiting<'a>(
        &self,
        model: &FleetModel,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Vec<FleetNews> {
        let mut announced = self.announced();
        ids.into_iter()
            .filter_map(|id| {
                let row = model.get(id)?;
                // Every new call is marked told, even when one line tells them all.
                let fresh = row.waiting.iter().fold(None, |fresh, (call, _)| {
                    if announced.call(call) {
                        fresh.or(Some(call.as_str()))
                    } else {
                        fresh
                    }
                });
                announcement(model, id.to_string(), fresh?)
            })
            .collect()
    }

    /// Reads the whole list; on failure the trouble says why and when it is tried again.
    async fn list(&self, retry_in: Duration) -> Listed {
        *self.last_listed.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
        match list_all(&self.client, &self.filter).await {
            Ok(listed) => {
                let sessions = listed.items;
                let mut model = lock(&self.model);
                // A cut list and entries that could not be read are both said.
                let left_out = LeftOut::of_list(&listed.unreadable, &sessions).sentence();
                let cut = listed
                    .cut
                    .map(|cut| format!("showing part of the sessions: {cut}"));
                let notes: Vec<String> = cut.into_iter().chain(left_out).collect();
                let noted = !notes.is_empty() && model.set_note(Some(notes.join("; "))).visible;
                // A refused stream stays refused however the list goes.
                let cleared = !matches!(model.trouble(), Some(Trouble::StreamRefused { .. }))
                    && model.set_trouble(None).visible;
                // What waits at the first listing was waiting before the fleet opened.
                let first = !model.is_loaded();
                let mut applied = model.apply_full_list(&sessions);
                applied.visible |= noted || cleared;
                let fresh = if first {
                    let calls = model
                        .rows()
                        .flat_map(|r| r.waiting.iter().map(|(call, _)| call.as_str()));
                    self.announced().already_waiting(calls);
                    self.ask_every_row(&model);
                    Vec::new()
                } else {
                    self.news_of_waiting(&model, sessions.iter().map(|s| s.id.as_str()))
                };
                drop(model);
                self.report(applied, fresh);
                Listed::Read
            }
            Err(e) => {
                let retry_at = gobare_api::clock::unix_ms() + retry_in.as_millis() as i64;
                let trouble = Trouble::of_list(&e, &self.host, retry_at);
                let retries = trouble.retries();
                let applied = lock(&self.model).set_trouble(Some(trouble));
                self.report(applied, []);
                Listed::Failed { retries }
            }
        }
    }

    /// Every row's turns, usage and artifacts, the ones running a turn first: read once at
    /// the start, then as turns end.
    fn ask_every_row(&self, model: &FleetModel) {
        self.detailed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(model.rows().map(|r| r.id.clone()));
        let running = model
            .rows()
            .filter(|r| model.lacks_turn_clock(&r.id) || r.status == SessionStatus::Working);
        for row in running {
            self.asks.want(&row.id, DetailReads::TURNS, false);
        }
        // A decision's deadline needs its workspace's running time: theirs before any
        // other read, those not known at all first (one kept by the last run shows a
        // deadline already; its usage says better, after).
        let waiting = || model.rows().filter(|r| !r.waiting.is_empty());
        for row in waiting().filter(|r| !model.waits().deadline_known(&r.id)) {
            self.asks.want_deadline(&row.id);
        }
        for row in waiting().filter(|r| model.waits().deadline_known(&r.id)) {
            if !model.waits().clock_known(&row.id) {
                self.asks.want(&row.id, DetailReads::USAGE, true);
            }
        }
        for row in model.rows() {
            self.asks.want(
                &row.id,
                DetailReads {
                    turns: false,
                    usage: true,
                    artifacts: true,
                    todos: false,
                },
                false,
            );
        }
    }

    /// Reads the sessions first seen on the stream: one by one, or the list when many wait
    /// (see [`relisting::refresh`]); those left wait for the next round.
    async fn refresh(&self) {
        let ids = lock(&self.model).take_refreshes();
        if ids.is_empty() {
            return;
        }
        let last_listed = *self.last_listed.lock().unwrap_or_else(|p| p.into_inner());
        let read_now = match relisting::refresh(ids, last_listed, Instant::now()) {
            Refresh::List => None,
            Refresh::Read { now, later } => {
                lock(&self.model).refresh_later(later);
                Some(now)
            }
        };
        if let Some(ids) = read_now {
            let reads = futures_util::stream::iter(ids)
                .map(|id| async move {
                    let read = self.client.get_session(&id).await;
                    (id, read)
                })
                .buffer_unordered(CONCURRENT_READS)
                .collect::<Vec<_>>()
                .await;
            let mut model = lock(&self.model);
            let mut applied = Applied::default();
            let mut read_ids = Vec::new();
            for (id, read) in reads {
                let one = match read {
                    Ok(session) => {
                        read_ids.push(id);
                        model.apply_session(&session)
                    }
                    Err(e) if e.kind == ApiErrorKind::NotFound => model.remove(&id),
                    Err(e) => {
                        tracing::warn!(session = %text::line(&id), error = %e, "fleet read failed");
                        Applied::default()
                    }
                };
                applied.visible |= one.visible;
            }
            let fresh = self.news_of_waiting(&model, read_ids.iter().map(String::as_str));
            // A decision first seen here: its deadline's usage before any other read.
            for id in &read_ids {
                let waits = model.get(id).is_some_and(|r| !r.waiting.is_empty());
                if waits && !model.waits().deadline_known(id) {
                    self.asks.want_deadline(id);
                }
            }
            drop(model);
            // Sessions first seen on the stream: read like every other row.
            let mut detailed = self.detailed.lock().unwrap_or_else(|p| p.into_inner());
            for id in read_ids {
                if detailed.insert(id.clone()) {
                    self.asks.want(&id, DetailReads::ALL, false);
                }
            }
            drop(detailed);
            self.report(applied, fresh);
        } else {
            self.list(POLL_PERIOD).await;
        }
        self.label().await;
    }

    /// Rows on screen: what of them waits to be read is read before the rest.
    fn details(&self, ids: Vec<String>) {
        let mut detailed = self.detailed.lock().unwrap_or_else(|p| p.into_inner());
        let (mut unread, mut read) = (Vec::new(), Vec::new());
        for id in ids {
            if detailed.insert(id.clone()) {
                unread.push(id);
            } else {
                read.push(id);
            }
        }
        drop(detailed);
        self.asks.hurry(read);
        // Urgent asks go to the front, the last asked first: every row's figures, then
        // every row's clock ahead of them, each in the rows' order.
        for id in unread.iter().rev() {
            self.asks.want(id, DetailReads::FIGURES, true);
        }
        for id in unread.iter().rev() {
            self.asks.want(id, DetailReads::TURNS, true);
        }
    }

    /// What one session's reads found.
    fn found(&self, read: DetailsRead) {
        let mut model = lock(&self.model);
        if read.gone {
            let applied = model.remove(&read.id);
            drop(model);
            self.report(applied, []);
            return;
        }
        let mut applied = model.set_details(&read.id, read.sandbox_seconds, read.artifacts);
        if let (Some(seconds), Some(as_of)) = (read.sandbox_seconds, read.usage_as_of) {
            applied.visible |= model.know_usage(&read.id, seconds, as_of).visible;
        }
        if read.no_usage {
            applied.visible |= model.no_usage(&read.id).visible;
        }
        let mut fresh = Vec::new();
        if let Some(found) = read.todos {
            applied.visible |= model.set_replayed_todos(&read.id, found).visible;
        }
        if let Some(turns) = &read.turns {
            if let Some(absence) = model.absence_mut() {
                for (turn, status) in &turns.ended {
                    let reason = turns.reasons.iter().find(|(t, _)| t == turn);
                    absence.turn_outcome(&read.id, turn, status, reason.map(|(_, r)| r.as_str()));
                }
            }
            applied.visible |= model.set_turns(&read.id, turns).visible;
            if model.ask_todos(&read.id) {
                self.asks.want(&read.id, DetailReads::TODOS, false);
            }
            let mut announced = self.announced();
            for (turn, status) in &turns.ended {
                if !announced.turn_read(turn, *status == TurnStatus::Failed) {
                    continue;
                }
                // A turn fails when its workspace is reclaimed, and only the session
                // resource says so (`destroyed` has no event): read it.
                model.refresh_later(vec![read.id.clone()]);
                if let Some(row) = model.get(&read.id) {
                    fresh.push(FleetNews {
                        id: read.id.clone(),
                        line: row.turn_failed_line(),
                        kind: crate::notify::kind::NotifyKind::TurnFailed,
                        title: news_title(row),
                        expires_at: None,
                        call: None,
                        what: "turn failed".into(),
                        count: 1,
                        need_you: None,
                    });
                }
            }
        }
        drop(model);
        self.report(applied, fresh);
    }

    /// The usage of every working session and running workspace, read again (at most once
    /// per [`USAGE_PERIOD`]).
    fn ask_usage_of_working(&self) {
        let model = lock(&self.model);
        // A running workspace accrues sandbox time though no turn works (one parked on a
        // decision keeps it running): its usage too, for the `[budget]` alarm.
        let accrues = |r: &&crate::fleet::model::FleetRow| {
            r.status == SessionStatus::Working
                || r.workspace == Some(gobare_api::model::WorkspaceState::Running)
        };
        for row in model.rows().filter(accrues) {
            self.asks.want_again(&row.id, DetailReads::USAGE, false);
        }
    }

    /// Keeps the workspace clocks known for the next run.
    fn save_clocks(&self) {
        let Some(store) = &self.store else {
            return;
        };
        let clocks = saved_clocks(&lock(&self.model));
        if let Err(e) = store.save_workspace_clocks(&clocks) {
            tracing::warn!("cannot keep the workspace clocks: {e}");
        }
    }

    /// Clocks an earlier run kept: known at once, until a session's own history or usage.
    fn restore_clocks(&self) {
        let Some(store) = &self.store else {
            return;
        };
        let mut model = lock(&self.model);
        for (id, ran_ms, running_since, published) in store.workspace_clocks() {
            let clock = crate::deadline::WorkspaceClock::restored(ran_ms, running_since, published);
            model.waits_mut().know_clock(&id, clock);
        }
    }

    /// First messages of untitled sessions: remembered ones at once, the rest read.
    async fn label(&self) {
        let missing = lock(&self.model).missing_labels();
        if missing.is_empty() {
            return;
        }
        let remembered: std::collections::HashMap<String, String> = self
            .store
            .as_ref()
            .map(StateStore::first_messages)
            .unwrap_or_default()
            .into_iter()
            .collect();
        let (known, unknown): (Vec<String>, Vec<String>) = missing
            .into_iter()
            .partition(|id| remembered.contains_key(id));
        let found: Vec<(String, String)> = futures_util::stream::iter(unknown)
            .map(|id| async move {
                match first_message::first_message(&self.client, &id).await {
                    Ok(Some(message)) => Some((id, message)),
                    Ok(None) => None,
                    Err(e) => {
                        tracing::warn!(session = %text::line(&id), error = %e, "no first message");
                        None
                    }
                }
            })
            .buffer_unordered(CONCURRENT_READS)
            .filter_map(|found| async move { found })
            .collect()
            .await;
        if let Some(store) = &self.store
            && let Err(e) = store.add_first_messages(&found)
        {
            tracing::warn!("cannot remember first messages: {e}");
        }
        let mut model = lock(&self.model);
        let mut applied = Applied::default();
        for id in known {
            applied.visible |= model.set_first_message(&id, &remembered[&id]).visible;
        }
        for (id, message) in &found {
            applied.visible |= model.set_first_message(id, message).visible;
        }
        drop(model);
        self.report(applied, []);
    }

    /// Applies stream updates under one lock and announces the sessions that came to need
    /// the user.
    fn apply(
        &self,
        updates: Vec<StreamUpdate>,
        org: &mut Option<stream::StreamHandle>,
        poll_at: &mut Option<Instant>,
        refresh_at: &mut Option<Instant>,
        poll_every: Duration,
    ) {
        let mut applied = Applied::default();
        let mut fresh = Vec::new();
        let mut stopped = false;
        let mut model = lock(&self.model);
        let mut announced = self.announced();
        let mut missed = false;
        for update in updates {
            let reconnecting = self.reconnecting.load(std::sync::atomic::Ordering::Relaxed);
            missed |= relisting::may_have_missed(&update, reconnecting);
            if relisting::lost_events(&update) {
                // The workspace clocks may have missed a pause or a rebuild: the waiting
                // sessions' usage says again how long theirs ran.
                model.history_gap();
                for row in model.rows().filter(|r| !r.waiting.is_empty()) {
                    self.asks.want_deadline(&row.id);
                }
            }
            match update {
                StreamUpdate::Frame(frame) => {
                    let Ok(event) = &frame.event else { continue };
                    let one = model.apply_event(event);
                    applied.visible |= one.visible;
                    let Some(id) = &event.session_id else {
                        continue;
                    };
                    match &event.payload {
                        EventPayload::TurnEnded(ended) if event.seq.is_some() => {
                            announced.turn_ended(&ended.turn_id);
                            self.asks.want_again(id, DetailReads::TURNS_AND_USAGE, true);
                        }
                        payload => {
                            if let Some(call) = waiting_call(payload)
                                && event.seq.is_some()
                                && announced.call(call)
                            {
                                // Its deadline counts the workspace's running time.
                                if !model.waits().deadline_known(id) {
                                    self.asks.want_deadline(id);
                                } else if !model.waits().clock_known(id) {
                                    self.asks.want(id, DetailReads::USAGE, true);
                                }
                                fresh.extend(announcement(&model, id.to_string(), call));
                            }
                        }
                    }
                }
                StreamUpdate::State(ConnectionState::Failed { reason }) => {
                    stopped = true;
                    // A refused token says more than the stream refused with it, and
                    // polling would only be refused too.
                    if !matches!(model.trouble(), Some(Trouble::TokenRefused { .. })) {
                        let trouble = Trouble::of_stream_refusal(&reason, poll_every);
                        applied.visible |= model.set_trouble(Some(trouble)).visible;
                        *poll_at = Some(Instant::now() + poll_every);
                    }
                }
                // Back once open: a quiet organization says nothing until its first ping.
                StreamUpdate::State(
                    ConnectionState::Live | ConnectionState::Open { silent_before: 0 },
                ) => {
                    self.reconnecting
                        .store(false, std::sync::atomic::Ordering::Relaxed);
                    applied.visible |= model.set_note(None).visible;
                }
                StreamUpdate::State(ConnectionState::Connecting { attempt }) if attempt > 1 => {
                    self.reconnecting
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                    let note = format!(
                        "org stream dropped · reconnecting (attempt {attempt}) · rows may lag"
                    );
                    applied.visible |= model.set_note(Some(note)).visible;
                }
                StreamUpdate::State(ConnectionState::Open { silent_before })
                    if silent_before > 0 =>
                {
                    self.reconnecting
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                    let note = "org stream connected but silent (no frame, no keep-alive) · \
                                rows follow the list · rows may lag"
                        .to_string();
                    applied.visible |= model.set_note(Some(note)).visible;
                }
                StreamUpdate::State(ConnectionState::Retrying { in_ms, .. }) => {
                    self.reconnecting
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                    // Until it is back, rows change only by the list's reads: say so.
                    let when = match in_ms.div_ceil(1000) {
                        0 => "now".to_string(),
                        secs => format!("in {secs} s"),
                    };
                    let note = format!("org stream dropped · reconnecting {when} · rows may lag");
                    applied.visible |= model.set_note(Some(note)).visible;
                }
                _ => {}
            }
        }
        drop(announced);
        if stopped {
            *org = None;
        } else if missed {
            // What the stream may have missed is in the list.
            let last_listed = *self.last_listed.lock().unwrap_or_else(|p| p.into_inner());
            let at = relisting::next_list_at(last_listed, Instant::now());
            *poll_at = Some(poll_at.map_or(at, |due| due.min(at)));
        }
        if model.wants_refresh() && refresh_at.is_none() {
            *refresh_at = Some(Instant::now() + REFRESH_DELAY);
        }
        drop(model);
        self.report(applied, fresh);
    }
}

/// The known workspace clocks as the store keeps them.
fn saved_clocks(model: &FleetModel) -> Vec<(String, i64, Option<i64>, bool)> {
    model
        .waits()
        .clocks()
        .filter_map(|(id, clock)| {
            let (ran, since, published) = clock.saved()?;
            Some((id.to_string(), ran, since, published))
        })
        .collect()
}

/// The required action an event says the session now waits on.
fn waiting_call(payload: &EventPayload) -> Option<&str> {
    match payload {
        EventPayload::ApprovalRequested(a) => Some(&a.tool_call_id),
        EventPayload::QuestionAsked(q) => Some(&q.tool_call_id),
        EventPayload::ToolRequired(f) => Some(&f.tool_call_id),
        _ => None,
    }
}

/// The org stream's updates until it is open (or retrying, refused, or [`OPEN_WAIT`]
/// passed): the stream starts live from the moment it opens, so a list read before that
/// could miss what happens in between.
async fn until_open(handle: &mut stream::StreamHandle) -> Vec<StreamUpdate> {
    let mut early = Vec::new();
    let deadline = Instant::now() + OPEN_WAIT;
    while let Ok(Some(update)) = tokio::time::timeout_at(deadline, handle.updates.recv()).await {
        // Retrying or refused: waiting longer would only delay the list.
        let open = matches!(
            update,
            StreamUpdate::State(
                ConnectionState::Live
                    | ConnectionState::Open { .. }
                    | ConnectionState::Retrying { .. }
                    | ConnectionState::Failed { .. }
            )
        );
        early.push(update);
        if open {
            break;
        }
    }
    early
}

/// The server as the trouble lines name it: host and port.
fn host_of(url: &url::Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_string(),
        (None, _) => url.as_str().to_string(),
    }
}

/// The wait before the next attempt at a list that failed `failures` times in a row.
fn retry_after(failures: u32) -> Duration {
    Duration::from_secs(1u64 << failures.min(5)).min(LONGEST_RETRY)
}

async fn run(
    source: FleetSource,
    model: Arc<Mutex<FleetModel>>,
    changed: Arc<Notify>,
    needs_you: broadcast::Sender<FleetNews>,
    mut wanted: mpsc::UnboundedReceiver<Vec<String>>,
    paced: Paced,
) {
    let poll_every = source.poll_every;
    // The org stream has every event from about now on: a replay reaches a little past it,
    // so the seconds before the stream is live are covered twice rather than not at all.
    let opened_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let mut reader = DetailReader::start(
        source
            .client
            .with_class(gobare_api::schedule::RequestClass::Background),
        source.stream.clone(),
        opened_at.saturating_add(REPLAY_OVERLAP_MS),
        source.reads_per_minute,
    );
    let task = Task {
        client: source.client,
        detailed: Mutex::default(),
        filter: SessionFilter {
            root: source.root,
            ..SessionFilter::default()
        },
        store: source.store,
        model,
        changed,
        needs_you,
        host: host_of(&source.stream.api),
        asks: reader.asks(),
        announced: Mutex::default(),
        last_listed: Mutex::default(),
        reconnecting: std::sync::atomic::AtomicBool::new(false),
        paced,
    };
    task.restore_clocks();
    // Listed once the stream is open: what happens while the list is read comes on the
    // stream, and what happened before it is in the list.
    let mut options = source.stream;
    options.profile = gobare_api::stream::StreamProfile::EVENTS_ONLY;
    let mut handle = stream::spawn(options);
    let early = until_open(&mut handle).await;
    let mut org = Some(handle);
    let mut failures = 0;
    let mut refresh_at: Option<Instant> = None;
    let mut poll_at: Option<Instant> = match task.list(retry_after(failures)).await {
        Listed::Read => {
            task.label().await;
            Some(Instant::now() + RELIST_PERIOD)
        }
        Listed::Failed { retries } => {
            failures += 1;
            retries.then(|| Instant::now() + retry_after(0))
        }
    };
    if !early.is_empty() {
        task.apply(early, &mut org, &mut poll_at, &mut refresh_at, poll_every);
    }
    let mut usage_at = Instant::now() + USAGE_PERIOD;
    loop {
        let pace_at = task.paced.pacer().next_at();
        tokio::select! {
            update = async { org.as_mut()?.updates.recv().await }, if org.is_some() => {
                let Some(update) = update else {
                    org = None;
                    poll_at = Some(Instant::now() + poll_every);
                    continue;
                };
                let mut updates = vec![update];
                if let Some(handle) = org.as_mut() {
                    while updates.len() < BATCH {
                        match handle.updates.try_recv() {
                            Ok(more) => updates.push(more),
                            Err(_) => break,
                        }
                    }
                }
                task.apply(updates, &mut org, &mut poll_at, &mut refresh_at, poll_every);
            }
            Some(ids) = wanted.recv() => task.details(ids),
            Some(read) = reader.found.recv() => {
                task.found(read);
                if refresh_at.is_none() && lock(&task.model).wants_refresh() {
                    refresh_at = Some(Instant::now() + REFRESH_DELAY);
                }
            }
            _ = sleep_until(refresh_at), if refresh_at.is_some() => {
                task.refresh().await;
                refresh_at = lock(&task.model)
                    .wants_refresh()
                    .then(|| Instant::now() + REFRESH_DELAY);
            }
            _ = task.paced.heard.notified() => {}
            _ = sleep_until(pace_at) => task.tell_paced(),
            _ = tokio::time::sleep_until(usage_at) => {
                usage_at = Instant::now() + USAGE_PERIOD;
                task.ask_usage_of_working();
                task.save_clocks();
            }
            _ = sleep_until(poll_at), if poll_at.is_some() => {
                let every = if org.is_some() { RELIST_PERIOD } else { poll_every };
                let wait = retry_after(failures).min(every);
                poll_at = match task.list(wait).await {
                    Listed::Read => {
                        failures = 0;
                        task.label().await;
                        Some(Instant::now() + every)
                    }
                    Listed::Failed { retries } => {
                        failures += 1;
                        retries.then(|| Instant::now() + wait)
                    }
                };
            }
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
