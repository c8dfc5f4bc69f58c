//! Wire types of the Gobare API (reference §7.3, §8, §9), shared by the client and the
//! simulator.
//!
//! Parsing is tolerant on purpose (reference §1.1, §14.36): unknown fields are ignored,
//! unknown enum values are kept as `Other(String)`, an event whose payload does not fit its
//! type becomes [`EventPayload::Unknown`] with the raw JSON kept, and where the reference
//! lists two spellings of a field both are accepted.
//!
//! Types and functions are documented here; most fields and enum values are not, because they
//! carry the reference's own names and its sections (cited on each type) describe them.
#![allow(missing_docs)]

pub mod unreadable;

pub use unreadable::{RequiredActions, Unreadable};

/// Declares a string enum that round-trips known values and keeps unknown ones verbatim.
macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant,)+
            /// A value this client does not know yet (the API adds values over time).
            Other(String),
        }

        impl $name {
            /// The value as the API spells it.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $text,)+
                    Self::Other(s) => s.as_str(),
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $($text => Self::$variant,)+
                    other => Self::Other(other.to_string()),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                // Read where it lies: a known value allocates nothing.
                struct Text;
                impl serde::de::Visitor<'_> for Text {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("a string")
                    }
                    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<$name, E> {
                        Ok($name::from(s))
                    }
                }
                d.deserialize_str(Text)
            }
        }
    };
}

mod artifact;
mod envelopes;
mod event;
mod item;
mod lenient;
mod payloads;
mod requests;
mod required_action;
mod session;
mod turn;
mod values;

pub use artifact::*;
pub use envelopes::*;
pub use event::*;
pub use item::*;
pub use lenient::option_labels;
pub(crate) use lenient::{lenient_i64, lenient_u64};
pub use payloads::*;
pub use requests::*;
pub use required_action::*;
pub use session::*;
pub use turn::*;
pub use values::*;

#[cfg(test)]
mod tests;
