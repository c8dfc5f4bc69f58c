//! The command line (clap derive). The token is never a command-line value: arguments are
//! visible to every user of the machine through `ps`.

mod acts;
mod rules_args;

pub(crate) use acts::{AnswerArgs, CancelArgs, InboxArgs, SendArgs, WaitArgs, WaitUntil};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use gobare_sim::SimArgs;
pub(crate) use rules_args::{RulesArgs, parse_label};
use std::path::PathBuf;
use url::Url;

const AFTER_HELP: &str = "\
Examples:
  GOBARE_TOKEN=gbr_pat_... gobare-tui new \"Summarise this repository\"
  gobare-tui --token-file ~/.config/gobare-tui/token attach 3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af
  gobare-tui tail 3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af --from 0 | jq .type
  gobare-tui tail --org --verbose
  gobare-tui list --status requires_action
  gobare-tui attach 3f9c        (any unique prefix of a session id)
  gobare-tui export 3f9c1b60-4e2a-4d18-9a77-6c0b2e5d81af --output session.md
  gobare-tui report --since 8h
  gobare-tui send 3f9c \"Also update the changelog\"
  gobare-tui wait 3f9c --timeout 30m && echo done
  gobare-tui answer 3f9c --approve --note \"only this once\"
  gobare-tui inbox --json
  gobare-tui rules 3f9c --allow 'bash:command=npm test' --mode per_step
  gobare-tui list --label job=8842
  gobare-tui demo

Environment:
  GOBARE_TOKEN      API token (gbr_pat_...); --token-file takes precedence
  GOBARE_API        API base URL; --api takes precedence
  XDG_CONFIG_HOME   config file: $XDG_CONFIG_HOME/gobare-tui/config.toml
  XDG_STATE_HOME    logs: $XDG_STATE_HOME/gobare-tui/logs/
  NO_COLOR          disable colours in the interface

Exit status: 0 success, 1 runtime error, 2 usage or configuration error; `wait` also 3 failed,
4 a decision waits on you, 5 timed out, 6 cancelled (see `gobare-tui wait --help`).";

/// A terminal UI for Gobare agent sessions: live event stream, transcript, turn and
/// workspace panes. With no subcommand and no token it runs the built-in local demo.
#[derive(Debug, Parser)]
#[command(name = "gobare-tui", version, about, long_about = None, after_help = AFTER_HELP)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) global: GlobalArgs,
    #[command(subcommand)]
    pub(crate) command: Option<CliCommand>,
}

/// Parses the command line.
pub(crate) fn parse() -> Cli {
    let matches = command().get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit())
}

/// The client's options that mean nothing to the simulator (it serves; it never connects
/// or reads a token): still accepted after `sim`, but left out of its help.
const CLIENT_ONLY: [&str; 4] = ["api", "token_file", "allow_insecure_http", "screen_reader"];

/// The command as parsed: global options reach every subcommand once built, and only then
/// can `sim`'s help leave the client's out.
pub(crate) fn command() -> clap::Command {
    let mut command = Cli::command();
    command.build();
    // `mut_args` keeps every argument in its place: the built key map still points at them.
    command.mut_subcommand("sim", |sim| {
        sim.mut_args(|arg| {
            let client_only = CLIENT_ONLY.contains(&arg.get_id().as_str());
            arg.hide(client_only)
        })
    })
}

/// `gobare-tui demo` options.
#[derive(Debug, Clone, Default, Args)]
pub struct DemoArgs {
    /// Start over: forget the earlier demo's sessions.
    #[arg(long)]
    pub fresh: bool,
}

/// Options every subcommand accepts.
#[derive(Debug, Clone, Default, Args)]
pub struct GlobalArgs {
    /// API base URL; `/v1` is added by the client [default: `https://api.gobare.dev`]
    #[arg(
        long,
        global = true,
        env = "GOBARE_API",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub api: Option<Url>,
    /// Read the API token from this file (instead of GOBARE_TOKEN). The token is never
    /// accepted as a command-line value.
    #[arg(long, global = true, value_name = "PATH")]
    pub token_file: Option<PathBuf>,
    /// Allow sending the token over plain http:// to a host that is not loopback.
    #[arg(long, global = true)]
    pub allow_insecure_http: bool,
    /// More detail in the log file; `tail` also reports reconnects on stderr.
    #[arg(long, short, global = true)]
    pub verbose: bool,
    /// Lines instead of a full screen, for screen readers, mosh and logs: the session is
    /// written as role-labelled lines, never redrawn, with the input as a plain line at the
    /// bottom (also GOBARE_TUI_SCREEN_READER=1, or `[accessibility] screen_reader = true`).
    #[arg(long, global = true)]
    pub screen_reader: bool,
}

#[derive(Debug, Clone, Subcommand)]
pub(crate) enum CliCommand {
    /// Open an existing session by id: transcript, live events, turn and workspace.
    Attach(AttachArgs),
    /// List sessions, the ones that need you first (needs you, failed, working, idle).
    List(ListArgs),
    /// Every session (or one crew) live on one screen, the ones that need you first.
    Fleet(FleetArgs),
    /// Create a session (optionally with a first message) and open it.
    New(NewArgs),
    /// Run the local simulator and open a scripted session in it; needs no token. The demo
    /// keeps its sessions: running it again reopens them where they stood.
    Demo(DemoArgs),
    /// Print a session's raw events as JSON lines on stdout (or the whole org's with --org).
    Tail(TailArgs),
    /// Write a session's whole history as Markdown or JSON lines, credentials redacted.
    Export(ExportArgs),
    /// Print a session's file changes as a patch (git diff format), or apply them to a
    /// local checkout.
    Diff(DiffArgs),
    /// Print a session as readable lines ("you: …", "agent: …", "tool bash: ok"), its
    /// history first, then live until Ctrl+C: the screen-reader mode without the input.
    Follow(FollowArgs),
    /// Run the local simulator (the Gobare API on 127.0.0.1) until Ctrl+C.
    Sim(SimArgs),
    /// List a session's artifacts (files it left under /workspace/outputs), or save them.
    Artifacts(ArtifactsArgs),
    /// What happened across the fleet since a time: turns completed and failed (with why),
    /// decisions waiting, artifacts added, workspaces paused or reclaimed, turn time.
    Report(ReportArgs),
    /// Send a message to a session, or steer its running turn (--steer).
    Send(SendArgs),
    /// Cancel a session's running turn.
    Cancel(CancelArgs),
    /// Answer what a session waits on you for: an approval, a question or a function call.
    Answer(AnswerArgs),
    /// Wait until a session's turn ends (or a decision waits on you); the exit status says
    /// how it ended.
    Wait(WaitArgs),
    /// Every decision waiting on you across the organization, soonest deadline first.
    Inbox(InboxArgs),
    /// Show or change a session's approval mode and permission rules.
    Rules(RulesArgs),
}

impl CliCommand {
    /// The subcommand's name, as typed.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            CliCommand::Attach(_) => "attach",
            CliCommand::List(_) => "list",
            CliCommand::Fleet(_) => "fleet",
            CliCommand::New(_) => "new",
            CliCommand::Demo(_) => "demo",
            CliCommand::Tail(_) => "tail",
            CliCommand::Export(_) => "export",
            CliCommand::Diff(_) => "diff",
            CliCommand::Follow(_) => "follow",
            CliCommand::Sim(_) => "sim",
            CliCommand::Artifacts(_) => "artifacts",
            CliCommand::Report(_) => "report",
            CliCommand::Send(_) => "send",
            CliCommand::Cancel(_) => "cancel",
            CliCommand::Answer(_) => "answer",
            CliCommand::Wait(_) => "wait",
            CliCommand::Inbox(_) => "inbox",
            CliCommand::Rules(_) => "rules",
        }
    }
}

#[derive(Debug, Clone, Args)]
pub(crate) struct AttachArgs {
    /// The session id (a UUID), or any unique prefix of it.
    pub(crate) session_id: String,
}

#[derive(Debug, Clone, Args, Default)]
pub(crate) struct FleetArgs {
    /// Only this session and its sub-sessions (its crew); an id or a unique prefix.
    #[arg(long, value_name = "SESSION_ID")]
    pub(crate) root: Option<String>,
    /// Start filtered to the sessions labelled KEY=VALUE (matched in the fleet: its
    /// stream cannot be filtered by label; `/` changes the filter, Esc clears it).
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_label)]
    pub(crate) label: Option<(String, String)>,
}

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
One line per session: its full id, what it needs (or its status), its workspace, how long
since it last changed, and its title (or its first message when it has no title). Sessions
waiting on you come first, then failed, working and idle ones, each most recent first.

With --json, one object per line: id, title, title_from_first_message, status, attention,
needs (\"approval\", \"question\", \"function_call\" or null), workspace, parent_session_id,
labels (the session's metadata, or null), created_at, updated_at (Unix ms). A text row ends
with the session's labels, `[key=value …]`.")]
pub(crate) struct ListArgs {
    /// One JSON object per line instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Only this session and its sub-sessions (its crew); an id or a unique prefix.
    #[arg(long, value_name = "SESSION_ID")]
    pub(crate) root: Option<String>,
    /// Only sessions with this status.
    #[arg(long, value_name = "STATUS", value_enum)]
    pub(crate) status: Option<StatusFilter>,
    /// Only sessions labelled KEY=VALUE (the server filters, `metadata=KEY:VALUE`).
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_label)]
    pub(crate) label: Option<(String, String)>,
}

/// `GET /v1/sessions?status=` values (§6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub(crate) enum StatusFilter {
    Idle,
    Working,
    RequiresAction,
    Failed,
}

impl StatusFilter {
    /// The value as the API spells it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            StatusFilter::Idle => "idle",
            StatusFilter::Working => "working",
            StatusFilter::RequiresAction => "requires_action",
            StatusFilter::Failed => "failed",
        }
    }
}

#[derive(Debug, Clone, Default, Args)]
pub struct NewArgs {
    /// Model to run (must be one the chosen credential serves).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// A label for the session.
    #[arg(long, value_name = "TITLE")]
    pub title: Option<String>,
    /// Instructions for the agent (at most 32,000 characters).
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
    /// Declares a function the agent may call, answered from this app (repeatable); with
    /// `:TIMEOUT_S` (1–7200) an unanswered call expires after that many seconds.
    #[arg(long = "function", value_name = "NAME[:TIMEOUT_S]", value_parser = parse_function)]
    pub functions: Vec<FunctionDeclaration>,
    /// Do not open it: create the session, send the first message, print the session's id
    /// on stdout and exit (for scripts: `id=$(gobare-tui new --detach "…")`).
    #[arg(long)]
    pub detach: bool,
    /// The first message; without it the session opens idle.
    pub message: Option<String>,
}

/// A function `new --function` declares: its name and optional `timeout_seconds`.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDeclaration {
    /// The function's name, as the agent calls it.
    pub name: String,
    /// How long a call waits for its answer; `None` waits forever.
    pub timeout_seconds: Option<u64>,
}

fn parse_function(value: &str) -> Result<FunctionDeclaration, String> {
    let (name, timeout) = match value.split_once(':') {
        Some((name, timeout)) => {
            let seconds = timeout
                .parse::<u64>()
                .ok()
                .filter(|t| (1..=7200).contains(t))
                .ok_or_else(|| format!("the timeout \"{timeout}\" is not 1 to 7200 seconds"))?;
            (name, Some(seconds))
        }
        None => (value, None),
    };
    if !(1..=64).contains(&name.chars().count()) {
        return Err("a function name is 1 to 64 characters".into());
    }
    Ok(FunctionDeclaration {
        name: name.to_string(),
        timeout_seconds: timeout,
    })
}

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
One line per frame: the event's JSON exactly as the server sent it, persisted and transient
alike. Drops are resumed silently from the last persisted event.

  --from 0     replay everything persisted, then follow live
  --from N     resume after event N
  (no --from)  live events only")]
pub(crate) struct TailArgs {
    /// The session to follow, or a unique prefix of its id (omit with --org).
    #[arg(required_unless_present = "org", conflicts_with = "org")]
    pub(crate) session_id: Option<String>,
    /// Replay persisted events after this sequence number first (0 = from the beginning).
    #[arg(long, value_name = "SEQ")]
    pub(crate) from: Option<u64>,
    /// Follow every session in the organization (GET /v1/events).
    #[arg(long)]
    pub(crate) org: bool,
    /// With --org: only this session and its sub-sessions (an id or a unique prefix).
    #[arg(long, value_name = "SESSION_ID", requires = "org")]
    pub(crate) root: Option<String>,
}

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
One line per thing that happened, in order, each said once it has settled: what you sent,
what the agent said, each tool call when it ends (ok or failed), changed files, decisions
and their outcomes, how each turn ended. What waits on you is said with a pointer to
`gobare-tui attach`, which answers it. Nothing is redrawn and no escape sequence is
written, so the output reads the same in a screen reader, over mosh and in a log file.
Server text is made inert (control characters are shown, never written raw).")]
pub(crate) struct FollowArgs {
    /// The session to follow (a UUID), or any unique prefix of it.
    pub(crate) session_id: String,
}

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Reads the session's persisted events from the beginning (seq 0) to the current end and
stops there; it does not follow live. The stream has no end marker, so the session is read
first: when it is settled (idle or failed, nothing waiting on you) the history ends at the
first event stamped at or after the session's last change (updated_at), plus 50 ms for
events of that same millisecond; transient frames between them change nothing.
Otherwise (a working session) the end is the first live-only frame, or
half a second without a persisted event once the history has streamed. Nothing is
written unless the session is found. Written
one event at a time, so memory stays flat for any size.

Text is made inert (escape sequences and control characters are shown, never written
raw) and credentials are redacted: a password in a URL (https://x-access-token:[redacted]@
github.com/...), gbr_pat_..., ghp_/ghs_/gho_/ghu_/ghr_/github_pat_ tokens, Bearer ....

  --format md      one section per turn (the default): its prompt, steers, messages,
                   tool calls with arguments and results, diffs, decisions, function
                   calls, the todo list once, and how the turn ended, with its files
  --format jsonl   one persisted event envelope per line, as `tail --from 0` prints them
  --output FILE    written under a temporary name beside FILE, renamed when complete;
                   without it, stdout")]
pub(crate) struct ExportArgs {
    /// The session to export (a UUID), or any unique prefix of it.
    pub(crate) session_id: String,
    /// Markdown for people, or JSON lines (one event envelope each) for programs.
    #[arg(long, value_enum, default_value_t = ExportFormat::Md)]
    pub(crate) format: ExportFormat,
    /// Write here instead of stdout; the file appears only once the export is complete.
    #[arg(long, short, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
The patch is composed from the session's file.changed events: each file once, from its state
before the first change in the range to its state after the last. Paths are relative to
/workspace; a path outside it, with `..` or inside .git is left out and named. A file whose
change cannot be composed whole (an event with no diff or a cut one) is filled from the
workspace's snapshot when nothing changed it since; otherwise it is left out, named on
stderr, and the command fails (exit status 1) after writing the rest.

A turn is named by its id (turn_…) or its number in the session, from 1.

Examples:
  gobare-tui diff 3f9c1b60 > changes.patch && git apply changes.patch
  gobare-tui diff 3f9c1b60 --turn 2 --stat
  gobare-tui diff 3f9c1b60 --since turn_9d41c7e0a8b24f36 --apply ~/src/project")]
pub(crate) struct DiffArgs {
    /// The session (a UUID), or any unique prefix of it.
    pub(crate) session_id: String,
    /// Only this turn's changes.
    #[arg(long, value_name = "TURN", conflicts_with = "since")]
    pub(crate) turn: Option<String>,
    /// The changes of this turn and every later one.
    #[arg(long, value_name = "TURN")]
    pub(crate) since: Option<String>,
    /// A line per file with its added and removed lines, instead of the patch.
    #[arg(long, conflicts_with = "apply")]
    pub(crate) stat: bool,
    /// Write here instead of stdout; the file appears only once complete.
    #[arg(long, short, value_name = "FILE", conflicts_with = "apply")]
    pub(crate) output: Option<PathBuf>,
    /// Apply the patch to this checkout: checked first (git apply --check), refused with
    /// git's reason and nothing changed when it does not apply.
    #[arg(long, value_name = "DIR")]
    pub(crate) apply: Option<PathBuf>,
    /// When a change's diff is missing, take a fresh snapshot of the workspace to fill it
    /// (wakes a paused workspace; needs sessions:write).
    #[arg(long)]
    pub(crate) refresh: bool,
}

/// `export --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ExportFormat {
    /// Markdown.
    Md,
    /// JSON lines.
    Jsonl,
}

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
One line per artifact, oldest first: its path, size, turn and creation time (UTC).
With --json, one object per line: id, path, size_bytes, turn_id, content_type, created_at
(Unix ms).

--download DIR saves each artifact at its path below /workspace/outputs/ (so
/workspace/outputs/charts/a.png becomes DIR/charts/a.png); when several turns wrote the same
path, the newest is saved. --archive FILE saves a turn's tar archive: the --turn given, else
the turn of the newest artifact. Each saved file is printed on stdout.

Nothing is downloaded when any path is refused: one outside DIR (\"..\", absolute, not under
/workspace/outputs/), one through a symbolic link inside DIR, or an existing file without
--force. Downloads are written to a hidden temporary file beside the target and renamed
only once complete: a dropped, short or interrupted download leaves no file behind.
A progress line (bytes, rate) is drawn on stderr when it is a terminal.")]
pub(crate) struct ArtifactsArgs {
    /// The session, or a unique prefix of its id.
    pub(crate) session_id: String,
    /// Only this turn's artifacts.
    #[arg(long, value_name = "TURN_ID")]
    pub(crate) turn: Option<String>,
    /// Save each artifact under this directory (which must exist).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["archive", "json"])]
    pub(crate) download: Option<PathBuf>,
    /// Save a turn's artifacts as one tar archive to this file.
    #[arg(long, value_name = "FILE", conflicts_with = "json")]
    pub(crate) archive: Option<PathBuf>,
    /// One JSON object per line instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Overwrite files that already exist (never through a symbolic link).
    #[arg(long)]
    pub(crate) force: bool,
}

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Every session that changed in the time given (or waits on you now), the ones waiting on you
first: turns completed, failed (with the reason) and cancelled, decisions waiting (with the
time left where the call expires), artifacts added, the workspace paused, resumed, reclaimed
or recovered, and the time turns ran. Read from the session list, each session's newest
turns and artifacts, and the local event log of the sessions this machine has opened; no model is
asked anything. At most 100 sessions are detailed, the most recently changed.

With --json, one object: since, until (Unix ms), sessions_listed, totals {turns_completed,
turns_failed, turns_cancelled, decisions_waiting, artifacts_added, turn_seconds}, partial
(null, or why the report is incomplete) and sessions: [{id, title, events, turns {completed,
failed, cancelled, outcome_unread}, failed [{turn_id, at, reason}], decisions_waiting,
decisions [{call_id, type, what, asked_at, expires_at, expires_in_ms}], artifacts_added,
artifacts [{path, size_bytes, at}], workspace [{change, at}], workspace_now, usage
{turn_seconds, sandbox_seconds}}].

Exit status: 0 printed (a partial report says why on stderr), 1 the API could not be read,
2 a bad --since.

Examples:
  gobare-tui report                     the last 24 hours
  gobare-tui report --since 8h --json | jq '.totals'")]
pub(crate) struct ReportArgs {
    /// How far back: 8h, 30m, 2d, 1h30m (at most 90d) [default: 24h]
    #[arg(long, value_name = "DURATION")]
    pub(crate) since: Option<String>,
    /// One JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// A usage or configuration problem found after parsing: exit status 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct UsageError(pub String);

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn definition_is_consistent() {
        Cli::command().debug_assert();
        command().debug_assert();
    }

    #[test]
    fn tail_needs_a_session_unless_org() {
        assert!(Cli::try_parse_from(["g", "tail"]).is_err());
        assert!(Cli::try_parse_from(["g", "tail", "--root", "r"]).is_err());
        assert!(Cli::try_parse_from(["g", "tail", "s", "--org"]).is_err());
        let cli =
            Cli::try_parse_from(["g", "tail", "--org", "--root", "r", "--from", "0"]).unwrap();
        let Some(CliCommand::Tail(t)) = cli.command else {
            panic!()
        };
        assert!(t.org && t.session_id.is_none());
        assert_eq!((t.root.as_deref(), t.from), (Some("r"), Some(0)));
    }

    #[test]
    fn list_takes_json_root_and_an_api_status() {
        let cli = Cli::try_parse_from([
            "g",
            "list",
            "--json",
            "--root",
            "3f9c",
            "--status",
            "requires_action",
        ])
        .unwrap();
        let Some(CliCommand::List(l)) = cli.command else {
            panic!()
        };
        assert!(l.json);
        assert_eq!(l.root.as_deref(), Some("3f9c"));
        assert_eq!(l.status.map(StatusFilter::as_str), Some("requires_action"));
        assert!(Cli::try_parse_from(["g", "list", "--status", "sleeping"]).is_err());
    }

    #[test]
    fn global_options_work_after_the_subcommand() {
        let cli =
            Cli::try_parse_from(["g", "tail", "s", "--verbose", "--api", "http://localhost:1"])
                .unwrap();
        assert!(cli.global.verbose);
        assert_eq!(cli.global.api.unwrap().as_str(), "http://localhost:1/");
    }

    #[test]
    fn there_is_no_token_option() {
        for args in [
            &["g", "--token", "gbr_pat_x", "demo"][..],
            &["g", "tail", "s", "--token=gbr_pat_x"][..],
        ] {
            let err = Cli::try_parse_from(args).unwrap_err();
            assert_eq!(err.kind(), clap::error::ErrorKind::UnknownArgument);
        }
    }

    #[test]
    fn new_declares_functions_with_an_optional_timeout() {
        let cli = Cli::try_parse_from([
            "g",
            "new",
            "--function",
            "lookup_order:30",
            "--function",
            "refund",
        ])
        .unwrap();
        let Some(CliCommand::New(n)) = cli.command else {
            panic!()
        };
        let declared: Vec<(&str, Option<u64>)> = n
            .functions
            .iter()
            .map(|f| (f.name.as_str(), f.timeout_seconds))
            .collect();
        assert_eq!(declared, [("lookup_order", Some(30)), ("refund", None)]);
        for bad in ["f:0", "f:7201", "f:soon", ":5"] {
            assert!(
                Cli::try_parse_from(["g", "new", "--function", bad]).is_err(),
                "{bad}"
            );
        }
    }
}
