//! Times, sizes and rates as people read them: the one way every screen, list,
//! export and progress line says them.

pub(crate) mod times;
pub(crate) mod units;
