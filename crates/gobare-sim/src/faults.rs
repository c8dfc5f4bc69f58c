//! Fault injection: the misbehaviours a real network, a real proxy and a real sandbox
//! host produce, on demand, so the client's resume and failure handling can be tested
//! against them.

/// Which faults the simulator injects (the SSE writer, sends, rebuilds, artifact
/// downloads, usage). `Faults::default()` injects none. Changeable at
/// runtime with `Simulator::set_faults`; every open stream reads the current value before
/// each write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Faults {
    /// Close the connection after this many event frames (pings excluded), leaving the
    /// last frame half written.
    pub drop_every_n_frames: Option<u64>,
    /// Probability (0.0..=1.0) of closing mid-frame after any event frame.
    pub drop_probability: f64,
    /// Share (0.0..=1.0) of stream opens refused before streaming.
    pub refuse_share: f64,
    /// Status of those refusals: 429 (`rate_limit_exceeded`) or 503 (`sandbox_unavailable`).
    pub refuse_status: u16,
    /// `Retry-After` seconds sent with those refusals (and with refused sends).
    pub refuse_retry_after_secs: u64,
    /// Refuse this many of the next `POST /v1/sessions/{id}/events` with 503
    /// (`sandbox_unavailable`) and `Retry-After`, before acting on them (counts down).
    pub refuse_sends: u32,
    /// Hold the `202` of every accepted `POST /v1/sessions/{id}/events` this many
    /// milliseconds after acting on it: a server slow to answer.
    pub delay_send_accept_ms: u64,
    /// Stop writing anything (frames and pings) without closing the connection.
    pub stall: bool,
    /// Split every write into chunks of `min..=max` bytes.
    pub chunk_writes: Option<(usize, usize)>,
    /// End lines with CRLF instead of LF.
    pub crlf: bool,
    /// Every rebuild of a destroyed workspace gives up: `recovery_failed` with a
    /// `workspace.recovery_failed` event, and the turn waiting for it fails.
    pub fail_recovery: bool,
    /// Cut every artifact content download off after this many bytes, though its
    /// `Content-Length` announced the whole: a download dropped mid-way.
    pub cut_artifact_content_after: Option<u64>,
    /// With `cut_artifact_content_after`: hold the connection open after those bytes
    /// instead of dropping it (a download that stalls).
    pub stall_artifact_content: bool,
    /// `GET …/usage` answers `404 not_found` as for a deleted session, while the session
    /// itself still reads (a deletion racing the client's last reads).
    pub usage_gone: bool,
    /// Refuse `GET /v1/events` with `403 permission_denied`, as for a token without
    /// `sessions:read` on the org stream (the session list still answers).
    pub refuse_org_stream: bool,
    /// Refuse session writes (`PATCH`, `DELETE`, fork) with `403 permission_denied`
    /// naming `sessions:write`, as for a read-only token.
    pub read_only_sessions: bool,
    /// Hold every stream request this many milliseconds before it subscribes to the
    /// feed: a server slow to open streams (events in that time are not on the stream).
    pub delay_stream_open_ms: u64,
    /// Hold every stream's replay (and everything after it) this many milliseconds once
    /// the response has opened and its `retry:` line is written: a server that answers at
    /// once and starts replaying late. Nothing is lost: the stream follows the feed from
    /// its open.
    pub delay_replay_ms: u64,
    /// Write every frame on its own, a replay too (one HTTP chunk per event), as a server
    /// that flushes after each event does; otherwise frames already waiting go out in
    /// 64 KiB writes.
    pub write_each_frame: bool,
    /// Hold every session write (`PATCH`, `DELETE`, fork) this many milliseconds before
    /// acting on it: a server slow to answer them.
    pub delay_session_writes_ms: u64,
    /// Hold every turn list page but the first (any `GET …/turns?after=…`) until this is
    /// cleared: a list that a reader has only begun.
    pub hold_later_turn_pages: bool,
    /// `GET …/turns` answers `403 permission_denied` (nothing to wait out): a reader that
    /// cannot read a session's turns.
    pub fail_turn_lists: bool,
    /// `GET /v1/sessions` lists every required action without its `call_id`, and its
    /// first page ends with a session without an `id`: entries a client cannot read
    /// beside those it can (a session's own read is untouched).
    pub spoil_session_list: bool,
}

impl Faults {
    /// Waits as long as [`Faults::delay_session_writes_ms`] says.
    pub(crate) async fn delay_session_write(&self) {
        if self.delay_session_writes_ms > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(
                self.delay_session_writes_ms,
            ))
            .await;
        }
    }

    /// The refusal of a scope this token lacks (§1.3: the message names the scope).
    pub(crate) fn missing_scope(scope: &str) -> crate::refusal::Refusal {
        crate::refusal::Refusal::new(
            gobare_api::model::ErrorCode::PermissionDenied,
            format!("This token does not have the \"{scope}\" scope."),
        )
    }

    /// The refusal status, defaulting to 503 for values other than 429.
    pub(crate) fn refusal_status(&self) -> u16 {
        if self.refuse_status == 429 { 429 } else { 503 }
    }
}
