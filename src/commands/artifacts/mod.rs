//! `gobare-tui artifacts SESSION_ID [--turn T] [--download DIR | --archive FILE] [--json]`:
//! lists a session's artifacts, or saves them (each at its path below
//! `/workspace/outputs/`, or one turn's tar archive).
//!
//! Every path is checked before anything is downloaded: one refused path (outside the
//! directory, through a symbolic link, an existing file without `--force`) refuses the
//! whole command, so a run either saves everything it was asked to or nothing it was not.

mod progress;
mod save;
mod target;

use crate::cli::{ArtifactsArgs, UsageError};
use crate::config::Config;
use color_eyre::eyre::{Result, WrapErr, eyre};
use gobare_api::client::{ApiClient, Order, Page};
use gobare_api::model::Artifact;
use gobare_api::text;
use progress::Progress;
use serde_json::json;
use std::collections::BTreeMap;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

/// Artifacts per list page.
const PAGE: u32 = 100;
/// Characters of a path in a text row or message.
const PATH_CHARS: usize = 120;

pub(crate) async fn run(config: Config, args: ArtifactsArgs) -> Result<()> {
    config.require_token()?;
    let client = config.client()?;
    let session = super::session_id::resolve(&config, &args.session_id).await?;
    let artifacts = list_all(&client, &session, args.turn.as_deref())
        .await
        .wrap_err("could not list the artifacts")?;
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

/// Every page of `GET …/artifacts`, oldest first.
async fn list_all(client: &ApiClient, session: &str, turn: Option<&str>) -> Result<Vec<Artifact>> {
    let mut all = Vec::new();
    let mut page = Page::ordered(Order::Asc).with_limit(PAGE);
    loop {
        let list = client.list_artifacts(session, &page, turn).await?;
        all.extend(list.data);
        match list.last_id {
            Some(last) if list.has_more => page = page.after(last),
            _ => return Ok(all),
        }
    }
}

/// `<path>  <size>  <turn>  <time>`, sanitized.
fn text_line(a: &Artifact) -> String {
    let time = a.created_at.map(utc).unwrap_or_else(|| "-".into());
    format!(
        "{}  {:>9}  {}  {time}",
        text::one_line(&a.path, PATH_CHARS),
        progress::size(a.size_bytes),
        text::line(&a.turn_id),
    )
}

/// One JSON object per artifact, inert on a terminal.
fn json_line(a: &Artifact) -> String {
    let value = json!({
        "id": a.id,
        "path": a.path,
        "size_bytes": a.size_bytes,
        "turn_id": a.turn_id,
        "content_type": a.content_type,
        "created_at": a.created_at,
    });
    super::list::escape_unsafe(&value.to_string())
}

/// Unix ms as `YYYY-MM-DD HH:MM:SSZ` (UTC).
fn utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The artifacts to save, newest per local path (a later turn's file of the same name
/// replaces an earlier one), each with its checked relative path.
fn plan(artifacts: &[Artifact]) -> Result<Vec<(PathBuf, &Artifact)>> {
    let mut by_path = BTreeMap::new();
    let mut refused = Vec::new();
    for a in artifacts {
        match target::relative(&a.path) {
            Ok(rel) => {
                by_path.insert(rel, a);
            }
            Err(why) => refused.push(format!(
                "refusing {}: {why}",
                text::one_line(&a.path, PATH_CHARS)
            )),
        }
    }
    if !refused.is_empty() {
        return Err(eyre!("{}", refused.join("\n")));
    }
    Ok(by_path.into_iter().collect())
}

async fn download(
    client: &ApiClient,
    session: &str,
    artifacts: &[Artifact],
    dir: &Path,
    force: bool,
) -> Result<()> {
    if !dir.is_dir() {
        return Err(UsageError(format!("{} is not a directory", dir.display())).into());
    }
    let planned = plan(artifacts)?;
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
        let body = client
            .artifact_content(session, &a.id)
            .await
            .wrap_err_with(|| format!("could not download {}", text::line(&a.path)))?;
        let mut progress = Progress::new(text::one_line(&a.path, 60), body.content_length());
        let saved = save::save(body, &path, force, &mut progress).await;
        progress.finish();
        let bytes = saved.wrap_err_with(|| format!("could not save {}", text::line(&a.path)))?;
        let _ = writeln!(out, "{}  {}", path.display(), progress::size(bytes));
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
    let body = client
        .artifact_archive(session, Some(&turn))
        .await
        .wrap_err_with(|| format!("could not download the archive of {}", text::line(&turn)))?;
    let mut progress = Progress::new(text::line(&turn).into_owned(), body.content_length());
    let saved = save::save(body, &path, force, &mut progress).await;
    progress.finish();
    let bytes = saved.wrap_err("could not save the archive")?;
    let _ = writeln!(
        std::io::stdout(),
        "{}  {}  (turn {})",
        path.display(),
        progress::size(bytes),
        text::line(&turn)
    );
    Ok(())
}

/// The turn of the newest artifact.
fn latest_turn(artifacts: &[Artifact]) -> Option<String> {
    artifacts
        .iter()
        .enumerate()
        .max_by_key(|(i, a)| (a.created_at.unwrap_or(i64::MIN), *i))
        .map(|(_, a)| a.turn_id.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(id: &str, turn: &str, path: &str, at: i64) -> Artifact {
        serde_json::from_value(
            json!({"id": id, "turn_id": turn, "path": path, "size_bytes": 3, "created_at": at}),
        )
        .unwrap()
    }

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00Z");
        assert_eq!(utc(1_796_134_247_000), "2026-12-01 14:10:47Z");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00Z");
    }

    #[test]
    fn the_newest_artifact_per_path_is_saved_and_a_hostile_one_refuses_all() {
        let a = artifact("a1", "t1", "/workspace/outputs/r.md", 1);
        let b = artifact("a2", "t2", "/workspace/outputs/r.md", 2);
        let c = artifact("a3", "t2", "/workspace/outputs/x/y.txt", 3);
        let all = [a, b, c];
        let planned = plan(&all).unwrap();
        let ids: Vec<_> = planned
            .iter()
            .map(|(p, a)| (p.to_str().unwrap(), a.id.as_str()))
            .collect();
        assert_eq!(ids, [("r.md", "a2"), ("x/y.txt", "a3")]);
        assert_eq!(latest_turn(&all).as_deref(), Some("t2"));

        let evil = artifact("a4", "t3", "/workspace/outputs/../../.bashrc", 4);
        let err = plan(&[evil]).unwrap_err().to_string();
        assert!(
            err.contains("refusing /workspace/outputs/../../.bashrc"),
            "{err}"
        );
    }
}
