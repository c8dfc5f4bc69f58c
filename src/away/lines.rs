//! A digest in words: the lines the banner, the fleet's digest and `report` print, each
//! with a tone the screen colours (the report prints them plain). Every string in a digest
//! is already sanitized; only figures and our own words are added here.

use super::digest::{Decision, Digest, WorkspaceChange};

/// How a line should look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// The session's name and the absence.
    Head,
    /// Something went wrong.
    Bad,
    /// It waits on the user.
    Attention,
    Good,
    Plain,
}

/// "3h 12m", "45m", "20s".
pub fn span(ms: i64) -> String {
    let secs = ms.max(0) / 1000;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    match (h, m) {
        (0, 0) => format!("{s}s"),
        (0, m) => format!("{m}m"),
        (h, 0) => format!("{h}h"),
        (h, m) => format!("{h}h {m}m"),
    }
}

fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The lines of one session's digest; `named`: start with its name (the fleet's and the
/// report's, where several follow each other).
pub fn lines(d: &Digest, named: bool) -> Vec<(Tone, String)> {
    let mut out = Vec::new();
    if named {
        let name = d
            .title
            .clone()
            .unwrap_or_else(|| format!("session {}", short(&d.session_id)));
        out.push((Tone::Head, name));
    }
    let indent = if named { "  " } else { "" };
    if d.turns_failed > 0 {
        out.push((
            Tone::Bad,
            format!("{indent}{} failed", plural(d.turns_failed, "turn", "turns")),
        ));
        for f in &d.failed {
            let why = f.reason.as_deref().unwrap_or("no reason given");
            out.push((Tone::Bad, format!("{indent}  {why}")));
        }
    }
    if let Some(ended) = ended(d) {
        out.push((Tone::Good, format!("{indent}{ended}")));
    }
    if d.decisions_waiting > 0 {
        out.push((
            Tone::Attention,
            format!(
                "{indent}{} waiting on you",
                plural(d.decisions_waiting, "decision", "decisions")
            ),
        ));
        for dec in &d.decisions {
            out.push((
                Tone::Attention,
                format!("{indent}  {}", decision(dec, d.until_ms)),
            ));
        }
    }
    if d.artifacts_added > 0 {
        out.push((Tone::Plain, format!("{indent}{}", artifacts(d))));
    }
    if let Some((tone, workspace)) = workspace(d) {
        out.push((tone, format!("{indent}{workspace}")));
    }
    if let Some(usage) = usage(d) {
        out.push((Tone::Plain, format!("{indent}{usage}")));
    }
    if out.len() == usize::from(named) {
        out.push((Tone::Plain, format!("{indent}nothing happened")));
    }
    out
}

/// The turns that ended other than failed, or `None`: none did.
fn ended(d: &Digest) -> Option<String> {
    let mut ended = Vec::new();
    if d.turns_completed > 0 {
        ended.push(format!(
            "{} completed",
            plural(d.turns_completed, "turn", "turns")
        ));
    }
    if d.turns_cancelled > 0 {
        ended.push(format!("{} cancelled", d.turns_cancelled));
    }
    if d.turns_unread > 0 {
        ended.push(format!("{} ended (outcome not read yet)", d.turns_unread));
    }
    (!ended.is_empty()).then(|| ended.join(" · "))
}

/// A decision waiting: its kind, what it is about and when it lapses, as of `until_ms`.
pub(super) fn decision(dec: &Decision, until_ms: i64) -> String {
    let what = dec
        .what
        .as_deref()
        .map(|w| format!(": {w}"))
        .unwrap_or_default();
    let left = match dec.expires_at {
        Some(at) if at > until_ms => format!(" (expires in {})", span(at - until_ms)),
        Some(_) => " (expired)".to_string(),
        None => String::new(),
    };
    format!("{}{what}{left}", dec.kind.replace('_', " "))
}

/// How many artifacts were added, and the names of the latest.
fn artifacts(d: &Digest) -> String {
    let names: Vec<&str> = d
        .artifacts
        .iter()
        .rev()
        .map(|a| a.path.rsplit('/').next().unwrap_or(&a.path))
        .collect();
    let more = if d.artifacts_added as usize > names.len() {
        ", …"
    } else {
        ""
    };
    format!(
        "{} added: {}{more}",
        plural(d.artifacts_added, "artifact", "artifacts"),
        names.join(", ")
    )
}

/// What the workspace went through, bad when it was lost; `None`: nothing.
fn workspace(d: &Digest) -> Option<(Tone, String)> {
    if d.workspace.is_empty() {
        return None;
    }
    let said: Vec<&str> = d.workspace.iter().map(|(c, _)| change_word(*c)).collect();
    let bad = d.workspace.iter().any(|(c, _)| {
        matches!(
            c,
            WorkspaceChange::Reclaimed | WorkspaceChange::RecoveryFailed
        )
    });
    Some((
        if bad { Tone::Bad } else { Tone::Plain },
        format!("workspace {}", compress(&said).join(", ")),
    ))
}

/// Time in turns and in the sandbox; `None`: none known.
fn usage(d: &Digest) -> Option<String> {
    let mut usage = Vec::new();
    if d.turn_seconds > 0 {
        usage.push(format!("{} of turns", span(d.turn_seconds as i64 * 1000)));
    }
    if let Some(total) = d.sandbox_seconds {
        usage.push(format!("sandbox {} in all", span(total as i64 * 1000)));
    }
    (!usage.is_empty()).then(|| format!("usage: {}", usage.join(" · ")))
}

/// "paused, resumed, paused" → "paused ×2, resumed" would lose the order: consecutive
/// repeats only are folded ("paused, resumed ×3").
fn compress<'a>(words: &[&'a str]) -> Vec<String> {
    let mut out: Vec<(&'a str, usize)> = Vec::new();
    for w in words {
        match out.last_mut() {
            Some((last, n)) if last == w => *n += 1,
            _ => out.push((w, 1)),
        }
    }
    out.into_iter()
        .map(|(w, n)| {
            if n > 1 {
                format!("{w} ×{n}")
            } else {
                w.to_string()
            }
        })
        .collect()
}

fn change_word(c: WorkspaceChange) -> &'static str {
    match c {
        WorkspaceChange::Started => "started",
        WorkspaceChange::Paused => "paused",
        WorkspaceChange::Resumed => "resumed",
        WorkspaceChange::Reclaimed => "reclaimed",
        WorkspaceChange::Recovered => "recovered",
        WorkspaceChange::RecoveryFailed => "recovery failed",
    }
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// The banner's title: "While you were away (3h 12m)".
pub fn heading(away_ms: i64) -> String {
    if away_ms >= 60_000 {
        format!("While you were away ({})", span(away_ms))
    } else {
        "While you were away".into()
    }
}
