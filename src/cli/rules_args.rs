//! The arguments of `gobare-tui rules` (a session's approval mode, permission rules and
//! model) and the `k=v` label the listing commands filter by.

use clap::Args;

#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Without options, shows the session's approval mode and its permission rules, numbered. With
options, says what it will send, sends it as one change (PATCH /v1/sessions/ID, one
Idempotency-Key, retried under it), and shows the session's mode and rules as the server
answered.

SPEC is TOOL:FIELD=VALUE, FIELD one of command, path, domain: `bash:command=make test` matches
that exact command as written (nothing is widened to a prefix), `write:path=/etc` a path,
`bash` every call of the tool, `*:domain=example.com` any tool. --remove counts from 1 as
listed, and is applied before --allow and --deny add theirs at the end.

--model M --credential C (both, as the reference requires) moves the session to model M on
credential C, keeping its workspace and transcript; --credentials lists the organization's
credentials (GET /v1/model-credentials) and the models each says it runs. A model the
credential does not run is refused by the server (400), said on stderr.

The approval mode applies from the session's next turn. The reference does not say when a
rule starts to apply, nor how the service matches a command: the local simulator matches
exactly, the service may match more widely.

With --json, one object: session_id, approval_mode, permission_rules (as the server holds
them), model, model_credential_id, changed (whether anything was sent), and with
--credentials model_credentials ([{id, provider, name, models}]).

Exit status: 0 shown or changed, 1 refused or not sent (the reason on stderr), 2 nothing
sent: usage, a rule number that is not listed, or a rule list this client cannot read.")]
pub(crate) struct RulesArgs {
    /// The session id (a UUID), or any unique prefix of it.
    pub(crate) session_id: String,
    /// Set the approval mode: auto, per_step, read_only or plan (from the next turn).
    #[arg(long, value_name = "M", value_parser = ["auto", "per_step", "read_only", "plan"])]
    pub(crate) mode: Option<String>,
    /// Add a rule that runs what SPEC matches without asking (repeatable).
    #[arg(long, value_name = "SPEC")]
    pub(crate) allow: Vec<String>,
    /// Add a rule that refuses what SPEC matches without asking (repeatable).
    #[arg(long, value_name = "SPEC")]
    pub(crate) deny: Vec<String>,
    /// Remove rule N as listed, counting from 1 (repeatable).
    #[arg(long, value_name = "N")]
    pub(crate) remove: Vec<usize>,
    /// Move the session to model M (with --credential; keeps workspace and transcript).
    #[arg(long, value_name = "M", requires = "credential")]
    pub(crate) model: Option<String>,
    /// The credential that runs --model (`cred_…`; --credentials lists them).
    #[arg(long, value_name = "C", requires = "model")]
    pub(crate) credential: Option<String>,
    /// List the organization's model credentials and the models each runs.
    #[arg(long)]
    pub(crate) credentials: bool,
    /// One JSON object instead of lines of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// A `key=value` label as typed after `--label`.
pub(crate) fn parse_label(typed: &str) -> Result<(String, String), String> {
    match typed.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!("{typed:?} is not KEY=VALUE")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_key_equals_value() {
        assert_eq!(parse_label("job=8842"), Ok(("job".into(), "8842".into())));
        assert_eq!(parse_label("note=a=b"), Ok(("note".into(), "a=b".into())));
        assert!(parse_label("job").is_err());
        assert!(parse_label("=x").is_err());
    }
}
