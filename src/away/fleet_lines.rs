//! The fleet's digest of an absence in words: what waits on the person first, one line a
//! decision; then what failed, one line a session; then the routine churn of every
//! session summed in one line ("52 sessions: 940 turns completed, 930 artifacts"). A busy
//! fleet's absence reads in a screen, not one paragraph a session.

use super::digest::{Digest, WorkspaceChange};
use super::lines::{Tone, decision};

/// The digest of `digests` (every session that moved), most urgent first.
pub(crate) fn fleet_lines(digests: &[Digest]) -> Vec<(Tone, String)> {
    let mut out = Vec::new();
    waiting_lines(digests, &mut out);
    failed_lines(digests, &mut out);
    if let Some(churn) = churn(digests) {
        out.push((Tone::Good, churn));
    }
    if out.is_empty() {
        out.push((Tone::Plain, "nothing happened".into()));
    }
    out
}

fn name(d: &Digest) -> String {
    d.title
        .clone()
        .unwrap_or_else(|| format!("session {}", d.session_id.get(..8).unwrap_or(&d.session_id)))
}

/// How many decisions wait, then each, by session (what is not listed, counted).
fn waiting_lines(digests: &[Digest], out: &mut Vec<(Tone, String)>) {
    let waiting: u32 = digests.iter().map(|d| d.decisions_waiting).sum();
    if waiting == 0 {
        return;
    }
    out.push((Tone::Head, format!("Waiting on you: {waiting}")));
    for d in digests.iter().filter(|d| d.decisions_waiting > 0) {
        for dec in &d.decisions {
            out.push((
                Tone::Attention,
                format!("  {}: {}", name(d), decision(dec, d.until_ms)),
            ));
        }
        let unlisted =
            d.decisions_waiting as usize - d.decisions.len().min(d.decisions_waiting as usize);
        if unlisted > 0 {
            out.push((Tone::Attention, format!("  {}: {unlisted} more", name(d))));
        }
    }
}

/// The sessions whose turns failed (the last reason each) or whose workspace was lost.
fn failed_lines(digests: &[Digest], out: &mut Vec<(Tone, String)>) {
    let failed: Vec<&Digest> = digests.iter().filter(|d| d.turns_failed > 0).collect();
    let reclaimed: Vec<&Digest> = digests
        .iter()
        .filter(|d| {
            d.workspace.iter().any(|(c, _)| {
                matches!(
                    c,
                    WorkspaceChange::Reclaimed | WorkspaceChange::RecoveryFailed
                )
            })
        })
        .collect();
    if failed.is_empty() && reclaimed.is_empty() {
        return;
    }
    let turns: u32 = failed.iter().map(|d| d.turns_failed).sum();
    out.push((
        Tone::Head,
        format!(
            "Failed: {turns} turn{} in {} session{}",
            s(turns),
            failed.len(),
            s(failed.len() as u32)
        ),
    ));
    for d in &failed {
        let why = d
            .failed
            .last()
            .and_then(|f| f.reason.as_deref())
            .unwrap_or("no reason given");
        let more = if d.turns_failed > 1 {
            format!(" (+{} more)", d.turns_failed - 1)
        } else {
            String::new()
        };
        out.push((Tone::Bad, format!("  {}: {why}{more}", name(d))));
    }
    for d in &reclaimed {
        out.push((Tone::Bad, format!("  {}: workspace reclaimed", name(d))));
    }
}

/// Every session's routine summed in one line; `None`: nothing routine happened.
fn churn(digests: &[Digest]) -> Option<String> {
    let moved = digests.iter().filter(|d| d.has_news()).count() as u32;
    let sum = |f: fn(&Digest) -> u32| digests.iter().map(f).sum::<u32>();
    let mut churn = Vec::new();
    for (n, what) in [
        (sum(|d| d.turns_completed), "turns completed"),
        (sum(|d| d.turns_cancelled), "cancelled"),
        (sum(|d| d.turns_unread), "ended (outcome not read yet)"),
        (sum(|d| d.artifacts_added), "artifacts"),
        (sum(|d| d.workspace.len() as u32), "workspace changes"),
    ] {
        if n > 0 {
            churn.push(format!("{n} {what}"));
        }
    }
    (!churn.is_empty()).then(|| format!("{moved} session{}: {}", s(moved), churn.join(", ")))
}

fn s(n: u32) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::away::digest::{Decision, FailedTurn};

    fn busy(i: usize) -> Digest {
        Digest {
            session_id: format!("s{i:07}"),
            title: Some(format!("job {i}")),
            since_ms: 1,
            until_ms: 120_001,
            turns_completed: 18,
            artifacts_added: 18,
            ..Digest::default()
        }
    }

    #[test]
    fn what_waits_comes_first_then_failures_then_one_line_of_churn() {
        let mut digests: Vec<Digest> = (0..52).map(busy).collect();
        digests[30].decisions_waiting = 1;
        digests[30].decisions = vec![Decision {
            call_id: "c".into(),
            kind: "approval",
            what: Some("bash: git push".into()),
            asked_at: None,
            expires_at: None,
        }];
        digests[7].turns_failed = 2;
        digests[7].failed = vec![FailedTurn {
            turn_id: "t".into(),
            at: None,
            reason: Some("provider_error: upstream unavailable".into()),
        }];
        let lines: Vec<String> = fleet_lines(&digests).into_iter().map(|(_, l)| l).collect();
        assert_eq!(
            lines,
            [
                "Waiting on you: 1",
                "  job 30: approval: bash: git push",
                "Failed: 2 turns in 1 session",
                "  job 7: provider_error: upstream unavailable (+1 more)",
                "52 sessions: 936 turns completed, 936 artifacts",
            ]
        );
    }
}
