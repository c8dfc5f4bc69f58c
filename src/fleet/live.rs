//! Keeps a [`FleetModel`] live: the org stream (the same resumable stream the session
//! uses, so it resumes silently from its cursor), a complete listing at the start, reads of
//! the sessions the stream asks about, first messages of untitled sessions, and — when the
//! stream is refused — the list polled instead, with a note saying so.
//!
//! The task runs until its [`FleetLive`] is dropped, also while a session is open in front.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::StreamExt;
use gobare_api::client::{ApiClient, Order, Page, SessionFilter};
use gobare_api::error::ApiErrorKind;
use gobare_api::stream::{self, ConnectionState, StreamOptions, StreamUpdate};
use gobare_api::text;
use tokio::sync::{Notify, broadcast, mpsc};
use tokio::time::Instant;

use super::model::{Applied, FleetModel};
use crate::app::first_message;
use crate::app::sessions::list_all;
use crate::store::StateStore;

/// How long reads the stream asked for are gathered before they are made: at thousands of
/// events a second, one read per session per event would spend the rate budget in a blink.
const REFRESH_DELAY: Duration = Duration::from_secs(2);
/// More sessions to read than this: list them all instead (a few pages).
const MOST_SINGLE_READS: usize = 20;
/// Reads in flight at once.
const CONCURRENT_READS: usize = 4;
/// How often the list is read while the stream is refused.
pub const POLL_PERIOD: Duration = Duration::from_secs(10);
/// How often the whole list is read while the stream runs: no event says a session was
/// deleted elsewhere.
const RELIST_PERIOD: Duration = Duration::from_secs(60);
/// How long the first listing waits for the org stream to open.
const OPEN_WAIT: Duration = Duration::from_secs(3);
/// Stream updates applied under one lock.
const BATCH: usize = 512;
/// Announcements a listener may fall behind by; older ones are dropped (a flood of them is
/// not read one by one anyway).
const ANNOUNCEMENTS: usize = 256;

/// A session that came to need the user, and the line that says so ("Nightly: needs you:
/// approval"; sanitized, one line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeedsYou {
    pub id: String,
    pub line: String,
}

/// The sessions that come to need the user from the moment it was made, for whoever shows
/// them: the fleet screen, or the app on a session in front of the fleet.
pub struct Announcements {
    receiver: broadcast::Receiver<NeedsYou>,
}

impl Announcements {
    /// The next session that came to need the user; `None` once the fleet is gone.
    pub async fn next(&mut self) -> Option<NeedsYou> {
        loop {
            match self.receiver.recv().await {
                Ok(news) => return Some(news),
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

/// A live fleet: the shared model and what wakes its viewers.
pub struct FleetLive {
    model: Arc<Mutex<FleetModel>>,
    changed: Arc<Notify>,
    needs_you: broadcast::Sender<NeedsYou>,
    /// The fleet screen's own listener.
    announced: Announcements,
    details: mpsc::UnboundedSender<Vec<String>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FleetLive {
    fn drop(&mut self) {
        self.task.abort();
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
}

impl FleetLive {
    /// Starts keeping a fleet live on the current runtime.
    pub fn start(source: FleetSource) -> FleetLive {
        let model = Arc::new(Mutex::new(FleetModel::new()));
        let changed = Arc::new(Notify::new());
        let (needs_you, receiver) = broadcast::channel(ANNOUNCEMENTS);
        let (details, wanted) = mpsc::unbounded_channel();
        let task = tokio::spawn(run(
            source,
            model.clone(),
            changed.clone(),
            needs_you.clone(),
            wanted,
        ));
        FleetLive {
            model,
            changed,
            needs_you,
            announced: Announcements { receiver },
            details,
            task,
        }
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
    pub async fn next_needs_you(&mut self) -> Option<NeedsYou> {
        self.announced.next().await
    }

    /// A listener of its own for the sessions that come to need the user from now on (for
    /// the app on a session while the fleet is kept live behind it).
    pub fn announcements(&self) -> Announcements {
        Announcements {
            receiver: self.needs_you.subscribe(),
        }
    }

    /// Rows worth their usage and artifacts: read once each (again after their turn ends).
    pub fn want_details(&self, ids: &[String]) {
        let _ = self.details.send(ids.to_vec());
    }

    /// Forgets the sessions that came to need the user so far.
    pub fn drain_needs_you(&mut self) {
        self.announced = self.announcements();
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
    /// Sessions whose details were read (or are being read).
    detailed: Mutex<std::collections::HashSet<String>>,
    filter: SessionFilter,
    store: Option<StateStore>,
    model: Arc<Mutex<FleetModel>>,
    changed: Arc<Notify>,
    needs_you: broadcast::Sender<NeedsYou>,
}

impl Task {
    fn report(&self, applied: Applied, news: impl IntoIterator<Item = NeedsYou>) {
        if applied.visible {
            self.changed.notify_one();
        }
        for one in news {
            // No listener now (none has subscribed yet): nobody to tell.
            let _ = self.needs_you.send(one);
        }
    }

    /// Reads the whole list; `false` when it could not be read (the note says why).
    async fn list(&self) -> bool {
        match list_all(&self.client, &self.filter).await {
            Ok(listed) => {
                let sessions = listed.items;
                let mut model = lock(&self.model);
                let noted = listed.cut.is_some_and(|cut| {
                    let note = format!("showing part of the sessions: {cut}");
                    model.set_note(Some(note)).visible
                });
                let before: Vec<String> = needing(&model);
                // What waits at the first listing was waiting before the fleet opened.
                let first = !model.is_loaded();
                let mut applied = model.apply_full_list(&sessions);
                applied.visible |= noted;
                let fresh = if first {
                    Vec::new()
                } else {
                    newly_needing(&model, &before)
                        .into_iter()
                        .filter_map(|id| announcement(&model, id))
                        .collect()
                };
                drop(model);
                self.report(applied, fresh);
                true
            }
            Err(e) => {
                let applied = lock(&self.model).set_note(Some(format!(
                    "could not list the sessions: {}",
                    e.summary()
                )));
                self.report(applied, []);
                false
            }
        }
    }

    async fn refresh(&self) {
        let ids = lock(&self.model).take_refreshes();
        if ids.is_empty() {
            return;
        }
        {
            // A turn ended: its usage and artifacts moved on.
            let mut detailed = self.detailed.lock().unwrap_or_else(|p| p.into_inner());
            for id in &ids {
                detailed.remove(id);
            }
        }
        if ids.len() > MOST_SINGLE_READS {
            self.list().await;
        } else {
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
            for (id, read) in reads {
                let one = match read {
                    Ok(session) => model.apply_session(&session),
                    Err(e) if e.kind == ApiErrorKind::NotFound => model.remove(&id),
                    Err(e) => {
                        tracing::warn!(session = %text::line(&id), error = %e, "fleet read failed");
                        Applied::default()
                    }
                };
                applied.visible |= one.visible;
            }
            drop(model);
            self.report(applied, []);
        }
        self.label().await;
    }

    /// Sandbox seconds and artifacts of the sessions on screen not read yet, and the start of
    /// a turn under way before the org stream opened.
    async fn details(&self, ids: Vec<String>) {
        let fresh: Vec<String> = {
            let mut detailed = self.detailed.lock().unwrap_or_else(|p| p.into_inner());
            ids.into_iter()
                .filter(|id| detailed.insert(id.clone()))
                .collect()
        };
        if fresh.is_empty() {
            return;
        }
        let page = Page::ordered(Order::Desc).with_limit(100);
        let page = &page;
        let newest_turn = Page::ordered(Order::Desc).with_limit(1);
        let newest_turn = &newest_turn;
        let read: Vec<Details> = futures_util::stream::iter(fresh)
            .map(|id| async move {
                let lacks_clock = lock(&self.model).lacks_turn_clock(&id);
                let usage = self.client.get_usage(&id, false).await.ok();
                let artifacts = self.client.list_artifacts(&id, page, None).await.ok();
                let turn_started = if lacks_clock {
                    let turns = self.client.list_turns(&id, newest_turn).await.ok();
                    turns
                        .and_then(|t| t.data.into_iter().next())
                        .filter(|t| t.completed_at.is_none())
                        .and_then(|t| t.started_at)
                } else {
                    None
                };
                Details {
                    id,
                    sandbox_seconds: usage.map(|u| u.sandbox_seconds),
                    artifacts: artifacts.map(|a| a.data.len() as u32),
                    turn_started,
                }
            })
            .buffer_unordered(CONCURRENT_READS)
            .collect()
            .await;
        let mut model = lock(&self.model);
        let mut applied = Applied::default();
        for d in read {
            applied.visible |= model
                .set_details(&d.id, d.sandbox_seconds, d.artifacts)
                .visible;
            if let Some(at) = d.turn_started {
                applied.visible |= model.set_turn_started(&d.id, at).visible;
            }
        }
        drop(model);
        self.report(applied, []);
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
        for update in updates {
            match update {
                StreamUpdate::Frame(frame) => {
                    let Ok(event) = &frame.event else { continue };
                    let one = model.apply_event(event);
                    applied.visible |= one.visible;
                    if one.newly_needs_you
                        && let Some(id) = &event.session_id
                        && let Some(news) = announcement(&model, id.clone())
                    {
                        fresh.push(news);
                    }
                }
                StreamUpdate::State(ConnectionState::Failed { reason }) => {
                    stopped = true;
                    let note = format!(
                        "the org stream was refused ({}); polling the list every {} s",
                        text::one_line(&reason, 120),
                        poll_every.as_secs()
                    );
                    applied.visible |= model.set_note(Some(note)).visible;
                    *poll_at = Some(Instant::now() + poll_every);
                }
                StreamUpdate::State(ConnectionState::Live) => {
                    applied.visible |= model.set_note(None).visible;
                }
                StreamUpdate::State(ConnectionState::Retrying { in_ms, .. }) => {
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
        if stopped {
            *org = None;
        }
        if model.wants_refresh() && refresh_at.is_none() {
            *refresh_at = Some(Instant::now() + REFRESH_DELAY);
        }
        drop(model);
        self.report(applied, fresh);
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

/// What to say of session `id`, which came to need the user.
fn announcement(model: &FleetModel, id: String) -> Option<NeedsYou> {
    let line = model.get(&id)?.needs_you_line()?;
    Some(NeedsYou { id, line })
}

fn needing(model: &FleetModel) -> Vec<String> {
    model
        .rows()
        .filter(|r| !r.waiting.is_empty())
        .map(|r| r.id.clone())
        .collect()
}

fn newly_needing(model: &FleetModel, before: &[String]) -> Vec<String> {
    model
        .rows()
        .filter(|r| !r.waiting.is_empty() && !before.contains(&r.id))
        .map(|r| r.id.clone())
        .collect()
}

async fn run(
    source: FleetSource,
    model: Arc<Mutex<FleetModel>>,
    changed: Arc<Notify>,
    needs_you: broadcast::Sender<NeedsYou>,
    mut wanted: mpsc::UnboundedReceiver<Vec<String>>,
) {
    let poll_every = source.poll_every;
    let task = Task {
        client: source.client,
        detailed: Mutex::default(),
        filter: SessionFilter {
            status: None,
            root: source.root,
        },
        store: source.store,
        model,
        changed,
        needs_you,
    };
    // Listed once the stream is open: what happens while the list is read comes on the
    // stream, and what happened before it is in the list.
    let mut options = source.stream;
    options.keep_data = false;
    let mut handle = stream::spawn(options);
    let early = until_open(&mut handle).await;
    let mut org = Some(handle);
    task.list().await;
    task.label().await;
    let mut refresh_at: Option<Instant> = None;
    let mut poll_at: Option<Instant> = Some(Instant::now() + RELIST_PERIOD);
    if !early.is_empty() {
        task.apply(early, &mut org, &mut poll_at, &mut refresh_at, poll_every);
    }
    loop {
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
            Some(ids) = wanted.recv() => task.details(ids).await,
            _ = sleep_until(refresh_at), if refresh_at.is_some() => {
                refresh_at = None;
                task.refresh().await;
            }
            _ = sleep_until(poll_at), if poll_at.is_some() => {
                task.list().await;
                task.label().await;
                let every = if org.is_some() { RELIST_PERIOD } else { poll_every };
                poll_at = Some(Instant::now() + every);
            }
        }
    }
}

/// What [`Task::details`] read of one session.
struct Details {
    id: String,
    sandbox_seconds: Option<u64>,
    artifacts: Option<u32>,
    turn_started: Option<i64>,
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
