//! The Markdown export's output, where a turn's closing line can wait for the turn's facts
//! (its outcome, its artifacts) while the export goes on: what is written after a waiting
//! closing is held in memory, in order, until that closing is written. The writer then
//! does not stop for a turn list page still on its way; the caller bounds what is held
//! ([`HeldOutput::held_bytes`]) by waiting for the facts instead.

use std::collections::VecDeque;
use std::io::{self, Write};

/// A turn's closing line not written yet: what it needs to be written later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Closing {
    pub(crate) turn_id: String,
    pub(crate) number: u64,
    /// When the turn ended, as written; empty when the history ended first.
    pub(crate) at: String,
    /// The turn's own `turn.ended` closed it (its facts are read again if the lists had
    /// it still working).
    pub(crate) ended: bool,
}

/// `W`, with the closings that wait ([`HeldOutput::hold`]) and what follows them.
pub(crate) struct HeldOutput<W> {
    out: W,
    /// The closings that wait, each with where what follows it starts in `held`.
    waiting: VecDeque<(Closing, usize)>,
    /// What was written after the first waiting closing, from `held[written..]`.
    held: Vec<u8>,
    written: usize,
}

/// Bytes of `held` written out past which they are dropped from its front (small under
/// test, so that the tests' short writes compact it too).
#[cfg(not(test))]
const COMPACT_BYTES: usize = 1 << 20;
#[cfg(test)]
const COMPACT_BYTES: usize = 64;

impl<W: Write> HeldOutput<W> {
    pub(crate) fn new(out: W) -> Self {
        HeldOutput {
            out,
            waiting: VecDeque::new(),
            held: Vec::new(),
            written: 0,
        }
    }

    /// `closing` waits: what is written from now on comes after it.
    pub(crate) fn hold(&mut self, closing: Closing) {
        self.waiting.push_back((closing, self.held.len()));
    }

    /// The first closing that waits.
    pub(crate) fn first_waiting(&self) -> Option<&Closing> {
        self.waiting.front().map(|(closing, _)| closing)
    }

    /// Bytes held after waiting closings.
    pub(crate) fn held_bytes(&self) -> usize {
        self.held.len() - self.written
    }

    /// Writes the first waiting closing with `write_closing` (straight to the output:
    /// everything before it is written), then what was held after it, up to the next.
    pub(crate) fn write_first_waiting(
        &mut self,
        write_closing: impl FnOnce(&mut W, &Closing) -> io::Result<()>,
    ) -> io::Result<()> {
        let Some((closing, start)) = self.waiting.pop_front() else {
            return Ok(());
        };
        let end = self.waiting.front().map_or(self.held.len(), |(_, at)| *at);
        write_closing(&mut self.out, &closing)?;
        self.out.write_all(&self.held[start..end])?;
        self.written = end;
        if self.waiting.is_empty() {
            self.held.clear();
            self.written = 0;
        } else if self.written >= COMPACT_BYTES && self.written * 2 >= self.held.len() {
            self.held.drain(..self.written);
            for (_, at) in &mut self.waiting {
                *at -= self.written;
            }
            self.written = 0;
        }
        Ok(())
    }

    /// The output, once nothing waits.
    pub(crate) fn into_inner(self) -> io::Result<W> {
        if self.waiting.is_empty() {
            Ok(self.out)
        } else {
            Err(io::Error::other("a turn's closing line was never written"))
        }
    }
}

impl<W: Write> Write for HeldOutput<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    /// Inlined: the export writes many short pieces per event.
    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if self.waiting.is_empty() {
            return self.out.write_all(buf);
        }
        self.held.extend_from_slice(buf);
        Ok(())
    }

    /// Flushes what is not held.
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn closing(turn: &str) -> Closing {
        Closing {
            turn_id: turn.into(),
            number: 1,
            at: String::new(),
            ended: true,
        }
    }

    fn name_it(out: &mut Vec<u8>, closing: &Closing) -> io::Result<()> {
        out.write_all(format!("[{}]", closing.turn_id).as_bytes())
    }

    #[test]
    fn what_follows_a_waiting_closing_comes_after_it_in_order() {
        let mut out = HeldOutput::new(Vec::new());
        out.write_all(b"a ").unwrap();
        out.hold(closing("t1"));
        out.write_all(b"b ").unwrap();
        out.hold(closing("t2"));
        out.write_all(b"c").unwrap();
        assert_eq!(out.out, b"a ", "nothing after a waiting closing is written");
        assert_eq!(out.held_bytes(), 3);
        assert_eq!(out.first_waiting().unwrap().turn_id, "t1");
        out.write_first_waiting(name_it).unwrap();
        assert_eq!(out.out, b"a [t1]b ");
        assert_eq!(out.held_bytes(), 1);
        out.write_all(b"d").unwrap();
        assert!(out.into_inner().is_err(), "t2 still waits");
    }

    #[derive(Debug, Clone)]
    enum Step {
        Write(Vec<u8>),
        Hold,
        WriteFirst,
    }

    proptest! {
        /// Any order of writes, closings held and closings written reads, once every
        /// closing is written, as if each had been written where it was held.
        #[test]
        fn held_output_reads_as_written_in_place(
            steps in proptest::collection::vec(prop_oneof![
                4 => proptest::collection::vec(any::<u8>(), 0..COMPACT_BYTES)
                    .prop_map(Step::Write),
                1 => Just(Step::Hold),
                1 => Just(Step::WriteFirst),
            ], 0..24),
        ) {
            let mut out = HeldOutput::new(Vec::new());
            let mut expected = Vec::new();
            let mut held = 0;
            for step in steps {
                match step {
                    Step::Write(bytes) => {
                        out.write_all(&bytes).unwrap();
                        expected.extend_from_slice(&bytes);
                    }
                    Step::Hold => {
                        out.hold(closing(&held.to_string()));
                        expected.extend_from_slice(format!("[{held}]").as_bytes());
                        held += 1;
                    }
                    Step::WriteFirst => out.write_first_waiting(name_it).unwrap(),
                }
            }
            while out.first_waiting().is_some() {
                out.write_first_waiting(name_it).unwrap();
            }
            prop_assert_eq!(out.held_bytes(), 0);
            prop_assert!(out.into_inner().unwrap() == expected);
        }
    }
}
