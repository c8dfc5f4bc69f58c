//! The scripted agent: plays a [`Scenario`] as one turn, with deltas, tool calls, diffs,
//! todos, required actions, previews and artifacts, honouring steer and cancel.
//!
//! Beside it: `scenario` (the scripts), `asked` (what a message asks), `recall` (earlier
//! messages named), `permissions` (approval mode and rules deciding each tool step) and
//! `tools` (a session's tools configuration).

pub(crate) mod asked;
pub(crate) mod permissions;
pub(crate) mod recall;
pub(crate) mod scenario;
pub(crate) mod tools;

use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use gobare_api::clock::unix_ms;
use gobare_api::model::{
    ApprovalRequest, ApprovalResolution, ArtifactCreated, ArtifactsState, ChangeKind, Compaction,
    Delta, ErrorCode, EventPayload, FileChange, FunctionCall, FunctionResolution, Message,
    PreviewReady, Question, QueuedMessage, RequiredAction, RequiredActionKind, Text, TodoItem,
    Todos, ToolCall, ToolResult, TurnRef, TurnStatus,
};

use crate::agent::asked::Asked;
use crate::agent::permissions::Decision;
use crate::agent::scenario::{ArtifactStep, FileStep, PickedBy, Scenario, Step, ToolStep};
use crate::db::{
    ActiveTurn, Answer, Db, ParkedTurn, Pending, QueuedTurn, Resolved, TurnFailure, hex_id,
};
use crate::lock::lock;
use crate::state::Shared;
use crate::workspace::file_change;
use crate::workspace::files;
use crate::workspace::lifecycle::{self, Readiness};

/// Why a turn stopped early.
struct Stopped;

type Play = Result<(), Stopped>;

/// A required action a restarted simulator gave back, which a resumed turn waits on at
/// scenario step `step` instead of asking again.
pub(crate) struct Waiting {
    pub(crate) step: usize,
    pub(crate) call_id: String,
    pub(crate) expires_at: Option<i64>,
    pub(crate) reply: oneshot::Receiver<Answer>,
}

/// Runs `first` and then every queued turn of the session, one after another. The caller
/// has already made `first` the session's active turn.
pub(crate) fn spawn_worker(state: Shared, session_id: String, first: QueuedTurn) {
    spawn(state, session_id, first, None);
}

/// Takes up the session's active turn, parked before a restart, where it waits; then its
/// queue as [`spawn_worker`] does.
pub(crate) fn resume_worker(state: Shared, session_id: String, turn: QueuedTurn, at: Waiting) {
    spawn(state, session_id, turn, Some(at));
}

fn spawn(state: Shared, session_id: String, first: QueuedTurn, mut waiting: Option<Waiting>) {
    tokio::spawn(async move {
        let mut next = first;
        loop {
            run_turn(&state, &session_id, &next, waiting.take()).await;
            let mut db = state.db();
            match dequeue(&mut db, &session_id) {
                Some(queued) => next = queued,
                None => {
                    if let Some(rec) = db.session_mut(&session_id) {
                        rec.active = None;
                    }
                    drop(db);
                    lifecycle::touch_idle(&state, &session_id);
                    return;
                }
            }
        }
    });
}

/// Makes the session's first queued message its active turn (`message.dequeued`, then its
/// `user.message`); `None` when nothing is queued.
pub(crate) fn dequeue(db: &mut Db, session_id: &str) -> Option<QueuedTurn> {
    let rec = db.session_mut(session_id)?;
    let queued = rec.queue.pop_front()?;
    rec.active = Some(ActiveTurn::new(&queued.turn_id));
    let text = queued.text.clone();
    db.emit(
        session_id,
        EventPayload::MessageDequeued(QueuedMessage {
            text: text.clone(),
            position: None,
        }),
    );
    db.emit(session_id, EventPayload::UserMessage(Text { text }));
    Some(queued)
}

struct TurnCtx<'a> {
    state: &'a Shared,
    session_id: &'a str,
    turn_id: &'a str,
    cancel: CancellationToken,
    scenario: &'a Scenario,
    artifacts: Vec<ArtifactStep>,
    /// The session's `approval_mode` and `permission_rules` as the turn started (a change
    /// applies from the next turn).
    approval_mode: Option<String>,
    permission_rules: Vec<Value>,
    picked_by: PickedBy,
    /// The session's message before this turn's, which the closing reply names.
    earlier: Option<String>,
    /// What this turn's message asks: its plan, checklist and closing reply name it.
    asked: Asked,
    /// The step a resumed turn starts at (0 for a new one).
    from_step: usize,
    /// The action a resumed turn waits on, until its step takes it.
    waiting: std::sync::Mutex<Option<Waiting>>,
}

async fn run_turn(state: &Shared, session_id: &str, queued: &QueuedTurn, waiting: Option<Waiting>) {
    let (cancel, approval_mode, permission_rules, earlier) = {
        let mut db = state.db();
        let earlier = recall::earlier_message(&db.items(session_id));
        let Some(rec) = db.session_mut(session_id) else {
            return;
        };
        let (approval_mode, rules) = (
            rec.agent.approval_mode.clone(),
            rec.agent.permission_rules.clone().unwrap_or_default(),
        );
        match rec.active.as_mut() {
            Some(active) => {
                if waiting.is_none() {
                    active.playing = Some(ParkedTurn {
                        turn: queued.clone(),
                        step: 0,
                    });
                }
                (active.cancel.clone(), approval_mode, rules, earlier)
            }
            None => return,
        }
    };
    let resumed = waiting.is_some();
    let fallback;
    let scenario = match state.scenarios.get(&queued.scenario) {
        Some(s) => s,
        None => {
            fallback = Scenario::fallback();
            &fallback
        }
    };
    let mut ctx = TurnCtx {
        state,
        session_id,
        turn_id: &queued.turn_id,
        cancel,
        scenario,
        artifacts: Vec::new(),
        approval_mode,
        permission_rules,
        picked_by: queued.picked_by,
        earlier,
        asked: Asked::of(&queued.text),
        from_step: waiting.as_ref().map_or(0, |w| w.step),
        waiting: std::sync::Mutex::new(waiting),
    };
    let readiness = tokio::select! {
        readiness = lifecycle::ensure_running(state, session_id) => readiness,
        _ = ctx.cancel.cancelled() => Readiness::Running,
    };
    match readiness {
        Readiness::Running => {}
        Readiness::SessionGone => return,
        Readiness::RecoveryFailed(message) => {
            // The run never starts (no `turn.started`); the turn, which exists from
            // acceptance in this simulator (§15 #17), settles failed and says why.
            ctx.fail(TurnFailure::new(
                ErrorCode::WorkspaceRecoveryFailed,
                message,
            ));
            ctx.settle(false);
            ctx.publish_artifacts();
            return;
        }
    }
    let played = if ctx.cancel.is_cancelled() {
        Err(Stopped)
    } else {
        if !resumed {
            ctx.start();
        }
        ctx.play().await
    };
    ctx.settle(played.is_ok());
    ctx.publish_artifacts();
}

impl TurnCtx<'_> {
    fn emit(&self, payload: EventPayload) {
        self.state.db().emit(self.session_id, payload);
    }

    fn start(&self) {
        let mut db = self.state.db();
        if let Some(turn) = db
            .session_mut(self.session_id)
            .and_then(|r| r.turn_mut(self.turn_id))
        {
            turn.started_at = Some(unix_ms());
        }
        db.emit(
            self.session_id,
            EventPayload::TurnStarted(TurnRef {
                turn_id: self.turn_id.to_string(),
            }),
        );
    }

    async fn sleep_ms(&self, ms: u64) -> Play {
        let d = self.state.config.scaled(ms);
        tokio::select! {
            _ = tokio::time::sleep(d) => Ok(()),
            _ = self.cancel.cancelled() => Err(Stopped),
        }
    }

    fn take_steer(&self) -> Option<String> {
        let mut db = self.state.db();
        let active = db.session_mut(self.session_id)?.active.as_mut()?;
        if active.steers.is_empty() {
            return None;
        }
        Some(active.steers.drain(..).collect::<Vec<_>>().join(" / "))
    }

    async fn play(&mut self) -> Play {
        let steps = self.scenario.steps.clone();
        let closing = steps.iter().rposition(|s| matches!(s, Step::Say(_)));
        let opening = steps
            .iter()
            .position(|s| matches!(s, Step::Say(_)))
            .filter(|at| Some(*at) != closing);
        for (index, step) in steps.into_iter().enumerate() {
            if index < self.from_step {
                // Played before the restart; what it left for the turn's end is kept.
                if let Step::Artifact(a) = step {
                    self.artifacts.push(a);
                }
                continue;
            }
            self.at_step(index);
            if let Some(steer) = self.take_steer() {
                self.acknowledge_steer(&steer).await?;
            }
            let step = match step {
                Step::Say(reply) if Some(index) == opening => {
                    Step::Say(self.asked.plan(&reply, self.earlier.as_deref()))
                }
                Step::Say(reply) if Some(index) == closing => {
                    let reply = self.asked.closing(&reply);
                    let reply = match &self.earlier {
                        Some(earlier) => recall::follow_up(&reply, earlier),
                        None => reply,
                    };
                    Step::Say(self.signed(reply))
                }
                step => step,
            };
            self.step(step).await?;
            self.sleep_ms(self.scenario.pace.step_ms).await?;
        }
        if let Some(steer) = self.take_steer() {
            self.acknowledge_steer(&steer).await?;
        }
        Ok(())
    }

    /// The closing reply, naming the model when a `PATCH` moved the session off the
    /// default one (so a switch shows in the transcript).
    fn signed(&self, reply: String) -> String {
        let model = self
            .state
            .db()
            .session(self.session_id)
            .and_then(|r| r.agent.model.clone());
        match model {
            Some(m) if m != crate::routes::credentials::CREDENTIALS[0].models[0] => {
                format!("{reply} (answered by {m})")
            }
            _ => reply,
        }
    }

    /// Notes the step being played: where a restart takes the turn up if it parks there.
    fn at_step(&self, index: usize) {
        let mut db = self.state.db();
        if let Some(playing) = db
            .session_mut(self.session_id)
            .and_then(|r| r.active.as_mut())
            .and_then(|a| a.playing.as_mut())
        {
            playing.step = index;
        }
    }

    /// The id of the next call: the waited-on action's in a resumed turn, else a new one.
    fn call_id(&self) -> String {
        match lock(&self.waiting).as_ref() {
            Some(waiting) => waiting.call_id.clone(),
            None => hex_id("call_", 8),
        }
    }

    async fn acknowledge_steer(&self, steer: &str) -> Play {
        self.stream(
            "The user redirected me mid-turn; re-plan around the new instruction.",
            true,
        )
        .await?;
        self.say(&format!(
            "**Got it — changing course.** You asked: _{steer}_\n\nI'll fold that into the \
             remaining steps and keep what is already done."
        ))
        .await
    }

    async fn step(&mut self, step: Step) -> Play {
        match step {
            Step::Think(text) => self.stream(&text, true).await,
            Step::Say(text) => self.say(&text).await,
            Step::Progress(done) => {
                let read = TodoItem {
                    label: self.asked.first_todo(),
                    status: "done".into(),
                };
                let scenario_todos =
                    self.scenario
                        .todos
                        .iter()
                        .enumerate()
                        .map(|(i, label)| TodoItem {
                            label: label.clone(),
                            status: if i < done { "done" } else { "pending" }.into(),
                        });
                let items = std::iter::once(read).chain(scenario_todos).collect();
                self.emit(EventPayload::AgentTodos(Todos { items }));
                Ok(())
            }
            Step::Tool(tool) => self.guarded_tool(&tool, false, None).await,
            Step::Approval(step) => {
                self.guarded_tool(&step.tool, step.sensitive, Some(&step.on_denied))
                    .await
            }
            Step::Question(step) => {
                let call_id = self.call_id();
                let (name, arguments) = if step.production_shape {
                    let options: Vec<Value> = step
                        .options
                        .iter()
                        .map(|o| serde_json::json!({"label": o}))
                        .collect();
                    (
                        step.question.as_str(),
                        serde_json::json!({"options": options, "allowFreeform": step.allow_freeform}),
                    )
                } else {
                    (
                        "question",
                        serde_json::json!({"question": step.question, "options": step.options}),
                    )
                };
                let (rx, _) = self.require(
                    RequiredActionKind::Question,
                    &call_id,
                    name,
                    arguments,
                    None,
                    EventPayload::QuestionAsked(Question {
                        tool_call_id: call_id.clone(),
                        question: step.question.clone(),
                        options: step.options.clone(),
                        allow_freeform: Some(step.allow_freeform),
                    }),
                );
                let answer = match self.wait(rx).await? {
                    Answer::Question { answer } => answer,
                    _ => String::new(),
                };
                self.say(&step.then_say.replace("{answer}", &answer)).await
            }
            Step::Function(step) => {
                let Some(timeout_seconds) = self.declared_function(&step.name) else {
                    return self
                        .say(&format!(
                            "This session declares no `{}` function, so I can't call it; \
                             I'll go on without it.",
                            step.name
                        ))
                        .await;
                };
                let call_id = self.call_id();
                let timeout = timeout_seconds.map(std::time::Duration::from_secs);
                let (rx, expires_at) = self.require(
                    RequiredActionKind::FunctionCall,
                    &call_id,
                    &step.name,
                    step.arguments.clone(),
                    timeout,
                    EventPayload::ToolRequired(FunctionCall {
                        tool_call_id: call_id.clone(),
                        name: step.name.clone(),
                        arguments: step.arguments.clone(),
                    }),
                );
                // From `expires_at`: a resumed call has only what was left of its time.
                let timeout = expires_at.map(|at| {
                    std::time::Duration::from_millis(u64::try_from(at - unix_ms()).unwrap_or(0))
                });
                let answer = match timeout {
                    None => self.wait(rx).await?,
                    Some(after) => match tokio::time::timeout(after, self.wait(rx)).await {
                        Ok(answer) => answer?,
                        Err(_) => {
                            self.expire(&call_id, &step.name);
                            let said = step.on_expired.as_deref().unwrap_or("The call expired.");
                            return self.say(said).await;
                        }
                    },
                };
                let output = match answer {
                    Answer::FunctionResult {
                        success: true,
                        output,
                    } => output,
                    _ => "(the function failed)".to_string(),
                };
                self.say(&step.then_say.replace("{output}", &output)).await
            }
            Step::Preview(port) => {
                let url = format!("https://p-{}.gobare.dev", &hex_id("", 12));
                {
                    let mut db = self.state.db();
                    if let Some(rec) = db.session_mut(self.session_id) {
                        rec.preview.port = Some(port);
                        rec.preview.url = Some(url.clone());
                    }
                    db.emit(
                        self.session_id,
                        EventPayload::PreviewReady(PreviewReady {
                            port: Some(port),
                            url: Some(url),
                        }),
                    );
                }
                Ok(())
            }
            Step::Artifact(a) => {
                self.artifacts.push(a);
                Ok(())
            }
            Step::Compaction { before, after } => {
                self.emit(EventPayload::AgentCompaction(Compaction {
                    before: Some(before),
                    after: Some(after),
                }));
                Ok(())
            }
            Step::Wait(ms) => self.sleep_ms(ms).await,
            Step::Error(e) => {
                self.emit(EventPayload::AgentError(Message {
                    message: e.message.clone(),
                }));
                if !e.fatal {
                    return Ok(());
                }
                self.fail(TurnFailure::new(e.code, e.message));
                Err(Stopped)
            }
            Step::Reclaim(r) => {
                let mut db = self.state.db();
                if let Some(rec) = db.session_mut(self.session_id) {
                    rec.recovery_error_next = r.recovery_error;
                    lifecycle::reclaim(rec, &r.reason);
                }
                Err(Stopped)
            }
        }
    }

    /// The session's declaration of function `name` (`agent.tools`, from creation or
    /// `PUT …/tools`) as the call is made: `None` when undeclared, else its
    /// `timeout_seconds`.
    fn declared_function(&self, name: &str) -> Option<Option<u64>> {
        let db = self.state.db();
        let tools = db.session(self.session_id)?.agent.tools.as_ref()?;
        let declared = tools.iter().find(|t| {
            t.get("type").and_then(Value::as_str) == Some("function")
                && t.get("name").and_then(Value::as_str) == Some(name)
        })?;
        Some(declared.get("timeout_seconds").and_then(Value::as_u64))
    }

    /// Runs a tool step as the session's policy decides (§6.2): refused with
    /// `approval.resolved` and a sentence, asked for (`approval.requested`, then run or
    /// not by the answer), or run. `sensitive` asks under `auto` unless the `mix`
    /// rotation chose the scenario; `on_denied` is the scenario's own sentence for a
    /// refusal.
    async fn guarded_tool(
        &self,
        tool: &ToolStep,
        sensitive: bool,
        on_denied: Option<&str>,
    ) -> Play {
        let call_id = self.call_id();
        let sensitive = sensitive && self.picked_by.honours_sensitive();
        let decision = permissions::decide(
            self.approval_mode.as_deref(),
            &self.permission_rules,
            &tool.name,
            &tool.args,
            sensitive,
        );
        let refused_sentence = |reason: &str| match on_denied {
            Some(said) => said.to_string(),
            None => format!(
                "I didn't run `{}`. {reason} I'll go on without it.",
                tool.name
            ),
        };
        match decision {
            Decision::Run => self.run_tool(tool, &call_id).await,
            Decision::Refuse(code, sentence) => {
                self.emit(EventPayload::ApprovalResolved(ApprovalResolution {
                    tool_call_id: call_id.clone(),
                    approved: false,
                    name: Some(tool.name.clone()),
                    code: Some(code.to_string()),
                    extra: [("message".to_string(), Value::from(sentence.clone()))].into(),
                }));
                self.say(&refused_sentence(&sentence)).await
            }
            Decision::Ask => {
                let (rx, _) = self.require(
                    RequiredActionKind::Approval,
                    &call_id,
                    &tool.name,
                    tool.args.clone(),
                    None,
                    EventPayload::ApprovalRequested(ApprovalRequest {
                        tool_call_id: call_id.clone(),
                        name: tool.name.clone(),
                        args: tool.args.clone(),
                        sensitive,
                    }),
                );
                match self.wait(rx).await? {
                    Answer::Approval { approved: true } => self.run_tool(tool, &call_id).await,
                    _ => self.say(&refused_sentence("You declined it.")).await,
                }
            }
        }
    }

    /// Records why the running turn fails; `settle` then reports it.
    fn fail(&self, failure: TurnFailure) {
        let mut db = self.state.db();
        if let Some(active) = db
            .session_mut(self.session_id)
            .and_then(|r| r.active.as_mut())
        {
            active.failure = Some(failure);
        }
    }

    /// Streams deltas (`agent.thinking` or `agent.text`) in small word-sized pieces.
    async fn stream(&self, text: &str, thinking: bool) -> Play {
        for piece in chunk_text(text) {
            let delta = Delta { delta: piece };
            self.emit(if thinking {
                EventPayload::AgentThinking(delta)
            } else {
                EventPayload::AgentText(delta)
            });
            self.sleep_ms(self.scenario.pace.delta_ms).await?;
        }
        Ok(())
    }

    async fn say(&self, text: &str) -> Play {
        self.stream(text, false).await?;
        self.emit(EventPayload::AgentMessage(Text {
            text: text.to_string(),
        }));
        Ok(())
    }

    async fn run_tool(&self, tool: &ToolStep, call_id: &str) -> Play {
        self.emit(EventPayload::AgentToolCall(ToolCall {
            tool_call_id: call_id.to_string(),
            tool_name: tool.name.clone(),
            args: tool.args.clone(),
        }));
        let ms = tool.ms.unwrap_or(self.scenario.pace.tool_ms);
        if self.sleep_ms(ms).await.is_err() {
            self.emit(EventPayload::AgentToolResult(ToolResult {
                tool_call_id: call_id.to_string(),
                tool_name: tool.name.clone(),
                is_error: false,
                cancelled: true,
                summary: "Cancelled before it finished".into(),
                exit_code: None,
            }));
            return Err(Stopped);
        }
        if let Some(file) = &tool.file
            && let Some((change_type, diff)) = self.apply_file_step(file)
        {
            self.emit(EventPayload::FileChanged(FileChange {
                path: file.path.clone(),
                change_type,
                diff,
                tool_call_id: Some(call_id.to_string()),
            }));
        }
        self.emit(EventPayload::AgentToolResult(ToolResult {
            tool_call_id: call_id.to_string(),
            tool_name: tool.name.clone(),
            is_error: tool.is_error,
            cancelled: false,
            summary: tool.summary.clone(),
            exit_code: None,
        }));
        Ok(())
    }

    /// Applies a scripted change to the workspace's files and says what changed, with the
    /// diff the event carries; `None` when the file is as it was (no event, as a real
    /// workspace sends none).
    fn apply_file_step(&self, file: &FileStep) -> Option<(ChangeKind, Option<String>)> {
        let path = files::workspace_path(&file.path).ok()?;
        let mut db = self.state.db();
        let rec = db.session_mut(self.session_id)?;
        let change = file_change::apply(rec.files.get(&path), file)?;
        match &change.after {
            Some(after) => rec.files.insert(&path, after.clone()),
            None => rec.files.remove(&path),
        }
        Some((change.kind, change.diff))
    }

    /// A function call past its `expires_at`: it leaves `required_actions` and resolves
    /// failed; a late answer finds it already resolved.
    fn expire(&self, call_id: &str, name: &str) {
        let mut db = self.state.db();
        let Some(rec) = db.session_mut(self.session_id) else {
            return;
        };
        rec.pending.retain(|p| p.action.call_id != call_id);
        db.resolve(self.session_id, call_id, Resolved::Lapsed);
        db.emit(
            self.session_id,
            EventPayload::ToolResolved(FunctionResolution {
                tool_call_id: call_id.to_string(),
                name: name.to_string(),
                success: false,
            }),
        );
    }

    /// Parks the turn on a required action: the event, the `required_actions` entry and
    /// the reply channel appear together. `expires_in` sets `expires_at`, which is
    /// returned. A resumed turn's action is already there: its channel is taken instead.
    fn require(
        &self,
        kind: RequiredActionKind,
        call_id: &str,
        name: &str,
        arguments: Value,
        expires_in: Option<std::time::Duration>,
        event: EventPayload,
    ) -> (oneshot::Receiver<Answer>, Option<i64>) {
        if let Some(waiting) = lock(&self.waiting).take() {
            return (waiting.reply, waiting.expires_at);
        }
        let now = unix_ms();
        let expires_at =
            expires_in.map(|d| now + i64::try_from(d.as_millis()).unwrap_or(i64::MAX / 2));
        let (tx, rx) = oneshot::channel();
        let mut db = self.state.db();
        if let Some(rec) = db.session_mut(self.session_id) {
            rec.pending.push(Pending {
                action: RequiredAction {
                    kind,
                    turn_id: self.turn_id.to_string(),
                    call_id: call_id.to_string(),
                    name: Some(name.to_string()),
                    arguments,
                    created_at: Some(now),
                    expires_at,
                },
                reply: Some(tx),
            });
        }
        db.emit(self.session_id, event);
        (rx, expires_at)
    }

    async fn wait(&self, rx: oneshot::Receiver<Answer>) -> Result<Answer, Stopped> {
        tokio::select! {
            answer = rx => answer.map_err(|_| Stopped),
            _ = self.cancel.cancelled() => Err(Stopped),
        }
    }

    fn settle(&self, completed: bool) {
        let mut db = self.state.db();
        let Some(rec) = db.session_mut(self.session_id) else {
            return;
        };
        let failure = rec.active.as_ref().and_then(|a| a.failure.clone());
        let (status, error) = match (completed, failure) {
            (true, _) => (TurnStatus::Completed, None),
            (false, Some(failure)) => (TurnStatus::Failed, Some(failure.to_value())),
            (false, None) => (TurnStatus::Cancelled, None),
        };
        Db::settle_turn(rec, self.turn_id, status, error);
        let (lapsed, kept) = std::mem::take(&mut rec.pending)
            .into_iter()
            .partition(|p| p.action.turn_id == self.turn_id);
        rec.pending = kept;
        for p in lapsed {
            db.resolve(self.session_id, &p.action.call_id, Resolved::Lapsed);
        }
        db.emit(
            self.session_id,
            EventPayload::TurnEnded(TurnRef {
                turn_id: self.turn_id.to_string(),
            }),
        );
    }

    /// Publication runs after the turn settles: `artifacts` pending → ready.
    fn publish_artifacts(&self) {
        let state = self.state.clone();
        let session_id = self.session_id.to_string();
        let turn_id = self.turn_id.to_string();
        let artifacts = self.artifacts.clone();
        tokio::spawn(async move {
            tokio::time::sleep(state.config.artifact_publish_delay).await;
            let mut db = state.db();
            for a in artifacts {
                let id = db.new_artifact_id();
                let size = a.content.len() as u64;
                if db.session_mut(&session_id).is_none() {
                    return;
                }
                let artifact = gobare_api::model::Artifact {
                    object: "artifact".into(),
                    id: id.clone(),
                    session_id: session_id.clone(),
                    turn_id: turn_id.clone(),
                    path: a.path.clone(),
                    size_bytes: size,
                    content_type: Some(
                        a.content_type
                            .clone()
                            .unwrap_or_else(|| guess_content_type(&a.path).into()),
                    ),
                    created_at: Some(unix_ms()),
                };
                db.add_artifact(&artifact, a.content.as_bytes());
                db.emit(
                    &session_id,
                    EventPayload::ArtifactCreated(ArtifactCreated {
                        id,
                        path: a.path,
                        size_bytes: Some(size),
                        turn_id: Some(turn_id.clone()),
                    }),
                );
            }
            if let Some(turn) = db
                .session_mut(&session_id)
                .and_then(|r| r.turn_mut(&turn_id))
            {
                turn.artifacts = Some(ArtifactsState::Ready);
            }
        });
    }
}

fn guess_content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("md") => "text/markdown",
        Some("json") => "application/json",
        Some("txt") | Some("log") => "text/plain",
        Some("html") => "text/html",
        Some("csv") => "text/csv",
        _ => "application/octet-stream",
    }
}

/// Splits text into small pieces (a few characters to a few words), as a model streams.
fn chunk_text(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut target = 3 + rand::random::<u32>() as usize % 10;
    for word in text.split_inclusive([' ', '\n']) {
        current.push_str(word);
        if current.chars().count() >= target {
            out.push(std::mem::take(&mut current));
            target = 3 + rand::random::<u32>() as usize % 10;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}
