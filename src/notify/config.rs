//! The one `[notify]` table of `config.toml`: when the terminal is told (`when`), of which
//! news and with which command ([`NotifyChoice`]).
//!
//! ```toml
//! [notify]
//! when = "unfocused"   # "always" | "never"
//! on = ["approval", "question", "turn_failed"]
//! command = "ntfy publish my-topic"
//! ```
//!
//! `when` once stood alone in `[notifications]`: a file that still says so is honoured, with
//! a warning that says where it goes now.

use super::NotifyWhen;
use super::choice::NotifyChoice;

/// The table's name.
const SECTION: &str = "notify";
/// Where `when` was read before it joined [`SECTION`].
const OLD_SECTION: &str = "notifications";

/// When to notify, and of what, from the config file's sections; the warnings say what was
/// ignored or read from the old place.
pub(crate) fn read(sections: &toml::Table) -> (NotifyWhen, NotifyChoice, Vec<String>) {
    let mut warnings = Vec::new();
    let mut table = match sections.get(SECTION) {
        Some(value) => value.as_table().cloned().unwrap_or_else(|| {
            warnings.push(format!("config: [{SECTION}] is not a table; ignored"));
            toml::Table::new()
        }),
        None => toml::Table::new(),
    };
    let new_when = table.remove("when");
    let old_when = sections
        .get(OLD_SECTION)
        .and_then(|old| old.as_table())
        .and_then(|old| old.get("when"));
    let when = match (new_when.as_ref(), old_when) {
        (Some(value), old) => {
            if old.is_some() {
                warnings.push(format!(
                    "config: [{OLD_SECTION}] when is ignored: [{SECTION}] when is set"
                ));
            }
            parse_when(value, SECTION, &mut warnings)
        }
        (None, Some(value)) => {
            warnings.push(format!(
                "config: [{OLD_SECTION}] is now part of [{SECTION}]: move `when = {value}` \
                 there (read from [{OLD_SECTION}] meanwhile)"
            ));
            parse_when(value, OLD_SECTION, &mut warnings)
        }
        (None, None) => NotifyWhen::default(),
    };
    let (choice, more) = NotifyChoice::from_table(&table);
    warnings.extend(more);
    (when, choice, warnings)
}

fn parse_when(value: &toml::Value, section: &str, warnings: &mut Vec<String>) -> NotifyWhen {
    match value.as_str() {
        Some("unfocused") => NotifyWhen::Unfocused,
        Some("always") => NotifyWhen::Always,
        Some("never") => NotifyWhen::Never,
        _ => {
            warnings.push(format!(
                "config: [{section}] when = {value} is not one of \"unfocused\", \"always\", \
                 \"never\"; using \"unfocused\""
            ));
            NotifyWhen::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notify::kind::NotifyKind;

    fn parse(text: &str) -> (NotifyWhen, NotifyChoice, Vec<String>) {
        read(&text.parse::<toml::Table>().unwrap())
    }

    #[test]
    fn nothing_set_notifies_of_everything_while_unfocused() {
        assert_eq!(
            parse(""),
            (NotifyWhen::Unfocused, NotifyChoice::default(), vec![])
        );
    }

    #[test]
    fn one_table_holds_when_and_what() {
        let (when, choice, w) =
            parse("[notify]\nwhen = \"always\"\non = [\"approval\"]\ncommand = \"true\"\n");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(when, NotifyWhen::Always);
        assert!(choice.wants(NotifyKind::Approval) && !choice.wants(NotifyKind::TurnFailed));
        assert!(choice.command.is_some());
        let (when, _, w) = parse("[notify]\nwhen = \"never\"\n");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(when, NotifyWhen::Never);
    }

    #[test]
    fn the_old_notifications_table_is_honoured_with_a_warning() {
        let (when, choice, w) =
            parse("[notifications]\nwhen = \"always\"\n[notify]\non = [\"question\"]\n");
        assert_eq!(when, NotifyWhen::Always);
        assert!(choice.wants(NotifyKind::Question) && !choice.wants(NotifyKind::Approval));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("[notifications] is now part of [notify]")
                && w[0].contains("when = \"always\""),
            "{w:?}"
        );
        let (when, _, w) = parse("[notifications]\nwhen = \"never\"\n");
        assert_eq!((when, w.len()), (NotifyWhen::Never, 1), "{w:?}");
    }

    #[test]
    fn the_new_table_wins_over_the_old_one() {
        let (when, _, w) =
            parse("[notifications]\nwhen = \"always\"\n[notify]\nwhen = \"never\"\n");
        assert_eq!(when, NotifyWhen::Never);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("[notifications] when is ignored"), "{w:?}");
    }

    /// The configuration reference has one table for notifications, with a row per setting
    /// and every kind `on` takes.
    #[test]
    fn the_docs_list_every_setting_in_one_table() {
        let doc = include_str!("../../docs/configuration.md");
        let section = doc
            .split("## Notifications: `[notify]`")
            .nth(1)
            .and_then(|rest| rest.split("\n## ").next())
            .expect("docs/configuration.md has the notifications section");
        for key in std::iter::once("when").chain(crate::notify::choice::KEYS) {
            assert!(
                section.contains(&format!("\n| `{key}` |")),
                "the [notify] table lacks {key}"
            );
        }
        for kind in NotifyKind::ALL {
            assert!(
                section.contains(&format!("`\"{}\"`", kind.as_str())),
                "the [notify] section does not name {kind:?}"
            );
        }
        assert!(
            !doc.contains("\n[notifications]\n"),
            "the example uses one table"
        );
    }

    #[test]
    fn a_bad_when_is_a_warning_and_the_default() {
        for text in [
            "[notify]\nwhen = \"sometimes\"\n",
            "[notify]\nwhen = 3\n",
            "[notifications]\nwhen = \"sometimes\"\n",
        ] {
            let (when, _, w) = parse(text);
            assert_eq!(when, NotifyWhen::Unfocused, "{text}");
            assert!(
                w.iter().any(|w| w.contains("is not one of \"unfocused\"")),
                "{text}: {w:?}"
            );
        }
        let (_, choice, w) = parse("notify = 3\n");
        assert_eq!(choice, NotifyChoice::default());
        assert_eq!(w, ["config: [notify] is not a table; ignored"]);
    }
}
