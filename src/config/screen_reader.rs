//! Whether the screen-reader mode is on, and what turned it on: the flag, else
//! `GOBARE_TUI_SCREEN_READER`, else `[accessibility] screen_reader` in the config file.

/// The environment variable that turns the mode on (`1`, `true`, `yes`) or off (`0`,
/// `false`, `no`, empty), over the config file.
pub(crate) const ENV: &str = "GOBARE_TUI_SCREEN_READER";

/// What turned the mode on, in words for its first line; `None`: off. A value that is
/// neither on nor off is warned about and passed over.
pub(crate) fn decide(
    flag: bool,
    env: Option<&str>,
    file: Option<&toml::Value>,
    warnings: &mut Vec<String>,
) -> Option<String> {
    if flag {
        return Some("--screen-reader".into());
    }
    if let Some(value) = env {
        match value.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => return Some(format!("{ENV}={}", value.trim())),
            "" | "0" | "false" | "no" | "off" => return None,
            _ => warnings.push(format!(
                "{ENV}={} is not 1 or 0; ignored",
                gobare_api::text::one_line(value, 40)
            )),
        }
    }
    match file {
        Some(toml::Value::Boolean(true)) => {
            Some("[accessibility] screen_reader = true in the config file".into())
        }
        Some(toml::Value::Boolean(false)) | None => None,
        Some(other) => {
            warnings.push(format!(
                "config: [accessibility] screen_reader = {other} is not true or false; ignored"
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(flag: bool, env: Option<&str>, file: Option<bool>) -> (Option<String>, usize) {
        let mut warnings = Vec::new();
        let file = file.map(toml::Value::Boolean);
        let why = decide(flag, env, file.as_ref(), &mut warnings);
        (why, warnings.len())
    }

    #[test]
    fn the_flag_wins_then_the_environment_then_the_file() {
        assert_eq!(
            on(true, Some("0"), Some(false)).0.as_deref(),
            Some("--screen-reader")
        );
        assert_eq!(
            on(false, Some("1"), Some(false)).0.as_deref(),
            Some("GOBARE_TUI_SCREEN_READER=1")
        );
        // The environment turns off what the file turns on.
        assert_eq!(on(false, Some("0"), Some(true)).0, None);
        assert!(
            on(false, None, Some(true))
                .0
                .unwrap()
                .contains("[accessibility]")
        );
        assert_eq!(on(false, None, None), (None, 0));
    }

    #[test]
    fn a_value_that_is_neither_is_warned_about_and_the_next_source_decides() {
        assert_eq!(on(false, Some("maybe"), Some(true)).1, 1);
        assert!(on(false, Some("maybe"), Some(true)).0.is_some());
        let mut warnings = Vec::new();
        let file = toml::Value::String("yes".into());
        assert_eq!(decide(false, None, Some(&file), &mut warnings), None);
        assert_eq!(warnings.len(), 1);
    }
}
