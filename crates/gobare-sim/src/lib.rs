//! The local control plane (axum), following §12 of the reference: the test bed of every
//! integration test and what `gobare-tui demo` and `gobare-tui sim` run against.
//!
//! # Public API
//!
//! [`Simulator`] runs a server; [`SimConfig`] (with [`RateLimits`] and [`Faults`]) says how
//! it behaves; [`SimArgs`] are the `gobare-tui sim` flags that make a `SimConfig`.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use gobare_sim::{Faults, SimConfig, Simulator};
//! let sim = Simulator::start(SimConfig::for_tests()).await?;
//! let base = sim.url(); // http://127.0.0.1:PORT/ (routes live under /v1)
//! let token = sim.token(); // Bearer token
//! let id = sim.create_session(Some("demo")); // a session, created directly
//! sim.seed_events(&id, 5_000); // fast bulk history
//! sim.set_faults(Faults { crlf: true, ..Faults::default() });
//! let cursors = sim.stream_opens(); // cursor each stream open carried
//! let sends = sim.messages_with_key("key-1"); // messages accepted under that key
//! sim.shutdown().await;
//! # let _ = (base, token, cursors, sends); Ok(()) }
//! ```
//!
//! * [`SimConfig::default`] is the realistic deployment (documented limits and timers);
//!   [`SimConfig::for_tests`] has fast timers, a fixed token and no rate limiting.
//! * A message containing `#long`, `#approval`, `#question`, `#function`, `#quick`,
//!   `#error`, `#recovery`, `#choice` (the production question shape) or `#expiring` (a
//!   function call with a timeout) plays that scenario; others play `SimConfig::scenario`.
//!   A tag never changes the session's tools: the scripted agent calls only functions the
//!   session declared (`agent.tools`, `PUT …/tools`, [`Simulator::declare_function`]),
//!   with the declared `timeout_seconds` as `expires_at`; an undeclared one it says it
//!   cannot call, and the turn settles.
//! * Every tool step goes through the session's `approval_mode` and `permission_rules`
//!   (deny and `read_only` refuse, `per_step` asks for each step that may change
//!   something); under the default policy only a step a tagged or `--scenario` scenario
//!   flags sensitive asks, never one the `mix` rotation chose.
//! * Faults apply to event streams, sends and workspace rebuilds, and can change at
//!   runtime.
//! * With [`SimConfig::data_dir`] (`sim --data DIR`) sessions and their whole event
//!   history survive a restart (the same `seq`s, new ones continuing); a turn running at
//!   the stop ends `failed` on restart, and what it waited on lapses.
//!
//! # What it simulates
//!
//! Sessions (create/list/get/patch/delete/fork), turns, items, artifacts, the seven
//! `input.*` types, both event streams with exact cursor semantics, the replay cap and
//! `gobare.replay_truncated`, stream caps, backpressure (a reader past ~1 MiB unread loses
//! transient frames, past 8 MiB its connection), token-bucket rate limits, idempotency keys, the
//! message queue, required actions with their outcomes, errors inside a run
//! (`agent.error`, a fatal one failing the turn), and the workspace lifecycle including a
//! rebuild that gives up (`workspace.recovery_failed`).
//! The workspace routes too: files read from snapshots (taken on pause and refresh),
//! tools with secrets withheld, preview publishing, usage, the artifact archive and
//! artifact deletes; scopes, for tokens minted with a chosen few ([`Simulator::mint_token`],
//! `SimConfig::scoped_tokens`, `sim --token NAME:SCOPE,SCOPE`), which `/v1/health` reports.
//! Not simulated: the organization routes (agents, environment templates and profiles, model credentials,
//! webhooks: `404 not_found` saying so); `GET /v1/openapi.json` describes the routes it serves.
//!
//! # Files
//!
//! `config`/`faults`/`args`: knobs. `state`: what routes, streams and the agent share.
//! `db`: sessions, turns, items and the global event log (one `seq` counter), on the
//! SQLite file of `store/` (a temporary one, or `SimConfig::data_dir`'s, kept, in a
//! directory `store::data_dir` checks is private); `store/` also keeps its events, its
//! sessions, turns, artifacts and items, prunes them past `SimConfig::retention_events`
//! off the request path, and ends or takes up the turns a restart interrupted.
//! `envelope`: an event's wire form. `routes/`: HTTP handlers. `layers/`: `auth`, `scopes`, `ratelimit` and `idempotency`, each owning its
//! state. `refusal`: the error envelope. `sse/`: the stream writer (replay, caps, pings,
//! faults) and what a lagging reader loses. `agent/`: the scripted agent playing
//! `assets/scenarios/*.json`, with what a message asks, earlier messages named, the
//! permission decisions and the session's tools. `workspace/`: files, snapshots, the
//! scenarios' repository, diffs, the artifact archive and the sandbox's timers. `fleet/`:
//! many scripted sessions at once, kept busy. `seed`: bulk history for tests.
//! `accepted_patches`: the record of accepted patches. `lock`: the one locking rule.

#![warn(missing_docs)]

mod accepted_patches;
mod agent;
mod args;
mod config;
mod db;
mod envelope;
mod faults;
mod fleet;
mod layers;
mod lock;
mod refusal;
mod routes;
mod seed;
mod sse;
mod state;
mod store;
mod workspace;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::serve::ListenerExt;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub use accepted_patches::AcceptedPatch;
pub use args::{SimArgs, TokenArg};
pub use config::{RateLimits, SimConfig};
pub use faults::Faults;
pub use layers::forced_refusals::MatchedRequest;
pub use state::{AcceptedAnswer, AcceptedInput, AcceptedMessage};
pub use store::data_dir::{read_private_file, write_private_file};

use gobare_api::model::CreateSession;
use lock::lock;
use state::{Shared, SimState};

/// A running simulator. Dropping it without [`Simulator::shutdown`] leaves the server
/// running until the runtime ends.
pub struct Simulator {
    state: Shared,
    addr: SocketAddr,
    server: JoinHandle<()>,
    /// TCP connections accepted since the start.
    connections: Arc<AtomicUsize>,
}

impl Simulator {
    /// Binds `config.addr` (port 0 = any free port) and starts serving. Fails when the
    /// address cannot be bound, or the data directory cannot be opened (`WouldBlock`:
    /// another simulator holds it).
    pub async fn start(config: SimConfig) -> std::io::Result<Simulator> {
        let store = match &config.data_dir {
            Some(dir) => store::Store::open_dir(dir, config.fresh_data)?,
            None => store::Store::open_temp()?,
        };
        // A kept store's random token holds across restarts: its clients keep working.
        let saved_token = store
            .meta(state::TOKEN)
            .and_then(|v| v.as_str().map(str::to_string));
        let token = config.token.clone().or(saved_token).unwrap_or_else(|| {
            format!(
                "gbr_pat_{}",
                uuid::Uuid::new_v4()
                    .simple()
                    .to_string()
                    .get(..24)
                    .unwrap_or("local")
            )
        });
        let listener = TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
        // A server's small writes go out at once, as a real API server's do: with Nagle on,
        // a response's second write on a reused connection waits for the client's delayed
        // ACK (40 ms), and a live frame waits for the one before it to be acknowledged.
        let connections = Arc::new(AtomicUsize::new(0));
        let accepted = connections.clone();
        let listener = listener.tap_io(move |tcp| {
            accepted.fetch_add(1, Ordering::Relaxed);
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!("TCP_NODELAY not set on a connection: {e}");
            }
        });
        let fleet = config.fleet;
        let activity = config.fleet_activity;
        let deadline_burst = config.fleet_deadline_burst;
        let state = SimState::new(config, token, store);
        store::restore::end_interrupted(&mut state.db());
        store::restore::resume_parked(&state);
        store::restore::rearm_idle(&state);
        if state.db().kept() {
            tokio::spawn(keep_saving(state.clone()));
        }
        tokio::spawn(store::retention::keep_pruning(state.clone()));
        let app = routes::router(state.clone());
        let shutdown = state.shutdown.clone();
        let server = tokio::spawn(async move {
            let served = axum::serve(listener, app)
                .with_graceful_shutdown(async move { shutdown.cancelled().await })
                .await;
            if let Err(e) = served {
                tracing::error!("simulator stopped: {e}");
            }
        });
        let kept_fleet = if state.db().kept() {
            state
                .db()
                .meta(state::FLEET)
                .and_then(|v| serde_json::from_value(v).ok())
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let fleet = fleet::start(&state, fleet, kept_fleet);
        if state.db().kept() && !fleet.is_empty() {
            state
                .db()
                .put_meta(state::FLEET, &serde_json::Value::from(fleet.clone()));
        }
        if activity > 0 && !fleet.is_empty() {
            tokio::spawn(fleet::activity::keep_busy(
                state.clone(),
                fleet.clone(),
                activity,
            ));
        }
        if deadline_burst > 0 && !fleet.is_empty() {
            tokio::spawn(fleet::deadline_burst::burst(
                state.clone(),
                fleet.clone(),
                deadline_burst,
            ));
        }
        *lock(&state.fleet) = fleet;
        Ok(Simulator {
            state,
            addr,
            server,
            connections,
        })
    }

    /// The base URL, without `/v1` (e.g. `http://127.0.0.1:4780/`).
    pub fn url(&self) -> url::Url {
        url::Url::parse(&format!("http://{}/", self.addr)).expect("a socket address is a URL")
    }

    /// The address the server listens on (the port chosen when `SimConfig::addr` had 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The bearer token the server requires.
    pub fn token(&self) -> String {
        self.state.token.clone()
    }

    /// Mints a token holding only `scopes` (e.g. `["sessions:read", "tools:respond"]`):
    /// requests needing another get `403 permission_denied` naming the scope.
    pub fn mint_token(&self, scopes: &[&str]) -> String {
        let token = format!("gbr_pat_scoped_{}", db::hex_id("", 16));
        lock(&self.state.scoped_tokens).insert(
            token.clone(),
            scopes.iter().map(|s| s.to_string()).collect(),
        );
        token
    }

    /// Creates a session directly (no HTTP, no rate limit) and returns its id.
    pub fn create_session(&self, title: Option<&str>) -> String {
        let req = CreateSession {
            title: title.map(str::to_string),
            ..CreateSession::default()
        };
        routes::create_session(&self.state, req).expect("a default session is always valid")
    }

    /// Creates a session directly from a whole create request (its agent's tools, say)
    /// and returns its id. Panics if the request is refused.
    pub fn create_session_from(&self, req: CreateSession) -> String {
        routes::create_session(&self.state, req).expect("the create request is valid")
    }

    /// Declares a function on a session as `PUT …/tools` adding it would (replacing one
    /// of the same name): what `#function` and `#expiring` need before the agent calls it.
    pub fn declare_function(&self, session_id: &str, name: &str, timeout_seconds: Option<u64>) {
        let mut tool = serde_json::json!({"type": "function", "name": name,
                                          "parameters": {"type": "object"}});
        if let Some(t) = timeout_seconds {
            tool["timeout_seconds"] = t.into();
        }
        let mut db = self.state.db();
        let rec = db.session_mut(session_id).expect("the session exists");
        let tools = rec.agent.tools.get_or_insert_with(Vec::new);
        tools.retain(|t| t.get("name").and_then(serde_json::Value::as_str) != Some(name));
        tools.push(tool);
    }

    /// Counts `ran` more of sandbox time in a session's usage, as a workspace that ran
    /// that long before would have: usage figures without waiting for them.
    pub fn add_sandbox_time(&self, session_id: &str, ran: std::time::Duration) {
        let mut db = self.state.db();
        let rec = db.session_mut(session_id).expect("the session exists");
        rec.ran_closed += ran;
        rec.closed_intervals += 1;
    }

    /// Sends a message directly as `input.message` would (no HTTP, no rate limit); its
    /// `#tag` picks the scenario. Panics if the session refuses it.
    pub fn send_message(&self, session_id: &str, text: &str) {
        routes::accept_message(
            &self.state,
            session_id,
            text.to_string(),
            &axum::http::HeaderMap::new(),
        )
        .expect("the session accepts the message");
    }

    /// Opens a preview port on a session as the agent's `preview(port)` would: sets
    /// `preview.port` and `preview.url` and emits `preview.ready`.
    pub fn open_preview(&self, session_id: &str, port: u16) {
        let url = format!("https://p-{}.gobare.dev", db::hex_id("", 12));
        let mut db = self.state.db();
        if let Some(rec) = db.session_mut(session_id) {
            rec.preview.port = Some(port);
            rec.preview.url = Some(url.clone());
        }
        db.emit(
            session_id,
            gobare_api::model::EventPayload::PreviewReady(gobare_api::model::PreviewReady {
                port: Some(port),
                url: Some(url),
            }),
        );
    }

    /// Writes a file into a session's live workspace, as `POST …/files` would (`path`
    /// relative to `/workspace`): the snapshot, and so `GET …/files`, shows it only after
    /// the next one is taken. A workspace that was never started is up from then on (only
    /// a running one takes writes).
    pub fn write_workspace_file(&self, session_id: &str, path: &str, body: &[u8]) {
        let mut db = self.state.db();
        let rec = db.session_mut(session_id).expect("the session exists");
        if rec.workspace == gobare_api::model::WorkspaceState::Unknown {
            rec.workspace = gobare_api::model::WorkspaceState::Running;
        }
        rec.files.insert(path, body.to_vec());
    }

    /// Publishes an artifact directly (no agent, no event) under `turn_id`, creating that
    /// turn as a settled one when the session has none by that id; returns the artifact's
    /// id. Paths are stored as given: tests use it for hostile ones.
    pub fn add_artifact(
        &self,
        session_id: &str,
        turn_id: &str,
        path: &str,
        body: Vec<u8>,
    ) -> String {
        let mut db = self.state.db();
        if db.turn(session_id, turn_id).is_none() {
            let rec = db.session_mut(session_id).expect("the session exists");
            rec.turns.push(seed::settled_turn(session_id, turn_id));
        }
        let id = db.new_artifact_id();
        let artifact = gobare_api::model::Artifact {
            object: "artifact".into(),
            id: id.clone(),
            session_id: session_id.to_string(),
            turn_id: turn_id.to_string(),
            path: path.to_string(),
            size_bytes: body.len() as u64,
            content_type: Some("application/octet-stream".into()),
            created_at: Some(gobare_api::clock::unix_ms()),
        };
        db.add_artifact(&artifact, &body);
        id
    }

    /// Appends `n` persisted events (a realistic mix) to a session, fast.
    pub fn seed_events(&self, session_id: &str, n: usize) {
        self.state.db().batch(|db| seed::seed(db, session_id, n));
    }

    /// Appends `turns` settled turns of history (twelve persisted events each, one turn a
    /// minute, each completed in 3 s), the last completed `ended_ago` before now; events
    /// and turn records carry those times.
    pub fn seed_turns(&self, session_id: &str, turns: usize, ended_ago: std::time::Duration) {
        let last_completed_at = gobare_api::clock::unix_ms() - ended_ago.as_millis() as i64;
        self.state
            .db()
            .batch(|db| seed::seed_turns(db, session_id, turns, last_completed_at));
    }

    /// Emits one event on a session as the scripted agent would (persisted or transient by
    /// type): lets benchmarks drive a stream at a chosen rate.
    pub fn emit(&self, session_id: &str, payload: gobare_api::model::EventPayload) {
        self.state.db().emit(session_id, payload);
    }

    /// How many `input.message`s were accepted (not replayed) under this Idempotency-Key.
    pub fn messages_with_key(&self, key: &str) -> usize {
        lock(&self.state.messages_by_key)
            .get(key)
            .copied()
            .unwrap_or(0)
    }

    /// Every `input.message` accepted (not replayed) so far, in order, with its key.
    pub fn accepted_messages(&self) -> Vec<AcceptedMessage> {
        lock(&self.state.accepted_messages).clone()
    }

    /// Every session patch accepted (not replayed) so far, in order, with its key.
    pub fn patches(&self) -> Vec<AcceptedPatch> {
        lock(&self.state.patches).clone()
    }

    /// Every answer to a required action the server took (not replayed), in order.
    pub fn answers(&self) -> Vec<AcceptedAnswer> {
        lock(&self.state.answers).clone()
    }

    /// Every input the server took (not replayed) so far, in order, with its key.
    pub fn inputs(&self) -> Vec<AcceptedInput> {
        lock(&self.state.inputs).clone()
    }

    /// Replaces the stream faults; open streams pick them up at their next write.
    pub fn set_faults(&self, faults: Faults) {
        *lock(&self.state.faults) = faults;
    }

    /// The faults in force (`refuse_sends` counts down as sends are refused).
    pub fn faults(&self) -> Faults {
        self.state.faults()
    }

    /// Event streams holding a slot now (a closed one's slot comes back after
    /// `stream_slot_release_delay`).
    pub fn open_streams(&self) -> usize {
        *lock(&self.state.open_streams)
    }

    /// The cursor each accepted stream open carried (`None` = live only), in order.
    pub fn stream_opens(&self) -> Vec<Option<u64>> {
        lock(&self.state.stream_opens).clone()
    }

    /// For each stream closed because its reader lagged (§7.7: the reader left 8 MiB
    /// unread), the bytes it had not read, in order.
    pub fn lagging_closes(&self) -> Vec<usize> {
        lock(&self.state.lagging_closes).clone()
    }

    /// The ids of the fleet's sessions ([`SimConfig::with_fleet`]), in creation order.
    pub fn fleet(&self) -> Vec<String> {
        lock(&self.state.fleet).clone()
    }

    /// How many TCP connections the server accepted since the start: lets tests check
    /// that a client reuses one rather than opening one per request.
    pub fn connections_accepted(&self) -> usize {
        self.connections.load(Ordering::Relaxed)
    }

    /// The last requests the server received (at most 10,000), oldest first, as
    /// `"METHOD /path?query"`: lets tests check what a client asked, and how often.
    pub fn requests(&self) -> Vec<String> {
        lock(&self.state.requests).iter().cloned().collect()
    }

    /// Refuses the next `count` requests whose `"METHOD /path?query"` starts with
    /// `request` with `429 rate_limit_exceeded` and `Retry-After: retry_after_secs`,
    /// however full the bucket: a client's waiting tested without racing a refill.
    /// Replaces what an earlier call left to refuse.
    pub fn refuse_next(&self, request: &str, count: u32, retry_after_secs: u64) {
        lock(&self.state.rate_limiter.forced).refuse_next(request, count, retry_after_secs);
    }

    /// Every request [`Simulator::refuse_next`] matched since it was called, refused or
    /// not, in order, with when it arrived.
    pub fn refuse_next_record(&self) -> Vec<MatchedRequest> {
        lock(&self.state.rate_limiter.forced).record()
    }

    /// How many requests each route received, by method and route template (e.g.
    /// `"GET /v1/sessions/{session_id}/turns"`; unrouted paths as `"GET (no route)"`),
    /// since the start: unbounded, unlike [`Simulator::requests`].
    pub fn request_counts(&self) -> std::collections::BTreeMap<String, usize> {
        lock(&self.state.request_counts).clone()
    }

    /// The highest `seq` assigned so far (0 before any persisted event).
    pub fn last_seq(&self) -> u64 {
        self.state.db().last_seq()
    }

    /// How many events the store holds now: past `SimConfig::retention_events` until the
    /// next prune ([`Simulator::prune_history`]).
    pub fn stored_events(&self) -> u64 {
        self.state.db().event_count
    }

    /// Prunes the store back to `SimConfig::retention_events` now, as the retention task
    /// does every `SimConfig::retention_every`: the oldest events and the items, settled
    /// turns and artifacts of their history, in steps, the lock let go between them.
    pub fn prune_history(&self) {
        store::retention::prune_all(&self.state);
    }

    /// The scenario names the binary carries.
    pub fn scenarios(&self) -> Vec<String> {
        self.state.scenarios.names()
    }

    /// Every session's id, in creation order (those a data directory gave back first).
    pub fn session_ids(&self) -> Vec<String> {
        self.state.db().session_order.clone()
    }

    /// Whether sessions are kept in a data directory ([`SimConfig::data_dir`]).
    pub fn keeps_data(&self) -> bool {
        self.state.db().kept()
    }

    /// Closes every stream, stops the server and saves what a data directory keeps.
    pub async fn shutdown(self) {
        self.state.shutdown.cancel();
        let _ = self.server.await;
        self.state.db().touch_running();
        self.state.save();
        self.state.db().close();
    }
}

/// How often a kept store gets what changed (events and items are written as they happen;
/// a killed simulator loses at most this much of the sessions' other changes).
const SAVE_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

async fn keep_saving(state: Shared) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(SAVE_EVERY) => {
                // Saving blocks on the database: off the runtime's workers.
                let saving = state.clone();
                let _ = tokio::task::spawn_blocking(move || saving.save()).await;
            }
            _ = state.shutdown.cancelled() => return,
        }
    }
}
