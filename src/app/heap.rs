//! Handing freed heap back to the OS once a replay is over.
//!
//! A replay arrives faster than the loop applies it: the stream task queues decoded frames
//! (tens of MB for 200,000 events) that are freed as they are applied. glibc keeps those
//! freed pages mapped — scattered among live entries and in the stream thread's arena — so
//! without a trim the peak of the catch-up stays in RSS for the life of the session.

/// Returns free pages of every malloc arena to the OS (glibc only; a no-op elsewhere).
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks glibc's own allocator state; it is thread-safe and
    // invalidates no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}
