//! `[away]` in `config.toml`: when the "while you were away" digest is shown.
//!
//! ```toml
//! [away]
//! digest = true            # false: never
//! unfocused_minutes = 15   # the terminal unfocused this long counts as an absence; 0: only a restart does
//! ```
//!
//! A restart always counts: the session's (or fleet's) last visit is on disk.

/// Minutes the terminal must be unfocused before its return shows a digest, by default.
pub(crate) const DEFAULT_UNFOCUSED_MINUTES: u32 = 15;

/// Milliseconds a minute of `unfocused_minutes` lasts, for tests and demos that cannot wait
/// minutes (as `GOBARE_WORKSPACE_LIFETIME_SECS` shortens the workspace's life); unset: a
/// minute.
pub(crate) const MINUTE_ENV: &str = "GOBARE_AWAY_MINUTE_MS";

/// A minute of `unfocused_minutes`, in ms: [`MINUTE_ENV`] when it holds 1 to 60,000.
/// Read once.
fn minute_ms() -> i64 {
    static MINUTE: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
    *MINUTE.get_or_init(|| {
        std::env::var(MINUTE_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<i64>().ok())
            .filter(|ms| (1..=60_000).contains(ms))
            .unwrap_or(60_000)
    })
}
const MAX_MINUTES: i64 = 10_080;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AwaySettings {
    pub(crate) digest: bool,
    /// `0`: focus never counts (only a restart does).
    pub(crate) unfocused_minutes: u32,
}

impl Default for AwaySettings {
    fn default() -> Self {
        AwaySettings {
            digest: true,
            unfocused_minutes: DEFAULT_UNFOCUSED_MINUTES,
        }
    }
}

impl AwaySettings {
    /// How long unfocused counts as away (ms); `None`: never.
    pub(crate) fn unfocused_ms(&self) -> Option<i64> {
        (self.digest && self.unfocused_minutes > 0)
            .then(|| i64::from(self.unfocused_minutes) * minute_ms())
    }

    /// Reads `[away]`; the warnings say what was ignored and why.
    pub(crate) fn from_table(table: &toml::Table) -> (AwaySettings, Vec<String>) {
        let mut settings = AwaySettings::default();
        let mut warnings = Vec::new();
        for (key, value) in table {
            match key.as_str() {
                "digest" => match value.as_bool() {
                    Some(b) => settings.digest = b,
                    None => warnings.push(format!(
                        "config: [away] digest = {value} is not true or false; using true"
                    )),
                },
                "unfocused_minutes" => match value.as_integer() {
                    Some(m @ 0..=MAX_MINUTES) => settings.unfocused_minutes = m as u32,
                    _ => warnings.push(format!(
                        "config: [away] unfocused_minutes = {value} is not a whole number of \
                         minutes from 0 to {MAX_MINUTES}; using {DEFAULT_UNFOCUSED_MINUTES}"
                    )),
                },
                _ => warnings.push(format!("config: [away] {key} is not a setting; ignored")),
            }
        }
        (settings, warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (AwaySettings, Vec<String>) {
        AwaySettings::from_table(&text.parse().unwrap())
    }

    #[test]
    fn reads_the_switch_and_the_minutes() {
        let (s, w) = parse("");
        assert!(w.is_empty() && s.digest);
        assert_eq!(s.unfocused_ms(), Some(15 * 60_000));
        let (s, w) = parse("unfocused_minutes = 0");
        assert!(w.is_empty());
        assert_eq!(s.unfocused_ms(), None, "only a restart counts");
        let (s, _) = parse("digest = false\nunfocused_minutes = 5");
        assert_eq!(s.unfocused_ms(), None, "no digest at all");
    }

    #[test]
    fn bad_values_are_warnings() {
        let (s, w) = parse("digest = \"yes\"\nunfocused_minutes = -1\nafter = 3");
        assert_eq!(s, AwaySettings::default());
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(
            w.iter()
                .any(|w| w.contains("[away] after is not a setting"))
        );
    }
}
