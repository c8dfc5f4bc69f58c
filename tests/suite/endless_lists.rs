//! Lists that never end, from a hostile server: the same cursor again, two cursors in a
//! cycle, a new cursor every time. Every command that reads a list in full stops, says the
//! list was cut and with how many, and sends a bounded number of requests.

use crate::support::cli::{Home, stderr_of, stdout_of};
use crate::support::endless_pages::{Cursors, EndlessPages, SESSION};
use std::process::Output;
use std::time::Duration;

const ALL: [Cursors; 3] = [Cursors::Same, Cursors::Cycle, Cursors::New];
/// The most requests a walk of the largest list may take (its page limit), and the first.
const MOST_REQUESTS: usize = 1_000;

async fn run(server: &EndlessPages, home: &Home, args: &[&str]) -> Output {
    let api = server.base.to_string();
    let mut all = vec!["--api", api.as_str()];
    all.extend_from_slice(args);
    tokio::time::timeout(
        Duration::from_secs(60),
        home.tokio_command(&all)
            .env("GOBARE_TOKEN", "gbr_pat_endless0123456789")
            .output(),
    )
    .await
    .expect("the command ends")
    .unwrap()
}

#[tokio::test]
async fn artifacts_lists_what_it_read_and_says_the_list_was_cut() {
    for cursors in ALL {
        let server = EndlessPages::start(cursors).await;
        let home = Home::new();
        let out = run(&server, &home, &["artifacts", SESSION]).await;
        let err = stderr_of(&out);
        assert!(out.status.success(), "{cursors:?}: {err}");
        assert!(
            err.contains("showing part of the artifacts: the list was cut at"),
            "{cursors:?}: {err}"
        );
        let lines = stdout_of(&out).lines().count();
        assert!(
            err.contains(&format!("cut at {lines} entries")),
            "{cursors:?}: {lines} lines, {err}"
        );
        assert!(
            server.requests() <= MOST_REQUESTS,
            "{cursors:?}: {}",
            server.requests()
        );
    }
}

#[tokio::test]
async fn a_cut_artifact_list_downloads_nothing() {
    for cursors in ALL {
        let server = EndlessPages::start(cursors).await;
        let home = Home::new();
        let dir = home.path("downloads");
        std::fs::create_dir_all(&dir).unwrap();
        let out = run(
            &server,
            &home,
            &["artifacts", SESSION, "--download", dir.to_str().unwrap()],
        )
        .await;
        let err = stderr_of(&out);
        assert!(!out.status.success(), "{cursors:?}");
        assert!(
            err.contains("nothing was saved: the list was cut at"),
            "{cursors:?}: {err}"
        );
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        assert!(
            server.requests() <= MOST_REQUESTS,
            "{cursors:?}: {}",
            server.requests()
        );
    }
}

#[tokio::test]
async fn list_prints_what_it_read_and_says_the_list_was_cut() {
    for cursors in ALL {
        let server = EndlessPages::start(cursors).await;
        let home = Home::new();
        let out = run(&server, &home, &["list", "--json"]).await;
        let err = stderr_of(&out);
        assert!(out.status.success(), "{cursors:?}: {err}");
        let lines = stdout_of(&out).lines().count();
        assert!(
            err.contains(&format!(
                "showing part of the sessions: the list was cut at {lines} entries"
            )),
            "{cursors:?}: {lines} lines, {err}"
        );
        assert!(
            server.requests() <= MOST_REQUESTS,
            "{cursors:?}: {}",
            server.requests()
        );
    }
}

#[tokio::test]
async fn a_prefix_is_not_resolved_from_a_cut_list() {
    for cursors in ALL {
        let server = EndlessPages::start(cursors).await;
        let home = Home::new();
        let out = run(&server, &home, &["tail", "00000000"]).await;
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{cursors:?}: {err}");
        assert!(
            err.contains("cannot tell which session \"00000000\" names: the list was cut at"),
            "{cursors:?}: {err}"
        );
        assert!(err.contains("give the whole id"), "{err}");
    }
}
