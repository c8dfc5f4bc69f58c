//! The state shared by routes, streams and the scripted agent.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::config::SimConfig;
use super::db::Db;
use super::faults::Faults;
use super::idempotency::IdempotencyStore;
use super::ratelimit::Buckets;
use super::scenario::Scenarios;

pub struct SimState {
    pub config: SimConfig,
    pub token: String,
    pub db: Mutex<Db>,
    pub faults: Mutex<Faults>,
    /// Open event streams (all held by the one token of this organization).
    pub open_streams: Mutex<usize>,
    pub idempotency: Mutex<IdempotencyStore>,
    pub buckets: Mutex<Buckets>,
    pub stream_opens: Mutex<Vec<Option<u64>>>,
    pub messages_by_key: Mutex<HashMap<String, usize>>,
    pub scenarios: Scenarios,
    pub shutdown: CancellationToken,
}

pub type Shared = Arc<SimState>;

impl SimState {
    pub fn new(config: SimConfig, token: String) -> Shared {
        let (live, _) = broadcast::channel(4096);
        Arc::new(SimState {
            faults: Mutex::new(config.faults.clone()),
            buckets: Mutex::new(Buckets::new(&config.rate_limits)),
            config,
            token,
            db: Mutex::new(Db::new(live)),
            open_streams: Mutex::new(0),
            idempotency: Mutex::new(IdempotencyStore::default()),
            stream_opens: Mutex::new(Vec::new()),
            messages_by_key: Mutex::new(HashMap::new()),
            scenarios: Scenarios::embedded(),
            shutdown: CancellationToken::new(),
        })
    }

    pub fn db(&self) -> MutexGuard<'_, Db> {
        lock(&self.db)
    }

    pub fn faults(&self) -> Faults {
        lock(&self.faults).clone()
    }

    /// Uses up one of `Faults::refuse_sends`: the `Retry-After` seconds to refuse with.
    pub fn take_send_refusal(&self) -> Option<u64> {
        let mut faults = lock(&self.faults);
        if faults.refuse_sends == 0 {
            return None;
        }
        faults.refuse_sends -= 1;
        Some(faults.refuse_retry_after_secs.max(1))
    }
}

/// Locks, ignoring poisoning: no lock is held across code that can panic mid-update.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
