//! Desktop notifications for "the turn ended" and "the agent waits on you": a terminal bell
//! plus OSC 9 (iTerm2, WezTerm, kitty, foot, Windows Terminal) and OSC 777 (rxvt, VTE),
//! wrapped in tmux's DCS passthrough when running inside tmux. When, of which news, and a
//! command of the user's own run for each, are `[notify]`'s ([`config`], [`choice`],
//! [`command`]).

pub(crate) mod alarms;
pub(crate) mod choice;
pub(crate) mod command;
pub(crate) mod config;
pub(crate) mod fleet_alarms;
pub(crate) mod kind;

/// Where the notification goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotifyTarget {
    /// Inside tmux: wrap sequences so they reach the outer terminal.
    pub(crate) tmux: bool,
}

impl NotifyTarget {
    pub(crate) fn from_env() -> NotifyTarget {
        NotifyTarget {
            tmux: std::env::var_os("TMUX").is_some_and(|v| !v.is_empty()),
        }
    }
}

/// When to notify.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NotifyWhen {
    /// Only while the terminal is not focused (the default).
    #[default]
    Unfocused,
    Always,
    Never,
}

impl NotifyWhen {
    pub(crate) fn should_notify(self, focused: bool) -> bool {
        match self {
            NotifyWhen::Always => true,
            NotifyWhen::Never => false,
            NotifyWhen::Unfocused => !focused,
        }
    }
}

/// The bytes to write for one notification. `title` and `body` may come from the server:
/// everything but printable characters is dropped so nothing can end the sequence early.
pub(crate) fn notification_bytes(title: &str, body: &str, target: NotifyTarget) -> Vec<u8> {
    let title = printable(title, 80).replace(';', ",");
    let body = printable(body, 200);
    let osc9 = format!("\x1b]9;{title}: {body}\x07");
    let osc777 = format!("\x1b]777;notify;{title};{body}\x07");
    let mut out = Vec::new();
    out.push(0x07); // bell
    for seq in [osc9, osc777] {
        if target.tmux {
            out.extend_from_slice(tmux_passthrough(&seq).as_bytes());
        } else {
            out.extend_from_slice(seq.as_bytes());
        }
    }
    out
}

/// tmux forwards `ESC P tmux; … ESC \` to the outer terminal, with inner ESCs doubled.
pub(crate) fn tmux_passthrough(seq: &str) -> String {
    format!("\x1bPtmux;{}\x1b\\", seq.replace('\x1b', "\x1b\x1b"))
}

fn printable(s: &str, max_chars: usize) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(
            |c| !matches!(*c as u32, 0x200B..=0x200F | 0x202A..=0x202E | 0x2066..=0x2069 | 0xFEFF),
        )
        .take(max_chars)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_terminal_gets_bell_osc9_and_osc777() {
        let b = notification_bytes("gobare", "turn completed", NotifyTarget { tmux: false });
        let s = String::from_utf8(b).unwrap();
        assert!(s.starts_with('\x07'));
        assert!(s.contains("\x1b]9;gobare: turn completed\x07"));
        assert!(s.contains("\x1b]777;notify;gobare;turn completed\x07"));
    }

    #[test]
    fn tmux_wraps_and_doubles_escapes() {
        let s =
            String::from_utf8(notification_bytes("t", "b", NotifyTarget { tmux: true })).unwrap();
        assert!(s.contains("\x1bPtmux;\x1b\x1b]9;t: b\x07\x1b\\"));
    }

    #[test]
    fn hostile_text_cannot_escape_the_sequence() {
        let s = String::from_utf8(notification_bytes(
            "a;b",
            "x\x07\x1b]52;c;ZXZpbA==\x07\u{202e}y",
            NotifyTarget { tmux: false },
        ))
        .unwrap();
        // Exactly the bell plus the two terminators we wrote.
        assert_eq!(s.matches('\x07').count(), 3);
        assert_eq!(s.matches('\x1b').count(), 2);
        assert!(!s.contains('\u{202e}'));
        assert!(s.contains("777;notify;a,b;"));
    }

    #[test]
    fn unfocused_policy() {
        assert!(NotifyWhen::Unfocused.should_notify(false));
        assert!(!NotifyWhen::Unfocused.should_notify(true));
        assert!(NotifyWhen::Always.should_notify(true));
        assert!(!NotifyWhen::Never.should_notify(false));
    }
}
