//! A session id not of the reference's shape (a UUID, or the start of one) is refused as
//! typed, before any request with it: it never reaches a URL, a state file name or `ssh`.

use crate::support::cli::{Home, stderr_of};
use crate::support::scripted_server::{SECRET, Server};

#[tokio::test]
async fn ids_not_shaped_like_a_uuid_are_refused_before_any_request_with_them() {
    let server = Server::start(Vec::new()).await;
    let home = Home::new();
    let api = server.base.to_string();
    for id in ["x/y", "../../v1/sessions", "s1", "a;sh -c id", "3f9c1b60x"] {
        for command in [
            &["tail", id][..],
            &["attach", id],
            &["artifacts", id],
            &["list", "--root", id],
        ] {
            let mut args = vec!["--api", api.as_str()];
            args.extend_from_slice(command);
            let out = home
                .tokio_command(&args)
                .env("GOBARE_TOKEN", SECRET)
                .output()
                .await
                .unwrap();
            let err = stderr_of(&out);
            assert_eq!(out.status.code(), Some(2), "{command:?}: {err}");
            assert!(
                err.contains("is not a session id: session ids are UUIDs"),
                "{command:?}: {err}"
            );
        }
    }
    // `attach` checks the token first; nothing asked with the id.
    let seen = server.seen();
    assert!(seen.iter().all(|s| s.target == "/v1/health"), "{seen:?}");
}
