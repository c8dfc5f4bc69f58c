//! The command line as a user meets it: help text, refused options, exit statuses.

use crate::support::cli::Home;

/// A session id of the reference's shape (the servers here answer any).
const SESSION: &str = "3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af";

fn run(home: &Home, args: &[&str]) -> (i32, String, String) {
    let out = home.std_command(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_explains_commands_options_and_environment() {
    let home = Home::new();
    let (code, out, _) = run(&home, &["--help"]);
    assert_eq!(code, 0);
    for needle in [
        "attach",
        "list",
        "new",
        "demo",
        "tail",
        "export",
        "sim",
        "--api",
        "--token-file",
        "--allow-insecure-http",
        "--verbose",
        "GOBARE_TOKEN",
        "GOBARE_API",
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
        "NO_COLOR",
        "Examples:",
        "Exit status",
    ] {
        assert!(out.contains(needle), "--help lacks {needle}:\n{out}");
    }
}

#[test]
fn list_help_names_its_options_and_the_json_fields() {
    let home = Home::new();
    let (code, out, _) = run(&home, &["list", "--help"]);
    assert_eq!(code, 0);
    for needle in [
        "--json",
        "--root",
        "--status",
        "requires_action",
        "waiting on you come first",
        "needs (\"approval\", \"question\", \"function_call\" or null)",
        "unique prefix",
    ] {
        assert!(out.contains(needle), "list --help lacks {needle}:\n{out}");
    }
}

#[test]
fn artifacts_help_explains_paths_refusals_and_the_archive_turn() {
    let home = Home::new();
    let (code, out, _) = run(&home, &["artifacts", "--help"]);
    assert_eq!(code, 0);
    for needle in [
        "--download <DIR>",
        "--archive <FILE>",
        "--turn <TURN_ID>",
        "--force",
        "--json",
        "below /workspace/outputs/",
        "the turn of the newest artifact",
        "symbolic link",
        "renamed",
        "unique prefix",
    ] {
        assert!(
            out.contains(needle),
            "artifacts --help lacks {needle}:\n{out}"
        );
    }
}

#[test]
fn tail_help_explains_cursors() {
    let home = Home::new();
    let (code, out, _) = run(&home, &["tail", "--help"]);
    assert_eq!(code, 0);
    for needle in [
        "--from",
        "--org",
        "--root",
        "SESSION_ID",
        "--from 0",
        "live events only",
    ] {
        assert!(out.contains(needle), "tail --help lacks {needle}:\n{out}");
    }
}

#[test]
fn export_help_explains_formats_the_end_and_redaction() {
    let home = Home::new();
    let (code, out, _) = run(&home, &["export", "--help"]);
    assert_eq!(code, 0);
    for needle in [
        "SESSION_ID",
        "--format",
        "md",
        "jsonl",
        "--output",
        "does not follow live",
        "settled (idle or failed",
        "updated_at",
        "half a second without a persisted event",
        "temporary name",
        "x-access-token:[redacted]@",
        "gbr_pat_",
        "Bearer",
    ] {
        assert!(out.contains(needle), "export --help lacks {needle}:\n{out}");
    }
}

#[test]
fn a_token_on_the_command_line_is_refused_without_echoing_it() {
    let home = Home::new();
    for args in [
        &["--token", "gbr_pat_LEAKME", "tail", SESSION][..],
        &["tail", SESSION, "--token=gbr_pat_LEAKME"][..],
    ] {
        let (code, out, err) = run(&home, args);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("--token-file"), "{err}");
        assert!(!err.contains("LEAKME") && !out.contains("LEAKME"), "{err}");
    }
}

#[test]
fn start_with_a_token_and_nothing_to_reopen_points_to_attach_and_new() {
    let home = Home::new();
    let out = home
        .std_command(&["--api", "http://127.0.0.1:9"])
        .env("GOBARE_TOKEN", "gbr_pat_not_needed_here")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("gobare-tui attach") && err.contains("gobare-tui new"),
        "{err}"
    );
    assert!(!err.contains("gbr_pat_not_needed_here"), "{err}");
}

#[test]
fn the_full_screen_commands_need_a_terminal() {
    let home = Home::new();
    for args in [&["attach", SESSION][..], &["demo"][..]] {
        let out = home
            .std_command(args)
            .env("GOBARE_TOKEN", "gbr_pat_not_sent")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("interactive terminal"), "{args:?}: {err}");
    }
}

#[test]
fn new_without_a_token_is_a_usage_error() {
    let home = Home::new();
    let (code, _, err) = run(&home, &["new", "hello"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn usage_and_configuration_errors_exit_2() {
    let home = Home::new();
    let (code, _, err) = run(&home, &["tail"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(
        &home,
        &["--token-file", "/nonexistent/token", "tail", SESSION],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot read the token file"), "{err}");
    home.write_config("api = \"::not a url::\"\n");
    let (code, _, err) = run(&home, &["tail", SESSION]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("config.toml"), "{err}");
}

#[test]
fn plain_http_to_a_remote_host_is_refused_before_connecting() {
    let home = Home::new();
    let out = home
        .std_command(&["--api", "http://api.example.invalid", "tail", SESSION])
        .env("GOBARE_TOKEN", "gbr_pat_LEAKME")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--allow-insecure-http"), "{err}");
    assert!(!err.contains("LEAKME"), "{err}");
}

#[test]
fn sim_help_lists_every_scenario_and_exits_without_serving() {
    let home = Home::new();
    let (code, out, _) = run(&home, &["sim", "--help"]);
    assert_eq!(code, 0);
    for needle in [
        "--addr",
        "--scenario",
        "--fleet",
        "--drop-every",
        "mix",
        "quick",
        "long",
        "approval",
        "question",
        "choice",
        "function",
        "expiring",
        "error",
        "recovery",
    ] {
        assert!(out.contains(needle), "sim --help lacks {needle}:\n{out}");
    }
    // The simulator serves: the client's options for reaching a server are not its own.
    for needle in [
        "--api",
        "--token-file",
        "--allow-insecure-http",
        "--screen-reader",
    ] {
        assert!(!out.contains(needle), "sim --help shows {needle}:\n{out}");
    }
    let (code, out, _) = run(&home, &["list", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("--token-file"), "list --help lost it:\n{out}");
    // An unknown scenario is refused before anything listens.
    let (code, _, err) = run(&home, &["sim", "--scenario", "nonesuch"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("possible values"), "{err}");
}
