#![cfg(unix)]
//! `gobare-tui rules ID --credentials` and `--model M --credential C` against the simulator,
//! checked on its record: the credentials listed with their models, the switch sent under a
//! key and the session on the new model after; a model the credential does not run is the
//! server's 400, said in words, with nothing changed.

use crate::support::cli::{Home, run_against as run, stderr_of as stderr, stdout_of as stdout};
use gobare_sim::{SimConfig, Simulator};
use serde_json::{Value, json};

const OPENROUTER: &str = "cred_d05a6c3e9f1b2477";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_credentials_are_listed_and_the_switch_is_sent_as_said() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("switch"));
    let home = Home::new();
    let out = run(&sim, &home, &["rules", &id, "--credentials"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = stdout(&out);
    assert!(
        listed.contains(&format!(
            "{OPENROUTER}  openrouter · OpenRouter: glm-5, qwen3-coder"
        )),
        "{listed}"
    );
    assert!(
        listed.contains("model: MiniMax-M3 via cred_8f2a91c4d7b0e6"),
        "{listed}"
    );
    assert!(sim.patches().is_empty(), "listing sends nothing");

    let out = run(
        &sim,
        &home,
        &[
            "rules",
            &id,
            "--model",
            "glm-5",
            "--credential",
            OPENROUTER,
            "--json",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "sending: model MiniMax-M3 via cred_8f2a91c4d7b0e6 → glm-5 via {OPENROUTER} (keeps workspace and transcript)"
        )),
        "{}",
        stderr(&out)
    );
    let shown: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(shown["model"], "glm-5");
    assert_eq!(shown["model_credential_id"], OPENROUTER);
    assert_eq!(shown["changed"], true);
    let patches = sim.patches();
    assert_eq!(patches.len(), 1);
    assert_eq!(
        patches[0].body,
        json!({"agent": {"model": "glm-5", "model_credential_id": OPENROUTER}})
    );
    assert!(patches[0].key.is_some(), "sent under an Idempotency-Key");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_the_credential_does_not_run_is_refused_in_words() {
    let sim = Simulator::start(SimConfig::for_tests()).await.unwrap();
    let id = sim.create_session(Some("refused"));
    let home = Home::new();
    let out = run(
        &sim,
        &home,
        &["rules", &id, "--model", "glm-6", "--credential", OPENROUTER],
    )
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("Unknown model \"glm-6\""), "{said}");
    assert!(said.contains("HTTP 400"), "{said}");
    assert!(sim.patches().is_empty());

    // The reference requires both: clap says so before anything is read.
    let out = run(&sim, &home, &["rules", &id, "--model", "glm-5"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--credential"), "{}", stderr(&out));
}
