//! A minimal POSIX (ustar) archive writer for `GET …/artifacts/archive` (§6.7): regular
//! files only, which is all an artifact archive holds.

const BLOCK: usize = 512;

/// Appends one regular file. Names over 100 bytes are split into ustar's `prefix` (up to
/// 155 bytes) and `name` at a `/`; a name that cannot be split is refused.
pub(crate) fn append(
    out: &mut Vec<u8>,
    path: &str,
    body: &[u8],
    mtime_secs: u64,
) -> Result<(), String> {
    let (prefix, name) = split_name(path).ok_or_else(|| format!("name too long: {path}"))?;
    let mut header = [0u8; BLOCK];
    header[..name.len()].copy_from_slice(name.as_bytes());
    octal(&mut header[100..108], 0o644);
    octal(&mut header[108..116], 0);
    octal(&mut header[116..124], 0);
    octal(&mut header[124..136], body.len() as u64);
    octal(&mut header[136..148], mtime_secs);
    header[156] = b'0';
    header[257..263].copy_from_slice(b"ustar\0");
    header[263..265].copy_from_slice(b"00");
    header[345..345 + prefix.len()].copy_from_slice(prefix.as_bytes());
    // The checksum is computed with its own field read as spaces.
    header[148..156].fill(b' ');
    let sum: u32 = header.iter().map(|&b| u32::from(b)).sum();
    let field = format!("{sum:06o}\0 ");
    header[148..156].copy_from_slice(field.as_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(body);
    out.resize(out.len().next_multiple_of(BLOCK), 0);
    Ok(())
}

/// Ends the archive: two zero blocks.
pub(crate) fn finish(out: &mut Vec<u8>) {
    out.resize(out.len() + 2 * BLOCK, 0);
}

fn split_name(path: &str) -> Option<(&str, &str)> {
    if path.len() <= 100 {
        return Some(("", path));
    }
    path.match_indices('/').map(|(i, _)| i).find_map(|i| {
        let (prefix, name) = (&path[..i], &path[i + 1..]);
        (prefix.len() <= 155 && name.len() <= 100 && !name.is_empty()).then_some((prefix, name))
    })
}

/// Zero-padded octal filling the field but its last byte (a NUL).
fn octal(field: &mut [u8], value: u64) {
    let width = field.len() - 1;
    let text = format!("{value:0width$o}");
    field[..width].copy_from_slice(&text.as_bytes()[text.len() - width..]);
    field[width] = 0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_has_headers_padded_bodies_and_two_zero_blocks() {
        let mut out = Vec::new();
        append(
            &mut out,
            "turn_1/workspace/outputs/a.md",
            b"hello",
            1_700_000_000,
        )
        .unwrap();
        finish(&mut out);
        assert_eq!(out.len(), 4 * BLOCK);
        assert!(out.starts_with(b"turn_1/workspace/outputs/a.md\0"));
        assert_eq!(&out[124..136], b"00000000005\0");
        assert_eq!(&out[257..262], b"ustar");
        let stored: u32 =
            u32::from_str_radix(std::str::from_utf8(&out[148..154]).unwrap(), 8).unwrap();
        let mut header = out[..BLOCK].to_vec();
        header[148..156].fill(b' ');
        assert_eq!(stored, header.iter().map(|&b| u32::from(b)).sum::<u32>());
        assert_eq!(&out[BLOCK..BLOCK + 5], b"hello");
        assert!(out[BLOCK + 5..].iter().all(|&b| b == 0));
    }

    #[test]
    fn long_names_use_the_prefix_field() {
        let path = format!("{}/{}", "d".repeat(120), "f".repeat(90));
        let mut out = Vec::new();
        append(&mut out, &path, b"", 0).unwrap();
        assert!(out.starts_with("f".repeat(90).as_bytes()));
        assert!(out[345..].starts_with("d".repeat(120).as_bytes()));
        assert!(append(&mut out, &"x".repeat(300), b"", 0).is_err());
    }
}
