//! The one way the simulator takes its locks (but the database's: `SimState::db`, a
//! parking_lot lock for its fairness).

use std::sync::{Mutex, MutexGuard};

/// Locks, ignoring poisoning: no lock is held across code that can panic mid-update.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
