//! `[budget]` in `config.toml`: a session's sandbox minutes past which the user is told
//! (once, as `budget` news: the terminal's notification and `[notify] command`).
//!
//! ```toml
//! [budget]
//! sandbox_minutes = 90
//! ```

/// The most `sandbox_minutes` may be: a workspace lives 2 h at a time, a session's whole
/// life is longer, a year is a typo.
const MAX_MINUTES: i64 = 525_600;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct BudgetSettings {
    /// `None`: no threshold (the default).
    pub(crate) sandbox_minutes: Option<u32>,
}

impl BudgetSettings {
    /// Reads `[budget]`; the warnings say what was ignored and why.
    pub(crate) fn from_table(table: &toml::Table) -> (BudgetSettings, Vec<String>) {
        let mut settings = BudgetSettings::default();
        let mut warnings = Vec::new();
        for (key, value) in table {
            match key.as_str() {
                "sandbox_minutes" => match value.as_integer() {
                    Some(m @ 1..=MAX_MINUTES) => settings.sandbox_minutes = Some(m as u32),
                    _ => warnings.push(format!(
                        "config: [budget] sandbox_minutes = {value} is not a whole number of \
                         minutes from 1 to {MAX_MINUTES}; no sandbox budget is set"
                    )),
                },
                _ => warnings.push(format!("config: [budget] {key} is not a setting; ignored")),
            }
        }
        (settings, warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (BudgetSettings, Vec<String>) {
        BudgetSettings::from_table(&text.parse().unwrap())
    }

    #[test]
    fn reads_the_threshold_and_warns_on_a_bad_one() {
        assert_eq!(parse(""), (BudgetSettings::default(), vec![]));
        assert_eq!(parse("sandbox_minutes = 90").0.sandbox_minutes, Some(90));
        for bad in ["0", "-5", "\"1h\"", "1.5", "999999999"] {
            let (s, w) = parse(&format!("sandbox_minutes = {bad}"));
            assert_eq!(s.sandbox_minutes, None, "{bad}");
            assert!(w[0].contains("sandbox_minutes"), "{w:?}");
        }
        let (_, w) = parse("sandbox_hours = 2");
        assert!(w[0].contains("[budget] sandbox_hours is not a setting"));
    }
}
