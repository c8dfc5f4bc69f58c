//! The layers every `/v1` request passes, each owning its state: `auth` (the token),
//! `scopes` (which scope a request needs), `ratelimit` (the buckets per token, with the
//! refusals a test asks for ahead in `forced_refusals`) and `idempotency` (the
//! `Idempotency-Key` record).
pub(crate) mod auth;
pub(crate) mod forced_refusals;
pub(crate) mod idempotency;
pub(crate) mod ratelimit;
pub(crate) mod scopes;
