//! A hint to load a cache line ahead of a read (the table's buckets, the endgame cache's slots).

/// Starts loading the cache line of `value` into the processor's first-level cache, so that a
/// read soon after does not wait for memory (the table's buckets, the endgame cache's slots).
#[inline]
pub(super) fn prefetch<T>(value: &T) {
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads nothing into the program and cannot fault;
    // the address is that of a live value.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            std::ptr::from_ref(value).cast(),
        );
    }
}
