//! `gobare-tui sim` options: the flags, and the [`SimConfig`] they describe.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::config::SimConfig;
use crate::faults::Faults;
use crate::layers::scopes;

/// Every scenario `--scenario` and a message's `#name` can pick, with what it plays.
pub(crate) const SCENARIO_HELP: &[(&str, &str)] = &[
    (
        "mix",
        "rotate through quick, approval, question, long, function and error, asking for \
         approvals only as the session's policy says",
    ),
    (
        "quick",
        "a short bug fix: read, grep, edit with a diff, run the tests, write a report",
    ),
    (
        "long",
        "a multi-step refactor: a Storage trait, 12 modules migrated, dozens of tool calls",
    ),
    ("approval", "asks permission to restart a service"),
    ("question", "asks which way to go before changing anything"),
    (
        "choice",
        "a question in the production shape: its text in the action's name, options with a label",
    ),
    (
        "function",
        "calls the client's lookup_order function if the session declares it",
    ),
    (
        "expiring",
        "calls lookup_order if declared; unanswered past its timeout_seconds, the turn goes on",
    ),
    (
        "error",
        "the model provider fails: one error the agent recovers from, then one that fails the turn",
    ),
    (
        "recovery",
        "the workspace is reclaimed and its next rebuild gives up (workspace.recovery_failed)",
    ),
    (
        "edits",
        "edits src/lib.rs twice, grows notes/todo.md, creates and removes a scratch file, deletes docs/old.md",
    ),
    (
        "undiffed",
        "file changes whose events carry no diff, or one cut short",
    ),
];

fn scenario_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        SCENARIO_HELP
            .iter()
            .map(|(name, help)| clap::builder::PossibleValue::new(*name).help(*help)),
    )
}

/// The flags of `gobare-tui sim`; [`SimArgs::to_config`] makes the [`SimConfig`] they
/// describe.
#[derive(Debug, Clone, clap::Args)]
pub struct SimArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:4780")]
    pub addr: SocketAddr,
    /// A token clients may present (repeatable). `NAME` holds every scope (the first such
    /// is the one printed; a random one is made when none is given); `NAME:SCOPE,SCOPE`
    /// holds only those (`sessions:read`, `sessions:write`, `tools:respond`,
    /// `artifacts:read`, `credentials:write`, `cli`): other routes answer 403.
    #[arg(long = "token", value_name = "NAME[:SCOPE,SCOPE]", value_parser = parse_token)]
    pub tokens: Vec<TokenArg>,
    /// Speed factor for the scripted agent (2 = twice as fast).
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// The scenario a message without a `#name` tag plays (a message's `#name` picks any
    /// of them).
    #[arg(long, default_value = "mix", value_parser = scenario_names())]
    pub scenario: String,
    /// Create a demo session on start and print its id.
    #[arg(long)]
    pub demo_session: bool,
    /// Start N scripted sessions at once: crews, sessions waiting on approvals, questions
    /// and function calls, failed, working and idle ones (raises the session limit).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub fleet: usize,
    /// With --fleet: emit this many events a second across the fleet, for as long as the
    /// simulator runs: settled sessions run short turns (deltas, tools, an approval asked
    /// and granted, an artifact), so rows change as on a busy organization.
    #[arg(long, value_name = "PER_SECOND", default_value_t = 0)]
    pub fleet_activity: u32,
    /// With --fleet: 15 s after the start, ask N function calls across the settled fleet
    /// sessions, each expiring 4 minutes later, and leave them unanswered (a flood of
    /// deadlines for the notifications).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub fleet_deadline_burst: usize,
    /// Keep sessions, turns, items, artifacts and events in DIR (`sim.sqlite`, one
    /// simulator at a time): a simulator started again on DIR has them back, each turn that
    /// was running ended failed. Without it they are kept in a temporary file under the
    /// cache directory and go with the simulator.
    #[arg(long = "data", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Most events kept in the store: past it the oldest sessions' events are dropped from
    /// the stream's history (their turns and items stay).
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub retention_events: u64,
    /// `retry:` hint written at the start of each stream, in ms.
    #[arg(long, default_value_t = 2000)]
    pub retry_ms: u64,
    /// Seconds between `: ping` keep-alives.
    #[arg(long, default_value_t = 15.0)]
    pub ping_secs: f64,
    /// Seconds of idleness before a workspace pauses.
    #[arg(long, default_value_t = 300.0)]
    pub idle_pause_secs: f64,
    /// Seconds a workspace lives before it is destroyed.
    #[arg(long, default_value_t = 7200.0)]
    pub workspace_lifetime_secs: f64,
    /// Events replayed per connect before `gobare.replay_truncated`.
    #[arg(long, default_value_t = 50_000)]
    pub replay_cap: usize,
    /// Do not refuse requests over the rate limits (headers are still sent).
    #[arg(long)]
    pub no_rate_limits: bool,
    /// Answers to function calls report `not_delivered`.
    #[arg(long)]
    pub not_delivered: bool,
    /// Fault: close each stream after N frames, mid-frame.
    #[arg(long)]
    pub drop_every: Option<u64>,
    /// Fault: probability of closing a stream mid-frame after any frame.
    #[arg(long, default_value_t = 0.0)]
    pub drop_probability: f64,
    /// Fault: share of stream opens refused (see --refuse-status).
    #[arg(long, default_value_t = 0.0)]
    pub refuse_share: f64,
    /// Fault: status of refused stream opens (429 or 503).
    #[arg(long, default_value_t = 503)]
    pub refuse_status: u16,
    /// Fault: stop writing to streams without closing them.
    #[arg(long)]
    pub stall: bool,
    /// Fault: split stream writes into chunks of 1..=N bytes.
    #[arg(long)]
    pub chunk_max: Option<usize>,
    /// Fault: CRLF line endings on streams.
    #[arg(long)]
    pub crlf: bool,
    /// Fault: rebuilding a destroyed workspace gives up (`workspace.recovery_failed`).
    #[arg(long)]
    pub fail_recovery: bool,
    /// Fault: refuse the org stream (`GET /v1/events`) with 403, as for a scoped token.
    #[arg(long)]
    pub refuse_org_stream: bool,
    /// Fault: refuse session writes (patch, delete, fork) with 403 naming `sessions:write`.
    #[arg(long)]
    pub read_only_sessions: bool,
    /// Fault: hold each stream request this many milliseconds before it starts following.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    pub delay_stream_open_ms: u64,
    /// Fault: open each stream at once, then hold its replay this many milliseconds.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    pub delay_replay_ms: u64,
    /// Fault: write every frame on its own, a replay too (one HTTP chunk per event).
    #[arg(long)]
    pub write_each_frame: bool,
}

/// One `--token`: its name and, when limited, the scopes it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenArg {
    /// What clients present as `Authorization: Bearer NAME`.
    pub name: String,
    /// `None` for every scope.
    pub scopes: Option<Vec<String>>,
}

fn parse_token(value: &str) -> Result<TokenArg, String> {
    let (name, scopes) = match value.split_once(':') {
        None => (value, None),
        Some((name, list)) => {
            let scopes: Vec<String> = list.split(',').map(|s| s.trim().to_string()).collect();
            if let Some(unknown) = scopes.iter().find(|s| !scopes::ALL.contains(&s.as_str())) {
                return Err(format!(
                    "unknown scope \"{unknown}\"; scopes: {}",
                    scopes::ALL.join(", ")
                ));
            }
            (name, Some(scopes))
        }
    };
    if name.is_empty() || name.chars().any(char::is_whitespace) {
        return Err("a token name is non-empty and has no spaces".into());
    }
    Ok(TokenArg {
        name: name.to_string(),
        scopes,
    })
}

fn secs(s: f64) -> Duration {
    Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(Duration::MAX)
}

impl SimArgs {
    /// The first `--token` holding every scope.
    fn full_token(&self) -> Option<String> {
        let full = self.tokens.iter().find(|t| t.scopes.is_none());
        full.map(|t| t.name.clone())
    }

    /// Every other `--token`, with the scopes it holds (a further unlimited one holds all
    /// six).
    fn scoped_tokens(&self) -> Vec<(String, Vec<String>)> {
        let full = self.full_token();
        self.tokens
            .iter()
            .filter(|t| Some(&t.name) != full.as_ref())
            .map(|t| {
                let all = || scopes::ALL.iter().map(|s| s.to_string()).collect();
                (t.name.clone(), t.scopes.clone().unwrap_or_else(all))
            })
            .collect()
    }

    /// The configuration these flags describe (realistic defaults otherwise).
    pub fn to_config(&self) -> SimConfig {
        let mut config = SimConfig {
            addr: self.addr,
            token: self.full_token(),
            scoped_tokens: self.scoped_tokens(),
            speed: self.speed,
            scenario: self.scenario.clone(),
            retry_ms: self.retry_ms,
            ping_interval: secs(self.ping_secs).max(Duration::from_millis(10)),
            idle_pause: secs(self.idle_pause_secs),
            workspace_lifetime: secs(self.workspace_lifetime_secs),
            replay_cap: self.replay_cap,
            tool_results_not_delivered: self.not_delivered,
            faults: Faults {
                drop_every_n_frames: self.drop_every,
                drop_probability: self.drop_probability.clamp(0.0, 1.0),
                refuse_share: self.refuse_share.clamp(0.0, 1.0),
                refuse_status: self.refuse_status,
                refuse_retry_after_secs: 2,
                refuse_sends: 0,
                delay_send_accept_ms: 0,
                stall: self.stall,
                chunk_writes: self.chunk_max.map(|max| (1, max.max(1))),
                crlf: self.crlf,
                fail_recovery: self.fail_recovery,
                cut_artifact_content_after: None,
                stall_artifact_content: false,
                usage_gone: false,
                refuse_org_stream: self.refuse_org_stream,
                read_only_sessions: self.read_only_sessions,
                delay_stream_open_ms: self.delay_stream_open_ms,
                delay_replay_ms: self.delay_replay_ms,
                write_each_frame: self.write_each_frame,
                delay_session_writes_ms: 0,
                hold_later_turn_pages: false,
                fail_turn_lists: false,
                spoil_session_list: false,
            },
            ..SimConfig::default()
        };
        config.rate_limits.enforce = !self.no_rate_limits;
        config.fleet_activity = self.fleet_activity;
        config.fleet_deadline_burst = self.fleet_deadline_burst;
        config.data_dir = self.data_dir.clone();
        config.retention_events = self.retention_events;
        config.with_fleet(self.fleet)
    }
}
