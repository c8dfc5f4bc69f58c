//! The state shared by routes, streams and the scripted agent.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::agent::scenario::Scenarios;
use crate::config::SimConfig;
use crate::db::Db;
use crate::faults::Faults;
use crate::layers::idempotency::Idempotency;
use crate::layers::ratelimit::RateLimiter;
use crate::lock::lock;
use crate::store::Store;

pub(crate) struct SimState {
    pub(crate) config: SimConfig,
    pub(crate) token: String,
    /// Tokens minted with chosen scopes, and those scopes.
    pub(crate) scoped_tokens: Arc<Mutex<HashMap<String, Vec<String>>>>,
    /// Fair once a waiter has waited (parking_lot's rule, ~0.5 ms): a request is not kept
    /// waiting while the fleet's batches take the lock back one after another.
    db: parking_lot::Mutex<Db>,
    pub(crate) faults: Mutex<Faults>,
    /// Open event streams (all held by the one token of this organization).
    pub(crate) open_streams: Mutex<usize>,
    /// The state of the `Idempotency-Key` layer.
    pub(crate) idempotency: Arc<Idempotency>,
    /// The state of the rate-limit layer.
    pub(crate) rate_limiter: Arc<RateLimiter>,
    /// The cursor each accepted stream open carried, in order.
    pub(crate) stream_opens: Mutex<Vec<Option<u64>>>,
    /// The unread bytes of each stream closed for lagging (§7.7), in order.
    pub(crate) lagging_closes: Mutex<Vec<usize>>,
    /// Accepted `input.message`s per Idempotency-Key.
    pub(crate) messages_by_key: Mutex<HashMap<String, usize>>,
    /// Every accepted (not replayed) `input.message`, in order.
    pub(crate) accepted_messages: Mutex<Vec<AcceptedMessage>>,
    /// Every answer to a required action that was accepted (not replayed), in order.
    pub(crate) answers: Mutex<Vec<AcceptedAnswer>>,
    pub(crate) inputs: Mutex<Vec<AcceptedInput>>,
    /// Every accepted (not replayed) session patch, in order.
    pub(crate) patches: Mutex<Vec<crate::accepted_patches::AcceptedPatch>>,
    /// The last requests received, as `"METHOD /path?query"`, at most [`REQUESTS_KEPT`].
    pub(crate) requests: Mutex<VecDeque<String>>,
    /// Requests received per `"METHOD /route/{template}"`, since the start.
    pub(crate) request_counts: Mutex<BTreeMap<String, usize>>,
    /// The fleet's session ids, in creation order.
    pub(crate) fleet: Mutex<Vec<String>>,
    pub(crate) scenarios: Scenarios,
    pub(crate) shutdown: CancellationToken,
}

/// Requests kept in [`SimState::requests`]: enough for any test, bounded for long runs.
pub(crate) const REQUESTS_KEPT: usize = 10_000;

pub(crate) type Shared = Arc<SimState>;

/// The store's `meta` key of the scoped tokens.
const MINTED_TOKENS: &str = "scoped_tokens";
/// Sessions written per transaction of a save.
const SAVE_BATCH: usize = 5;

/// The store's `meta` key of the fleet's session ids (`--fleet`), in creation order.
pub(crate) const FLEET: &str = "fleet";

/// The store's `meta` key of the token holding every scope.
pub(crate) const TOKEN: &str = "token";

fn live_channel() -> broadcast::Sender<Arc<crate::db::Frame>> {
    broadcast::channel(4096).0
}

/// One accepted `input.message`: what the server acted on, under which key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedMessage {
    /// The `Idempotency-Key` it came with, if any.
    pub key: Option<String>,
    /// The message's text.
    pub text: String,
}

/// An answer to a required action (`input.tool_result`, `input.approval`,
/// `input.question_answer`) as the server took it: what a test checks was sent.
#[derive(Debug, Clone, PartialEq)]
pub struct AcceptedAnswer {
    /// The session it answered in.
    pub session_id: String,
    /// The answer as sent.
    pub input: gobare_api::model::Input,
    /// The reply's `outcome` (`accepted`, `already_resolved`, …).
    pub outcome: String,
}

/// Any input the server took (not replayed), with the `Idempotency-Key` it came under:
/// what a test checks was sent, and under which key.
#[derive(Debug, Clone, PartialEq)]
pub struct AcceptedInput {
    /// The session it was sent to.
    pub session_id: String,
    /// The `Idempotency-Key` it came with, if any.
    pub key: Option<String>,
    /// The input as sent.
    pub input: gobare_api::model::Input,
}

impl SimState {
    pub(crate) fn new(config: SimConfig, token: String, store: Store) -> Shared {
        let mut scoped = config.scoped_tokens.clone();
        let db = Db::new(live_channel(), store, config.retention_events);
        // Tokens minted by an earlier run on this store hold on.
        if let Some(saved) = db
            .meta(MINTED_TOKENS)
            .and_then(|v| serde_json::from_value::<Vec<(String, Vec<String>)>>(v).ok())
        {
            scoped.extend(saved);
        }
        Arc::new(SimState {
            faults: Mutex::new(config.faults.clone()),
            idempotency: Idempotency::new(
                token.clone(),
                config.idempotency_ttl,
                config.write_latency,
            ),
            rate_limiter: RateLimiter::new(&config.rate_limits),
            config,
            token,
            db: parking_lot::Mutex::new(db),
            open_streams: Mutex::new(0),
            stream_opens: Mutex::new(Vec::new()),
            lagging_closes: Mutex::new(Vec::new()),
            messages_by_key: Mutex::new(HashMap::new()),
            accepted_messages: Mutex::new(Vec::new()),
            answers: Mutex::new(Vec::new()),
            inputs: Mutex::new(Vec::new()),
            patches: Mutex::new(Vec::new()),
            scoped_tokens: Arc::new(Mutex::new(scoped.into_iter().collect())),
            requests: Mutex::new(VecDeque::new()),
            request_counts: Mutex::new(BTreeMap::new()),
            fleet: Mutex::new(Vec::new()),
            scenarios: Scenarios::embedded(),
            shutdown: CancellationToken::new(),
        })
    }

    pub(crate) fn db(&self) -> parking_lot::MutexGuard<'_, Db> {
        self.db.lock()
    }

    /// Saves what changed to a kept store, the minted tokens with it.
    pub(crate) fn save(&self) {
        let tokens: Vec<(String, Vec<String>)> = lock(&self.scoped_tokens)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let tokens = serde_json::to_value(tokens).unwrap_or_default();
        let token = serde_json::Value::from(self.token.clone());
        let meta = [(MINTED_TOKENS, tokens), (TOKEN, token)];
        // In batches: the lock is let go between them, so requests and the agent wait
        // for one batch at most, not for every busy session. Sessions changed meanwhile
        // wait for the next save (else a busy fleet would keep this one going).
        let batches = self.db().unsaved().div_ceil(SAVE_BATCH).max(1);
        for _ in 0..batches {
            if !self.db().save(&meta, SAVE_BATCH) {
                break;
            }
            std::thread::yield_now();
        }
    }

    /// Notes a request received, forgetting the oldest beyond [`REQUESTS_KEPT`].
    pub(crate) fn record_request(&self, request: String, route: String) {
        *lock(&self.request_counts).entry(route).or_default() += 1;
        let mut requests = lock(&self.requests);
        if requests.len() == REQUESTS_KEPT {
            requests.pop_front();
        }
        requests.push_back(request);
    }

    pub(crate) fn faults(&self) -> Faults {
        lock(&self.faults).clone()
    }

    /// Uses up one of `Faults::refuse_sends`: the `Retry-After` seconds to refuse with.
    pub(crate) fn take_send_refusal(&self) -> Option<u64> {
        let mut faults = lock(&self.faults);
        if faults.refuse_sends == 0 {
            return None;
        }
        faults.refuse_sends -= 1;
        Some(faults.refuse_retry_after_secs.max(1))
    }
}
