//! Reading one record of the local event log back by its seq (the inspector's whole event),
//! hopping from header to header so only that record's JSON is read into memory.

use super::{EventLogFiles, MAGIC, MAX_RECORD, RECORD_HEADER};
use std::io::{self, BufReader, Read};
use std::path::Path;

/// The envelope JSON logged with `seq`, if either segment holds it intact.
pub fn find(files: &EventLogFiles, seq: u64) -> io::Result<Option<Vec<u8>>> {
    for path in [&files.older, &files.current] {
        if let Some(json) = find_in(path, seq)? {
            return Ok(Some(json));
        }
    }
    Ok(None)
}

fn find_in(path: &Path, seq: u64) -> io::Result<Option<Vec<u8>>> {
    let file = match crate::store::private_fs::open_read(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut file = BufReader::new(file);
    let mut magic = [0u8; MAGIC.len()];
    if file.read_exact(&mut magic).is_err() || &magic != MAGIC {
        return Ok(None);
    }
    let mut header = [0u8; RECORD_HEADER];
    while file.read_exact(&mut header).is_ok() {
        let len = u32::from_le_bytes(header[0..4].try_into().expect("4 bytes")) as usize;
        let crc = u32::from_le_bytes(header[4..8].try_into().expect("4 bytes"));
        let seq_bytes: [u8; 8] = header[8..16].try_into().expect("8 bytes");
        let at = u64::from_le_bytes(seq_bytes);
        if len > MAX_RECORD || at > seq {
            // Seqs only increase: it is not in this segment.
            return Ok(None);
        }
        if at < seq {
            // Within the buffer when the record is small: no system call per record.
            file.seek_relative(len as i64)?;
            continue;
        }
        let mut json = vec![0u8; len];
        file.read_exact(&mut json)?;
        let good = super::checksum(&seq_bytes, &json) == crc;
        return Ok(good.then_some(json));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::event_log::{encode, start_segment};
    use std::io::Write;

    #[test]
    fn finds_a_record_by_seq_in_either_segment() {
        let dir = tempfile::tempdir().unwrap();
        let files = EventLogFiles::in_dir(dir.path(), "s");
        for (path, seqs) in [(&files.older, 1..3), (&files.current, 3..6)] {
            start_segment(path).unwrap();
            let mut out = Vec::new();
            for seq in seqs {
                encode(&mut out, seq, format!("{{\"seq\":{seq}}}").as_bytes());
            }
            std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .unwrap()
                .write_all(&out)
                .unwrap();
        }
        assert_eq!(find(&files, 2).unwrap().unwrap(), b"{\"seq\":2}");
        assert_eq!(find(&files, 5).unwrap().unwrap(), b"{\"seq\":5}");
        assert_eq!(find(&files, 9).unwrap(), None);
    }

    /// The inspector's read of the newest event in a full log (64 MiB, ~200,000 records).
    #[test]
    #[ignore = "performance figure: run with --ignored --nocapture"]
    fn perf_find_the_last_of_200k_records() {
        let dir = tempfile::tempdir().unwrap();
        let files = EventLogFiles::in_dir(dir.path(), "s");
        start_segment(&files.current).unwrap();
        let json = format!(
            "{{\"type\":\"agent.message\",\"payload\":{{\"text\":\"{}\"}}}}",
            "x".repeat(300)
        );
        let mut out = Vec::new();
        for seq in 1..=200_000 {
            encode(&mut out, seq, json.as_bytes());
        }
        std::fs::OpenOptions::new()
            .append(true)
            .open(&files.current)
            .unwrap()
            .write_all(&out)
            .unwrap();
        let started = std::time::Instant::now();
        let found = find(&files, 200_000).unwrap().unwrap();
        let took = started.elapsed();
        assert_eq!(found, json.as_bytes());
        println!(
            "perf: find the last of 200,000 records ({} MiB): {:.1} ms",
            out.len() >> 20,
            took.as_secs_f64() * 1000.0
        );
    }
}
