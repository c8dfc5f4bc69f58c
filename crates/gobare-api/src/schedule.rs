//! The one request scheduler: every request and every event stream this process makes to one
//! API with one token passes through it (reference §5, §7).
//!
//! It mirrors each rate bucket from the answers' `x-ratelimit-*` headers (`bucket`), less
//! what is in flight, and lets a request out only when its class may spend what is left:
//! a person's action may take the whole bucket, everything else leaves the last quarter, and
//! background work never takes more than half a bucket a minute. When the budget is short
//! the most urgent waiting class goes first. Event streams take one of the token's five
//! slots, and a slot is counted as held for [`SLOT_RELEASE`] after its stream closes, as the
//! service frees it (§5: ~4.5 s behind its proxy).
//!
//! One scheduler exists per API and token in a process ([`Scheduler::for_origin`]), so two
//! fronts, a command and the streams all share it without being handed it.

mod bucket;
mod class;

pub use bucket::{BucketFigures, BucketName};
use bucket::{BucketMirror, Decision};
pub use class::RequestClass;

use crate::auth::Token;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

/// Event streams one token may hold open (§5).
pub const STREAMS_PER_TOKEN: usize = 5;
/// How long after a stream closes the service still counts its slot (§5 measures ~4.5 s).
pub const SLOT_RELEASE: Duration = Duration::from_secs(5);
/// How soon a waiter that yielded to a more urgent one looks again.
const YIELD_RECHECK: Duration = Duration::from_millis(50);
/// A wait shorter than this is not worth telling anyone about.
const WAIT_WORTH_SAYING: Duration = Duration::from_secs(1);

/// Someone is waiting for the budget: the most urgent such class, and until when at least.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wait {
    /// Who waits.
    pub class: RequestClass,
    /// Not before this instant.
    pub until: Instant,
    /// What is waited for.
    pub reason: WaitReason,
}

/// Why a request waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitReason {
    /// The rate bucket is short (or a 429 said to wait).
    RateLimit,
    /// Every stream slot of the token is held.
    StreamSlot,
}

/// What the scheduler has let out, for figures and logs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Figures {
    /// Requests let out per class, most urgent first ([`RequestClass::ALL`]'s order).
    pub sent: [u64; 4],
    /// The lowest `general` remaining any answer reported.
    pub lowest_general: Option<u32>,
    /// The `general` bucket's limit, once known.
    pub general_limit: Option<u32>,
    /// 429 refusals met.
    pub refusals: u64,
}

/// The scheduler for one API and token.
#[derive(Debug)]
pub struct Scheduler {
    state: Mutex<State>,
    changed: Notify,
    wait: watch::Sender<Option<Wait>>,
}

#[derive(Debug)]
struct State {
    general: BucketMirror,
    sessions: BucketMirror,
    /// Waiters per bucket and class.
    waiters: [[u32; 4]; 2],
    figures: Figures,
    streams_open: usize,
    /// When each recently closed stream's slot is free again.
    streams_releasing: VecDeque<Instant>,
    /// This minute's figures, logged when the next minute's first request goes out.
    minute: Minute,
}

/// Requests by class and the lowest `general` remaining over one minute: the log says how
/// a long-open view spends its budget.
#[derive(Debug, Clone, Copy)]
struct Minute {
    start: Instant,
    sent: [u64; 4],
    lowest_general: Option<u32>,
}

impl Minute {
    fn new(start: Instant) -> Minute {
        Minute {
            start,
            sent: [0; 4],
            lowest_general: None,
        }
    }

    /// Counts one request sent at `now`, logging the minute before when it is over.
    fn sent(&mut self, class: RequestClass, now: Instant) {
        if now.saturating_duration_since(self.start) >= Duration::from_secs(60) {
            let [action, on_screen, background, bulk] = self.sent;
            tracing::info!(
                action,
                on_screen,
                background,
                bulk,
                lowest_general_remaining = self.lowest_general,
                "requests in the last minute"
            );
            *self = Minute::new(now);
        }
        self.sent[class.index()] += 1;
    }
}

impl State {
    fn bucket(&mut self, name: BucketName) -> &mut BucketMirror {
        match name {
            BucketName::General => &mut self.general,
            BucketName::Sessions => &mut self.sessions,
        }
    }

    fn streams_held(&mut self, now: Instant) -> usize {
        while self.streams_releasing.front().is_some_and(|t| *t <= now) {
            self.streams_releasing.pop_front();
        }
        self.streams_open + self.streams_releasing.len()
    }
}

fn bucket_index(name: BucketName) -> usize {
    match name {
        BucketName::General => 0,
        BucketName::Sessions => 1,
    }
}

static REGISTRY: OnceLock<Mutex<HashMap<u64, Weak<Scheduler>>>> = OnceLock::new();

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Scheduler {
    /// A scheduler of its own (tests; [`Scheduler::for_origin`] is what clients use).
    pub fn new() -> Arc<Scheduler> {
        Arc::new(Scheduler {
            state: Mutex::new(State {
                general: BucketMirror::new(Instant::now()),
                sessions: BucketMirror::new(Instant::now()),
                waiters: [[0; 4]; 2],
                figures: Figures::default(),
                streams_open: 0,
                streams_releasing: VecDeque::new(),
                minute: Minute::new(Instant::now()),
            }),
            changed: Notify::new(),
            wait: watch::channel(None).0,
        })
    }

    /// The process's scheduler for `api` and `token`: the budget is the token's, so every
    /// client and stream of this process with that token shares one.
    pub fn for_origin(api: &url::Url, token: Option<&Token>) -> Arc<Scheduler> {
        let mut hasher = DefaultHasher::new();
        api.as_str().trim_end_matches('/').hash(&mut hasher);
        token.map(Token::expose).hash(&mut hasher);
        let key = hasher.finish();
        let mut registry = lock(REGISTRY.get_or_init(Default::default));
        if let Some(existing) = registry.get(&key).and_then(Weak::upgrade) {
            return existing;
        }
        registry.retain(|_, s| s.strong_count() > 0);
        let scheduler = Scheduler::new();
        registry.insert(key, Arc::downgrade(&scheduler));
        scheduler
    }

    /// Waits until `class` may send one request charged to `bucket`; the permit counts it
    /// as in flight until dropped (drop it once the answer's headers are observed).
    pub async fn admit(self: &Arc<Self>, class: RequestClass, bucket: BucketName) -> Permit {
        let mut waiting = WaiterGuard {
            scheduler: self,
            slot: None,
        };
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let until = {
                let mut state = lock(&self.state);
                let now = Instant::now();
                let decision = state.bucket(bucket).decide(class, now);
                let yield_to_higher = decision == Decision::Go
                    && RequestClass::ALL[..class.index()].iter().any(|higher| {
                        state.waiters[bucket_index(bucket)][higher.index()] > 0
                            && state.bucket(bucket).decide(*higher, now) == Decision::Go
                    });
                match decision {
                    Decision::Go if !yield_to_higher => {
                        waiting.leave(&mut state);
                        state.bucket(bucket).sent(class, now);
                        state.figures.sent[class.index()] += 1;
                        state.minute.sent(class, now);
                        drop(state);
                        self.clear_wait(class);
                        self.changed.notify_waiters();
                        return Permit {
                            scheduler: self.clone(),
                            bucket,
                        };
                    }
                    Decision::Go => {
                        // A more urgent waiter takes this one; look again once it has.
                        waiting.join(&mut state, Slot::Request(bucket, class));
                        now + YIELD_RECHECK
                    }
                    Decision::NotBefore(until) => {
                        waiting.join(&mut state, Slot::Request(bucket, class));
                        until
                    }
                }
            };
            self.say_wait(class, until, WaitReason::RateLimit);
            tokio::select! {
                () = tokio::time::sleep_until(until) => {}
                () = &mut notified => {}
            }
        }
    }

    /// Waits for one of the token's stream slots and for `class` to be let out on `general`
    /// (opening a stream is a request, §7.8). The slot is held until the returned
    /// [`StreamSlot`] is dropped, then for `release` more.
    pub async fn open_stream(
        self: &Arc<Self>,
        class: RequestClass,
        release: Duration,
    ) -> (StreamSlot, Permit) {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let until = {
                let mut state = lock(&self.state);
                let now = Instant::now();
                let held = state.streams_held(now);
                if held < STREAMS_PER_TOKEN {
                    state.streams_open += 1;
                    None
                } else {
                    Some(state.streams_releasing.front().copied())
                }
            };
            match until {
                None => break,
                Some(free_at) => {
                    if let Some(at) = free_at {
                        self.say_wait(class, at, WaitReason::StreamSlot);
                    }
                    tokio::select! {
                        () = async {
                            match free_at {
                                Some(at) => tokio::time::sleep_until(at).await,
                                None => std::future::pending().await,
                            }
                        } => {}
                        () = &mut notified => {}
                    }
                }
            }
        }
        let slot = StreamSlot {
            scheduler: self.clone(),
            release,
        };
        let permit = self.admit(class, BucketName::General).await;
        (slot, permit)
    }

    /// Reads the `x-ratelimit-*` headers of one answer into the mirror.
    pub fn observe(&self, headers: &http::HeaderMap) {
        let number = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<u64>().ok();
        let (Some(limit), Some(remaining), Some(reset)) = (
            number("x-ratelimit-limit"),
            number("x-ratelimit-remaining"),
            number("x-ratelimit-reset"),
        ) else {
            return;
        };
        let bucket = headers
            .get("x-ratelimit-resource")
            .and_then(|v| v.to_str().ok())
            .map_or(Some(BucketName::General), BucketName::from_header);
        let Some(bucket) = bucket else { return };
        let clamp = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        {
            let mut state = lock(&self.state);
            let now = Instant::now();
            let mirror = state.bucket(bucket);
            mirror.observe(clamp(limit), clamp(remaining), reset.min(86_400), now);
            mirror.keep_answer(BucketFigures {
                limit,
                remaining,
                reset_secs: reset,
                at_ms: crate::clock::unix_ms(),
            });
            if bucket == BucketName::General {
                state.figures.lowest_general = state.general.lowest_seen();
                state.figures.general_limit = state.general.limit();
                let remaining = clamp(remaining);
                state.minute.lowest_general = Some(
                    state
                        .minute
                        .lowest_general
                        .map_or(remaining, |l| l.min(remaining)),
                );
            }
        }
        self.changed.notify_waiters();
    }

    /// The figures of the last answer that reported `bucket`, as the server wrote them.
    pub fn last_answer(&self, bucket: BucketName) -> Option<BucketFigures> {
        lock(&self.state).bucket(bucket).last_answer()
    }

    /// A 429 on `bucket`: nothing but a person's action goes before `retry_after` passes.
    pub fn refused(&self, bucket: BucketName, retry_after: Duration) {
        {
            let mut state = lock(&self.state);
            let now = Instant::now();
            state.bucket(bucket).refused(retry_after, now);
            state.figures.refusals += 1;
        }
        self.changed.notify_waiters();
    }

    /// Who waits for the budget now, if anyone has for more than a moment.
    pub fn waiting(&self) -> watch::Receiver<Option<Wait>> {
        self.wait.subscribe()
    }

    /// Says that `class` waits until `until` (a retried read's `Retry-After`, say).
    pub fn say_wait(&self, class: RequestClass, until: Instant, reason: WaitReason) {
        if until.saturating_duration_since(Instant::now()) < WAIT_WORTH_SAYING {
            return;
        }
        self.wait.send_if_modified(|current| {
            let more_urgent = current.is_none_or(|w| class <= w.class);
            if more_urgent
                && *current
                    != Some(Wait {
                        class,
                        until,
                        reason,
                    })
            {
                *current = Some(Wait {
                    class,
                    until,
                    reason,
                });
                true
            } else {
                false
            }
        });
    }

    fn clear_wait(&self, class: RequestClass) {
        self.wait.send_if_modified(|current| {
            if current.is_some_and(|w| w.class == class) {
                *current = None;
                true
            } else {
                false
            }
        });
    }

    /// What has been let out so far.
    pub fn figures(&self) -> Figures {
        lock(&self.state).figures
    }
}

/// What a waiter is counted as waiting for: a request of a class on a bucket. Stream slots
/// go to whoever looks first once one is free; no class yields for them.
#[derive(Debug, Clone, Copy)]
enum Slot {
    Request(BucketName, RequestClass),
}

/// Counts a waiter while it waits, and uncounts it however the wait ends (a dropped future
/// included), so the classes below never yield to a waiter that has gone.
struct WaiterGuard<'a> {
    scheduler: &'a Scheduler,
    slot: Option<Slot>,
}

impl WaiterGuard<'_> {
    fn join(&mut self, state: &mut State, slot: Slot) {
        if self.slot.is_none() {
            match slot {
                Slot::Request(b, c) => state.waiters[bucket_index(b)][c.index()] += 1,
            }
            self.slot = Some(slot);
        }
    }

    fn leave(&mut self, state: &mut State) {
        match self.slot.take() {
            Some(Slot::Request(b, c)) => state.waiters[bucket_index(b)][c.index()] -= 1,
            None => {}
        }
    }
}

impl Drop for WaiterGuard<'_> {
    fn drop(&mut self) {
        if self.slot.is_some() {
            let mut state = lock(&self.scheduler.state);
            self.leave(&mut state);
        }
    }
}

/// One request let out: in flight until dropped.
#[derive(Debug)]
pub struct Permit {
    scheduler: Arc<Scheduler>,
    bucket: BucketName,
}

impl Drop for Permit {
    fn drop(&mut self) {
        lock(&self.scheduler.state).bucket(self.bucket).answered();
        self.scheduler.changed.notify_waiters();
    }
}

/// One of the token's stream slots, held while the stream is open and for its release time
/// after.
#[derive(Debug)]
pub struct StreamSlot {
    scheduler: Arc<Scheduler>,
    release: Duration,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        {
            let mut state = lock(&self.scheduler.state);
            state.streams_open = state.streams_open.saturating_sub(1);
            if !self.release.is_zero() {
                let at = Instant::now() + self.release;
                state.streams_releasing.push_back(at);
            }
        }
        self.scheduler.changed.notify_waiters();
    }
}

#[cfg(test)]
mod tests;
