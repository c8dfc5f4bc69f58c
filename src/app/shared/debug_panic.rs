//! Debug builds only: `GOBARE_TUI_DEBUG_PANIC=1` makes the app panic from inside its loop
//! once the first frame is on screen, so tests can check what a real panic leaves behind
//! (terminal restored, message readable, no token in it). Nothing else can force a panic in
//! the binary; release builds do not compile this module, so they neither read the variable
//! nor carry its name.

/// Set to `1` to request the panic.
pub const ENV_VAR: &str = "GOBARE_TUI_DEBUG_PANIC";

/// The panic's message, for tests to look for.
pub const MESSAGE: &str = "deliberate panic requested by GOBARE_TUI_DEBUG_PANIC";

/// Whether the environment asks for the panic.
#[cfg(debug_assertions)]
pub(crate) fn requested() -> bool {
    std::env::var_os(ENV_VAR).is_some_and(|v| v == "1")
}
