//! Sessions, turns, items, artifacts and the global event log with its single `seq`
//! counter. Every persisted event is appended and broadcast under one lock, so live order
//! equals `seq` order and a subscriber that snapshots the log under the same lock sees no
//! gap and no duplicate.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;

use crate::store::Store;
pub(crate) use crate::store::events::Frame;
use crate::workspace::files::{Files, Snapshot};
use crate::workspace::tree::Tree;
use gobare_api::clock::unix_ms;
use gobare_api::model::{
    AgentInfo, Artifact, ArtifactsState, ErrorCode, Event, EventPayload, Item, ItemKind, Preview,
    Repo, RequiredAction, Session, SessionStatus, Turn, TurnStatus, WorkspaceState,
};

pub(crate) fn hex_id(prefix: &str, hex_len: usize) -> String {
    let mut s = String::from(prefix);
    while s.len() < prefix.len() + hex_len {
        s.push_str(&format!("{:016x}", rand::random::<u64>()));
    }
    s.truncate(prefix.len() + hex_len);
    s
}

/// What a required action receives when answered.
#[derive(Debug)]
pub(crate) enum Answer {
    FunctionResult { success: bool, output: String },
    Approval { approved: bool },
    Question { answer: String },
}

/// How a required action stopped being pending.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Resolved {
    /// Answered through the API: a second answer is `already_resolved`.
    Answered,
    /// Expired, or its turn ended without it: an answer is `no_longer_pending`.
    Lapsed,
}

impl Resolved {
    /// The `input.accepted.outcome` of an answer arriving after this.
    pub(crate) fn late_outcome(self) -> &'static str {
        match self {
            Resolved::Answered => "already_resolved",
            Resolved::Lapsed => "no_longer_pending",
        }
    }
}

pub(crate) struct Pending {
    pub(crate) action: RequiredAction,
    pub(crate) reply: Option<oneshot::Sender<Answer>>,
}

/// The running turn and the handles that steer or stop it.
pub(crate) struct ActiveTurn {
    pub(crate) turn_id: String,
    pub(crate) cancel: CancellationToken,
    pub(crate) steers: Vec<String>,
    /// Set when the turn is stopped by a failure rather than a cancel (→ `failed`).
    pub(crate) failure: Option<TurnFailure>,
    /// What the agent plays and the step it is at: what a restart needs to go on with a
    /// turn parked on a required action.
    pub(crate) playing: Option<ParkedTurn>,
}

impl ActiveTurn {
    pub(crate) fn new(turn_id: &str) -> Self {
        ActiveTurn {
            turn_id: turn_id.to_string(),
            cancel: CancellationToken::new(),
            steers: Vec::new(),
            failure: None,
            playing: None,
        }
    }
}

/// A turn's message and the index of the scenario step it is at.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct ParkedTurn {
    pub(crate) turn: QueuedTurn,
    pub(crate) step: usize,
}

/// Why a turn failed: its `error` object, `{code, message}` (the shape the reference
/// client reads; §9.2 leaves it unspecified).
#[derive(Debug, Clone)]
pub(crate) struct TurnFailure {
    code: ErrorCode,
    message: String,
}

impl TurnFailure {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        TurnFailure {
            code,
            message: message.into(),
        }
    }

    pub(crate) fn to_value(&self) -> Value {
        json!({"code": self.code.as_str(), "message": self.message})
    }
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct QueuedTurn {
    pub(crate) turn_id: String,
    pub(crate) text: String,
    pub(crate) scenario: String,
    /// How the scenario was chosen.
    pub(crate) picked_by: crate::agent::scenario::PickedBy,
}

/// Every session's `source`: all are made through the API.
pub(crate) const SOURCE: &str = "api";
/// Every session's `created_by_token`: the organization's one token.
pub(crate) const CREATED_BY_TOKEN: &str = "tok_sim_local";

pub(crate) struct SessionRec {
    pub(crate) id: String,
    pub(crate) title: Option<String>,
    pub(crate) metadata: Option<BTreeMap<String, Value>>,
    created_at: i64,
    pub(crate) updated_at: i64,
    pub(crate) parent_session_id: Option<String>,
    pub(crate) agent: AgentInfo,
    pub(crate) repo: Option<Repo>,
    pub(crate) preview: Preview,
    pub(crate) workspace: WorkspaceState,
    /// The turns that may still change, and the latest one (the session's status reads
    /// it): older ones are in the store only ([`Db::turn`] and [`Db::turns_at`] read both).
    pub(crate) turns: Vec<Turn>,
    /// Turns before `turns[0]`, in the store only.
    pub(crate) stored_turns: usize,
    /// The leading stored turns retention pruned: the list starts at this one.
    pub(crate) pruned_turns: usize,
    pub(crate) queue: VecDeque<QueuedTurn>,
    pub(crate) active: Option<ActiveTurn>,
    pub(crate) pending: Vec<Pending>,
    /// Answers held by a sandbox that "restarted": the turn never resumes from them.
    pub(crate) orphaned: Vec<oneshot::Sender<Answer>>,
    /// Bumped on every activity; an idle timer only pauses if it is unchanged.
    pub(crate) activity: u64,
    /// Bumped on every (re)build; a lifetime timer only destroys its own sandbox.
    pub(crate) sandbox_generation: u64,
    /// Running time of the current sandbox before its latest resume (paused time does
    /// not count toward the lifetime, §5).
    pub(crate) lived: std::time::Duration,
    /// When the sandbox last started running; `None` while paused or down.
    pub(crate) running_since: Option<tokio::time::Instant>,
    /// Set by a scenario's `reclaim` step: the next rebuild gives up with this message.
    pub(crate) recovery_error_next: Option<String>,
    /// `environment.files`: written when a workspace is built, and again on each rebuild.
    pub(crate) seed_files: Files,
    /// The live workspace's files: the repository with what the session changed.
    pub(crate) files: Tree,
    /// What `GET …/files` reads: taken on pause and on refresh.
    pub(crate) snapshot: Option<Snapshot>,
    /// The `text` of the tools configuration (`PUT …/tools`).
    pub(crate) tools_text: Option<Value>,
    /// After `PUT …/tools` the bridge restarts: file writes before this are refused.
    pub(crate) bridge_ready_at: Option<tokio::time::Instant>,
    /// The subdomain the preview is published at.
    pub(crate) published_subdomain: Option<String>,
    /// Sandbox time of the intervals that have ended (pause, reclaim), for `…/usage`.
    pub(crate) ran_closed: std::time::Duration,
    pub(crate) closed_intervals: u32,
}

impl SessionRec {
    pub(crate) fn new(id: String, parent: Option<String>) -> Self {
        let now = unix_ms();
        SessionRec {
            id,
            title: None,
            metadata: None,
            created_at: now,
            updated_at: now,
            parent_session_id: parent,
            agent: AgentInfo {
                id: None,
                model: Some("MiniMax-M3".into()),
                model_credential_id: Some("cred_8f2a91c4d7b0e6".into()),
                approval_mode: Some("auto".into()),
                instructions: None,
                permission_rules: None,
                tools: None,
            },
            repo: None,
            preview: Preview::default(),
            workspace: WorkspaceState::Unknown,
            turns: Vec::new(),
            stored_turns: 0,
            pruned_turns: 0,
            queue: VecDeque::new(),
            active: None,
            pending: Vec::new(),
            orphaned: Vec::new(),
            activity: 0,
            sandbox_generation: 0,
            lived: std::time::Duration::ZERO,
            running_since: None,
            recovery_error_next: None,
            seed_files: Files::new(),
            files: crate::workspace::repository::tree().clone(),
            snapshot: None,
            tools_text: None,
            bridge_ready_at: None,
            published_subdomain: None,
            ran_closed: std::time::Duration::ZERO,
            closed_intervals: 0,
        }
    }

    pub(crate) fn created_at(&self) -> i64 {
        self.created_at
    }

    pub(crate) fn set_created_at(&mut self, at: i64) {
        self.created_at = at;
    }

    pub(crate) fn status(&self) -> SessionStatus {
        if !self.pending.is_empty() {
            SessionStatus::RequiresAction
        } else if self.active.is_some() || !self.queue.is_empty() {
            SessionStatus::Working
        } else if self.turns.last().map(|t| &t.status) == Some(&TurnStatus::Failed) {
            SessionStatus::Failed
        } else {
            SessionStatus::Idle
        }
    }

    /// The session object; `with_tools` for the single read (list entries lack them).
    pub(crate) fn to_session(&self, with_tools: bool) -> Session {
        let mut agent = self.agent.clone();
        if with_tools {
            let tools = agent.tools.get_or_insert_with(Vec::new);
            // Secrets removed (§9.1), as on `GET …/tools`.
            *tools = tools.iter().map(crate::agent::tools::redacted).collect();
        } else {
            agent.tools = None;
        }
        Session {
            object: "session".into(),
            id: self.id.clone(),
            title: self.title.clone(),
            status: self.status(),
            created_at: self.created_at,
            updated_at: self.updated_at,
            source: Some(SOURCE.into()),
            created_by_token: Some(CREATED_BY_TOKEN.into()),
            parent_session_id: self.parent_session_id.clone(),
            agent,
            environment: gobare_api::model::Environment {
                kind: "sandbox".into(),
                state: Some(self.workspace.clone()),
                workspace_directory: "/workspace".into(),
                repo: self.repo.clone(),
            },
            preview: self.preview.clone(),
            required_actions: self.pending.iter().map(|p| p.action.clone()).collect(),
            metadata: self.metadata.clone(),
            forked_from: None,
            workspace_copied: None,
        }
    }

    /// Ends the running interval (the sandbox pauses or goes away), counting its time.
    pub(crate) fn stop_running(&mut self) {
        if let Some(since) = self.running_since.take() {
            let ran = since.elapsed();
            self.lived += ran;
            self.ran_closed += ran;
            self.closed_intervals += 1;
        }
    }

    /// A turn that may still change (only those, and the latest, are in memory).
    pub(crate) fn turn_mut(&mut self, turn_id: &str) -> Option<&mut Turn> {
        self.turns.iter_mut().find(|t| t.id == turn_id)
    }

    /// How many turns the session has had.
    pub(crate) fn turn_count(&self) -> usize {
        self.stored_turns + self.turns.len()
    }
}

pub(crate) struct Db {
    next_seq: u64,
    /// Events and items on disk; sessions too when the store is kept.
    store: Store,
    pub(crate) sessions: BTreeMap<String, SessionRec>,
    /// Session ids in creation order (the list order).
    pub(crate) session_order: Vec<String>,
    item_counter: u64,
    /// The last artifact's place in the store (orders each session's artifacts).
    artifact_ord: u64,
    live: broadcast::Sender<Arc<Frame>>,
    /// Sessions changed since they were last saved (tracked only for a kept store), and
    /// the order they changed in: saved first come, first served.
    dirty: HashSet<String>,
    dirty_order: VecDeque<String>,
    /// Sessions removed since the last save.
    removed: Vec<String>,
    /// Inside [`Db::batch`]: the frames emitted, broadcast once the batch is committed.
    held: Option<Vec<Arc<Frame>>>,
    /// Events stored now, and the most kept.
    pub(crate) event_count: u64,
    pub(crate) retention: u64,
    /// The highest `seq` retention dropped: items, turns and artifacts of the history up
    /// to it go after the events (`crate::store::retention`).
    pub(crate) pruned_through: u64,
}

impl Db {
    /// The log and sessions `store` holds (none in a fresh one), keeping at most
    /// `retention` events.
    pub(crate) fn new(live: broadcast::Sender<Arc<Frame>>, store: Store, retention: u64) -> Self {
        let sessions = store.load_sessions().unwrap_or_else(|e| {
            tracing::error!("the stored sessions are unreadable: {e}");
            Vec::new()
        });
        let mut db = Db {
            next_seq: store.max_seq() + 1,
            item_counter: store.item_count(),
            artifact_ord: store.max_artifact_ord(),
            event_count: store.event_count(),
            retention: retention.max(1),
            pruned_through: store.min_seq().saturating_sub(1),
            store,
            sessions: BTreeMap::new(),
            session_order: Vec::new(),
            live,
            dirty: HashSet::new(),
            dirty_order: VecDeque::new(),
            removed: Vec::new(),
            held: None,
        };
        for rec in sessions {
            db.insert_session(rec);
        }
        db
    }

    /// The store, for what prunes it (`crate::store::retention`).
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// Whether sessions are saved (a data directory's store).
    pub(crate) fn kept(&self) -> bool {
        self.store.kept
    }

    /// Saves up to `most` of the sessions that changed since the last save (a kept store
    /// only), the removed ones and `meta`, in one transaction. Returns whether changed
    /// sessions remain: a caller saves in batches, letting go of the lock between them.
    pub(crate) fn save(&mut self, meta: &[(&str, Value)], most: usize) -> bool {
        if !self.store.kept {
            return false;
        }
        let removed = std::mem::take(&mut self.removed);
        let mut dirty = HashSet::new();
        while dirty.len() < most
            && let Some(id) = self.dirty_order.pop_front()
        {
            self.dirty.remove(&id);
            dirty.insert(id);
        }
        let order: HashMap<&str, usize> = self
            .session_order
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i))
            .collect();
        let changed: Vec<(&SessionRec, usize)> = dirty
            .iter()
            .filter_map(|id| Some((self.sessions.get(id)?, *order.get(id.as_str())?)))
            .collect();
        if let Err(e) = self.store.save(&changed, &removed, meta) {
            tracing::error!("the sessions were not saved: {e}");
            for id in dirty {
                self.touch(&id);
            }
            self.removed.extend(removed);
            return false;
        }
        !self.dirty.is_empty()
    }

    /// How many sessions wait to be saved.
    pub(crate) fn unsaved(&self) -> usize {
        self.dirty.len()
    }

    /// Lets go of the store (its file and directory lock): what tasks still running write
    /// afterwards goes nowhere.
    pub(crate) fn close(&mut self) {
        self.store = Store::detached();
    }

    /// One saved `meta` value.
    pub(crate) fn meta(&self, key: &str) -> Option<Value> {
        self.store.meta(key)
    }

    /// Saves one `meta` value now.
    pub(crate) fn put_meta(&mut self, key: &str, value: &Value) {
        self.store.put_meta(key, value);
    }

    /// A session's items (the transcript), oldest first.
    pub(crate) fn items(&self, session_id: &str) -> Vec<Item> {
        self.store.items(session_id)
    }

    /// Gives `to` a copy of `from`'s items (a fork), under the same ids.
    pub(crate) fn copy_items(&mut self, from: &str, to: &str) {
        let seq = self.last_seq();
        for mut item in self.store.items(from) {
            item.session_id = to.to_string();
            self.store.append_item(to, &item, seq);
        }
    }

    /// Every turn of a session, oldest first (`None`: no such session).
    #[cfg(test)]
    pub(crate) fn turns(&self, session_id: &str) -> Option<Vec<Turn>> {
        let rec = self.sessions.get(session_id)?;
        let mut turns = self.store.turns(session_id, rec.stored_turns);
        turns.extend(rec.turns.iter().cloned());
        Some(turns)
    }

    /// The turns of a session at `positions` of its list (oldest first: its stored turns,
    /// then those in memory), and where turn `turn_id` is in it; `None`: no such session.
    /// Only those turns are read from the store.
    pub(crate) fn turns_at(
        &self,
        session_id: &str,
        window: impl FnOnce(usize, &dyn Fn(&str) -> Option<usize>) -> std::ops::Range<usize>,
    ) -> Option<Vec<Turn>> {
        let rec = self.sessions.get(session_id)?;
        // Positions count from the oldest turn retention kept; the store's `ord`s from the
        // session's first turn.
        let pruned = rec.pruned_turns.min(rec.stored_turns);
        let stored = rec.stored_turns - pruned;
        let position = |id: &str| match rec.turns.iter().position(|t| t.id == id) {
            Some(at) => Some(stored + at),
            None => self
                .store
                .turn_ord(session_id, id, rec.stored_turns)
                .and_then(|ord| ord.checked_sub(pruned)),
        };
        let range = window(stored + rec.turns.len(), &position);
        let mut turns = if range.start < stored {
            self.store.turns_in(
                session_id,
                range.start + pruned..range.end.min(stored) + pruned,
            )
        } else {
            Vec::new()
        };
        let in_memory = range.start.max(stored) - stored..range.end.max(stored) - stored;
        turns.extend(rec.turns[in_memory].iter().cloned());
        Some(turns)
    }

    /// One turn of a session.
    pub(crate) fn turn(&self, session_id: &str, turn_id: &str) -> Option<Turn> {
        let rec = self.sessions.get(session_id)?;
        match rec.turns.iter().find(|t| t.id == turn_id) {
            Some(turn) => Some(turn.clone()),
            None => self.store.turn(session_id, turn_id),
        }
    }

    /// Moves a session's leading turns that will not change again to the store, all but
    /// the latest: memory holds what may still change, not the history.
    fn retire_turns(&mut self, session_id: &str) {
        let seq = self.next_seq - 1;
        let Some(rec) = self.sessions.get_mut(session_id) else {
            return;
        };
        while rec.turns.len() > 1 && is_final(&rec.turns[0]) {
            let turn = rec.turns.remove(0);
            self.store.put_turn(&turn, rec.stored_turns, seq);
            rec.stored_turns += 1;
        }
    }

    /// A fresh artifact id: short as the reference's, so one already stored is drawn again
    /// (a long-running fleet publishes hundreds of thousands).
    pub(crate) fn new_artifact_id(&self) -> String {
        loop {
            let id = hex_id("art_", 8);
            if !self.store.artifact_exists(&id) {
                return id;
            }
        }
    }

    /// Publishes an artifact of `artifact.session_id` with its bytes: both go to the store
    /// at once (never held in memory).
    pub(crate) fn add_artifact(&mut self, artifact: &Artifact, body: &[u8]) {
        self.artifact_ord += 1;
        self.store
            .put_artifact(artifact, body, self.artifact_ord, self.last_seq());
    }

    /// A session's artifacts, oldest first, of one turn when given.
    pub(crate) fn artifacts(&self, session_id: &str, turn_id: Option<&str>) -> Vec<Artifact> {
        self.store.artifacts(session_id, turn_id)
    }

    /// One artifact of a session.
    pub(crate) fn artifact(&self, session_id: &str, artifact_id: &str) -> Option<Artifact> {
        self.store.artifact(session_id, artifact_id)
    }

    /// One artifact's stored bytes.
    pub(crate) fn artifact_body(&self, session_id: &str, artifact_id: &str) -> Option<Vec<u8>> {
        self.store.artifact_body(session_id, artifact_id)
    }

    /// Deletes one artifact; `false` when the session has none by that id.
    pub(crate) fn delete_artifact(&mut self, session_id: &str, artifact_id: &str) -> bool {
        self.touch(session_id);
        self.store.delete_artifact(session_id, artifact_id)
    }

    /// Notes that a required action stopped being pending, and how: what a late answer
    /// is told ([`Db::resolution`]).
    pub(crate) fn resolve(&mut self, session_id: &str, call_id: &str, how: Resolved) {
        self.store.put_resolved(session_id, call_id, how);
    }

    /// How a required action that is no longer pending stopped being so.
    pub(crate) fn resolution(&self, session_id: &str, call_id: &str) -> Option<Resolved> {
        self.store.resolved(session_id, call_id)
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Arc<Frame>> {
        self.live.subscribe()
    }

    pub(crate) fn session(&self, id: &str) -> Option<&SessionRec> {
        self.sessions.get(id)
    }

    pub(crate) fn session_mut(&mut self, id: &str) -> Option<&mut SessionRec> {
        self.touch(id);
        self.sessions.get_mut(id)
    }

    /// Notes a session changed, for the next save.
    fn touch(&mut self, id: &str) {
        if self.store.kept && !self.dirty.contains(id) && self.sessions.contains_key(id) {
            self.dirty.insert(id.to_string());
            self.dirty_order.push_back(id.to_string());
        }
    }

    /// Notes every session whose workspace runs as changed: its open interval's time is
    /// saved at a stop, so usage and the lifetime carry on after a restart.
    pub(crate) fn touch_running(&mut self) {
        let running: Vec<String> = self
            .sessions
            .values()
            .filter(|r| r.running_since.is_some())
            .map(|r| r.id.clone())
            .collect();
        for id in running {
            self.touch(&id);
        }
    }

    pub(crate) fn insert_session(&mut self, rec: SessionRec) {
        self.session_order.push(rec.id.clone());
        let id = rec.id.clone();
        self.sessions.insert(rec.id.clone(), rec);
        self.touch(&id);
    }

    pub(crate) fn remove_session(&mut self, id: &str) -> Option<SessionRec> {
        self.session_order.retain(|s| s != id);
        if self.dirty.remove(id) {
            self.dirty_order.retain(|d| d != id);
        }
        let rec = self.sessions.remove(id);
        if rec.is_some() {
            if self.store.kept {
                // With the next save: the session's row and the rest go together.
                self.removed.push(id.to_string());
            } else if let Err(e) = self.store.forget_sessions(&[id.to_string()]) {
                tracing::error!("a deleted session stays stored: {e}");
            }
        }
        rec
    }

    /// Whether `session_id` is `root` or one of its descendants (16 levels, §5).
    pub(crate) fn in_tree(&self, session_id: &str, root: &str) -> bool {
        let mut current = Some(session_id.to_string());
        for _ in 0..=16 {
            match current {
                Some(ref id) if id == root => return true,
                Some(ref id) => {
                    current = self
                        .sessions
                        .get(id)
                        .and_then(|s| s.parent_session_id.clone())
                }
                None => return false,
            }
        }
        false
    }

    /// Appends (persisted) or just broadcasts (transient) one event, records its item,
    /// and touches the session. Returns the frame.
    pub(crate) fn emit(&mut self, session_id: &str, payload: EventPayload) -> Arc<Frame> {
        self.emit_at(session_id, payload, unix_ms())
    }

    /// [`Db::emit`] as of `created_at` (unix ms): seeded history that happened long ago.
    pub(crate) fn emit_at(
        &mut self,
        session_id: &str,
        payload: EventPayload,
        created_at: i64,
    ) -> Arc<Frame> {
        let kind = payload_kind(&payload);
        let persisted = !matches!(
            payload,
            EventPayload::AgentText(_)
                | EventPayload::AgentThinking(_)
                | EventPayload::ReplayTruncated(_)
        );
        let seq = persisted.then(|| {
            let s = self.next_seq;
            self.next_seq += 1;
            s
        });
        if let Some(seq) = seq {
            self.record_item(session_id, &payload, created_at, seq);
            self.touch(session_id);
            if let Some(rec) = self.sessions.get_mut(session_id) {
                rec.updated_at = created_at;
            }
            self.retire_turns(session_id);
        }
        let event = Event {
            kind: kind.clone().into(),
            internal_type: Some(kind.clone().into()),
            session_id: Some(session_id.into()),
            seq,
            created_at: Some(created_at),
            payload,
        };
        let frame = Arc::new(Frame {
            seq,
            kind,
            session_id: session_id.to_string(),
            json: crate::envelope::envelope_json(&event),
        });
        if persisted {
            // Past the retention bound the oldest go later, in steps, off this path
            // (`crate::store::retention`): a write never waits for a prune.
            self.store.append(&frame);
            self.event_count += 1;
        }
        match &mut self.held {
            Some(held) => held.push(frame.clone()),
            // No receivers is fine: nobody is watching.
            None => {
                let _ = self.live.send(frame.clone());
            }
        }
        frame
    }

    /// Runs `f` as one store transaction, its events broadcast once it is committed (so no
    /// client is sent what a killed simulator did not keep). A commit per event costs a
    /// journal write each: a busy fleet emits in batches. Nested batches join the outer one.
    pub(crate) fn batch<T>(&mut self, f: impl FnOnce(&mut Db) -> T) -> T {
        if self.held.is_some() {
            return f(self);
        }
        let began = self.store.begin();
        self.held = Some(Vec::new());
        let out = f(self);
        if began {
            self.store.commit();
        }
        for frame in self.held.take().unwrap_or_default() {
            let _ = self.live.send(frame);
        }
        out
    }

    /// Persisted frames with `after < seq <= upto` (of `session` only, when given)
    /// matching `keep`, at most `limit` of them, in `seq` order.
    pub(crate) fn replay(
        &self,
        after: u64,
        upto: u64,
        limit: usize,
        session: Option<&str>,
        keep: impl Fn(&Frame) -> bool,
    ) -> Vec<Arc<Frame>> {
        self.store.replay(after, upto, limit, session, keep)
    }

    pub(crate) fn last_seq(&self) -> u64 {
        self.next_seq - 1
    }

    fn next_item_id(&mut self) -> String {
        self.item_counter += 1;
        format!(
            "item_{:012x}{:04x}",
            self.item_counter,
            rand::random::<u16>()
        )
    }

    /// Items alongside persisted events, per the `detail.event` mapping of §9.3.
    fn record_item(&mut self, session_id: &str, payload: &EventPayload, created_at: i64, seq: u64) {
        let (kind, role, content, detail) = match payload {
            EventPayload::UserMessage(t) => (
                ItemKind::Message,
                Some("user"),
                t.text.clone(),
                json!({"event": "user.message", "text": t.text}),
            ),
            EventPayload::AgentMessage(t) => (
                ItemKind::Message,
                Some("assistant"),
                t.text.clone(),
                json!({"event": "agent.message", "text": t.text}),
            ),
            EventPayload::AgentToolCall(c) => (
                ItemKind::ToolCall,
                None,
                String::new(),
                json!({"event": "agent.tool_call", "toolCallId": c.tool_call_id,
                       "toolName": c.tool_name, "args": c.args}),
            ),
            EventPayload::AgentToolResult(r) => (
                ItemKind::ToolCall,
                None,
                String::new(),
                json!({"event": "agent.tool_result", "toolCallId": r.tool_call_id,
                       "toolName": r.tool_name, "isError": r.is_error, "summary": r.summary}),
            ),
            EventPayload::FileChanged(f) => (
                ItemKind::FileChange,
                None,
                String::new(),
                json!({"event": "file.modified", "path": f.path, "kind": f.change_type.as_str()}),
            ),
            EventPayload::ApprovalRequested(a) => (
                ItemKind::Approval,
                None,
                String::new(),
                json!({"event": "approval.requested", "toolCallId": a.tool_call_id,
                       "name": a.name, "args": a.args}),
            ),
            EventPayload::QuestionAsked(q) => (
                ItemKind::Question,
                None,
                String::new(),
                json!({"event": "question.asked", "toolCallId": q.tool_call_id,
                       "question": q.question}),
            ),
            EventPayload::McpUnavailable(_) => (
                ItemKind::McpUnavailable,
                None,
                String::new(),
                with_event("mcp.unavailable", payload.to_value()),
            ),
            EventPayload::AgentError(_) => (
                ItemKind::Error,
                None,
                String::new(),
                with_event("agent.error", payload.to_value()),
            ),
            // A rebuild that gives up stops the run before it starts: §9.3 records such
            // run-start failures as `error` items with `origin` and no `event`.
            EventPayload::WorkspaceRecoveryFailed(m) => (
                ItemKind::Error,
                None,
                String::new(),
                json!({"message": m.message, "origin": "sandbox"}),
            ),
            EventPayload::UserContext(_) => (
                ItemKind::Context,
                None,
                String::new(),
                with_event("user.context", payload.to_value()),
            ),
            _ => return,
        };
        if !self.sessions.contains_key(session_id) {
            return;
        }
        let item = Item {
            object: "item".into(),
            id: self.next_item_id(),
            session_id: session_id.to_string(),
            kind,
            created_at,
            role: role.map(str::to_string),
            content,
            detail,
        };
        self.store.append_item(session_id, &item, seq);
    }

    /// A new turn, created when its input is accepted (`started_at: null` until it runs).
    pub(crate) fn new_turn(rec: &mut SessionRec) -> String {
        let id = hex_id("turn_", 16);
        rec.turns.push(Turn {
            object: "turn".into(),
            id: id.clone(),
            session_id: rec.id.clone(),
            status: TurnStatus::Working,
            created_at: unix_ms(),
            started_at: None,
            completed_at: None,
            artifacts: None,
            artifacts_skipped: Vec::new(),
            subagent_id: None,
            error: None,
        });
        id
    }

    /// Settles a turn (never re-settles one).
    pub(crate) fn settle_turn(
        rec: &mut SessionRec,
        turn_id: &str,
        status: TurnStatus,
        error: Option<Value>,
    ) {
        if let Some(turn) = rec.turn_mut(turn_id)
            && turn.status == TurnStatus::Working
        {
            turn.status = status;
            turn.completed_at = Some(unix_ms());
            turn.artifacts = Some(ArtifactsState::Pending);
            turn.error = error;
        }
    }
}

/// A turn that will not change again (settled, its artifacts published).
pub(crate) fn is_final(turn: &Turn) -> bool {
    turn.status != TurnStatus::Working
        && turn
            .artifacts
            .as_ref()
            .is_some_and(|a| *a != ArtifactsState::Pending)
}

fn with_event(event: &str, mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        m.insert("event".into(), Value::from(event));
    }
    v
}

fn payload_kind(payload: &EventPayload) -> String {
    use EventPayload as P;
    let s = match payload {
        P::TurnStarted(_) => "turn.started",
        P::TurnEnded(_) => "turn.ended",
        P::AgentText(_) => "agent.text",
        P::AgentThinking(_) => "agent.thinking",
        P::AgentMessage(_) => "agent.message",
        P::AgentToolCall(_) => "agent.tool_call",
        P::AgentToolResult(_) => "agent.tool_result",
        P::AgentCompaction(_) => "agent.compaction",
        P::AgentError(_) => "agent.error",
        P::AgentTodos(_) => "agent.todos",
        P::UserMessage(_) => "user.message",
        P::UserContext(_) => "user.context",
        P::MessageQueued(_) => "message.queued",
        P::MessageDequeued(_) => "message.dequeued",
        P::FileChanged(_) => "file.changed",
        P::ApprovalRequested(_) => "approval.requested",
        P::ApprovalResolved(_) => "approval.resolved",
        P::QuestionAsked(_) => "question.asked",
        P::QuestionAnswered(_) => "question.answered",
        P::ToolRequired(_) => "tool.required",
        P::ToolResolved(_) => "tool.resolved",
        P::SandboxCreated(_) => "sandbox.created",
        P::SandboxPaused(_) => "sandbox.paused",
        P::SandboxResumed(_) => "sandbox.resumed",
        P::PreviewReady(_) => "preview.ready",
        P::WorkspaceRecoveryFailed(_) => "workspace.recovery_failed",
        P::ArtifactCreated(_) => "artifact.created",
        P::McpUnavailable(_) => "mcp.unavailable",
        P::ReplayTruncated(_) => "gobare.replay_truncated",
        P::Unknown { kind, .. } => return kind.clone(),
    };
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gobare_api::model::Text;

    fn db() -> Db {
        Db::new(broadcast::channel(16).0, Store::open_temp().unwrap(), 1_000)
    }

    /// Starts and ends a turn as the agent does: settled, its artifacts published.
    fn play_turn(db: &mut Db, id: &str) -> String {
        let rec = db.session_mut(id).unwrap();
        let turn = Db::new_turn(rec);
        db.emit(id, EventPayload::UserMessage(Text { text: "go".into() }));
        let rec = db.session_mut(id).unwrap();
        Db::settle_turn(rec, &turn, TurnStatus::Completed, None);
        rec.turn_mut(&turn).unwrap().artifacts = Some(ArtifactsState::Ready);
        db.emit(
            id,
            EventPayload::TurnEnded(gobare_api::model::TurnRef {
                turn_id: turn.clone(),
            }),
        );
        turn
    }

    #[test]
    fn a_batch_is_broadcast_once_committed_in_seq_order() {
        let mut db = db();
        db.insert_session(SessionRec::new("s".into(), None));
        let mut rx = db.subscribe();
        let say = |text: &str| EventPayload::AgentMessage(Text { text: text.into() });
        db.batch(|db| {
            db.emit("s", say("one"));
            db.batch(|db| db.emit("s", say("two")));
            assert!(rx.try_recv().is_err(), "nothing is sent before the commit");
            assert_eq!(
                db.replay(0, u64::MAX, 10, None, |_| true).len(),
                2,
                "but it is stored"
            );
        });
        let sent: Vec<u64> = std::iter::from_fn(|| rx.try_recv().ok())
            .map(|f| f.seq.unwrap())
            .collect();
        assert_eq!(sent, [1, 2]);
        assert_eq!(db.items("s").len(), 2);
    }

    #[test]
    fn settled_turns_leave_memory_and_are_still_read_in_order() {
        let mut db = db();
        db.insert_session(SessionRec::new("s".into(), None));
        let played: Vec<String> = (0..50).map(|_| play_turn(&mut db, "s")).collect();
        let rec = db.session("s").unwrap();
        assert_eq!(rec.turns.len(), 1, "only the latest is held");
        assert_eq!(rec.turn_count(), 50);
        let read: Vec<String> = db.turns("s").unwrap().into_iter().map(|t| t.id).collect();
        assert_eq!(read, played);
        assert_eq!(
            db.turn("s", &played[3]).unwrap().status,
            TurnStatus::Completed
        );
        assert!(db.turn("other", &played[3]).is_none());

        // A turn still running stays in memory, and so does every turn after it.
        let rec = db.session_mut("s").unwrap();
        let running = Db::new_turn(rec);
        let after = play_turn(&mut db, "s");
        let held: Vec<&str> = db
            .session("s")
            .unwrap()
            .turns
            .iter()
            .map(|t| t.id.as_str())
            .collect();
        assert_eq!(held, [running.as_str(), after.as_str()]);
    }
}
