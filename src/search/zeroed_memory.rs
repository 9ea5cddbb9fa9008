//! Zeroed, fixed-size arrays for the transposition table, backed by transparent huge pages on
//! Linux: a table of hundreds of MiB in 4 KiB pages misses the TLB on nearly every probe.

use std::alloc::{alloc, dealloc, Layout};
use std::ops::Deref;
use std::ptr::NonNull;

/// The huge page size the allocation is aligned to.
const HUGE_PAGE: usize = 2 << 20;

/// Types whose all-zero bytes are a valid value.
///
/// # Safety
/// Implement only for types made of integers and atomics (or of other `Zeroable` types).
pub unsafe trait Zeroable {}

/// `len` zeroed values of `T`, aligned to a huge page, never resized.
pub struct ZeroedArray<T: Zeroable> {
    start: NonNull<T>,
    len: usize,
    layout: Layout,
}

impl<T: Zeroable> ZeroedArray<T> {
    /// Allocates and zeroes `len` (at least 1) values; asks the kernel for huge pages before
    /// the first write, so the zeroing itself maps them. `None` when the memory cannot be had.
    pub fn try_new(len: usize) -> Option<ZeroedArray<T>> {
        assert!(
            std::mem::size_of::<T>() > 0,
            "zero-sized values need no memory"
        );
        let len = len.max(1);
        let layout = Layout::array::<T>(len)
            .and_then(|l| l.align_to(HUGE_PAGE))
            .ok()?;
        // SAFETY: the layout has a non-zero size (`len >= 1`, `T` not zero-sized); the pointer
        // is checked for null.
        let bytes = unsafe { alloc(layout) };
        let start = NonNull::new(bytes)?;
        #[cfg(target_os = "linux")]
        // SAFETY: the range is the allocation just made; the advice only changes how the
        // kernel backs it, and a refusal (no THP) is harmless.
        unsafe {
            libc::madvise(bytes.cast(), layout.size(), libc::MADV_HUGEPAGE);
        }
        // SAFETY: the allocation holds `layout.size()` bytes; all-zero is a valid `T`.
        unsafe { std::ptr::write_bytes(bytes, 0, layout.size()) };
        Some(ZeroedArray {
            start: start.cast(),
            len,
            layout,
        })
    }
}

impl<T: Zeroable> Deref for ZeroedArray<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised values live at `start` until drop.
        unsafe { std::slice::from_raw_parts(self.start.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> Drop for ZeroedArray<T> {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout; `Zeroable` values need no drop.
        unsafe { dealloc(self.start.as_ptr().cast(), self.layout) }
    }
}

// SAFETY: the array owns its values and only hands out shared references to them.
unsafe impl<T: Zeroable + Send> Send for ZeroedArray<T> {}
// SAFETY: as above; sharing the array shares `&T`, which needs `T: Sync`.
unsafe impl<T: Zeroable + Sync> Sync for ZeroedArray<T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[repr(align(64))]
    struct Line([AtomicU64; 8]);
    // SAFETY: atomics only.
    unsafe impl Zeroable for Line {}

    #[test]
    fn starts_zeroed_aligned_and_writable() {
        let array = ZeroedArray::<Line>::try_new(100_000).expect("6.4 MB");
        assert_eq!(array.len(), 100_000);
        assert_eq!(array.as_ptr() as usize % HUGE_PAGE, 0);
        assert!(array
            .iter()
            .all(|l| l.0.iter().all(|w| w.load(Ordering::Relaxed) == 0)));
        array[99_999].0[7].store(5, Ordering::Relaxed);
        assert_eq!(array[99_999].0[7].load(Ordering::Relaxed), 5);
    }

    #[test]
    fn an_impossible_size_is_refused_not_aborted() {
        // 2^62 bytes: more than any address space in use today.
        assert!(ZeroedArray::<Line>::try_new(1 << 56).is_none());
        // Beyond what a layout can describe at all.
        assert!(ZeroedArray::<Line>::try_new(usize::MAX / 2).is_none());
    }
}
