//! gobare-tui's integration tests: one binary, the tests in `suite/`, helpers in `support/`.

mod suite;
mod support;
