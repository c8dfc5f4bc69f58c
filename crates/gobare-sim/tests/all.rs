//! The simulator's integration tests, in one binary: the REST surface and the event
//! streams over real HTTP, random requests, and the crate's import graph.

mod suite;
mod support;
