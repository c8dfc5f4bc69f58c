//! Simulator configuration: timers, caps, limits, speed and faults.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::faults::Faults;

/// Token buckets of §5, each token its own: continuous refill, full allowance usable as
/// a burst.
#[derive(Debug, Clone, PartialEq)]
pub struct RateLimits {
    /// `general` bucket: every authenticated request except `POST /v1/sessions`.
    pub general_per_minute: u32,
    /// `sessions` bucket: `POST /v1/sessions`.
    pub sessions_per_minute: u32,
    /// When false the buckets are still reported in `x-ratelimit-*` but never refuse.
    pub enforce: bool,
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            general_per_minute: 120,
            sessions_per_minute: 10,
            enforce: true,
        }
    }
}

/// Everything the simulator can be told. `Default` is the realistic deployment (the
/// documented numbers); [`SimConfig::for_tests`] has fast timers and no throttling.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// Where to listen; port 0 picks a free one.
    pub addr: SocketAddr,
    /// The bearer token clients must present; `None` makes a random `gbr_pat_…` one.
    pub token: Option<String>,
    /// Further tokens, each holding only the scopes listed (`sessions:read`, …): a request
    /// needing another gets `403 permission_denied` naming it.
    pub scoped_tokens: Vec<(String, Vec<String>)>,
    /// Speed factor of the scripted agent (2.0 = twice as fast). Scales every delay.
    pub speed: f64,
    /// Default scenario for `input.message` (a message containing `#<name>` picks another).
    /// `mix` rotates quick → approval → question → long → function → error per session.
    pub scenario: String,
    /// Value of the `retry:` line written first on every stream (ms).
    pub retry_ms: u64,
    /// Interval of `: ping` keep-alives.
    pub ping_interval: Duration,
    /// Most persisted events replayed on one connect before `gobare.replay_truncated`.
    pub replay_cap: usize,
    /// Unread bytes of a stream (queued by the server, not yet taken by the connection)
    /// past which transient frames and pings are dropped (§7.7: ~1 MiB).
    pub stream_drop_transient_after: usize,
    /// Unread bytes of a stream past which the connection is closed (§7.7: 8 MiB).
    pub stream_close_after: usize,
    /// Open event streams per token.
    pub streams_per_token: usize,
    /// Open event streams per organization.
    pub streams_per_org: usize,
    /// How long a closed stream keeps its slot (the proxy's ~4.5 s lag).
    pub stream_slot_release_delay: Duration,
    /// Request rate limits.
    pub rate_limits: RateLimits,
    /// Concurrent sessions per organization before `429 project_limit_exceeded`.
    pub max_sessions: usize,
    /// Queued `input.message`s per session before `429 queue_full`.
    pub queue_cap: usize,
    /// Request body ceiling (bytes) of every route but `POST /v1/sessions`.
    pub body_limit: usize,
    /// Request body ceiling (bytes) of `POST /v1/sessions` (seed files make it larger).
    pub create_body_limit: usize,
    /// Time a cold workspace takes to come up (before `sandbox.created`).
    pub sandbox_boot: Duration,
    /// Time a paused workspace takes to wake (before `sandbox.resumed`).
    pub sandbox_wake: Duration,
    /// Idle time before a running workspace pauses (`sandbox.paused`).
    pub idle_pause: Duration,
    /// Workspace lifetime; afterwards it is `destroyed` (no event) and rebuilt on demand.
    pub workspace_lifetime: Duration,
    /// How long the session bridge restarts after `PUT …/tools` (file writes get 409).
    pub bridge_restart: Duration,
    /// Delay between a turn settling and its artifacts being published.
    pub artifact_publish_delay: Duration,
    /// Answers to function calls report `not_delivered` (the sandbox "restarted").
    pub tool_results_not_delivered: bool,
    /// Artificial processing time of every write (lets tests observe in-flight keys).
    pub write_latency: Duration,
    /// How long idempotency keys are remembered.
    pub idempotency_ttl: Duration,
    /// Stream faults at start (changeable at runtime).
    pub faults: Faults,
    /// Scripted sessions created and started with the simulator (crews, approvals,
    /// questions, function calls, failures; see [`SimConfig::with_fleet`]). 0 = none.
    pub fleet: usize,
    /// Events a second emitted across the fleet's sessions, round-robin, for as long as the
    /// simulator runs: settled sessions run short turns (start, deltas, a tool call and
    /// its result, a file change, an approval asked and granted, a reply, an artifact,
    /// the end), so rows change as on a busy organization. 0 = none.
    pub fleet_activity: u32,
    /// Function calls asked at once across the fleet's settled sessions shortly after the
    /// start, each near its deadline (`crate::fleet::deadline_burst`). 0 = none.
    pub fleet_deadline_burst: usize,
    /// Where sessions, turns, items, artifacts and events are kept across runs
    /// (`sim.sqlite` there, one simulator at a time); `None` keeps them in a temporary
    /// file that goes with the simulator.
    pub data_dir: Option<PathBuf>,
    /// With `data_dir`: start over, discarding what it holds (once its lock is held, so a
    /// simulator using it keeps its store).
    pub fresh_data: bool,
    /// Most events kept in the store: past it the oldest events are dropped, with the
    /// items, settled turns and artifacts of that history.
    pub retention_events: u64,
    /// How often the store is pruned back to `retention_events` (in small steps, off the
    /// request path): between two prunes it may hold more.
    pub retention_every: Duration,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            token: None,
            scoped_tokens: Vec::new(),
            speed: 1.0,
            scenario: "mix".into(),
            retry_ms: 2000,
            ping_interval: Duration::from_secs(15),
            replay_cap: 50_000,
            stream_drop_transient_after: 1024 * 1024,
            stream_close_after: 8 * 1024 * 1024,
            streams_per_token: 5,
            streams_per_org: 20,
            stream_slot_release_delay: Duration::from_millis(4500),
            rate_limits: RateLimits::default(),
            max_sessions: 25,
            queue_cap: 5,
            body_limit: 1024 * 1024,
            create_body_limit: 16 * 1024 * 1024,
            sandbox_boot: Duration::from_millis(1800),
            sandbox_wake: Duration::from_millis(700),
            idle_pause: Duration::from_secs(300),
            workspace_lifetime: Duration::from_secs(7200),
            artifact_publish_delay: Duration::from_millis(600),
            bridge_restart: Duration::from_millis(1500),
            tool_results_not_delivered: false,
            write_latency: Duration::ZERO,
            idempotency_ttl: Duration::from_secs(24 * 3600),
            faults: Faults::default(),
            fleet: 0,
            fleet_activity: 0,
            fleet_deadline_burst: 0,
            data_dir: None,
            fresh_data: false,
            retention_events: 1_000_000,
            retention_every: Duration::from_millis(200),
        }
    }
}

impl SimConfig {
    /// Fast timers, no throttling, no slot-release lag, a fixed token.
    pub fn for_tests() -> Self {
        SimConfig {
            token: Some("gbr_pat_test_token".into()),
            speed: 200.0,
            scenario: "quick".into(),
            max_sessions: 10_000,
            ping_interval: Duration::from_secs(15),
            stream_slot_release_delay: Duration::ZERO,
            // Buckets too large to run short: a test's client paces itself by the
            // headers, and a bucket that only pretends to be empty would slow it for
            // nothing.
            rate_limits: RateLimits {
                general_per_minute: 1_000_000,
                sessions_per_minute: 1_000_000,
                enforce: false,
            },
            sandbox_boot: Duration::from_millis(10),
            sandbox_wake: Duration::from_millis(10),
            artifact_publish_delay: Duration::from_millis(10),
            bridge_restart: Duration::from_millis(100),
            ..SimConfig::default()
        }
    }

    /// Starts with `sessions` scripted sessions running at once, in blocks of six: a crew
    /// (a lead on a long run, members waiting on an approval and a question) and three on
    /// their own (idle after a quick reply, failed, waiting on a function call); every
    /// other one untitled. The session limit is raised to leave room for 25 more.
    pub fn with_fleet(mut self, sessions: usize) -> Self {
        self.fleet = sessions;
        self.max_sessions = self.max_sessions.max(sessions.saturating_add(25));
        self
    }

    /// A delay from a scenario, scaled by `speed`.
    pub(crate) fn scaled(&self, ms: u64) -> Duration {
        let speed = if self.speed.is_finite() && self.speed > 0.0 {
            self.speed
        } else {
            1.0
        };
        Duration::try_from_secs_f64(ms as f64 / 1000.0 / speed).unwrap_or(Duration::MAX)
    }
}
