//! Byte sequences a terminal sends for common keys, for [`super::Pty::send_keys`].

pub const ENTER: &str = "\r";
pub const TAB: &str = "\t";
pub const UP: &str = "\x1b[A";
pub const DOWN: &str = "\x1b[B";
pub const CTRL_C: &str = "\x03";
pub const CTRL_O: &str = "\x0f";
pub const CTRL_S: &str = "\x13";
pub const CTRL_X: &str = "\x18";
pub const CTRL_T: &str = "\x14";
pub const CTRL_U: &str = "\x15";
pub const ESC: &str = "\x1b";
/// Shift+Tab (back-tab), the one key into the panes.
pub const SHIFT_TAB: &str = "\x1b[Z";
/// Shift+Enter as the kitty keyboard protocol reports it (the app pushes that protocol).
pub const SHIFT_ENTER: &str = "\x1b[13;2u";
/// Esc as the kitty keyboard protocol reports it (the app pushes that protocol): unlike
/// a lone ESC byte it cannot merge with the bytes after it, so presses may follow each
/// other without waiting for the screen.
pub const ESC_KITTY: &str = "\x1b[27u";
/// F1 as xterm sends it.
pub const F1: &str = "\x1bOP";
/// F3 as xterm sends it.
pub const F3: &str = "\x1bOR";
