use super::*;
use crate::notify::kind::NotifyKind;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

fn sh(script: &str, args: &[&Path]) -> NotifyCommandSpec {
    let mut all = vec!["-c".to_string(), script.to_string()];
    all.extend(args.iter().map(|p| p.display().to_string()));
    NotifyCommandSpec {
        program: "sh".into(),
        args: all,
    }
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

fn event() -> NotifyEvent {
    NotifyEvent::new(
        NotifyKind::Approval,
        "s1",
        "nightly export",
        "the agent asks for approval",
    )
}

/// Whether process `pid` ends within `within`: a SIGKILL is delivered when the process
/// next runs, so this waits on a pidfd, which turns readable when it has ended.
fn ends_within(pid: i32, within: Duration) -> bool {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
    }
    let mut pfd = libc::pollfd {
        fd: fd as i32,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd; the descriptor is ours and closed after.
    let ready = unsafe { libc::poll(&mut pfd, 1, within.as_millis() as i32) };
    unsafe { libc::close(fd as i32) };
    ready == 1
}

#[tokio::test]
async fn the_event_arrives_as_one_json_line_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let got = dir.path().join("got");
    let spec = sh("cat > \"$0\"", &[&got]);
    let (outcome, _) = run_once(
        &spec,
        &event().to_json_line(),
        Duration::from_secs(30),
        &Groups::new(),
    )
    .await;
    assert!(
        matches!(outcome, Outcome::Exited(s) if s.success()),
        "{outcome:?}"
    );
    let text = std::fs::read_to_string(&got).unwrap();
    assert!(
        text.ends_with('\n') && text.lines().count() == 1,
        "{text:?}"
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["event"], "approval");
    assert_eq!(v["session_title"], "nightly export");
}

#[test]
fn the_token_is_taken_out_of_the_environment() {
    // The builder's own record of what it changes: the token is removed whatever the
    // parent's environment holds (the pty test checks a real run's environment).
    let command = command(&sh("env", &[]));
    let removed: Vec<_> = command
        .as_std()
        .get_envs()
        .filter(|(_, v)| v.is_none())
        .map(|(k, _)| k.to_os_string())
        .collect();
    assert_eq!(removed, [std::ffi::OsString::from("GOBARE_TOKEN")]);
}

#[tokio::test]
async fn a_failure_is_reported_with_its_stderr() {
    let spec = sh("echo 'no route to ntfy' >&2; exit 3", &[]);
    let (outcome, stderr) = run_once(&spec, b"{}\n", Duration::from_secs(30), &Groups::new()).await;
    assert!(
        matches!(outcome, Outcome::Exited(s) if s.code() == Some(3)),
        "{outcome:?}"
    );
    assert_eq!(stderr, "no route to ntfy");
    let missing = NotifyCommandSpec {
        program: "/nonexistent/notify".into(),
        args: vec![],
    };
    let (outcome, _) = run_once(&missing, b"{}\n", Duration::from_secs(30), &Groups::new()).await;
    assert!(matches!(outcome, Outcome::SpawnFailed(_)), "{outcome:?}");
}

#[tokio::test]
async fn a_hung_command_is_killed_with_its_process_group_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    mkfifo(&pids);
    // Opened first, without waiting for a writer: what the script writes stays in the
    // fifo for the test to read after the run, however the two are scheduled.
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&pids)
        .unwrap();
    // The shell starts a child that never ends, says both pids, and waits on it.
    let spec = sh("sleep 100000 & echo \"$$ $!\" > \"$0\"; wait", &[&pids]);
    let (outcome, _) = run_once(&spec, b"{}\n", Duration::from_secs(3), &Groups::new()).await;
    assert!(matches!(outcome, Outcome::Killed), "{outcome:?}");
    let mut said = String::new();
    reader.read_to_string(&mut said).unwrap();
    let pids: Vec<i32> = said
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "the script said its pids: {said:?}");
    let ends = |pid| ends_within(pid, Duration::from_secs(10));
    assert!(ends(pids[0]), "the shell");
    assert!(ends(pids[1]), "the shell's child, in the same group");
}

#[tokio::test]
async fn at_most_four_run_at_once_and_the_fifth_is_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let never = dir.path().join("never");
    mkfifo(&never);
    // Each blocks opening a fifo nobody writes: they stay running for the whole test.
    let spec = sh("read x < \"$0\"", &[&never]);
    let runner = CommandRunner::new(spec, Duration::from_secs(600))
        .with_permits(Arc::new(Semaphore::new(MAX_RUNNING)));
    let started: Vec<bool> = (0..5).map(|_| runner.notify(&event())).collect();
    assert_eq!(started, [true, true, true, true, false]);
    assert_eq!(
        runner.skipped.load(Ordering::Relaxed),
        1,
        "the next run that starts says one was skipped"
    );
    // The runtime's end kills the four (kill_on_drop).
}

#[tokio::test]
async fn what_a_command_left_running_is_ended_at_quit() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    mkfifo(&pids);
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&pids)
        .unwrap();
    // The command ends at once, its child left behind in its group.
    let spec = sh("sleep 100000 & echo \"$!\" > \"$0\"", &[&pids]);
    let groups = Groups::new();
    let (outcome, _) = run_once(&spec, b"{}\n", Duration::from_secs(30), &groups).await;
    assert!(
        matches!(outcome, Outcome::Exited(s) if s.success()),
        "{outcome:?}"
    );
    let mut said = String::new();
    reader.read_to_string(&mut said).unwrap();
    let child: i32 = said.trim().parse().unwrap();
    assert!(
        !ends_within(child, Duration::ZERO),
        "the child outlives its command"
    );
    assert_eq!(groups.end_all(), 1);
    assert!(
        ends_within(child, Duration::from_secs(10)),
        "ended with its group"
    );
    assert_eq!(groups.end_all(), 0, "each group is ended once");
}
