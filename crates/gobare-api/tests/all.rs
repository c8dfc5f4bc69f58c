//! gobare-api's integration tests, in one binary: the crate and its dev-dependencies are
//! linked once, not once per test file.

mod suite;
mod support;
