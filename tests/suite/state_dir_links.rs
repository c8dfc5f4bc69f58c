#![cfg(unix)]
//! The state directory on a shared machine, through the real binary: a link planted at the
//! day's log file is not written through, and someone else's state directory is refused
//! with what to do, before anything is written in it.

use crate::support::cli::{Home, stderr_of};
use std::os::unix::fs::symlink;
use std::process::Output;

/// Today's date in UTC as the daily log file names it (`YYYY-MM-DD`).
fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    // Days to civil date (Howard Hinnant's algorithm).
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// `list` against a port nothing listens on: it fails, and logs why.
fn failing_list(home: &Home) -> Output {
    home.std_command(&["--api", "http://127.0.0.1:9", "list"])
        .env("GOBARE_TOKEN", "gbr_pat_links0123456789")
        .output()
        .unwrap()
}

#[test]
fn a_link_at_the_days_log_file_is_not_written_through() {
    let home = Home::new();
    let victim = home.path("victim");
    std::fs::write(&victim, "precious").unwrap();
    let logs = home.log_dir();
    std::fs::create_dir_all(&logs).unwrap();
    let day = logs.join(format!("gobare-tui.{}.log", today_utc()));
    symlink(&victim, &day).unwrap();
    let out = failing_list(&home);
    assert!(!out.status.success());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let log = std::fs::symlink_metadata(&day).unwrap();
    assert!(log.is_file(), "the day's log is a file of its own");
    assert!(
        std::fs::read_to_string(&day)
            .unwrap()
            .contains("command failed")
    );
}

#[test]
fn someone_elses_state_directory_is_refused_with_what_to_do() {
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        return; // only root can give a directory away
    }
    let home = Home::new();
    let state = home.state_dir().join("gobare-tui");
    std::fs::create_dir_all(&state).unwrap();
    std::os::unix::fs::chown(&state, Some(65_534), None).unwrap();
    let out = failing_list(&home);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("refusing the state directory"), "{err}");
    assert!(
        err.contains("belongs to user 65534, not to you (user 0)"),
        "{err}"
    );
    assert!(err.contains("set XDG_STATE_HOME"), "{err}");
    assert_eq!(
        std::fs::read_dir(&state).unwrap().count(),
        0,
        "nothing written in it"
    );
}
