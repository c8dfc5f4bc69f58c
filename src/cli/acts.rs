//! The arguments of the commands that act on a session from the shell: `send`, `cancel`,
//! `answer`, `wait` and `inbox`.

use clap::{ArgGroup, Args, ValueEnum};

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Prints what the server accepted: \"sent: a turn starts\", or \"queued behind the running turn
(position N)\". One Enter is one message: the send is retried under one Idempotency-Key, so a
dropped connection never sends it twice.

Exit status: 0 sent, 1 not sent (the reason on stderr; with --steer, also when no turn runs),
2 usage or configuration error.")]
pub(crate) struct SendArgs {
    /// The session id (a UUID), or any unique prefix of it.
    pub(crate) session_id: String,
    /// The message; `-` reads it from standard input (at most 1 MiB).
    pub(crate) text: String,
    /// Steer the running turn instead of sending a message (refused when no turn runs).
    #[arg(long)]
    pub(crate) steer: bool,
}

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Cancels the running turn (and what it waits for). With nothing running it says so, sends
nothing and exits 0.

Exit status: 0 cancelled or nothing to cancel, 1 not sent, 2 usage or configuration error.")]
pub(crate) struct CancelArgs {
    /// The session id (a UUID), or any unique prefix of it.
    pub(crate) session_id: String,
}

#[derive(Debug, Clone, Args)]
#[command(
    group(ArgGroup::new("decision").required(true).args(["approve", "deny", "text", "option", "result"])),
    after_help = "\
Answers what the session waits on you for: an approval (--approve or --deny), a question
(--text, or --option N counting from 1; a question that takes only its options refuses
--text), or a function call (--result JSON, or --deny to report it failed with a fixed
sentence). --call picks the decision when more than one waits; without it, they are listed
and nothing is sent. An approval the agent asked as sensitive (or one whose flag could not be
read) is refused unless --sensitive is given: the shell's second `y`. --note goes with the
decision as a steer of the turn, as in the app.

Exit status: 0 answered, 1 not sent (the reason on stderr), 2 nothing sent: usage, nothing
waits, several wait without --call (listed on stdout), or a sensitive approval without
--sensitive.")]
pub(crate) struct AnswerArgs {
    /// The session id (a UUID), or any unique prefix of it.
    pub(crate) session_id: String,
    /// Which decision, by its call id (needed only when more than one waits).
    #[arg(long = "call", value_name = "CALL_ID")]
    pub(crate) call: Option<String>,
    /// Approve the approval.
    #[arg(long)]
    pub(crate) approve: bool,
    /// Deny the approval, or report the function call failed.
    #[arg(long)]
    pub(crate) deny: bool,
    /// Answer the question with this text.
    #[arg(long, value_name = "T")]
    pub(crate) text: Option<String>,
    /// Answer the question with its Nth option (from 1).
    #[arg(long, value_name = "N")]
    pub(crate) option: Option<usize>,
    /// The function call's result: a JSON value (sent as its text).
    #[arg(long, value_name = "JSON")]
    pub(crate) result: Option<String>,
    /// Sent with the decision as a steer of the turn.
    #[arg(long, value_name = "T")]
    pub(crate) note: Option<String>,
    /// Confirms an approval asked as sensitive.
    #[arg(long)]
    pub(crate) sensitive: bool,
}

/// What `wait` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub(crate) enum WaitUntil {
    /// The turn ended (or a decision waits on you).
    #[default]
    Settled,
    /// A decision waits on you.
    NeedsYou,
    /// The session is ready for input: nothing runs, nothing waits.
    Idle,
}

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Follows the session's event stream (resuming after a drop, as the app does) until the
condition holds, and prints one line saying what happened (with --json, one object:
session_id, outcome, turn_id, call_id, type, error).

Exit status:
  0  the turn completed (or the condition holds)
  3  the turn failed
  4  a decision waits on you (waiting for `settled`: as soon as one waits)
  5  timed out
  6  the turn was cancelled
  1  the session could not be read; 2 usage or configuration error")]
pub(crate) struct WaitArgs {
    /// The session id (a UUID), or any unique prefix of it.
    pub(crate) session_id: String,
    /// What to wait for.
    #[arg(long, value_enum, default_value_t)]
    pub(crate) until: WaitUntil,
    /// Give up after this long (e.g. 90s, 30m, 2h): exit status 5.
    #[arg(long, value_name = "DUR")]
    pub(crate) timeout: Option<String>,
    /// One JSON object instead of a line of text.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Every decision waiting on you across the organization (or one crew), soonest deadline first
(those without one last): session, call id, kind, deadline, what is asked. With --json, one
object a line: session_id, title, call_id, type, expires_at (Unix ms or null), what, and
sensitive for approvals. Server text is sanitized.

Exit status: 0 listed (nothing waiting included), 1 the API could not be read, 2 usage or
configuration error.")]
pub(crate) struct InboxArgs {
    /// One JSON object per line.
    #[arg(long)]
    pub(crate) json: bool,
    /// Only this session and its sub-sessions (its crew); an id or a unique prefix.
    #[arg(long, value_name = "SESSION_ID")]
    pub(crate) root: Option<String>,
}
