//! The API token: kept out of every `Debug`, `Display`, log line and error.

use std::fmt;

/// A bearer token. Its text is reachable only through [`Token::expose`], which the HTTP
/// layer calls when it builds the `Authorization` header.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// The token in `text`, surrounding whitespace trimmed (a token file ends in a newline);
    /// `None` when nothing is left.
    pub fn new(text: impl Into<String>) -> Option<Token> {
        let text = text.into().trim().to_string();
        (!text.is_empty()).then_some(Token(text))
    }

    /// The secret text. Call only to put it on the wire.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_text_never_appears_in_debug_or_display() {
        let t = Token::new("gbr_pat_supersecret").unwrap();
        assert!(!format!("{t:?}").contains("supersecret"));
        assert!(!format!("{t}").contains("supersecret"));
        assert!(!format!("{:?}", Some(&t)).contains("supersecret"));
        assert_eq!(t.expose(), "gbr_pat_supersecret");
        assert!(Token::new("  ").is_none());
    }
}
