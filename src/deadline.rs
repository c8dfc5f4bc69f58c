//! When a decision stops waiting, as the reference defines it (§5 and its note on the newer
//! guides): a function call's `expires_at` (past it the call fails and the turn goes on); for
//! every parked turn, the workspace's two hours of *running* time since it started (paused
//! spans excluded, known from the `sandbox.*` events), after which the parked turn ends
//! `failed` — an estimate, "unknown" when the history is incomplete, none at all while the
//! preview is published (that workspace pauses but is never reclaimed).
//!
//! Pure: times are Unix milliseconds handed in; every sum is checked, so no server value
//! (a year-3000 `expires_at`, `i64::MIN`) can make a negative or overflowing countdown.

use crate::readable::times::{MAX_COUNTDOWN_MS, time_left};
use gobare_api::model::RequiredActionKind;

/// The workspace's lifetime (§5): reclaimed 7200 s of running time after it starts.
pub const WORKSPACE_LIFETIME_MS: i64 = 7_200_000;

/// Seconds of running time the deadlines count a workspace's life in, for a simulator run
/// with a shorter `--workspace-lifetime-secs` (tests, demos); unset: the reference's 7200.
pub(crate) const LIFETIME_ENV: &str = "GOBARE_WORKSPACE_LIFETIME_SECS";

/// The lifetime deadlines are estimated with: [`LIFETIME_ENV`] when it holds a positive
/// number of seconds, else the reference's. Read once.
pub(crate) fn workspace_lifetime_ms() -> i64 {
    static LIFETIME: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
    *LIFETIME.get_or_init(|| {
        std::env::var(LIFETIME_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
            .map_or(WORKSPACE_LIFETIME_MS, |s| (s * 1000.0) as i64)
    })
}

/// The running time of one workspace, from its `sandbox.*` events.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkspaceClock {
    /// Running time before the current running span.
    ran_ms: i64,
    /// When the current running span began (`sandbox.created` or `sandbox.resumed`);
    /// `None` while paused.
    running_since: Option<i64>,
    /// Whether every `sandbox.*` event since the workspace started was seen with its time:
    /// without its start (the history began later, a replay was cut, an event had no time)
    /// the running time is not known.
    complete: bool,
    /// The preview is published: the workspace is never reclaimed.
    published: bool,
    /// Why the running time is not known, while it is not.
    unknown: Unknown,
    /// Kept by an earlier run: known, but the session's usage says better.
    restored: bool,
}

/// Why a workspace's running time is not known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Unknown {
    /// Its start was before the history seen, and its usage is not read yet.
    #[default]
    NotRead,
    /// The server answers no usage for it (an older server).
    NoUsage,
    /// The stream skipped events that may have paused or rebuilt it.
    Gap,
}

impl Unknown {
    /// What the inbox's deadline column says (within its 11 columns).
    pub fn short(self) -> &'static str {
        match self {
            Unknown::NotRead => "? reading",
            Unknown::NoUsage => "? no usage",
            Unknown::Gap => "? gap",
        }
    }
}

impl WorkspaceClock {
    /// `sandbox.created`: a new workspace, its clock from zero.
    pub fn created(&mut self, at: Option<i64>) {
        self.restored = false;
        self.ran_ms = 0;
        self.running_since = at;
        self.complete = at.is_some();
    }

    /// `sandbox.paused`: the running span ends; paused time does not count.
    pub fn paused(&mut self, at: Option<i64>) {
        match (self.running_since.take(), at) {
            (Some(since), Some(at)) => {
                self.ran_ms = self.ran_ms.saturating_add(at.saturating_sub(since).max(0));
            }
            // A pause without a time, or without the span it ends: the sum is lost.
            _ => self.complete = false,
        }
    }

    /// `sandbox.resumed`: running again (a repeated resume keeps the span it is in).
    pub fn resumed(&mut self, at: Option<i64>) {
        if self.running_since.is_some() {
            return;
        }
        self.running_since = at;
        if at.is_none() {
            self.complete = false;
        }
    }

    /// The history has a hole (a truncated replay, a stream that skipped events): what it
    /// missed may have paused or rebuilt the workspace.
    pub fn gap(&mut self) {
        self.complete = false;
        self.unknown = Unknown::Gap;
    }

    /// The running time read from the session's usage: `ran_ms` as of `as_of`, running
    /// since then unless the workspace is paused. Known from then on, carried forward by
    /// the `sandbox.*` events that follow.
    pub fn read_usage(&mut self, ran_ms: i64, as_of: i64, running: bool) {
        self.ran_ms = ran_ms.max(0);
        self.running_since = running.then_some(as_of);
        self.complete = true;
        self.restored = false;
    }

    /// Whether the clock was kept by an earlier run (what the session's usage replaces).
    pub(crate) fn is_restored(&self) -> bool {
        self.restored
    }

    /// The server answers no usage: the running time stays unknown, and says why.
    pub fn no_usage(&mut self) {
        if !self.complete {
            self.unknown = Unknown::NoUsage;
        }
    }

    /// Why the running time is not known (meaningful while [`Self::is_complete`] is not).
    pub fn why_unknown(&self) -> Unknown {
        self.unknown
    }

    /// The clock as kept across runs: running time, its running span's start, published.
    pub(crate) fn saved(&self) -> Option<(i64, Option<i64>, bool)> {
        self.complete
            .then_some((self.ran_ms, self.running_since, self.published))
    }

    /// A clock kept by an earlier run ([`Self::saved`]).
    pub(crate) fn restored(ran_ms: i64, running_since: Option<i64>, published: bool) -> Self {
        WorkspaceClock {
            ran_ms: ran_ms.max(0),
            running_since,
            complete: true,
            published,
            unknown: Unknown::NotRead,
            restored: true,
        }
    }

    /// Whether the preview is published (from the session resource).
    pub fn set_published(&mut self, published: bool) {
        self.published = published;
    }

    /// Whether the preview is published (the workspace is never reclaimed).
    pub fn is_published(&self) -> bool {
        self.published
    }

    /// Whether the clock is known from the workspace's start.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// Running time at `now`; `None` when the history is incomplete.
    fn ran_at(&self, now: i64) -> Option<i64> {
        self.complete.then(|| self.ran_seen(now))
    }

    /// Running time seen by `now`: all of it when [`Self::is_complete`], else a lower bound
    /// (the spans before the history began are missing).
    pub(crate) fn ran_seen(&self, now: i64) -> i64 {
        let current = self
            .running_since
            .map_or(0, |since| now.saturating_sub(since).max(0));
        self.ran_ms.saturating_add(current)
    }

    /// Whether any running span was seen with its times.
    pub(crate) fn saw_running(&self) -> bool {
        self.complete || self.ran_ms > 0 || self.running_since.is_some()
    }

    /// When the workspace reaches `lifetime_ms` of running time, as of `now`.
    pub(crate) fn lifetime_ends(&self, lifetime_ms: i64, now: i64) -> WorkspaceEnd {
        if self.published {
            return WorkspaceEnd::Never;
        }
        let Some(ran) = self.ran_at(now) else {
            return WorkspaceEnd::Unknown;
        };
        let left = lifetime_ms.saturating_sub(ran);
        if self.running_since.is_none() {
            // Paused: the clock stands still; the time left is all there is to say.
            return WorkspaceEnd::Paused { left_ms: left };
        }
        WorkspaceEnd::At(now.saturating_add(left))
    }
}

/// When the workspace's lifetime ends, as far as its history tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WorkspaceEnd {
    At(i64),
    /// Paused with this much running time left (nothing parked pauses, §10: rare).
    Paused {
        left_ms: i64,
    },
    /// Published preview: never reclaimed.
    Never,
    Unknown,
}

/// When a pending action stops waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deadline {
    /// A declared function's timeout (`expires_at`): exact.
    Exact(i64),
    /// The workspace's lifetime, estimated from its events.
    Estimate(i64),
    /// The workspace is paused with this much running time left: no clock runs.
    Paused(i64),
    /// Nothing ends the wait (a published preview, and no declared timeout).
    None,
    /// Something does, but the history that would say when is incomplete.
    Unknown,
}

/// The deadline of an action of `kind` with `expires_at`, in a workspace whose clock is
/// `workspace`, as of `now`. The earlier of the two ends wins: a function call's timeout,
/// else the workspace lifetime, which parks every kind of action (§5). An `expires_at`
/// absurdly far (more than `MAX_COUNTDOWN_MS` ahead) is treated as absent.
pub fn deadline(
    kind: &RequiredActionKind,
    expires_at: Option<i64>,
    workspace: &WorkspaceClock,
    lifetime_ms: i64,
    now: i64,
) -> Deadline {
    let declared = match kind {
        RequiredActionKind::FunctionCall => {
            expires_at.filter(|at| at.checked_sub(now).is_some_and(|l| l <= MAX_COUNTDOWN_MS))
        }
        // Approvals and questions never expire on their own (§9.4); a value there is not
        // one the reference defines.
        _ => None,
    };
    let workspace = workspace.lifetime_ends(lifetime_ms, now);
    match (declared, workspace) {
        (Some(exact), WorkspaceEnd::At(end)) if end < exact => Deadline::Estimate(end),
        (Some(exact), _) => Deadline::Exact(exact),
        (None, WorkspaceEnd::At(end)) => Deadline::Estimate(end),
        (None, WorkspaceEnd::Paused { left_ms }) => Deadline::Paused(left_ms),
        (None, WorkspaceEnd::Never) => Deadline::None,
        (None, WorkspaceEnd::Unknown) => Deadline::Unknown,
    }
}

impl Deadline {
    /// The order the inbox lists by: soonest first, a paused clock by the time it has
    /// left, then the unknown, then the ones nothing ends.
    pub fn sort_key(&self, now: i64) -> (u8, i64) {
        match *self {
            Deadline::Exact(at) | Deadline::Estimate(at) => (0, at),
            Deadline::Paused(left) => (0, now.saturating_add(left.max(0))),
            Deadline::Unknown => (1, 0),
            Deadline::None => (2, 0),
        }
    }

    /// Whether the countdown moves (a frame each second is worth drawing).
    pub fn ticks(&self) -> bool {
        matches!(self, Deadline::Exact(_) | Deadline::Estimate(_))
    }

    /// Whether it is past.
    pub fn is_past(&self, now: i64) -> bool {
        match *self {
            Deadline::Exact(at) | Deadline::Estimate(at) => at <= now,
            Deadline::Paused(left) => left <= 0,
            Deadline::None | Deadline::Unknown => false,
        }
    }

    /// The countdown as shown: `4m 03s`, `≈ 1h 12m`, `expired`, `paused, ≈ 20m left`,
    /// `unknown`, `none`. Seconds are rounded up ("0s" while time is left would be wrong);
    /// never negative, never longer than `MAX_COUNTDOWN_MS`.
    pub fn show(&self, now: i64) -> String {
        let left = |at: i64| at.checked_sub(now);
        match *self {
            Deadline::Exact(at) | Deadline::Estimate(at) => match left(at) {
                Some(l) if l <= 0 => "expired".into(),
                Some(l) if l <= MAX_COUNTDOWN_MS => {
                    let text = time_left(l);
                    if matches!(self, Deadline::Estimate(_)) {
                        format!("≈ {text}")
                    } else {
                        text
                    }
                }
                // Beyond any real deadline (or past i64): no countdown.
                _ => "unknown".into(),
            },
            Deadline::Paused(l) if l <= 0 => "expired".into(),
            Deadline::Paused(l) if l <= MAX_COUNTDOWN_MS => {
                format!("paused, ≈ {} left", time_left(l))
            }
            Deadline::Paused(_) | Deadline::Unknown => "unknown".into(),
            Deadline::None => "none".into(),
        }
    }
}

#[cfg(test)]
mod tests;
