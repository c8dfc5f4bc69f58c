//! A shell into the workspace through the vendor's SSH gateway: the `[shell]` section of
//! `config.toml` and the `ssh` command it makes.
//!
//! ```toml
//! [shell]
//! host = "ssh.gobare.dev"   # the gateway; the key stays off until this is set
//! port = 2222               # default 2222
//! options = ["-i", "~/.ssh/gobare"]   # extra ssh arguments, before the destination
//! ```

use std::process::{Command, ExitStatus};

/// Where `ssh` goes when the gateway's port is not given.
const DEFAULT_PORT: u16 = 2222;

/// What to tell a person who presses the key before configuring it.
pub(crate) const HOW_TO_TURN_ON: &str = "the shell key is off: set host under [shell] in \
     config.toml (see the README) to ssh into the workspace";

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ShellConfig {
    host: String,
    port: u16,
    options: Vec<String>,
}

impl ShellConfig {
    /// Reads `[shell]`: `None` (off) without a usable host; the warnings say what was
    /// ignored and why.
    pub(crate) fn from_table(table: &toml::Table) -> (Option<ShellConfig>, Vec<String>) {
        let mut warnings = Vec::new();
        let host = match table.get("host") {
            None => return (None, warnings),
            Some(v) => match v.as_str() {
                // A host that ssh would read as an option, or that is several words, is no
                // host: refused rather than passed on.
                Some(h)
                    if !h.is_empty() && !h.starts_with('-') && !h.contains(char::is_whitespace) =>
                {
                    h.to_string()
                }
                _ => {
                    warnings.push(format!(
                        "config: [shell] host = {v} is not a host name; the shell key stays off"
                    ));
                    return (None, warnings);
                }
            },
        };
        let port = match table.get("port") {
            None => DEFAULT_PORT,
            Some(v) => match v.as_integer().and_then(|p| u16::try_from(p).ok()) {
                Some(p) if p > 0 => p,
                _ => {
                    warnings.push(format!(
                        "config: [shell] port = {v} is not a port; using {DEFAULT_PORT}"
                    ));
                    DEFAULT_PORT
                }
            },
        };
        let options = match table.get("options") {
            None => Vec::new(),
            Some(v) => match v
                .as_array()
                .and_then(|a| a.iter().map(|o| o.as_str().map(str::to_string)).collect())
            {
                Some(options) => options,
                None => {
                    warnings.push(format!(
                        "config: [shell] options = {v} is not a list of strings; ignored"
                    ));
                    Vec::new()
                }
            },
        };
        (
            Some(ShellConfig {
                host,
                port,
                options,
            }),
            warnings,
        )
    }

    /// `ssh -p PORT [options] s-<session_id>@HOST`'s arguments.
    pub(crate) fn ssh_args(&self, session_id: &str) -> Vec<String> {
        let mut args = vec!["-p".to_string(), self.port.to_string()];
        args.extend(self.options.iter().cloned());
        args.push(format!("s-{session_id}@{}", self.host));
        args
    }

    /// Runs `ssh` on the terminal as it is (the caller has given it back) until it exits.
    pub(crate) fn run(&self, session_id: &str) -> std::io::Result<ExitStatus> {
        Command::new("ssh").args(self.ssh_args(session_id)).status()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Option<ShellConfig>, Vec<String>) {
        ShellConfig::from_table(&text.parse::<toml::Table>().unwrap())
    }

    #[test]
    fn off_without_a_host() {
        assert_eq!(parse(""), (None, vec![]));
        assert_eq!(parse("port = 22"), (None, vec![]));
    }

    #[test]
    fn the_command_is_port_options_then_the_session_at_the_gateway() {
        let (shell, warnings) =
            parse("host = \"ssh.gobare.dev\"\noptions = [\"-i\", \"/keys/gobare\"]\n");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            shell.unwrap().ssh_args("3f9c1b60"),
            [
                "-p",
                "2222",
                "-i",
                "/keys/gobare",
                "s-3f9c1b60@ssh.gobare.dev"
            ]
        );
        let (shell, _) = parse("host = \"gw.example\"\nport = 2200\n");
        assert_eq!(
            shell.unwrap().ssh_args("x"),
            ["-p", "2200", "s-x@gw.example"]
        );
    }

    #[test]
    fn a_host_that_is_an_option_or_words_keeps_it_off() {
        for bad in ["\"-oProxyCommand=evil\"", "\"two words\"", "\"\"", "7"] {
            let (shell, warnings) = parse(&format!("host = {bad}\n"));
            assert_eq!(shell, None, "{bad}");
            assert!(warnings[0].contains("[shell] host"), "{warnings:?}");
        }
    }

    #[test]
    fn bad_port_and_options_warn_and_fall_back() {
        let (shell, warnings) = parse("host = \"gw\"\nport = 70000\noptions = \"-v\"\n");
        assert_eq!(shell.unwrap().ssh_args("x"), ["-p", "2222", "s-x@gw"]);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
    }
}
