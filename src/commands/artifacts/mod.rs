//! `gobare-tui artifacts SESSION_ID [--turn T] [--download DIR | --archive FILE] [--json]`:
//! lists a session's artifacts, or saves them (each at its path below
//! `/workspace/outputs/`, or one turn's tar archive).
//!
//! Every path is checked before anything is downloaded: one refused path (outside the
//! directory, through a symbolic link, an existing file without `--force`) refuses the
//! whole command, so a run either saves everything it was asked to or nothing it was not.

mod progress;

use crate::cli::{ArtifactsArgs, UsageError};
use crate::config::Config;
use crate::downloads::beneath::Beneath;
use crate::downloads::{latest_turn, list_all, plan, save, target};
use crate::readable::times::utc;
use crate::readable::units::size;
use color_eyre::eyre::{Result, WrapErr, eyre};
use gobare_api::client::ApiClient;
use gobare_api::model::Artifact;
use gobare_api::text;
use progress::Progress;
use serde_json::json;
use std::io::{ErrorKind, Write};
use std::path::Path;

/// Characters of a path in a text row or message.
const PATH_CHARS: usize = 120;

pub(crate) async fn run(config: Config, args: ArtifactsArgs) -> Result<()> {
    config.require_token()?;
    let client = config
        .client()?
        .with_class(gobare_api::schedule::RequestClass::Bulk);
    let session = super::session_id::resolve(&config, &args.session_id).await?;
    let listed = list_all(&client, &session, args.turn.as_deref())
        .await
        .wrap_err("could not list the artifacts")?;
    let artifacts = listed.items;
    if let Some(cut) = listed.cut {
        // A save is all or nothing, and the newest of a path or turn may be past the cut.
        if args.download.is_some() || (args.archive.is_some() && args.turn.is_none()) {
            return Err(eyre!("nothing was saved: {cut}"));
        }
        eprintln!("gobare-tui: showing part of the artifacts: {cut}");
    }
    if let Some(dir) = &args.download {
        return download(&client, &session, &artifacts, dir, args.force).await;
    }
    if let Some(file) = &args.archive {
        return archive(
            &client,
            &session,
            &artifacts,
            args.turn.as_deref(),
            file,
            args.force,
        )
        .await;
    }
    let mut out = std::io::stdout().lock();
    for a in &artifacts {
        let line = if args.json {
            json_line(a)
        } else {
            text_line(a)
        };
        match writeln!(out, "{line}") {
            Err(e) if e.kind() == ErrorKind::BrokenPipe => return Ok(()),
            written => written.wrap_err("cannot write to stdout")?,
        }
    }
    Ok(())
}

/// `<path>  <size>  <turn>  <time>`, sanitized.
fn text_line(a: &Artifact) -> String {
    let time = a.created_at.map(utc).unwrap_or_else(|| "-".into());
    format!(
        "{}  {:>9}  {}  {time}",
        text::one_line(&a.path, PATH_CHARS),
        size(a.size_bytes),
        text::line(&a.turn_id),
    )
}

/// One JSON object per artifact, inert on a terminal.
pub(crate) fn json_line(a: &Artifact) -> String {
    let value = json!({
        "id": a.id,
        "path": a.path,
        "size_bytes": a.size_bytes,
        "turn_id": a.turn_id,
        "content_type": a.content_type,
        "created_at": a.created_at,
    });
    crate::export::json_escape::escape_unsafe(&value.to_string()).into_owned()
}

async fn download(
    client: &ApiClient,
    session: &str,
    artifacts: &[Artifact],
    dir: &Path,
    force: bool,
) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(UsageError(format!("{} exists and is not a directory", dir.display())).into());
    }
    let planned = plan(artifacts).map_err(|refused| eyre!("{}", refused.join("\n")))?;
    // As `curl --create-dirs` and `wget -P` do: the directory (and its parents) is made,
    // once nothing the server named was refused.
    std::fs::create_dir_all(dir).wrap_err_with(|| format!("could not create {}", dir.display()))?;
    let mut blocked = Vec::new();
    for (rel, _) in &planned {
        if let Err(e) = target::prepare(dir, rel, force, false) {
            blocked.push(format!("refusing {e}"));
        }
    }
    if !blocked.is_empty() {
        return Err(eyre!("{}", blocked.join("\n")));
    }
    let mut out = std::io::stdout().lock();
    for (rel, a) in planned {
        let path = target::prepare(dir, &rel, force, true)?;
        let beneath =
            Beneath::open(dir, &rel).wrap_err_with(|| format!("refusing {}", path.display()))?;
        let body = client
            .artifact_content(session, &a.id)
            .await
            .wrap_err_with(|| format!("could not download {}", text::line(&a.path)))?;
        let mut progress = Progress::new(text::one_line(&a.path, 60), body.content_length());
        let saved = save_interruptible(body, &beneath, force, &mut progress).await;
        progress.finish();
        let bytes = saved.wrap_err_with(|| format!("could not save {}", text::line(&a.path)))?;
        let _ = writeln!(out, "{}  {}", path.display(), size(bytes));
    }
    Ok(())
}

/// Saves one turn's tar archive: `--turn`, or else the latest turn with artifacts.
async fn archive(
    client: &ApiClient,
    session: &str,
    artifacts: &[Artifact],
    turn: Option<&str>,
    file: &Path,
    force: bool,
) -> Result<()> {
    let turn = match turn {
        Some(t) => t.to_string(),
        None => latest_turn(artifacts).ok_or_else(|| eyre!("the session has no artifacts"))?,
    };
    let name = file
        .file_name()
        .ok_or_else(|| UsageError(format!("{} names no file", file.display())))?;
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let path =
        target::prepare(dir, Path::new(name), force, false).map_err(|e| eyre!("refusing {e}"))?;
    let beneath = Beneath::open(dir, Path::new(name))
        .wrap_err_with(|| format!("refusing {}", path.display()))?;
    let body = client
        .artifact_archive(session, Some(&turn))
        .await
        .wrap_err_with(|| format!("could not download the archive of {}", text::line(&turn)))?;
    let mut progress = Progress::new(text::line(&turn).into_owned(), body.content_length());
    let saved = save_interruptible(body, &beneath, force, &mut progress).await;
    progress.finish();
    let bytes = saved.wrap_err("could not save the archive")?;
    let _ = writeln!(
        std::io::stdout(),
        "{}  {}  (turn {})",
        path.display(),
        size(bytes),
        text::line(&turn)
    );
    Ok(())
}

/// [`save::save`] with a progress line on stderr, ended by Ctrl+C or SIGTERM.
async fn save_interruptible(
    body: gobare_api::download::Download,
    path: &Beneath,
    force: bool,
    progress: &mut Progress,
) -> Result<u64> {
    // Listening before the temporary file exists: a signal from then on removes it.
    let stop = save::interrupted().map_err(|e| eyre!("cannot listen for Ctrl+C: {e}"))?;
    save::save(body, path, force, &mut |n| progress.advance(n), stop).await
}
