//! Scoped tokens from the binary's flags (`sim --token NAME:SCOPE,SCOPE`): every route
//! refuses a missing scope with `403 permission_denied` naming it (§1.3), and
//! `/v1/health` reports the presented token's own scopes.

use clap::Parser;
use gobare_sim::{SimArgs, TokenArg};
use serde_json::json;

use crate::support::Api;

#[derive(Parser)]
struct Sim {
    #[command(flatten)]
    args: SimArgs,
}

fn sim_args(flags: &[&str]) -> Result<SimArgs, clap::Error> {
    let argv = ["sim", "--addr", "127.0.0.1:0"].iter().chain(flags);
    Sim::try_parse_from(argv).map(|s| s.args)
}

#[test]
fn token_flags_name_a_token_and_its_scopes() {
    let args = sim_args(&[
        "--token",
        "gbr_pat_full",
        "--token",
        "gbr_pat_reader:sessions:read,artifacts:read",
    ])
    .unwrap();
    assert_eq!(
        args.tokens,
        [
            TokenArg {
                name: "gbr_pat_full".into(),
                scopes: None
            },
            TokenArg {
                name: "gbr_pat_reader".into(),
                scopes: Some(vec!["sessions:read".into(), "artifacts:read".into()])
            },
        ]
    );
    let config = args.to_config();
    assert_eq!(config.token.as_deref(), Some("gbr_pat_full"));
    assert_eq!(
        config.scoped_tokens,
        [(
            "gbr_pat_reader".to_string(),
            vec!["sessions:read".to_string(), "artifacts:read".to_string()]
        )]
    );
    assert!(sim_args(&["--token", "gbr_pat_x:sessions:admin"]).is_err());
    assert!(sim_args(&["--token", ":sessions:read"]).is_err());
}

#[tokio::test]
async fn a_scoped_token_is_refused_each_missing_scope_and_health_reports_its_own() {
    let config = sim_args(&[
        "--token",
        "gbr_pat_full",
        "--token",
        "gbr_pat_reader:sessions:read",
        "--no-rate-limits",
    ])
    .unwrap()
    .to_config();
    let mut api = Api::start(config).await;
    let id = api.new_session().await;
    let (_, health) = api.get("/v1/health").await;
    assert_eq!(
        health["scopes"],
        json!([
            "sessions:read",
            "sessions:write",
            "tools:respond",
            "artifacts:read"
        ])
    );
    assert_eq!(health["missing_scopes"], json!([]));

    api.token = "gbr_pat_reader".into();
    let (status, health) = api.get("/v1/health").await;
    assert_eq!(status, 200);
    assert_eq!(health["scopes"], json!(["sessions:read"]));
    assert_eq!(health["usable"], true);
    assert_eq!(
        health["missing_scopes"],
        json!(["sessions:write", "tools:respond", "artifacts:read"])
    );
    assert_eq!(api.get(&format!("/v1/sessions/{id}")).await.0, 200);

    let refused = [
        (api.post("/v1/sessions", json!({})).await, "sessions:write"),
        (
            api.get(&format!("/v1/sessions/{id}/artifacts")).await,
            "artifacts:read",
        ),
        (api.message(&id, "hello").await, "sessions:write"),
        (
            api.send(
                &id,
                json!({"type": "input.tool_result", "turn_id": "turn_1", "call_id": "call_1",
                       "success": true, "output": "x"}),
            )
            .await,
            "tools:respond",
        ),
        (
            api.get(&format!("/v1/sessions/{id}/files?refresh=1")).await,
            "sessions:write",
        ),
    ];
    for ((status, body), scope) in refused {
        assert_eq!(status, 403, "{body}");
        assert_eq!(body["error"]["code"], "permission_denied", "{body}");
        assert_eq!(
            body["error"]["message"],
            format!("This token does not have the \"{scope}\" scope."),
        );
    }

    api.token = api.sim.mint_token(&["cli"]);
    let (status, health) = api.get("/v1/health").await;
    assert_eq!((status, health["usable"].clone()), (200, json!(false)));
    assert_eq!(api.get("/v1/sessions").await.0, 403);
}
