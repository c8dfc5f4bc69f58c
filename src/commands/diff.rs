//! `gobare-tui diff`: a session's file changes (all of them, one turn's, or those since a
//! turn) as a patch in `git diff` format, composed from its `file.changed` events; or
//! applied to a local checkout once `git apply --check` accepts it.
//!
//! A patch is never silently wrong: a file whose change cannot be composed whole (an
//! event without its diff, a cut one) is filled from the workspace's snapshot only when
//! nothing touched it since and the snapshot is newer, else left out and named on stderr,
//! and the command fails; `--apply` then changes nothing.

mod apply;
mod on_terminal;

use crate::changes::compose::{FileDiff, Status};
use crate::changes::patch::write_patch;
use crate::changes::reading;
use crate::changes::session_changes::{FileOutcome, Range};
use crate::cli::{DiffArgs, UsageError};
use crate::config::Config;
use crate::export::output::Output;
use color_eyre::eyre::{Result, WrapErr, bail};
use gobare_api::client::ApiClient;
use gobare_api::stream::StreamTarget;
use gobare_api::text;
use std::io::{IsTerminal, Write};

pub(crate) async fn run(config: Config, args: DiffArgs) -> Result<()> {
    config.require_token()?;
    let range = match (&args.turn, &args.since) {
        (Some(t), None) => Range::Turn(t.clone()),
        (None, Some(t)) => Range::Since(t.clone()),
        (None, None) => Range::Session,
        (Some(_), Some(_)) => unreachable!("clap refuses --turn with --since"),
    };
    let session_id = super::session_id::resolve(&config, &args.session_id).await?;
    let client = ApiClient::new(config.client_options())?;
    let options = config.stream_options(StreamTarget::Session(session_id.clone()), Some(0))?;
    let warn = |w: String| eprintln!("gobare-tui: warning: {w}");
    let changes = tokio::select! {
        read = reading::read(&client, options, &session_id, range.clone(), args.refresh, warn) => read?,
        () = crate::commands::tail::shutdown_signal() => bail!("interrupted"),
    };
    if !changes.turn_found() {
        let named = match &range {
            Range::Turn(t) | Range::Since(t) => t.clone(),
            Range::Session => String::new(),
        };
        return Err(UsageError(format!(
            "session {} has no turn {} (it has {} turn{}; give a turn id or a number from 1)",
            text::one_line(&session_id, 60),
            text::one_line(&named, 60),
            changes.turns(),
            if changes.turns() == 1 { "" } else { "s" },
        ))
        .into());
    }
    let outcomes = changes.outcomes();
    let (whole, incomplete): (Vec<&FileOutcome>, Vec<&FileOutcome>) =
        outcomes.iter().partition(|o| o.change.is_ok());
    let diffs: Vec<(&str, &FileDiff)> = whole
        .iter()
        .filter_map(|o| o.change.as_ref().ok().map(|d| (o.path.as_str(), d)))
        .collect();
    for o in &incomplete {
        if let Err(why) = &o.change {
            eprintln!(
                "gobare-tui: incomplete: {} ({}): left out of the patch",
                text::one_line(&o.path, 200),
                why.words()
            );
        }
    }
    if diffs.is_empty() && incomplete.is_empty() {
        eprintln!("gobare-tui: no file changes in {}", scope(&range));
    }
    let patch = write_patch(diffs.iter().copied());

    if let Some(dir) = &args.apply {
        if !incomplete.is_empty() {
            bail!(
                "{} not applied: {} file{} could not be composed whole (named above); nothing was changed",
                scope(&range),
                incomplete.len(),
                if incomplete.len() == 1 { "" } else { "s" }
            );
        }
        if diffs.is_empty() {
            return Ok(());
        }
        let applied = apply::apply(dir, &diffs, &patch)?;
        for (path, before, after) in &applied.relinked {
            eprintln!(
                "gobare-tui: {} is a symbolic link: the change re-pointed it from {} to {}",
                text::one_line(path, 300),
                text::one_line(before, 300),
                text::one_line(after, 300)
            );
        }
        eprintln!(
            "gobare-tui: applied {} file{} to {}",
            diffs.len(),
            if diffs.len() == 1 { "" } else { "s" },
            text::one_line(&dir.display().to_string(), 300)
        );
    } else {
        let body = if args.stat { stat(&diffs) } else { patch };
        // A terminal gets the server's bytes inert; a file or a pipe gets them exact.
        let body = if args.output.is_none() && std::io::stdout().is_terminal() {
            on_terminal::inert(&body)
        } else {
            body
        };
        let mut out =
            Output::open(args.output.as_deref()).wrap_err("cannot create the output file")?;
        out.write_all(body.as_bytes())?;
        out.commit()?;
    }
    if !incomplete.is_empty() {
        bail!(
            "{} file{} left out of the patch (named above)",
            incomplete.len(),
            if incomplete.len() == 1 { "" } else { "s" }
        );
    }
    Ok(())
}

fn scope(range: &Range) -> String {
    match range {
        Range::Session => "the session".into(),
        Range::Turn(t) => format!("turn {}", text::one_line(t, 60)),
        Range::Since(t) => format!("the turns since {}", text::one_line(t, 60)),
    }
}

/// One line per file (`+added -removed path`, new and deleted marked) and a total.
fn stat(diffs: &[(&str, &FileDiff)]) -> String {
    let mut out = String::new();
    let (mut plus, mut minus) = (0, 0);
    for (path, diff) in diffs {
        let (a, r) = diff.counts();
        plus += a;
        minus += r;
        let mark = match diff.status {
            Status::Added => " (new)",
            Status::Deleted => " (deleted)",
            Status::Modified => "",
        };
        out.push_str(&format!(
            "{:>6} {:>6}  {path}{mark}\n",
            format!("+{a}"),
            format!("-{r}")
        ));
    }
    out.push_str(&format!(
        "{} file{} changed, {plus} insertion{}(+), {minus} deletion{}(-)\n",
        diffs.len(),
        if diffs.len() == 1 { "" } else { "s" },
        if plus == 1 { "" } else { "s" },
        if minus == 1 { "" } else { "s" },
    ));
    out
}
