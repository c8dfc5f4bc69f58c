//! A simulator on its own runtime, for tests whose pty waits block the test thread.

use gobare_api::auth::Token;
use gobare_api::client::{ApiClient, ClientOptions, Order, Page};
use gobare_api::model::{Item, RequiredAction};
use gobare_sim::{SimConfig, Simulator};

pub(crate) struct Sim {
    pub(crate) sim: Simulator,
    rt: tokio::runtime::Runtime,
}

impl Sim {
    /// Runs `f` inside the simulator's runtime (direct calls that start its agents).
    pub(crate) fn within<T>(&self, f: impl FnOnce(&Simulator) -> T) -> T {
        let _entered = self.rt.enter();
        f(&self.sim)
    }
}

/// Starts `config` on a two-worker runtime that lives as long as the returned [`Sim`].
pub(crate) fn start(config: SimConfig) -> Sim {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let sim = rt.block_on(Simulator::start(config)).unwrap();
    Sim { sim, rt }
}

impl Sim {
    /// What the content endpoint serves for `artifact`, read on the simulator's runtime.
    pub(crate) fn artifact_content(&self, session: &str, artifact: &str) -> Vec<u8> {
        self.rt
            .block_on(artifact_content(&self.sim, session, artifact))
    }
}

impl Sim {
    /// The required actions `session` waits on now, as the API reads them.
    pub(crate) fn required_actions(&self, session: &str) -> Vec<RequiredAction> {
        let client = ApiClient::new(ClientOptions::new(
            self.sim.url(),
            Token::new(self.sim.token()),
        ))
        .unwrap();
        self.rt
            .block_on(client.get_session(session))
            .unwrap()
            .required_actions
            .to_vec()
    }
}

impl Sim {
    /// The first page of `session`'s items, oldest first, as the API reads them.
    pub(crate) fn items(&self, session: &str) -> Vec<Item> {
        let client = ApiClient::new(ClientOptions::new(
            self.sim.url(),
            Token::new(self.sim.token()),
        ))
        .unwrap();
        self.rt
            .block_on(client.list_items(session, &Page::ordered(Order::Asc)))
            .unwrap()
            .data
    }
}

impl Sim {
    /// Waits until `session` waits on a required action, as the API reads it.
    pub(crate) fn until_waiting(&self, session: &str) {
        let client = ApiClient::new(ClientOptions::new(
            self.sim.url(),
            Token::new(self.sim.token()),
        ))
        .unwrap();
        self.rt.block_on(async {
            let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(40);
            loop {
                let read = client.get_session(session).await.unwrap();
                if !read.required_actions.is_empty() {
                    return;
                }
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "{session} never came to wait"
                );
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        });
    }
}

impl Sim {
    /// `session`'s turns, newest first, as the API reads them.
    pub(crate) fn turns(&self, session: &str) -> Vec<gobare_api::model::Turn> {
        let client = ApiClient::new(ClientOptions::new(
            self.sim.url(),
            Token::new(self.sim.token()),
        ))
        .unwrap();
        self.rt
            .block_on(client.list_turns(session, &Page::ordered(Order::Desc)))
            .unwrap()
            .data
    }
}

/// What `GET …/artifacts/{id}/content` serves, read through the client.
pub(crate) async fn artifact_content(sim: &Simulator, session: &str, artifact: &str) -> Vec<u8> {
    let client = ApiClient::new(ClientOptions::new(sim.url(), Token::new(sim.token()))).unwrap();
    let mut download = client.artifact_content(session, artifact).await.unwrap();
    let mut all = Vec::new();
    while let Some(chunk) = download.chunk().await.unwrap() {
        all.extend_from_slice(&chunk);
    }
    all
}

/// Spends `sim`'s `general` bucket for its token to nothing, as another program on the same
/// token would: every later request of the command starts refused.
pub(crate) async fn spend_the_budget(sim: &Simulator) {
    let http = reqwest::Client::new();
    let url = format!("{}v1/sessions", sim.url());
    for _ in 0..10_000 {
        let status = http
            .get(&url)
            .bearer_auth(sim.token())
            .send()
            .await
            .unwrap()
            .status();
        if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            return;
        }
    }
    panic!("the bucket never ran out");
}

/// A new session titled `title` whose one turn, started by `text`, has settled: read back
/// through the API until idle and changed since its creation.
pub(crate) async fn settled_session(sim: &Simulator, title: &str, text: &str) -> String {
    let id = sim.create_session(Some(title));
    sim.send_message(&id, text);
    let client = ApiClient::new(ClientOptions::new(sim.url(), Token::new(sim.token()))).unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let session = client.get_session(&id).await.unwrap();
        if session.status == gobare_api::model::SessionStatus::Idle
            && session.updated_at > session.created_at
        {
            return id;
        }
        assert!(tokio::time::Instant::now() < deadline, "the turn settles");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
