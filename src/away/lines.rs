//! A digest in words: the lines the banner, the fleet's digest and `report` print, each
//! with a tone the screen colours (the report prints them plain). Every string in a digest
//! is already sanitized; only figures and our own words are added here.

use super::digest::{Digest, WorkspaceChange};

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
    if !ended.is_empty() {
        out.push((Tone::Good, format!("{indent}{}", ended.join(" · "))));
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
            let what = dec
                .what
                .as_deref()
                .map(|w| format!(": {w}"))
                .unwrap_or_default();
            let left = match dec.expires_at {
                Some(at) if at > d.until_ms => format!(" (expires in {})", span(at - d.until_ms)),
                Some(_) => " (expired)".to_string(),
                None => String::new(),
            };
            out.push((
                Tone::Attention,
                format!("{indent}  {}{what}{left}", dec.kind.replace('_', " ")),
            ));
        }
    }
    if d.artifacts_added > 0 {
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
        out.push((
            Tone::Plain,
            format!(
                "{indent}{} added: {}{more}",
                plural(d.artifacts_added, "artifact", "artifacts"),
                names.join(", ")
            ),
        ));
    }
    if !d.workspace.is_empty() {
        let said: Vec<&str> = d.workspace.iter().map(|(c, _)| change_word(*c)).collect();
        let bad = d.workspace.iter().any(|(c, _)| {
            matches!(
                c,
                WorkspaceChange::Reclaimed | WorkspaceChange::RecoveryFailed
            )
        });
        out.push((
            if bad { Tone::Bad } else { Tone::Plain },
            format!("{indent}workspace {}", compress(&said).join(", ")),
        ));
    }
    let mut usage = Vec::new();
    if d.turn_seconds > 0 {
        usage.push(format!("{} of turns", span(d.turn_seconds as i64 * 1000)));
    }
    if let Some(total) = d.sandbox_seconds {
        usage.push(format!("sandbox {} in all", span(total as i64 * 1000)));
    }
    if !usage.is_empty() {
        out.push((Tone::Plain, format!("{indent}usage: {}", usage.join(" · "))));
    }
    if out.len() == usize::from(named) {
        out.push((Tone::Plain, format!("{indent}nothing happened")));
    }
    out
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
