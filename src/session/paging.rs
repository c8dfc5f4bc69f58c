//! Paging back: the transcript entries the byte budget dropped, read again from the local
//! event log. The budget bounds memory, not what can be read: the entries before the oldest one
//! kept are those made by the logged events before its seq, so replaying those records
//! into a transcript of their own gives them back, newest last.

use super::Session;
use super::sensitive::SensitiveCalls;
use super::transcript::Transcript;
use gobare_api::model::Event;

impl Session {
    /// Puts a page read back from the log in front of the transcript, holding at most
    /// `max_bytes` of read-back entries over the budget. Returns how many came back.
    pub(crate) fn restore_earlier(&mut self, page: Transcript, max_bytes: usize) -> usize {
        self.transcript.restore_front(page, max_bytes)
    }

    /// Back at the newest entries: the transcript's budget holds again.
    pub(crate) fn end_reading_back(&mut self) {
        self.transcript.end_overdraft();
    }
}

/// The transcript of the logged `records` (seq and envelope JSON, oldest first) before
/// `before_seq`, within `budget` bytes: when more than that was dropped, the newest of
/// them (the page just above what is kept). An envelope that no longer decodes is left out.
pub fn earlier_entries<'a>(
    records: impl IntoIterator<Item = (u64, &'a [u8])>,
    before_seq: u64,
    budget: usize,
) -> Transcript {
    let mut page = Transcript::with_budget(budget);
    // The page's own: what it is built from says which of its approvals were sensitive.
    let mut sensitive = SensitiveCalls::default();
    for (seq, json) in records {
        if seq >= before_seq {
            break;
        }
        if let Ok(event) = Event::parse(&String::from_utf8_lossy(json)) {
            page.apply_event(&event, &mut sensitive);
        }
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::transcript::EntryKind;
    use serde_json::json;

    fn envelope(seq: u64, kind: &str, payload: serde_json::Value) -> String {
        json!({"type": kind, "seq": seq, "created_at": 1000 + seq, "payload": payload}).to_string()
    }

    /// A user message, a tool call with its result and an answer per turn.
    fn history(turns: u64) -> Vec<(u64, String)> {
        let mut out = Vec::new();
        for t in 0..turns {
            let call = format!("call_{t}");
            let seq = |k: u64| t * 10 + k + 1;
            out.push((
                seq(0),
                envelope(
                    seq(0),
                    "user.message",
                    json!({"text": format!("question {t}")}),
                ),
            ));
            out.push((
                seq(1),
                envelope(
                    seq(1),
                    "agent.tool_call",
                    json!({"toolCallId": call, "toolName": "bash", "args": {"command": "ls"}}),
                ),
            ));
            out.push((seq(2), envelope(seq(2), "agent.tool_result", json!({"toolCallId": call, "toolName": "bash", "isError": false, "cancelled": false, "summary": format!("{t} files")}))));
            out.push((
                seq(3),
                envelope(
                    seq(3),
                    "agent.message",
                    json!({"text": format!("answer {t}")}),
                ),
            ));
        }
        out
    }

    fn kinds(t: &Transcript) -> Vec<EntryKind> {
        t.entries().iter().map(|e| e.kind.clone()).collect()
    }

    fn replay(records: &[(u64, String)], budget: usize) -> Transcript {
        let mut t = Transcript::with_budget(budget);
        let mut sensitive = SensitiveCalls::default();
        for (_, json) in records {
            t.apply_event(&Event::parse(json).unwrap(), &mut sensitive);
        }
        t
    }

    #[test]
    fn the_dropped_entries_come_back_from_the_log_in_order() {
        let records = history(200);
        let everything = kinds(&replay(&records, usize::MAX));
        let kept = replay(&records, 16 * 1024);
        assert!(kept.dropped() > 100, "the budget dropped entries");
        let from = kept.kept_from_seq().expect("the oldest kept entry's seq");
        let logged = records.iter().map(|(seq, json)| (*seq, json.as_bytes()));
        let page = earlier_entries(logged, from, usize::MAX);
        let mut both = kinds(&page);
        both.extend(kinds(&kept));
        assert_eq!(
            both, everything,
            "the page then what is kept: the whole transcript"
        );
        assert_eq!(page.entries().len() as u64, kept.dropped());
    }

    #[test]
    fn a_page_is_bounded_and_ends_right_above_what_is_kept() {
        let records = history(200);
        let everything = kinds(&replay(&records, usize::MAX));
        let kept = replay(&records, 16 * 1024);
        let from = kept.kept_from_seq().unwrap();
        let logged = records.iter().map(|(seq, json)| (*seq, json.as_bytes()));
        let page = earlier_entries(logged, from, 4 * 1024);
        let n = page.entries().len();
        assert!(n > 0 && (n as u64) < kept.dropped(), "{n}");
        let above = everything.len() - kept.entries().len();
        assert_eq!(kinds(&page), everything[above - n..above]);
    }

    #[test]
    fn restored_entries_take_their_old_ids_in_front_until_the_user_is_done() {
        let records = history(200);
        let everything = kinds(&replay(&records, usize::MAX));
        let mut kept = replay(&records, 16 * 1024);
        let dropped = kept.dropped();
        let first_kept = kept.entries()[0].id;
        let logged = records.iter().map(|(seq, json)| (*seq, json.as_bytes()));
        let page = earlier_entries(logged, kept.kept_from_seq().unwrap(), usize::MAX);
        let restored = kept.restore_front(page, 8 * 1024);
        assert!(
            restored > 0 && (restored as u64) < dropped,
            "{restored} of {dropped}"
        );
        assert_eq!(kept.dropped(), dropped - restored as u64);
        let ids: Vec<u64> = kept.entries().iter().map(|e| e.id).collect();
        let expected: Vec<u64> = (kept.dropped()..kept.next_id()).collect();
        assert_eq!(ids, expected, "contiguous ids, the kept ones unchanged");
        assert_eq!(kept.entries()[restored].id, first_kept);
        let from = (kept.dropped()) as usize;
        assert_eq!(kinds(&kept), everything[from..]);
        assert!(kept.in_overdraft());

        // Reading further back picks up where the last page ended.
        let logged = records.iter().map(|(seq, json)| (*seq, json.as_bytes()));
        let page = earlier_entries(logged, kept.kept_from_seq().unwrap(), usize::MAX);
        assert!(kept.restore_front(page, 16 * 1024) > 0);
        assert_eq!(kinds(&kept), everything[kept.dropped() as usize..]);

        kept.end_overdraft();
        assert!(!kept.in_overdraft());
        assert_eq!(kept.dropped(), dropped, "back within the budget");
    }
}
