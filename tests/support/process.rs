//! A process as Linux's `/proc/PID/stat` shows it: whether it is still running and how much
//! CPU it has used, to tell a program that exits from one that hangs or spins.

use std::time::{Duration, Instant};

/// One reading of `/proc/PID/stat`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stat {
    /// `R` running, `S` sleeping, `Z` exited but not yet reaped, …
    pub(crate) state: char,
    /// User plus system time of all its threads so far.
    pub(crate) cpu: Duration,
}

impl Stat {
    /// Exited (a zombie keeps its final CPU times readable until its parent reaps it).
    pub(crate) fn exited(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }
}

/// Reads `/proc/PID/stat`; panics if the process is gone (reaped) or the file unreadable.
pub(crate) fn stat(pid: u32) -> Stat {
    let path = format!("/proc/{pid}/stat");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse_stat(&text)
}

/// Reads `/proc/PID/stat`; `None` once the process is gone (reaped).
pub(crate) fn try_stat(pid: u32) -> Option<Stat> {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .map(|text| parse_stat(&text))
}

/// The pids whose parent is `parent`.
pub(crate) fn children(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|text| {
                // `pid (comm) state ppid …`, counted from the last ')' as in `stat`.
                text[text.rfind(')').map_or(0, |i| i + 1)..]
                    .split_whitespace()
                    .nth(1)
                    .and_then(|ppid| ppid.parse::<u32>().ok())
                    == Some(parent)
            })
        })
        .collect()
}

/// Polls `pid`, someone else's child, until it has exited (a zombie) or is gone (reaped by
/// its parent) and returns the last reading: its CPU use may lack the last poll interval's.
/// `since` is a reading taken before whatever should end it. Panics after `timeout`, saying
/// how much CPU it used meanwhile (a hang or a spin).
pub(crate) fn wait_until_gone(pid: u32, since: Stat, timeout: Duration) -> Stat {
    let started = Instant::now();
    // `since` was read before the event we wait on: the process may be reaped before a
    // first read here (then `since` is all that is known).
    let first = since;
    let mut last = first;
    loop {
        match try_stat(pid) {
            None => return last,
            Some(now) if now.exited() => return now,
            Some(now) => last = now,
        }
        let waited = started.elapsed();
        assert!(
            waited < timeout,
            "process {pid} still running (state {}) after {waited:?}, having used {:?} of CPU \
             meanwhile",
            last.state,
            last.cpu.saturating_sub(first.cpu)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn parse_stat(text: &str) -> Stat {
    // `pid (comm) state ppid …`: comm may contain spaces and parentheses, so the fields are
    // counted from the last ')'. utime and stime are fields 14 and 15 (1-based).
    let fields: Vec<&str> = text[text.rfind(')').expect("comm") + 1..]
        .split_whitespace()
        .collect();
    let ticks = |i: usize| -> u64 { fields[i].parse().expect("clock ticks") };
    // SAFETY: sysconf only reads a system constant.
    let ticks_per_second =
        u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).expect("clock ticks per second");
    let cpu_ticks = ticks(11) + ticks(12);
    Stat {
        state: fields[0].chars().next().expect("state"),
        cpu: Duration::from_secs_f64(cpu_ticks as f64 / ticks_per_second as f64),
    }
}

/// Polls `pid` (a child of ours, not yet reaped) until it has exited and returns its final
/// reading. Panics after `timeout`, saying how much CPU it used meanwhile (a hang or a spin).
pub(crate) fn wait_until_exited(pid: u32, timeout: Duration) -> Stat {
    let started = Instant::now();
    let first = stat(pid);
    loop {
        let now = stat(pid);
        if now.exited() {
            return now;
        }
        let waited = started.elapsed();
        assert!(
            waited < timeout,
            "process {pid} still running (state {}) after {waited:?}, having used {:?} of CPU \
             meanwhile",
            now.state,
            now.cpu.saturating_sub(first.cpu)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Ctrl+C for `child` (SIGINT), then its exit status, within `timeout`.
pub(crate) async fn interrupt(
    child: &mut tokio::process::Child,
    timeout: Duration,
) -> std::process::ExitStatus {
    let pid = i32::try_from(child.id().expect("still running")).expect("a pid");
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    tokio::time::timeout(timeout, child.wait())
        .await
        .expect("ends on Ctrl+C")
        .expect("its status")
}
