//! A realistic persisted-event history for the benches, built from the example payloads in
//! `assets/event-payloads.json`: turns made of a user message, a todo list, tool calls with
//! their results and file changes, a markdown answer, and now and then the rarer events
//! (approvals, questions, function calls, compaction, errors, queueing, workspace state).

use gobare_api::model::Event;
use serde_json::{Value, json};

pub(crate) struct Workload {
    examples: serde_json::Map<String, Value>,
    seq: u64,
    call: u64,
    turn: u64,
    at: u64,
    out: Vec<String>,
}

const ANSWER: &str = "I found the regression in **export-svc v2.3.2**: the handler now \
    retries on `502` without a backoff, so one slow provider turns into a storm.\n\n\
    - `src/export.ts`: the retry loop has no delay\n\
    - `src/queue.ts`: the queue depth is never checked\n\n\
    ```ts\nawait sleep(backoff(attempt));\n```\n\nI patched both and the error rate is \
    back under 0.1%. The postmortem is in `/workspace/outputs/report.md`.";

const DIFF: &str = "@@ -40,7 +40,9 @@ export async function exportAll(jobs: Job[]) {\n   \
    for (const job of jobs) {\n-    await send(job);\n+    const attempt = job.attempt ?? 0;\n+    \
    await sleep(backoff(attempt));\n+    await send(job);\n   }\n }\n";

impl Workload {
    pub(crate) fn new() -> Self {
        let all: Value =
            serde_json::from_str(include_str!("../../assets/event-payloads.json")).expect("assets");
        Workload {
            examples: all.as_object().expect("object").clone(),
            seq: 0,
            call: 0,
            turn: 0,
            at: 1_789_319_090_000,
            out: Vec::new(),
        }
    }

    /// `n` persisted events as the `data:` JSON the server sends, `seq` 1..=n.
    pub(crate) fn persisted(n: usize) -> Vec<String> {
        let mut w = Workload::new();
        while w.out.len() < n {
            w.turn();
        }
        w.out.truncate(n);
        w.out
    }

    /// The next `n` events of an endless history (for feeding a model in batches).
    #[allow(dead_code)] // only model_memory streams in batches
    pub(crate) fn next_events(&mut self, n: usize) -> Vec<Event> {
        self.out.clear();
        while self.out.len() < n {
            self.turn();
        }
        // Events past `n` would be lost with the next clear: keep whole turns instead.
        self.out
            .drain(..)
            .map(|s| Event::parse(&s).expect("decodes"))
            .collect()
    }

    /// The same, decoded.
    #[allow(dead_code)] // each bench includes this file; model_replay decodes itself
    pub(crate) fn events(n: usize) -> Vec<Event> {
        Workload::persisted(n)
            .iter()
            .map(|s| Event::parse(s).expect("decodes"))
            .collect()
    }

    fn emit(&mut self, kind: &str, payload: Value) {
        let env = &self.examples[kind];
        self.seq += 1;
        self.at += 37;
        // Members in the reference's order, `payload` last (a map would sort them).
        let json = format!(
            r#"{{"object":"event","type":{},"internal_type":{},"session_id":{},"seq":{},"created_at":{},"payload":{}}}"#,
            env["type"], env["internal_type"], env["session_id"], self.seq, self.at, payload
        );
        self.out.push(json);
    }

    /// The example payload of `kind` with some fields replaced.
    fn example(&self, kind: &str, fields: Value) -> Value {
        let mut p = self.examples[kind]["payload"].clone();
        for (k, v) in fields.as_object().expect("object") {
            p[k] = v.clone();
        }
        p
    }

    fn next_call(&mut self) -> String {
        self.call += 1;
        format!("call_{:08x}", self.call)
    }

    fn turn(&mut self) {
        self.turn += 1;
        let t = self.turn;
        let turn_id = format!("turn_{t:016x}");
        self.emit("turn.started", json!({"turnId": turn_id}));
        let ask = format!("Alert A-{t}: export error rate 12% since 09:12, please look.");
        self.emit(
            "user.message",
            self.example("user.message", json!({"text": ask})),
        );
        if t.is_multiple_of(7) {
            self.emit("user.context", self.example("user.context", json!({})));
        }
        self.emit("agent.todos", self.example("agent.todos", json!({})));
        for step in 0..4u64 {
            let call = self.next_call();
            let path = format!("/workspace/src/module_{}.ts", (t * 4 + step) % 53);
            let (tool, args) = if step % 2 == 0 {
                ("read", json!({"path": path}))
            } else {
                (
                    "bash",
                    json!({"command": format!("npm test -- {path}"), "timeout": 120}),
                )
            };
            self.emit(
                "agent.tool_call",
                json!({"toolCallId": call, "toolName": tool, "args": args}),
            );
            let summary = format!("{} lines\n{}", 40 + step * 17, "ok ".repeat(20));
            self.emit(
                "agent.tool_result",
                json!({"toolCallId": call, "toolName": tool, "isError": step == 3 && t.is_multiple_of(5),
                       "cancelled": false, "summary": summary}),
            );
            if step % 2 == 1 {
                self.emit(
                    "file.changed",
                    json!({"path": path, "changeType": "modified", "diff": DIFF, "toolCallId": call}),
                );
            }
        }
        if t.is_multiple_of(3) {
            self.emit("agent.todos", self.example("agent.todos", json!({})));
        }
        match t % 11 {
            1 => {
                let call = self.next_call();
                self.emit(
                    "approval.requested",
                    self.example("approval.requested", json!({"toolCallId": call})),
                );
                self.emit(
                    "approval.resolved",
                    self.example("approval.resolved", json!({"toolCallId": call})),
                );
            }
            3 => {
                let call = self.next_call();
                self.emit(
                    "question.asked",
                    self.example("question.asked", json!({"toolCallId": call})),
                );
                self.emit(
                    "question.answered",
                    self.example("question.answered", json!({"toolCallId": call})),
                );
            }
            5 => {
                let call = self.next_call();
                self.emit(
                    "tool.required",
                    self.example("tool.required", json!({"toolCallId": call})),
                );
                self.emit(
                    "tool.resolved",
                    self.example("tool.resolved", json!({"toolCallId": call})),
                );
            }
            7 => {
                self.emit(
                    "agent.compaction",
                    self.example("agent.compaction", json!({})),
                );
                self.emit("message.queued", self.example("message.queued", json!({})));
                self.emit(
                    "message.dequeued",
                    self.example("message.dequeued", json!({})),
                );
            }
            9 => {
                self.emit("sandbox.paused", self.example("sandbox.paused", json!({})));
                self.emit(
                    "sandbox.resumed",
                    self.example("sandbox.resumed", json!({})),
                );
                self.emit("preview.ready", self.example("preview.ready", json!({})));
            }
            10 => {
                self.emit("agent.error", self.example("agent.error", json!({})));
                self.emit(
                    "mcp.unavailable",
                    self.example("mcp.unavailable", json!({})),
                );
                self.emit(
                    "artifact.created",
                    self.example("artifact.created", json!({"turn_id": turn_id})),
                );
            }
            _ => {}
        }
        self.emit(
            "agent.message",
            json!({"text": format!("{ANSWER}\n\n(turn {t})")}),
        );
        self.emit("turn.ended", json!({"turnId": turn_id}));
    }
}
