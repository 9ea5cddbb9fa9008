//! Zeroed, fixed-size arrays for the transposition table and the network's rows, backed by
//! transparent huge pages on Linux: a table of hundreds of MiB in 4 KiB pages misses the TLB on
//! nearly every probe, and the network's rows (18 MB read at random) nearly as often.
//!
//! On Linux the memory comes straight from `mmap`, whose pages the kernel zeroes when they are
//! first touched: a large table costs nothing until the search uses it, and only the parts it
//! uses. Elsewhere the allocation is zeroed when it is made. The memory can also be mapped
//! beside the work ([`ZeroedArray::commit_in_background`]): a first part at once, the rest by
//! a thread of low priority, while the values mapped so far are in use.

use std::alloc::Layout;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The huge page size the allocation is aligned to.
const HUGE_PAGE: usize = 2 << 20;

/// The smallest page size: the committing thread checks whether to stop after each.
const PAGE: usize = 4096;

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
    /// How many values, from the first, are mapped and may be used without a page fault:
    /// all of them unless a background commit is under way, and then a power of two.
    usable: Arc<AtomicUsize>,
    /// The thread committing the rest of the memory, if one runs, with its stop flag.
    committer: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
}

/// The bytes of the array's memory, as the committing thread sees them.
struct Span {
    start: *mut u8,
    len: usize,
}

// SAFETY: the committing thread writes only bytes beyond the usable values, which no one else
// touches, reads and writes the values about to be usable only through shared references to
// `Sync` values, and the array stops it before its memory is written elsewhere or released.
unsafe impl Send for Span {}

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
            usable: Arc::new(AtomicUsize::new(len)),
            committer: None,
        })
    }

    /// Sets every value back to all zero bytes.
    pub fn zero(&mut self) {
        self.stop_committing();
        // SAFETY: the allocation holds `layout.size()` bytes, and `&mut self` (with the
        // committing thread stopped) means no one else is reading them; all-zero is a valid
        // `T`.
        unsafe { std::ptr::write_bytes(self.start.as_ptr().cast::<u8>(), 0, self.layout.size()) };
    }

    /// Maps the array's memory beside the work: the pages of the first `first` values (a
    /// power of two) now, the rest by a thread of low priority. Only the
    /// values mapped so far are usable ([`ZeroedArray::usable_len`], which the thread doubles
    /// each time), so that whoever uses them never waits for the kernel to zero
    /// a page, and the array's owner never waits for the whole of it. The pages are mapped by
    /// writing zeros over them, which no one else touches before they are usable: values in
    /// use stay as they are. Before each doubling the thread calls `spread` with the values
    /// about to be usable and how many of them were usable so far, so that the owner can move
    /// into the new half what belongs there at the new size (a hash table's entries). The
    /// thread ends when every page is mapped, or when the array is zeroed or dropped.
    pub fn commit_in_background(&mut self, first: usize, spread: fn(&[T], usize))
    where
        T: Sync + 'static,
    {
        self.stop_committing();
        let first = first.clamp(1, self.len);
        assert!(first.is_power_of_two() || first == self.len);
        let size = std::mem::size_of::<T>();
        let bytes = self.start.as_ptr().cast::<u8>();
        // SAFETY: the first `first` values are inside the allocation, and `&mut self` means
        // no one else is using them; all-zero is a valid `T`.
        unsafe { std::ptr::write_bytes(bytes, 0, first * size) };
        if first == self.len {
            return;
        }
        self.usable.store(first, Ordering::Release);
        let stop = Arc::new(AtomicBool::new(false));
        let span = Span {
            start: bytes,
            len: self.len * size,
        };
        let (stopped, usable) = (stop.clone(), self.usable.clone());
        let thread = std::thread::Builder::new()
            .name("table-commit".to_string())
            .spawn(move || {
                run_at_low_priority();
                let span = span;
                let mut from = first * size;
                while from < span.len {
                    let to = (from * 2).min(span.len);
                    for page in (from..to).step_by(PAGE) {
                        if stopped.load(Ordering::Relaxed) {
                            return;
                        }
                        // SAFETY: the page is inside the allocation, which lives until this
                        // thread has been joined, and beyond the usable values, which no one
                        // else touches until `usable` says so below.
                        unsafe {
                            std::ptr::write_bytes(span.start.add(page), 0, PAGE.min(to - page))
                        };
                    }
                    // SAFETY: the first `to / size` values are mapped and zeroed or in use,
                    // valid `T`s either way, in the allocation that outlives this thread;
                    // others share them only through `&T` (`T: Sync`).
                    let values = unsafe {
                        std::slice::from_raw_parts(span.start.cast::<T>().cast_const(), to / size)
                    };
                    spread(values, from / size);
                    usable.store(to / size, Ordering::Release);
                    from = to;
                }
            });
        match thread {
            Ok(handle) => self.committer = Some((stop, handle)),
            Err(e) => {
                log::warn!("cannot start the thread that maps the table's memory: {e}");
                self.usable.store(self.len, Ordering::Release);
            }
        }
    }

    /// The values to write, all of them usable: a background commit is stopped first.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.stop_committing();
        // SAFETY: `len` initialised values live at `start` until drop, and `&mut self` with
        // the committing thread stopped means no one else is reading or writing them.
        unsafe { std::slice::from_raw_parts_mut(self.start.as_ptr(), self.len) }
    }

    /// How many values, from the first, are usable: all of them once the memory is mapped
    /// (or when it is left to be mapped on first touch), fewer while a background commit
    /// runs.
    #[inline]
    pub fn usable_len(&self) -> usize {
        self.usable.load(Ordering::Acquire)
    }

    /// Sets how many values are usable, as the committing thread would (for tests of owners
    /// that spread their values).
    #[cfg(test)]
    pub fn set_usable_len(&self, usable: usize) {
        self.usable.store(usable.min(self.len), Ordering::Release);
    }

    /// Stops the committing thread, if any, and waits for it; the values it had not mapped
    /// yet become usable, to be mapped on first touch.
    fn stop_committing(&mut self) {
        if let Some((stop, thread)) = self.committer.take() {
            stop.store(true, Ordering::Relaxed);
            if thread.join().is_err() {
                log::warn!("the thread that maps the table's memory panicked");
            }
        }
        self.usable.store(self.len, Ordering::Release);
    }
}

/// The niceness of the committing thread: when the cores are busy it gets about a tenth of
/// one (a weight of 110 against 1,024), so that searches lose little while it runs, and it
/// still finishes within a minute or so under a search that never pauses (pondering on every
/// core); on an idle core it runs at full speed.
#[cfg(target_os = "linux")]
const COMMIT_NICENESS: libc::c_int = 10;

/// Lowers the calling thread's priority to [`COMMIT_NICENESS`] (Linux, where niceness is per
/// thread; elsewhere it keeps its priority).
fn run_at_low_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid and setpriority only read and set the calling thread's scheduling
        // attributes; a refusal leaves the thread at its normal priority.
        let done = unsafe {
            libc::setpriority(
                libc::PRIO_PROCESS,
                libc::gettid() as libc::id_t,
                COMMIT_NICENESS,
            )
        };
        if done != 0 {
            log::debug!("the table's memory is mapped at normal priority");
        }
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

impl<T: Zeroable> std::fmt::Debug for ZeroedArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ZeroedArray of {} values", self.len)
    }
}

impl<T: Zeroable> Drop for ZeroedArray<T> {
    fn drop(&mut self) {
        self.stop_committing();
        // SAFETY: allocated in `try_new` with this layout, and the committing thread is
        // stopped; `Zeroable` values need no drop.
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

    /// How many of the array's first `values` values' pages the kernel has mapped.
    #[cfg(target_os = "linux")]
    fn resident_pages(array: &ZeroedArray<Line>, values: usize) -> usize {
        let bytes = values * std::mem::size_of::<Line>();
        let pages = bytes.div_ceil(PAGE);
        let mut resident = vec![0u8; pages];
        // SAFETY: the range lies inside the array's mapping, and the vector has a byte for
        // every page of it.
        let done = unsafe { libc::mincore(array.as_ptr() as *mut _, bytes, resident.as_mut_ptr()) };
        assert_eq!(done, 0, "mincore");
        resident.iter().filter(|&&r| r & 1 == 1).count()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn committing_beside_the_work_maps_the_pages_and_grows_the_usable_part() {
        const LEN: usize = 1 << 16;
        let mut array = ZeroedArray::<Line>::try_new(LEN).expect("4 MB");
        assert_eq!(array.usable_len(), LEN, "all usable before any commit");
        assert_eq!(resident_pages(&array, LEN), 0, "fresh memory is not mapped");
        array.commit_in_background(1 << 10, record_growth);
        let mut seen = vec![array.usable_len()];
        assert_eq!(
            resident_pages(&array, 1 << 10),
            (1 << 16) / PAGE,
            "the first part at once"
        );
        for (i, line) in array.iter().take(1 << 10).enumerate().step_by(7) {
            line.0[0].store(i as u64 + 1, Ordering::Relaxed);
        }
        while array.usable_len() < LEN {
            let usable = array.usable_len();
            if seen.last() != Some(&usable) {
                seen.push(usable);
            }
            std::thread::yield_now();
        }
        assert!(seen[0] >= 1 << 10, "{seen:?}");
        assert!(seen.iter().all(|u| u.is_power_of_two()), "{seen:?}");
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
        assert_eq!(
            resident_pages(&array, LEN),
            LEN * 64 / PAGE,
            "every page mapped"
        );
        for (i, line) in array.iter().enumerate() {
            let expected = if i < 1 << 10 && i % 7 == 0 {
                i as u64 + 1
            } else {
                0
            };
            assert_eq!(line.0[0].load(Ordering::Relaxed), expected);
            let spread_mark = if i >= 1 << 10 && i.is_power_of_two() {
                i as u64
            } else {
                0
            };
            assert_eq!(line.0[1].load(Ordering::Relaxed), spread_mark, "value {i}");
        }
        let growth = GROWTH.lock().unwrap().clone();
        let doublings: Vec<(usize, usize)> = (10..16).map(|b| (1 << b, 2 << b)).collect();
        assert_eq!(growth, doublings, "told of every doubling, in order");
        // Zeroing and dropping stop a commit still running, and leave all of it usable.
        array.commit_in_background(1, |_, _| {});
        array.zero();
        assert_eq!(array.usable_len(), LEN);
        array.commit_in_background(1, |_, _| {});
        drop(array);
    }

    /// The growth steps [`record_growth`] was told of: (usable before, values given).
    static GROWTH: std::sync::Mutex<Vec<(usize, usize)>> = std::sync::Mutex::new(Vec::new());

    /// Records a growth step and marks the first value of the new half with the old size.
    fn record_growth(values: &[Line], old: usize) {
        GROWTH.lock().unwrap().push((old, values.len()));
        values[old].0[1].store(old as u64, Ordering::Relaxed);
    }

    #[test]
    fn an_impossible_size_is_refused_not_aborted() {
        // 2^62 bytes: more than any address space in use today.
        assert!(ZeroedArray::<Line>::try_new(1 << 56).is_none());
        // Beyond what a layout can describe at all.
        assert!(ZeroedArray::<Line>::try_new(usize::MAX / 2).is_none());
    }
}
