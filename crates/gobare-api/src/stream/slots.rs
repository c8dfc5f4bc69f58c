//! How many event streams this process holds open. The reference allows 5 open streams per
//! token and 20 per organization (§5), and a sixth is refused before it opens: a view shows
//! how many of the token's this app uses. Counted while a connection's body is read.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Open streams a token may hold (§5).
pub const PER_TOKEN: usize = 5;

static OPEN: AtomicUsize = AtomicUsize::new(0);

/// One open stream, counted until dropped.
#[derive(Debug)]
pub(crate) struct Held(());

impl Held {
    pub(crate) fn take() -> Held {
        OPEN.fetch_add(1, Ordering::Relaxed);
        Held(())
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        OPEN.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Event streams this process holds open now.
pub fn open_streams() -> usize {
    OPEN.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_counted_while_held() {
        // Other tests open streams at the same time: only this one's own change is certain.
        let held: Vec<Held> = (0..3).map(|_| Held::take()).collect();
        assert!(open_streams() >= 3);
        drop(held);
    }
}
