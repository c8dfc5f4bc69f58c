//! Helpers for the "acting on a session" tests: a simulator, a client bound to it, a
//! saved session in a temp state directory, and condition waits with timeouts.

use crossterm::event::KeyEvent;
use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions, IdempotencyKey};
use gobare_api::error::ApiError;
use gobare_api::model::{Input, InputAccepted, RequiredAction, Session};
use gobare_api::retry::SendRetry;
use gobare_sim::{SimConfig, Simulator};
use gobare_tui::app::shared::required;
use gobare_tui::app::shared::saved_session::{SavedSession, SharedSavedSession};
use gobare_tui::app::shared::sender::{InputTransport, SendEvent, SendReport};
use gobare_tui::session::actions::Actions;
use gobare_tui::store::StateStore;
use gobare_tui::ui::prompt::{PromptAction, PromptState};
use gobare_tui::ui::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

pub(crate) const WAIT: Duration = Duration::from_secs(15);

pub(crate) struct Rig {
    pub(crate) sim: Simulator,
    pub(crate) client: Arc<ApiClient>,
    pub(crate) state_dir: tempfile::TempDir,
}

impl Rig {
    pub(crate) async fn start(config: SimConfig) -> Rig {
        let sim = Simulator::start(config).await.expect("simulator starts");
        let client = client_for(&sim);
        Rig {
            sim,
            client: Arc::new(client),
            state_dir: tempfile::tempdir().unwrap(),
        }
    }

    pub(crate) async fn test() -> Rig {
        Rig::start(SimConfig::for_tests()).await
    }

    pub(crate) fn store(&self) -> StateStore {
        StateStore::open(self.state_dir.path(), &self.sim.url()).unwrap()
    }

    pub(crate) fn saved_session(&self, session_id: &str) -> SharedSavedSession {
        SavedSession::open(self.store(), session_id).shared()
    }

    pub(crate) async fn session(&self, id: &str) -> Session {
        self.client.get_session(id).await.unwrap()
    }

    /// Polls the session until `check` holds (or panics after [`WAIT`]).
    pub(crate) async fn until_session(
        &self,
        id: &str,
        what: &str,
        check: impl Fn(&Session) -> bool,
    ) -> Session {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let s = self.session(id).await;
            if check(&s) {
                return s;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out waiting for {what}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits until the session waits on the user and returns the first required action.
    pub(crate) async fn until_required(&self, id: &str) -> RequiredAction {
        let s = self
            .until_session(id, "a required action", |s| !s.required_actions.is_empty())
            .await;
        s.required_actions[0].clone()
    }
}

pub(crate) fn client_for(sim: &Simulator) -> ApiClient {
    let options = ClientOptions::new(sim.url(), Token::new(sim.token()));
    ApiClient::new(options).unwrap()
}

/// Retries quickly: the tests wait for conditions, not for backoff.
pub(crate) fn fast_policy() -> SendRetry {
    SendRetry {
        max_attempts: 4,
        max_wait: Duration::from_secs(5),
        backoff_base: Duration::from_millis(10),
        backoff_max: Duration::from_millis(50),
    }
}

pub(crate) fn message(text: &str) -> Input {
    Input::Message {
        content: gobare_api::model::Content::Text(text.into()),
    }
}

pub(crate) fn steer(text: &str) -> Input {
    Input::Steer {
        content: gobare_api::model::Content::Text(text.into()),
    }
}

/// The next settled report (retry notices are skipped).
pub(crate) async fn settled(events: &mut UnboundedReceiver<SendEvent>) -> SendReport {
    tokio::time::timeout(WAIT, async {
        loop {
            match events.recv().await.expect("sender alive") {
                SendEvent::Settled(report) => return *report,
                SendEvent::Retrying { .. } => continue,
            }
        }
    })
    .await
    .expect("a send settles in time")
}

/// How the injected failure behaves.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The request reaches the server, the answer is lost on the way back.
    AnswerLost,
    /// The request never leaves.
    Unreachable,
}

/// The real client, failing the first `failures` attempts (all of them with `u32::MAX`).
pub(crate) struct Flaky {
    pub(crate) inner: ApiClient,
    pub(crate) fault: Fault,
    pub(crate) failures: u32,
    pub(crate) calls: AtomicU32,
}

impl Flaky {
    pub(crate) fn new(sim: &Simulator, fault: Fault, failures: u32) -> Flaky {
        Flaky {
            inner: client_for(sim),
            fault,
            failures,
            calls: AtomicU32::new(0),
        }
    }
}

impl InputTransport for Flaky {
    fn send_input(
        &self,
        session_id: &str,
        input: &Input,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<InputAccepted, ApiError>> + Send {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        let fail = call < self.failures;
        let fault = self.fault;
        let (session_id, input, key) = (session_id.to_string(), input.clone(), key.clone());
        async move {
            let lost =
                || ApiError::local(gobare_api::error::ApiErrorKind::Network, "connection reset");
            if fail && fault == Fault::Unreachable {
                return Err(lost());
            }
            let reply = self.inner.send(&session_id, &input, &key).await;
            if fail { Err(lost()) } else { reply }
        }
    }
}

/// The required-action prompt as the app has it: the session model's facts about each wait
/// and the widget's view state over them.
#[derive(Default)]
pub(crate) struct PromptFixture {
    facts: Actions,
    view: PromptState,
}

impl PromptFixture {
    /// The session lists `actions`.
    pub(crate) fn new(actions: &[RequiredAction]) -> Self {
        let mut prompt = PromptFixture::default();
        prompt.facts.replace(actions);
        prompt
    }

    pub(crate) fn set_question_details(
        &mut self,
        call_id: &str,
        question: &str,
        options: Vec<String>,
        allow_freeform: Option<bool>,
    ) {
        self.facts
            .set_question_details(call_id, question, options, allow_freeform);
    }

    pub(crate) fn set_approval_details(
        &mut self,
        call_id: &str,
        name: &str,
        args: serde_json::Value,
        sensitive: bool,
    ) {
        self.facts
            .set_approval_details(call_id, name, args, sensitive);
    }

    pub(crate) fn handle_key(&mut self, key: KeyEvent) -> PromptAction {
        self.view.handle_key(&self.facts, key)
    }

    pub(crate) fn answer_with_text(&mut self, text: &str) -> Option<Input> {
        self.view.answer_with_text(&self.facts, text)
    }

    pub(crate) fn apply_answer_report(&mut self, report: &SendReport) {
        required::apply_answer_report(&mut self.view, &mut self.facts, report);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.facts.nothing_listed()
    }

    pub(crate) fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        self.view.render(&self.facts, area, buf, theme);
    }
}
