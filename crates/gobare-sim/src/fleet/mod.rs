//! A fleet: many scripted sessions running at once, started with the simulator, so a
//! client's overview of every session can be tried and measured.
//!
//! Sessions come in blocks of six: a crew (a lead and two members with
//! `parent_session_id` set to the lead) and three on their own. Their first messages pick
//! scenarios (`#name`) so that, once settled, a block holds one session working on a long
//! run, one waiting on an approval, one on a question, one on a function call, one failed
//! and one idle. Every other session is untitled, as sessions often are.
//!
//! Beside it: `activity` (keeps the fleet busy at `--fleet-activity`) and `deadline_burst`
//! (`--fleet-deadline-burst`).

pub(crate) mod activity;
pub(crate) mod deadline_burst;

use axum::http::HeaderMap;

use crate::routes;
use crate::state::Shared;
use gobare_api::model::{AgentRequest, CreateSession};
use serde_json::json;

/// How one session of a block is made.
struct Member {
    /// Whether the block's first session (the crew lead) is its parent.
    in_crew: bool,
    title: Option<&'static str>,
    /// The first message; its `#tag` picks the scenario.
    message: &'static str,
    /// Whether the session declares `lookup_order` (the function `#function` calls; a tag
    /// never declares it).
    declares_function: bool,
}

const BLOCK: [Member; 6] = [
    Member {
        in_crew: false,
        title: Some("Release crew"),
        message: "Plan the release and keep the crew moving #long",
        declares_function: false,
    },
    Member {
        in_crew: true,
        title: None,
        message: "Restart the stuck export worker #approval",
        declares_function: false,
    },
    Member {
        in_crew: true,
        title: Some("Fix the failing deploy"),
        message: "The deploy is failing: find out why #question",
        declares_function: false,
    },
    Member {
        in_crew: false,
        title: None,
        message: "Summarise this repository #quick",
        declares_function: false,
    },
    Member {
        in_crew: false,
        title: Some("Billing migration"),
        message: "Apply migration 0042 to the billing tables #error",
        declares_function: false,
    },
    Member {
        in_crew: false,
        title: None,
        message: "Answer the customer about order A-4471 #function",
        declares_function: true,
    },
];

/// Makes a fleet of `count` sessions: those of `kept` (a data directory's fleet, in
/// creation order) that still exist come back as they stood, and the rest are created as
/// described above, each sent its first message. Returns their ids in creation order. A
/// session the organization's limit refuses ends the fleet there (logged).
pub(crate) fn start(state: &Shared, count: usize, kept: Vec<String>) -> Vec<String> {
    let mut ids: Vec<String> = {
        let db = state.db();
        kept.into_iter()
            .filter(|id| db.session(id).is_some())
            .take(count)
            .collect()
    };
    let mut lead = ids.get(ids.len() - ids.len() % BLOCK.len()).cloned();
    for index in ids.len()..count {
        let member = &BLOCK[index % BLOCK.len()];
        let number = index / BLOCK.len() + 1;
        let request = CreateSession {
            title: member.title.map(|t| format!("{t} {number}")),
            parent_session_id: if member.in_crew { lead.clone() } else { None },
            agent: member.declares_function.then(|| AgentRequest {
                tools: Some(vec![json!({"type": "function", "name": "lookup_order",
                                        "parameters": {"type": "object"}})]),
                ..AgentRequest::default()
            }),
            ..CreateSession::default()
        };
        let id = match routes::create_session(state, request) {
            Ok(id) => id,
            Err(refusal) => {
                tracing::warn!(index, ?refusal, "the fleet stops short");
                break;
            }
        };
        if index % BLOCK.len() == 0 {
            lead = Some(id.clone());
        }
        let message = format!("{} ({number})", member.message);
        if let Err(refusal) = routes::accept_message(state, &id, message, &HeaderMap::new()) {
            tracing::warn!(index, ?refusal, "a fleet session got no first message");
        }
        ids.push(id);
    }
    ids
}
