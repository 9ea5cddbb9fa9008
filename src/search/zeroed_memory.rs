//! Zeroed, fixed-size arrays for the transposition table, backed by transparent huge pages on
//! Linux: a table of hundreds of MiB in 4 KiB pages misses the TLB on nearly every probe.
//!
//! On Linux the memory comes straight from `mmap`, whose pages the kernel zeroes when they are
//! first touched: a large table costs nothing until the search uses it, and only the parts it
//! uses. Elsewhere the allocation is zeroed when it is made.

use std::alloc::Layout;
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
    /// Allocates `len` (at least 1) zeroed values. `None` when the memory cannot be had.
    pub fn try_new(len: usize) -> Option<ZeroedArray<T>> {
        assert!(
            std::mem::size_of::<T>() > 0,
            "zero-sized values need no memory"
        );
        let len = len.max(1);
        let layout = Layout::array::<T>(len)
            .and_then(|l| l.align_to(HUGE_PAGE.max(std::mem::align_of::<T>())))
            .ok()?;
        let start = allocate_zeroed(layout)?;
        Some(ZeroedArray {
            start: start.cast(),
            len,
            layout,
        })
    }

    /// Sets every value back to all zero bytes.
    pub fn zero(&mut self) {
        // SAFETY: the allocation holds `layout.size()` bytes, and `&mut self` means no one
        // else is reading them; all-zero is a valid `T`.
        unsafe { std::ptr::write_bytes(self.start.as_ptr().cast::<u8>(), 0, self.layout.size()) };
    }
}

/// Maps `layout.size()` bytes of fresh anonymous memory at an address aligned to
/// `layout.align()`, asking for huge pages; the kernel zeroes each page on first touch.
#[cfg(target_os = "linux")]
fn allocate_zeroed(layout: Layout) -> Option<NonNull<u8>> {
    let span = layout.size().checked_add(layout.align())?;
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing touches no
    // existing memory; failure is checked.
    let mapped = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            span,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if mapped == libc::MAP_FAILED {
        return None;
    }
    let base = mapped as usize;
    let start = base.next_multiple_of(layout.align());
    let end = start + layout.size();
    // SAFETY: the head and the tail are parts of the mapping just made, outside the aligned
    // range that is kept; the advice only changes how the kernel backs the range, and a
    // refusal (no THP) is harmless.
    unsafe {
        if start > base {
            libc::munmap(mapped, start - base);
        }
        if base + span > end {
            libc::munmap(end as *mut libc::c_void, base + span - end);
        }
        libc::madvise(
            start as *mut libc::c_void,
            layout.size(),
            libc::MADV_HUGEPAGE,
        );
    }
    NonNull::new(start as *mut u8)
}

/// Allocates and zeroes `layout`.
#[cfg(not(target_os = "linux"))]
fn allocate_zeroed(layout: Layout) -> Option<NonNull<u8>> {
    // SAFETY: the layout has a non-zero size (at least one value of a sized, non-zero `T`).
    NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })
}

/// Gives back memory from [`allocate_zeroed`].
///
/// # Safety
/// `start` must come from `allocate_zeroed(layout)` and not have been released yet.
unsafe fn release(start: NonNull<u8>, layout: Layout) {
    #[cfg(target_os = "linux")]
    // SAFETY: the caller passes the aligned range that `allocate_zeroed` kept mapped.
    unsafe {
        libc::munmap(start.as_ptr().cast(), layout.size());
    }
    #[cfg(not(target_os = "linux"))]
    // SAFETY: the caller passes memory from `alloc_zeroed` with this layout.
    unsafe {
        std::alloc::dealloc(start.as_ptr(), layout);
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
        // SAFETY: allocated in `try_new` with this layout; `Zeroable` values need no drop.
        unsafe { release(self.start.cast(), self.layout) }
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
    fn zeroing_clears_what_was_written() {
        let mut array = ZeroedArray::<Line>::try_new(70_000).expect("4.5 MB");
        array[0].0[0].store(1, Ordering::Relaxed);
        array[69_999].0[7].store(u64::MAX, Ordering::Relaxed);
        array.zero();
        assert!(array
            .iter()
            .all(|l| l.0.iter().all(|w| w.load(Ordering::Relaxed) == 0)));
    }

    #[test]
    fn an_impossible_size_is_refused_not_aborted() {
        // 2^62 bytes: more than any address space in use today.
        assert!(ZeroedArray::<Line>::try_new(1 << 56).is_none());
        // Beyond what a layout can describe at all.
        assert!(ZeroedArray::<Line>::try_new(usize::MAX / 2).is_none());
    }
}
