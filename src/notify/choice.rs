//! `[notify]` in `config.toml` but its `when` (read by [`super::config`]): which news
//! notifies, and a command of the user's own that receives each piece of it as JSON on
//! stdin (for ntfy, a phone, a script).
//!
//! ```toml
//! [notify]
//! on = ["approval", "question", "function_call", "turn_failed", "deadline"]
//! deadline_minutes = 10          # "deadline": a function call expires within this
//! command = "ntfy publish --title gobare my-topic"   # run with `sh -c`; or a list:
//! # command = ["/usr/local/bin/notify-phone", "--quiet"]
//! command_timeout_secs = 10      # a command still running then is killed (its group)
//! ```
//!
//! A bad value is a warning (shown, never dropped) and its default is used.

use super::kind::NotifyKind;
use std::collections::BTreeSet;
use std::time::Duration;

/// Minutes before a function call's `expires_at` that `deadline` tells, by default.
pub(crate) const DEFAULT_DEADLINE_MINUTES: u32 = 10;
/// How long a notify command may run, by default.
pub(crate) const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest `command_timeout_secs` may be: a notification an hour late is no news.
const MAX_TIMEOUT_SECS: i64 = 600;
/// The longest `deadline_minutes` may be: a function call waits at most 2 h (§5).
const MAX_DEADLINE_MINUTES: i64 = 120;

/// The settings this reads (`when`, the table's other one, is [`super::config`]'s).
pub(crate) const KEYS: [&str; 4] = ["on", "deadline_minutes", "command", "command_timeout_secs"];

/// What the user chose to be told of, and how.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NotifyChoice {
    /// The kinds that notify (the terminal's notification and the command alike).
    pub(crate) on: BTreeSet<NotifyKind>,
    /// `deadline` tells a function call this long before it expires.
    pub(crate) deadline_minutes: u32,
    /// The command run for each notification; `None`: none.
    pub(crate) command: Option<NotifyCommandSpec>,
    pub(crate) command_timeout: Duration,
}

/// The program and its arguments, all from the config file: nothing the server sent is
/// ever one of them (the news goes on stdin).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotifyCommandSpec {
    pub(crate) program: String,
    pub(crate) args: Vec<String>,
}

impl Default for NotifyChoice {
    fn default() -> Self {
        NotifyChoice {
            // Everything: the budget rings only once `[budget]` sets a threshold, and then
            // it is what the user asked for.
            on: NotifyKind::ALL.into_iter().collect(),
            deadline_minutes: DEFAULT_DEADLINE_MINUTES,
            command: None,
            command_timeout: DEFAULT_COMMAND_TIMEOUT,
        }
    }
}

impl NotifyChoice {
    pub(crate) fn wants(&self, kind: NotifyKind) -> bool {
        self.on.contains(&kind)
    }

    /// Reads `[notify]`; the warnings say what was ignored and why.
    pub(crate) fn from_table(table: &toml::Table) -> (NotifyChoice, Vec<String>) {
        let mut choice = NotifyChoice::default();
        let mut warnings = Vec::new();
        if let Some(value) = table.get("on") {
            match value.as_array() {
                Some(names) => {
                    let mut on = BTreeSet::new();
                    for name in names {
                        match name.as_str().and_then(NotifyKind::parse) {
                            Some(kind) => {
                                on.insert(kind);
                            }
                            None => warnings.push(format!(
                                "config: [notify] on: {name} is not one of {}; ignored",
                                known_kinds()
                            )),
                        }
                    }
                    choice.on = on;
                }
                None => warnings.push(format!(
                    "config: [notify] on = {value} is not a list of names ({}); \
                     notifying of every one",
                    known_kinds()
                )),
            }
        }
        if let Some(value) = table.get("deadline_minutes") {
            match value.as_integer() {
                Some(m @ 1..=MAX_DEADLINE_MINUTES) => choice.deadline_minutes = m as u32,
                _ => warnings.push(format!(
                    "config: [notify] deadline_minutes = {value} is not a whole number of \
                     minutes from 1 to {MAX_DEADLINE_MINUTES}; using {DEFAULT_DEADLINE_MINUTES}"
                )),
            }
        }
        if let Some(value) = table.get("command_timeout_secs") {
            match value.as_integer() {
                Some(s @ 1..=MAX_TIMEOUT_SECS) => {
                    choice.command_timeout = Duration::from_secs(s as u64)
                }
                _ => warnings.push(format!(
                    "config: [notify] command_timeout_secs = {value} is not a whole number \
                     of seconds from 1 to {MAX_TIMEOUT_SECS}; using {}",
                    DEFAULT_COMMAND_TIMEOUT.as_secs()
                )),
            }
        }
        if let Some(value) = table.get("command") {
            match command_spec(value) {
                Some(spec) => choice.command = Some(spec),
                None => warnings.push(format!(
                    "config: [notify] command = {value} is not a command (a string for \
                     `sh -c`, or a list: program then arguments); no command is run"
                )),
            }
        }
        for key in table.keys() {
            if !KEYS.contains(&key.as_str()) {
                warnings.push(format!("config: [notify] {key} is not a setting; ignored"));
            }
        }
        (choice, warnings)
    }
}

fn known_kinds() -> String {
    NotifyKind::ALL
        .iter()
        .map(|k| format!("\"{}\"", k.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn command_spec(value: &toml::Value) -> Option<NotifyCommandSpec> {
    match value {
        toml::Value::String(line) if !line.trim().is_empty() => Some(NotifyCommandSpec {
            program: "sh".into(),
            args: vec!["-c".into(), line.clone()],
        }),
        toml::Value::Array(parts) => {
            let parts: Vec<String> = parts
                .iter()
                .map(|p| p.as_str().map(str::to_string))
                .collect::<Option<_>>()?;
            let (program, args) = parts.split_first()?;
            (!program.trim().is_empty()).then(|| NotifyCommandSpec {
                program: program.clone(),
                args: args.to_vec(),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (NotifyChoice, Vec<String>) {
        let table: toml::Table = text.parse().unwrap();
        NotifyChoice::from_table(&table)
    }

    #[test]
    fn defaults_tell_everything_and_run_nothing() {
        let (c, w) = parse("");
        assert!(w.is_empty());
        assert_eq!(c, NotifyChoice::default());
        assert!(c.wants(NotifyKind::Approval) && c.wants(NotifyKind::Deadline));
        assert!(
            c.wants(NotifyKind::Budget),
            "[budget] alone is enough to be told"
        );
        assert_eq!(c.command, None);
        assert_eq!(c.deadline_minutes, 10);
    }

    #[test]
    fn reads_the_kinds_the_minutes_and_a_command_line() {
        let (c, w) = parse(
            "on = [\"approval\", \"turn_failed\"]\ndeadline_minutes = 3\n\
             command = \"ntfy publish topic\"\ncommand_timeout_secs = 2\n",
        );
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(
            c.on.iter().copied().collect::<Vec<_>>(),
            [NotifyKind::Approval, NotifyKind::TurnFailed]
        );
        assert_eq!(c.deadline_minutes, 3);
        assert_eq!(c.command_timeout, Duration::from_secs(2));
        let spec = c.command.unwrap();
        assert_eq!(spec.program, "sh");
        assert_eq!(spec.args, ["-c", "ntfy publish topic"]);
    }

    #[test]
    fn a_command_list_is_the_program_then_its_arguments() {
        let (c, w) = parse("command = [\"/bin/notify\", \"--quiet\"]\n");
        assert!(w.is_empty());
        let spec = c.command.unwrap();
        assert_eq!(
            (spec.program.as_str(), spec.args),
            ("/bin/notify", vec!["--quiet".to_string()])
        );
    }

    #[test]
    fn bad_values_are_warnings_and_keep_their_defaults() {
        let (c, w) = parse(
            "on = [\"approval\", \"tea_ready\", 3]\ndeadline_minutes = 0\n\
             command = []\ncommand_timeout_secs = \"soon\"\ncolour = 1\n",
        );
        assert_eq!(c.on.len(), 1, "the known name is kept");
        assert_eq!(c.deadline_minutes, DEFAULT_DEADLINE_MINUTES);
        assert_eq!(c.command, None);
        assert_eq!(c.command_timeout, DEFAULT_COMMAND_TIMEOUT);
        assert_eq!(w.len(), 6, "{w:#?}");
        assert!(w[0].contains("\"tea_ready\"") && w[0].contains("\"turn_failed\""));
        assert!(w.iter().any(|w| w.contains("deadline_minutes = 0")));
        assert!(
            w.iter()
                .any(|w| w.contains("[notify] colour is not a setting"))
        );
        let (c, w) = parse("on = \"approval\"\n");
        assert_eq!(c.on, NotifyChoice::default().on);
        assert!(w[0].contains("not a list"));
    }

    #[test]
    fn an_empty_list_turns_every_kind_off() {
        let (c, w) = parse("on = []\n");
        assert!(w.is_empty());
        assert!(NotifyKind::ALL.iter().all(|k| !c.wants(*k)));
    }
}
