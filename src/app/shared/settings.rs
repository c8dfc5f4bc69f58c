//! The app's own sections of `config.toml` (the `api` key is read by `config`):
//!
//! ```toml
//! [notify]             # when, of what, and a command run for each: see `notify::config`
//! when = "unfocused"   # "always" | "never"
//! on = ["approval", "question", "turn_failed"]
//!
//! [away]               # the "while you were away" digest: see `away::config`
//! unfocused_minutes = 15
//!
//! [budget]             # a session's sandbox minutes that notify: see `budget::config`
//! sandbox_minutes = 90
//!
//! [theme]
//! name = "auto"        # "dark" | "light" | "high-contrast" | "colorblind"; auto: light if COLORFGBG says so
//! no_color = false     # true: no colours at all (as with NO_COLOR set)
//!
//! [theme.colors]       # a role's own colour, see `theme::overrides`
//! accent = "#5f87af"
//!
//! [keys]               # extra bindings, see `keymap`
//! quit = "ctrl+q"
//!
//! [transcript]
//! memory_mib = 24      # heap the transcript may keep; the oldest entries leave beyond it
//!
//! [history]
//! event_log_mib = 64   # disk one session's local event log may take (was `log_mib`)
//!
//! [links]
//! open = "firefox"     # what `o` runs with the URL (default: xdg-open, or open on macOS)
//! [shell]              # ssh into the workspace, see `shell`
//! host = "ssh.gobare.dev"
//!
//! [downloads]          # was `[outputs]`
//! dir = "~/artifacts"  # where `a` saves (default: the download directory, see `save_dir`)
//! ```
//!
//! A bad value is reported as a warning (the loop shows it once) and the default is used:
//! a typo in a preference should not keep the user from their session.

use crate::notify::NotifyWhen;
use crate::ui::theme::{Theme, ThemeName};

/// The most `[transcript] memory_mib` may be: beyond, a typo (a byte count?) is likelier.
const TRANSCRIPT_MIB_MAX: i64 = 4_096;
/// The most `[history] event_log_mib` may be.
const EVENT_LOG_MIB_MAX: i64 = 65_536;

/// Preferences read from the config file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settings {
    pub(crate) notify_when: NotifyWhen,
    /// `[notify]`: which news notifies, and the command run for each (its `when` is
    /// `notify_when`).
    pub(crate) notify: crate::notify::choice::NotifyChoice,
    /// `[away]`: when the "while you were away" digest is shown.
    pub(crate) away: crate::away::config::AwaySettings,
    /// `[budget]`: the sandbox minutes that notify.
    pub(crate) budget: crate::budget::config::BudgetSettings,
    /// `[theme] name`.
    pub(crate) theme_name: ThemeName,
    pub(crate) no_color: bool,
    /// `[theme.colors]`.
    pub(crate) colors: crate::ui::theme::ColorOverrides,
    /// Extra key bindings (`[keys]`).
    pub(crate) keys: crate::keys::keymap::KeyMap,
    /// Bytes the transcript's entries may take (`[transcript] memory_mib`).
    pub(crate) transcript_budget: usize,
    /// Bytes one session's local event log may take on disk (`[history] event_log_mib`).
    pub(crate) event_log_max_bytes: u64,
    /// The program (and arguments) `o` opens a link with (`[links] open`); empty: the
    /// system's opener.
    pub(crate) open_command: String,
    /// The SSH gateway (`[shell]`); `None` keeps the shell key off.
    pub(crate) shell: Option<crate::app::shared::shell::ShellConfig>,
    /// Where saved artifacts go (`[downloads] dir`, `~/` expanded); `None`: the default.
    pub(crate) downloads_dir: Option<std::path::PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            notify_when: NotifyWhen::default(),
            notify: Default::default(),
            away: Default::default(),
            budget: Default::default(),
            theme_name: ThemeName::default(),
            no_color: false,
            colors: Default::default(),
            keys: Default::default(),
            transcript_budget: crate::session::transcript::TRANSCRIPT_BUDGET_BYTES,
            event_log_max_bytes: crate::store::event_log::DEFAULT_MAX_BYTES,
            open_command: String::new(),
            shell: None,
            downloads_dir: None,
        }
    }
}

impl Settings {
    /// Reads the sections; the warnings say what was ignored and why.
    pub(crate) fn from_sections(sections: &toml::Table) -> (Settings, Vec<String>) {
        let mut settings = Settings::default();
        let mut warnings = Vec::new();
        let (when, notify, notify_warnings) = crate::notify::config::read(sections);
        settings.notify_when = when;
        settings.notify = notify;
        warnings.extend(notify_warnings);
        if let Some(value) = lookup(sections, "theme", "name") {
            match value.as_str().and_then(ThemeName::parse) {
                Some(name) => settings.theme_name = name,
                None => warnings.push(format!(
                    "config: [theme] name = {value} is not one of \"auto\", \"dark\", \
                     \"light\", \"high-contrast\", \"colorblind\"; using \"auto\""
                )),
            }
        }
        if let Some(colors) = lookup(sections, "theme", "colors") {
            match colors.as_table() {
                Some(table) => {
                    let (colors, color_warnings) =
                        crate::ui::theme::ColorOverrides::from_table(table);
                    settings.colors = colors;
                    warnings.extend(color_warnings);
                }
                None => warnings.push("config: [theme.colors] is not a table; ignored".into()),
            }
        }
        if let Some(value) = lookup(sections, "theme", "no_color") {
            match value.as_bool() {
                Some(b) => settings.no_color = b,
                None => warnings.push(format!(
                    "config: [theme] no_color = {value} is not true or false; ignored"
                )),
            }
        }
        if let Some(value) = lookup(sections, "transcript", "memory_mib") {
            match value.as_integer() {
                Some(mib @ 1..=TRANSCRIPT_MIB_MAX) => {
                    settings.transcript_budget = mib as usize * 1024 * 1024;
                }
                _ => warnings.push(format!(
                    "config: [transcript] memory_mib = {value} is not a whole number of MiB \
                     from 1 to {TRANSCRIPT_MIB_MAX}; using {}",
                    crate::session::transcript::TRANSCRIPT_BUDGET_BYTES / (1024 * 1024)
                )),
            }
        }
        if let Some((key, value)) = lookup_renamed(sections, EVENT_LOG_MIB) {
            match value.as_integer() {
                Some(mib @ 1..=EVENT_LOG_MIB_MAX) => {
                    settings.event_log_max_bytes = (mib as u64) << 20
                }
                _ => warnings.push(format!(
                    "config: {key} = {value} is not a whole number of MiB \
                     from 1 to {EVENT_LOG_MIB_MAX}; using {}",
                    crate::store::event_log::DEFAULT_MAX_BYTES >> 20
                )),
            }
        }
        if let Some(value) = lookup(sections, "links", "open") {
            match value.as_str() {
                Some(cmd) if !cmd.trim().is_empty() => settings.open_command = cmd.to_string(),
                _ => warnings.push(format!(
                    "config: [links] open = {value} is not a command; the system's opener is used"
                )),
            }
        }
        if let Some((key, value)) = lookup_renamed(sections, DOWNLOADS_DIR) {
            match value.as_str() {
                Some(dir) if !dir.trim().is_empty() => {
                    settings.downloads_dir = Some(crate::downloads::save_dir::expand_home(dir));
                }
                _ => warnings.push(format!(
                    "config: {key} = {value} is not a directory name; saves go to the \
                     download directory"
                )),
            }
        }
        if let Some(keys) = sections.get("keys") {
            match keys.as_table() {
                Some(table) => {
                    let (map, key_warnings) = crate::keys::keymap::KeyMap::from_table(table);
                    settings.keys = map;
                    warnings.extend(key_warnings);
                }
                None => warnings.push("config: [keys] is not a table; ignored".into()),
            }
        }
        if let Some(table) = section(sections, "away", &mut warnings) {
            let (away, more) = crate::away::config::AwaySettings::from_table(table);
            settings.away = away;
            warnings.extend(more);
        }
        if let Some(table) = section(sections, "budget", &mut warnings) {
            let (budget, more) = crate::budget::config::BudgetSettings::from_table(table);
            settings.budget = budget;
            warnings.extend(more);
        }
        if let Some(shell) = sections.get("shell") {
            match shell.as_table() {
                Some(table) => {
                    let (shell, shell_warnings) =
                        crate::app::shared::shell::ShellConfig::from_table(table);
                    settings.shell = shell;
                    warnings.extend(shell_warnings);
                }
                None => warnings.push("config: [shell] is not a table; ignored".into()),
            }
        }
        (settings, warnings)
    }

    /// The theme: no colours when the file or `NO_COLOR` asks for none, else the one
    /// `[theme] name` picks for this terminal.
    pub(crate) fn theme(&self) -> Theme {
        Theme::for_terminal(self.theme_name, self.no_color, &self.colors)
            .unwrap_or_else(Theme::no_color)
    }
}

/// Section `name` when it is a table; a warning when it is something else.
fn section<'a>(
    sections: &'a toml::Table,
    name: &str,
    warnings: &mut Vec<String>,
) -> Option<&'a toml::Table> {
    let value = sections.get(name)?;
    let table = value.as_table();
    if table.is_none() {
        warnings.push(format!("config: [{name}] is not a table; ignored"));
    }
    table
}

fn lookup<'a>(sections: &'a toml::Table, section: &str, key: &str) -> Option<&'a toml::Value> {
    sections.get(section)?.as_table()?.get(key)
}

/// A key that was renamed: its name now, then the name it had, each as (section, key).
type Renamed = [(&'static str, &'static str); 2];
/// `[history] event_log_mib`, once `log_mib` (a bare "log" is the diagnostic log).
const EVENT_LOG_MIB: Renamed = [("history", "event_log_mib"), ("history", "log_mib")];
/// `[downloads] dir`, once `[outputs] dir` ("outputs" is the workspace's folder).
const DOWNLOADS_DIR: Renamed = [("downloads", "dir"), ("outputs", "dir")];

/// A renamed key's value under its name now, else under the old one (a config file written
/// before the rename keeps working), with the name it was found under, as `[section] key`.
fn lookup_renamed(sections: &toml::Table, names: Renamed) -> Option<(String, &toml::Value)> {
    names.into_iter().find_map(|(section, key)| {
        lookup(sections, section, key).map(|value| (format!("[{section}] {key}"), value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Settings, Vec<String>) {
        Settings::from_sections(&text.parse::<toml::Table>().unwrap())
    }

    #[test]
    fn defaults_when_absent() {
        assert_eq!(parse(""), (Settings::default(), vec![]));
        assert_eq!(Settings::default().notify_when, NotifyWhen::Unfocused);
    }

    #[test]
    fn reads_notify_and_theme() {
        let (s, w) = parse("[notify]\nwhen = \"always\"\n[theme]\nno_color = true\n");
        assert!(w.is_empty());
        assert_eq!(s.notify_when, NotifyWhen::Always);
        assert!(s.no_color);
        assert_eq!(s.theme(), Theme::no_color());
        let (s, _) = parse("[notify]\nwhen = \"never\"\n");
        assert_eq!(s.notify_when, NotifyWhen::Never);
    }

    #[test]
    fn reads_the_transcript_budget() {
        let (s, w) = parse("[transcript]\nmemory_mib = 2\n");
        assert!(w.is_empty());
        assert_eq!(s.transcript_budget, 2 * 1024 * 1024);
        for bad in ["0", "-3", "\"lots\"", "1.5", "100000"] {
            let (s, w) = parse(&format!("[transcript]\nmemory_mib = {bad}\n"));
            assert_eq!(s, Settings::default(), "{bad}");
            assert_eq!(w.len(), 1, "{bad}");
            assert!(w[0].contains("memory_mib"), "{}", w[0]);
        }
    }

    #[test]
    fn reads_the_event_log_limit() {
        assert_eq!(Settings::default().event_log_max_bytes, 64 << 20);
        let (s, w) = parse("[history]\nevent_log_mib = 8\n");
        assert!(w.is_empty());
        assert_eq!(s.event_log_max_bytes, 8 << 20);
        for bad in ["0", "-1", "\"big\"", "2.5", "100000"] {
            let (s, w) = parse(&format!("[history]\nevent_log_mib = {bad}\n"));
            assert_eq!(s, Settings::default(), "{bad}");
            assert!(w[0].contains("[history] event_log_mib"), "{}", w[0]);
        }
    }

    #[test]
    fn the_event_log_limit_is_still_read_under_its_old_name() {
        let (s, w) = parse("[history]\nlog_mib = 8\n");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s.event_log_max_bytes, 8 << 20);
        let (s, w) = parse("[history]\nlog_mib = 0\n");
        assert_eq!(s, Settings::default());
        assert!(w[0].contains("[history] log_mib = 0"), "{}", w[0]);
        // Both: the name now wins.
        let (s, _) = parse("[history]\nevent_log_mib = 4\nlog_mib = 8\n");
        assert_eq!(s.event_log_max_bytes, 4 << 20);
    }

    #[test]
    fn reads_the_downloads_directory() {
        let (s, w) = parse("[downloads]\ndir = \"/srv/out\"\n");
        assert!(w.is_empty());
        assert_eq!(
            s.downloads_dir.as_deref(),
            Some(std::path::Path::new("/srv/out"))
        );
        let (s, w) = parse("[downloads]\ndir = 3\n");
        assert_eq!(s, Settings::default());
        assert!(w[0].contains("[downloads] dir"), "{}", w[0]);
    }

    #[test]
    fn the_downloads_directory_is_still_read_under_its_old_name() {
        let (s, w) = parse("[outputs]\ndir = \"/srv/out\"\n");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(
            s.downloads_dir.as_deref(),
            Some(std::path::Path::new("/srv/out"))
        );
        let (s, w) = parse("[outputs]\ndir = 3\n");
        assert_eq!(s, Settings::default());
        assert!(w[0].contains("[outputs] dir"), "{}", w[0]);
        // Both: the name now wins.
        let (s, _) = parse("[downloads]\ndir = \"/a\"\n[outputs]\ndir = \"/b\"\n");
        assert_eq!(s.downloads_dir.as_deref(), Some(std::path::Path::new("/a")));
    }

    #[test]
    fn theme_colors_apply_over_the_theme_and_a_bad_one_is_a_warning() {
        let (s, w) = parse(
            "[theme]\nname = \"dark\"\n[theme.colors]\nerror = \"bright-red\"\nfocus = \"teal\"\n",
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("[theme.colors] focus"), "{w:?}");
        if s.theme() != Theme::no_color() {
            assert_eq!(s.theme().error.fg, Some(ratatui::style::Color::LightRed));
        }
        assert_ne!(s.colors, crate::ui::theme::ColorOverrides::default());
    }

    #[test]
    fn reads_the_theme_name_and_warns_on_an_unknown_one() {
        let (s, w) = parse("[theme]\nname = \"light\"\n");
        assert_eq!((s.theme_name, w.len()), (ThemeName::Light, 0));
        let (s, w) = parse("[theme]\nname = \"solarized\"\n");
        assert_eq!(s.theme_name, ThemeName::Auto);
        assert!(
            w[0].contains("\"solarized\"") && w[0].contains("high-contrast"),
            "{w:?}"
        );
    }

    #[test]
    fn reads_notify_and_passes_its_warnings_on() {
        let (s, w) = parse("[notify]\non = [\"approval\", \"nap\"]\ncommand = \"true\"\n");
        assert_eq!(s.notify.on.len(), 1);
        assert!(s.notify.command.is_some());
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("\"nap\""), "{w:?}");
        let (_, w) = parse("notify = 3\naway = 1\nbudget = []\n");
        assert_eq!(
            w,
            [
                "config: [notify] is not a table; ignored",
                "config: [away] is not a table; ignored",
                "config: [budget] is not a table; ignored",
            ]
        );
        let (s, w) = parse("[away]\nunfocused_minutes = 3\n[budget]\nsandbox_minutes = 9\n");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s.away.unfocused_minutes, 3);
        assert_eq!(s.budget.sandbox_minutes, Some(9));
    }

    #[test]
    fn bad_values_warn_and_keep_defaults() {
        let (s, w) = parse("[notify]\nwhen = \"sometimes\"\n[theme]\nno_color = \"yes\"\n");
        assert_eq!(s, Settings::default());
        assert_eq!(w.len(), 2);
        assert!(w[0].contains("sometimes"));
    }
}
