//! A busy organization's activity as the simulator's `--fleet 60 --fleet-activity 50`
//! makes it (`crates/gobare-sim/src/fleet/mod.rs`, `fleet/activity.rs`), as a trace of the
//! fleet's listing and the org stream's events, one second of events at a time: blocks of
//! six (a crew lead on a long run, its members waiting on an approval and a question, one
//! idle, one failed, one waiting on a function call), the idle and failed ones taking
//! turns of twelve persisted events round-robin — among them an approval asked and
//! granted a step later. Deterministic, for the tests that drive the fleet's model, order
//! and notifier under a paused clock.

use gobare_api::model::{Event, Session};
use serde_json::json;

/// Persisted events of one synthetic turn, as the simulator's activity emits them.
const STEPS: usize = 12;

/// The organization: its listing at `t0`, then its events.
pub(crate) struct Trace {
    t0: i64,
    /// Sessions that take turns, in round-robin order.
    busy: Vec<String>,
    /// Each busy session's step in its turn and its turn number.
    steps: Vec<(usize, u64)>,
    next: usize,
    seq: u64,
    /// Events emitted a second.
    rate: u32,
}

impl Trace {
    /// `sessions` sessions (a multiple of six reads best) listed at `t0`, `rate` events a
    /// second.
    pub(crate) fn new(sessions: usize, rate: u32, t0: i64) -> (Trace, Vec<Session>) {
        let mut listed = Vec::with_capacity(sessions);
        let mut busy = Vec::new();
        for i in 0..sessions {
            let block = i / 6 + 1;
            let lead = format!("lead-{block:03}");
            let (id, title, status, parent, actions) = match i % 6 {
                0 => (
                    lead.clone(),
                    Some(format!("Release crew {block}")),
                    "working",
                    None,
                    json!([]),
                ),
                1 => (
                    format!("appr-{block:03}"),
                    None,
                    "requires_action",
                    Some(lead.clone()),
                    json!([{"type": "approval", "turn_id": "t", "call_id": format!("ca-{block}")}]),
                ),
                2 => (
                    format!("ques-{block:03}"),
                    Some(format!("Fix the failing deploy {block}")),
                    "requires_action",
                    Some(lead.clone()),
                    json!([{"type": "question", "turn_id": "t", "call_id": format!("cq-{block}")}]),
                ),
                3 => (format!("idle-{block:03}"), None, "idle", None, json!([])),
                4 => (
                    format!("fail-{block:03}"),
                    Some(format!("Billing migration {block}")),
                    "failed",
                    None,
                    json!([]),
                ),
                _ => (
                    format!("func-{block:03}"),
                    None,
                    "requires_action",
                    None,
                    json!([{"type": "function_call", "turn_id": "t", "call_id": format!("cf-{block}")}]),
                ),
            };
            if matches!(i % 6, 3 | 4) {
                busy.push(id.clone());
            }
            let session: Session = serde_json::from_value(json!({
                "id": id, "title": title, "status": status, "parent_session_id": parent,
                "created_at": t0 - 600_000 + i as i64 * 1_000, "updated_at": t0 - 1_000,
                "environment": {"state": "running"}, "required_actions": actions,
            }))
            .expect("a session");
            listed.push(session);
        }
        let steps = vec![(0, 0); busy.len()];
        let trace = Trace {
            t0,
            busy,
            steps,
            next: 0,
            seq: 0,
            rate,
        };
        (trace, listed)
    }

    /// The events of second `second` (0-based), each stamped within it.
    pub(crate) fn second(&mut self, second: u64) -> Vec<Event> {
        let base = self.t0 + second as i64 * 1_000;
        (0..self.rate)
            .map(|k| {
                let at = base + i64::from(k) * 1_000 / i64::from(self.rate);
                self.step(at)
            })
            .collect()
    }

    /// The next busy session's next event.
    fn step(&mut self, at: i64) -> Event {
        let i = self.next % self.busy.len();
        self.next += 1;
        let id = self.busy[i].clone();
        let (step, turn) = &mut self.steps[i];
        if *step == 0 {
            *turn += 1;
        }
        let (n, call) = (*turn, format!("{id}-push-{turn}"));
        let (kind, payload) = match *step {
            0 => (
                "user.message",
                json!({"text": format!("Keep the build green (round {n})")}),
            ),
            1 => ("turn.started", json!({"turnId": format!("{id}-t{n}")})),
            2 => (
                "agent.tool_call",
                json!({"tool_call_id": format!("{id}-c{n}"), "tool_name": "bash", "args": {}}),
            ),
            3 => (
                "file.changed",
                json!({"path": "/workspace/src/a.rs", "change_type": "modified"}),
            ),
            4 => (
                "agent.tool_result",
                json!({"tool_call_id": format!("{id}-c{n}"), "tool_name": "bash", "is_error": false, "summary": "ok"}),
            ),
            5 => (
                "approval.requested",
                json!({"tool_call_id": call, "name": "bash", "args": {"command": "git push"}}),
            ),
            6 => (
                "approval.resolved",
                json!({"tool_call_id": call, "approved": true}),
            ),
            7 => (
                "agent.message",
                json!({"text": format!("Round {n}: green.")}),
            ),
            8 => (
                "artifact.created",
                json!({"id": format!("{id}-a{n}"), "path": format!("/workspace/outputs/round-{n}.md")}),
            ),
            9 => ("agent.message", json!({"text": "done"})),
            10 => ("agent.message", json!({"text": "done"})),
            _ => (
                "turn.ended",
                json!({"turnId": format!("{id}-t{n}"), "status": "completed"}),
            ),
        };
        *step = (*step + 1) % STEPS;
        self.seq += 1;
        Event::parse(
            &json!({"type": kind, "session_id": id, "seq": self.seq, "created_at": at,
                    "payload": payload})
            .to_string(),
        )
        .expect("an event")
    }
}
