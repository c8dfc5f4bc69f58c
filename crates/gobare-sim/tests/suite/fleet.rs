//! The fleet option: many scripted sessions at once, in crews, settling on approvals,
//! questions, function calls, failures and idleness, all visible through the REST surface.

use crate::support::Api;
use gobare_sim::{SimArgs, SimConfig};
use serde_json::Value;

/// The ids `GET /v1/sessions` lists, every page (`query` adds filters).
async fn listed(api: &Api, query: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut after = String::new();
    loop {
        let (status, page) = api
            .get(&format!("/v1/sessions?limit=100{query}{after}"))
            .await;
        assert_eq!(status, 200, "{page}");
        all.extend(page["data"].as_array().unwrap().iter().cloned());
        if page["has_more"] != true {
            return all;
        }
        after = format!("&after={}", page["last_id"].as_str().unwrap());
    }
}

#[tokio::test]
async fn a_fleet_of_twelve_forms_crews_and_settles_on_what_each_waits_for() {
    let api = Api::start(SimConfig::for_tests().with_fleet(12)).await;
    let fleet = api.sim.fleet();
    assert_eq!(fleet.len(), 12);
    let all = listed(&api, "").await;
    assert_eq!(all.len(), 12, "every fleet session is listed");

    // Two blocks: each a lead with two members, and three on their own.
    for block in fleet.chunks(6) {
        let lead = &block[0];
        let (status, crew) = api.get(&format!("/v1/sessions?root={lead}")).await;
        assert_eq!(status, 200, "{crew}");
        let mut ids: Vec<&str> = crew["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap())
            .collect();
        ids.sort_unstable();
        let mut expected = vec![lead.as_str(), block[1].as_str(), block[2].as_str()];
        expected.sort_unstable();
        assert_eq!(ids, expected, "the crew is the lead and its two members");
    }

    // Once settled: approval, question, idle, failed, function call (the lead's long run
    // is only checked for its title).
    let waits_on = |kind: &'static str| {
        move |s: &Value| {
            s["status"] == "requires_action" && s["required_actions"][0]["type"] == kind
        }
    };
    for (number, block) in (1..).zip(fleet.chunks(6)) {
        let lead = api.session(&block[0]).await;
        assert_eq!(lead["title"], format!("Release crew {number}"));
        api.until_session(&block[1], waits_on("approval")).await;
        let question = api.until_session(&block[2], waits_on("question")).await;
        assert_eq!(
            question["parent_session_id"].as_str(),
            Some(block[0].as_str())
        );
        let idle = api
            .until_session(&block[3], |s| s["status"] == "idle")
            .await;
        assert_eq!(
            idle["title"],
            Value::Null,
            "every other session is untitled"
        );
        api.until_session(&block[4], |s| s["status"] == "failed")
            .await;
        api.until_session(&block[5], waits_on("function_call"))
            .await;
    }
    let waiting = listed(&api, "&status=requires_action").await;
    assert_eq!(
        waiting.len(),
        6,
        "two approvals, two questions, two function calls"
    );

    // An untitled session's first message is its first item, as clients read it.
    let (_, items) = api
        .get(&format!(
            "/v1/sessions/{}/items?order=asc&limit=1",
            fleet[3]
        ))
        .await;
    assert_eq!(items["data"][0]["type"], "message");
    assert!(
        items["data"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with("Summarise this repository"),
        "{items}"
    );
    api.sim.shutdown().await;
}

#[tokio::test]
async fn the_fleet_flag_makes_room_for_its_sessions() {
    use clap::Parser;
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        sim: SimArgs,
    }
    let config = Cli::parse_from(["sim", "--fleet", "500"]).sim.to_config();
    assert_eq!(config.fleet, 500);
    assert!(config.max_sessions >= 525, "{}", config.max_sessions);
    let none = Cli::parse_from(["sim"]).sim.to_config();
    assert_eq!((none.fleet, none.max_sessions), (0, 25));

    let api = Api::start(SimConfig::for_tests().with_fleet(500)).await;
    assert_eq!(api.sim.fleet().len(), 500);
    assert_eq!(listed(&api, "").await.len(), 500);
    api.sim.shutdown().await;
}

#[tokio::test]
async fn the_request_record_names_each_request_with_its_query() {
    let api = Api::test().await;
    api.get("/v1/sessions?limit=3&status=idle").await;
    api.get("/v1/health").await;
    assert_eq!(
        api.sim.requests(),
        ["GET /v1/sessions?limit=3&status=idle", "GET /v1/health"]
    );
    api.sim.shutdown().await;
}

#[tokio::test]
async fn fleet_activity_moves_the_rows_of_settled_sessions() {
    let mut config = SimConfig::for_tests().with_fleet(6);
    config.fleet_activity = 600;
    let api = Api::start(config).await;
    // The fourth of a block settles idle after its quick reply; activity then runs turns
    // on it that start, wait on an approval, and end.
    let quick = api.sim.fleet()[3].clone();
    let waiting = api
        .until_session(&quick, |s| {
            s["status"] == "requires_action" && s["required_actions"][0]["type"] == "approval"
        })
        .await;
    let call = waiting["required_actions"][0]["call_id"].clone();
    api.until_session(&quick, |s| {
        s["status"] == "working" && s["required_actions"] == serde_json::json!([])
    })
    .await;
    api.until_session(&quick, |s| s["status"] == "idle").await;

    let (_, turns) = api.get(&format!("/v1/sessions/{quick}/turns")).await;
    let turns = turns["data"].as_array().unwrap().clone();
    assert!(turns.len() >= 2, "{turns:?}");
    assert!(
        turns
            .iter()
            .all(|t| t["status"] != "working" || t == &turns[0]),
        "earlier turns ended: {turns:?}"
    );
    let (_, artifacts) = api.get(&format!("/v1/sessions/{quick}/artifacts")).await;
    assert!(
        artifacts["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["path"].as_str().unwrap().contains("round-")),
        "{artifacts}"
    );
    // The granted approval is resolved: a late answer is told so.
    let (status, body) = api
        .send(
            &quick,
            serde_json::json!({"type": "input.approval", "call_id": call, "approved": true}),
        )
        .await;
    assert_eq!(
        (status, body["outcome"].clone()),
        (202, serde_json::json!("already_resolved"))
    );

    // Sessions waiting on a person stay as scripted.
    let approval = api.session(&api.sim.fleet()[1]).await;
    assert_eq!(approval["status"], "requires_action");
}
