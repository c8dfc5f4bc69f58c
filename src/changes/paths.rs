//! Server paths made safe to write under a local directory: relative to the workspace,
//! no `..`, no absolute path elsewhere, nothing inside `.git`, nothing a patch header or
//! a terminal could misread.

/// The directory the reference's paths are relative to (`environment.workspace_directory`).
pub(crate) const WORKSPACE: &str = "/workspace";

/// `path` (as a `file.changed` event names it) relative to the workspace, or why not.
pub(crate) fn relative(path: &str) -> Result<String, &'static str> {
    let inside = match path.strip_prefix(WORKSPACE) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest,
        _ if path.starts_with('/') => return Err("outside /workspace"),
        _ => path,
    };
    if inside
        .chars()
        .any(|c| c.is_control() || c == '\\' || c == '"')
    {
        return Err("a character a patch cannot carry");
    }
    let mut parts = Vec::new();
    for part in inside.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err("`..` in the path"),
            p if p.eq_ignore_ascii_case(".git") => return Err("inside .git"),
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err("names no file");
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_paths_become_relative_and_the_rest_is_refused() {
        assert_eq!(relative("/workspace/src/a.rs"), Ok("src/a.rs".into()));
        assert_eq!(relative("src//./a.rs"), Ok("src/a.rs".into()));
        assert_eq!(relative("/workspace"), Err("names no file"));
        for bad in [
            "/etc/passwd",
            "/workspacex/a",
            "/workspace/../etc/passwd",
            "src/../../x",
            "..",
            ".git/hooks/pre-commit",
            "/workspace/sub/.GIT/config",
            "a\u{1b}]0;x\u{7}",
            "a\nb",
            "a\\b",
            "a\"b",
        ] {
            assert!(relative(bad).is_err(), "{bad:?}");
        }
    }
}
