//! The start of every log line: the time, then the process id and the command. `attach`,
//! `fleet`, `tail` and `follow` on one machine write one log file; this tells their lines
//! (and their reconnects) apart.

use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::{FormatTime, SystemTime};

/// The time, the process id and the command, e.g. `2025-… [pid 4242 attach]`.
#[derive(Debug, Clone)]
pub(crate) struct LineStamp {
    said: String,
}

impl LineStamp {
    pub(crate) fn new(pid: u32, command: &str) -> LineStamp {
        LineStamp {
            said: format!("[pid {pid} {command}]"),
        }
    }

    /// This process, running `command`.
    pub(crate) fn this_process(command: &str) -> LineStamp {
        LineStamp::new(std::process::id(), command)
    }
}

impl FormatTime for LineStamp {
    fn format_time(&self, w: &mut Writer<'_>) -> std::fmt::Result {
        SystemTime.format_time(w)?;
        write!(w, " {}", self.said)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl Write for Lines {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn every_line_names_its_process_and_command() {
        let lines = Lines::default();
        let writer = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_timer(LineStamp::new(4242, "follow"))
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!("connection lost");
            tracing::info!("connected again");
        });
        let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        let said: Vec<&str> = text.lines().collect();
        assert_eq!(said.len(), 2, "{text}");
        for line in said {
            assert!(line.contains(" [pid 4242 follow] "), "{line}");
        }
    }
}
