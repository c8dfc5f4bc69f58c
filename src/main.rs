//! The `gobare-tui` binary: everything it does is in the library's [`gobare_tui::main`].

fn main() -> std::process::ExitCode {
    gobare_tui::main()
}
