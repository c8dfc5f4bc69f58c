//! `gobare-tui report [--since 8h] [--json]`: what happened across the fleet since a time,
//! the digest the app shows after an absence, printed for a morning check or a cron job.
//!
//! Every turn and artifact in the window is read (all pages), paced by the request
//! scheduler as bulk work, with a progress line on stderr when it is a terminal.
//!
//! Exit status: 0 the report is whole; 1 the API could not be read, or some of it could not
//! (the report is still printed, and stderr names what is missing); 2 a bad `--since` or
//! configuration.

use crate::away::digest::Digest;
use crate::away::gather::{Progress, gather};
use crate::away::lines::{lines, span};
use crate::cli::{ReportArgs, UsageError};
use crate::config::Config;
use crate::store::StateStore;
use color_eyre::eyre::{Result, WrapErr, eyre};
use gobare_api::client::ApiClient;
use gobare_api::schedule::RequestClass;
use std::io::{ErrorKind, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// What `--since` is when not given.
pub(crate) const DEFAULT_SINCE: &str = "24h";
/// The longest `--since`: the API keeps no more in a list a person reads at once.
const MAX_SINCE_MS: i64 = 90 * 86_400_000;

pub(crate) async fn run(config: Config, args: ReportArgs) -> Result<()> {
    let since = parse_since(args.since.as_deref().unwrap_or(DEFAULT_SINCE)).map_err(UsageError)?;
    config.require_token()?;
    let client = config.client()?.with_class(RequestClass::Bulk);
    let now_ms = gobare_api::clock::unix_ms();
    let since_ms = now_ms - since;
    let store = StateStore::open(&config.state_dir, &config.api).ok();
    let progress = Arc::new(Progress::default());
    let shown = std::io::stderr()
        .is_terminal()
        .then(|| tokio::spawn(progress_line(client.clone(), progress.clone())));
    let gathered = gather(&client, store.as_ref(), since_ms, now_ms, Some(&progress)).await;
    if let Some(line) = shown {
        line.abort();
        let _ = write!(std::io::stderr(), "\r\x1b[K");
    }
    let gathered = gathered.wrap_err("could not list the sessions")?;
    let text = if args.json {
        let value = crate::away::json::report(
            since_ms,
            now_ms,
            &gathered.digests,
            gathered.partial.as_deref(),
        );
        let line = crate::export::json_escape::escape_unsafe(&value.to_string()).into_owned();
        format!("{line}\n")
    } else {
        text(&gathered.digests, since_ms, now_ms)
    };
    let text = printed(&text);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {}
        written => written.wrap_err("cannot write to stdout")?,
    }
    match &gathered.partial {
        // Printed as far as it goes, but not called whole: a script must not take it so.
        Some(partial) => Err(eyre!("the report is not whole: {partial}")),
        None => Ok(()),
    }
}

/// `reading sessions: 12 of 60 · waiting 4 s for the rate limit`, redrawn on stderr every
/// half second until dropped.
async fn progress_line(client: ApiClient, progress: Arc<Progress>) {
    let waiting = client.scheduler().waiting();
    loop {
        let total = progress.sessions.load(Ordering::Relaxed);
        let read = progress.read.load(Ordering::Relaxed);
        let mut line = if total == 0 {
            "listing the sessions…".to_string()
        } else {
            format!("reading sessions: {read} of {total}")
        };
        if let Some(wait) = *waiting.borrow() {
            let secs = wait
                .until
                .saturating_duration_since(tokio::time::Instant::now())
                .as_secs()
                + 1;
            line.push_str(&format!(" · waiting {secs} s for the rate limit"));
        }
        let _ = write!(std::io::stderr(), "\r\x1b[K{line}");
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
}

/// The report as printed, text or JSON: the server's words carry what the agent saw, and
/// credentials among them are redacted as in the exports.
fn printed(report: &str) -> std::borrow::Cow<'_, str> {
    crate::redact::redact(report)
}

/// `8h`, `30m`, `2d`, `90s`, `1h30m` → milliseconds.
pub(crate) fn parse_since(text: &str) -> Result<i64, String> {
    let bad = || {
        format!(
            "--since {text:?} is not a length of time such as 8h, 30m, 2d or 1h30m \
             (at most 90d)"
        )
    };
    let mut total: i64 = 0;
    let mut number = String::new();
    let mut any = false;
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit = match c {
            's' => 1_000,
            'm' => 60_000,
            'h' => 3_600_000,
            'd' => 86_400_000,
            _ => return Err(bad()),
        };
        let n: i64 = number.parse().map_err(|_| bad())?;
        total = n
            .checked_mul(unit)
            .and_then(|ms| total.checked_add(ms))
            .ok_or_else(bad)?;
        number.clear();
        any = true;
    }
    if !any || !number.is_empty() || total <= 0 || total > MAX_SINCE_MS {
        return Err(bad());
    }
    Ok(total)
}

/// The report in words: a line of totals, then each session that has something to say.
pub(crate) fn text(digests: &[Digest], since_ms: i64, now_ms: i64) -> String {
    let said: Vec<&Digest> = digests.iter().filter(|d| !d.is_quiet()).collect();
    let sum = |f: fn(&Digest) -> u32| said.iter().map(|d| f(d)).sum::<u32>();
    let mut out = format!(
        "Since {} ({} ago): {} sessions with news · {} turns completed · {} failed · \
         {} decisions waiting · {} artifacts added\n",
        crate::readable::times::utc(since_ms),
        span(now_ms - since_ms),
        said.len(),
        sum(|d| d.turns_completed),
        sum(|d| d.turns_failed),
        sum(|d| d.decisions_waiting),
        sum(|d| d.artifacts_added),
    );
    for d in said {
        out.push('\n');
        for (i, (_, line)) in lines(d, true).into_iter().enumerate() {
            out.push_str(&line);
            if i == 0 {
                out.push_str(&format!("  ({})", gobare_api::text::line(&d.session_id)));
            }
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_reads_lengths_of_time() {
        assert_eq!(parse_since("8h"), Ok(8 * 3_600_000));
        assert_eq!(parse_since("1h30m"), Ok(90 * 60_000));
        assert_eq!(parse_since("2d"), Ok(2 * 86_400_000));
        assert_eq!(parse_since(" 90s "), Ok(90_000));
        for bad in ["", "8", "h", "8x", "-1h", "0m", "91d", "99999999999999999d"] {
            let e = parse_since(bad).unwrap_err();
            assert!(e.contains("--since"), "{bad}: {e}");
        }
    }

    #[test]
    fn quiet_sessions_are_left_out_of_the_text() {
        let busy = Digest {
            session_id: "s1".into(),
            title: Some("nightly".into()),
            turns_completed: 2,
            ..Digest::default()
        };
        let quiet = Digest {
            session_id: "s2".into(),
            ..Digest::default()
        };
        let text = text(&[busy, quiet], 0, 8 * 3_600_000);
        assert!(
            text.contains("1 sessions with news · 2 turns completed"),
            "{text}"
        );
        assert!(
            text.contains("nightly  (s1)\n  2 turns completed\n"),
            "{text}"
        );
        assert!(!text.contains("s2"), "{text}");
    }

    #[test]
    fn credentials_are_redacted_in_the_text_and_the_json() {
        let secrets = [
            "sk-proj-abcdefghijklmnopqrstuvwx",
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        ];
        let d = Digest {
            session_id: "s1".into(),
            title: Some(format!("deploy with {}", secrets[0])),
            turns_failed: 1,
            failed: vec![crate::away::digest::FailedTurn {
                turn_id: "t1".into(),
                at: None,
                reason: Some(format!("aws said no to {} and {}", secrets[1], secrets[2])),
            }],
            ..Digest::default()
        };
        let digests = [d];
        let words = text(&digests, 0, 3_600_000);
        let json = crate::away::json::report(0, 3_600_000, &digests, None).to_string();
        for (form, report) in [("text", &words), ("json", &json)] {
            let shown = printed(report);
            assert!(shown.contains("[redacted]"), "{form}: {shown}");
            for secret in secrets {
                assert!(!shown.contains(secret), "{form}: {secret} in {shown}");
            }
        }
        let v: serde_json::Value = serde_json::from_str(&printed(&json)).unwrap();
        assert_eq!(v["sessions"][0]["id"], "s1", "still JSON: {v}");
    }
}
