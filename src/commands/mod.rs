//! One module per subcommand; `main` makes exactly one `run` call into one of them.

pub mod attach;
pub mod demo;
pub mod exit;
pub mod frame_line;
pub mod new;
pub mod sim;
pub mod start;
pub mod tail;
