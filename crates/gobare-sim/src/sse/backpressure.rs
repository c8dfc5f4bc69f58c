//! What a stream does with a frame when its reader lags (§7.7): past a first bound of
//! unread bytes transient frames are dropped while persisted ones keep flowing (the
//! client recovers them by cursor), past a second the connection is closed.

/// The two bounds, in unread bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    pub(crate) drop_transient_after: usize,
    pub(crate) close_after: usize,
}

/// What becomes of the next write.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Admit {
    Write,
    /// A transient frame (or a ping) the lagging reader does without.
    Drop,
    /// The reader is too far behind: the connection goes.
    Close,
}

impl Bounds {
    /// The fate of `len` more bytes on a stream with `unread` bytes waiting.
    pub(crate) fn admit(self, unread: usize, len: usize, transient: bool) -> Admit {
        if transient && unread > self.drop_transient_after {
            Admit::Drop
        } else if unread.saturating_add(len) > self.close_after {
            Admit::Close
        } else {
            Admit::Write
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_frames_go_first_and_the_connection_at_the_second_bound() {
        let bounds = Bounds {
            drop_transient_after: 1024,
            close_after: 8192,
        };
        assert_eq!(bounds.admit(0, 100, true), Admit::Write);
        assert_eq!(bounds.admit(1024, 100, true), Admit::Write);
        assert_eq!(bounds.admit(1025, 100, true), Admit::Drop);
        assert_eq!(bounds.admit(1025, 100, false), Admit::Write);
        assert_eq!(bounds.admit(8092, 100, false), Admit::Write);
        assert_eq!(bounds.admit(8093, 100, false), Admit::Close);
        assert_eq!(bounds.admit(9000, 100, true), Admit::Drop);
    }
}
