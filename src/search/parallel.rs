//! The two pieces every parallel split of the search is made of, on the rayon pool the search
//! runs in: workers that take the moves in their order ([`in_order`]), so the most promising
//! ones are searched first whatever the number of threads, and the best result of a split
//! kept in one atomic ([`SharedBest`]), and the chain of splits above a thread ([`Abort`]), so
//! that a fail high at one of them ends the searches below it. The midgame search and the
//! endgame solver build their splits from them.

use rayon::prelude::*;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// Runs `search` on `items` with one worker per thread of the pool (at most one per item),
/// each worker taking the next item not yet taken, in the order of the list. A rayon
/// parallel iterator would instead hand the second half of the list to the second thread,
/// which then starts on the weaker moves. A worker stops at the end of the list or when
/// `search` breaks; `new_worker` builds each worker's state.
pub(super) fn in_order<T: Sync, W>(
    items: &[T],
    new_worker: impl Fn() -> W + Sync,
    search: impl Fn(&mut W, &T) -> ControlFlow<()> + Sync,
) {
    let next = AtomicUsize::new(0);
    let workers = rayon::current_num_threads().min(items.len());
    (0..workers).into_par_iter().for_each(|_| {
        let mut worker = new_worker();
        while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
            if search(&mut worker, item).is_break() {
                break;
            }
        }
    });
}

/// The best (score, move) found by the threads of a split, kept in one atomic: the score and
/// move are packed so that the larger score (then the larger move) compares larger.
pub(super) struct SharedBest(AtomicU32);

impl SharedBest {
    fn pack(score: i32, mv: u8) -> u32 {
        ((score + 1024) as u32) << 8 | u32::from(mv)
    }

    pub(super) fn new(score: i32, mv: u8) -> SharedBest {
        SharedBest(AtomicU32::new(Self::pack(score, mv)))
    }

    /// Records a result; keeps the best.
    pub(super) fn offer(&self, score: i32, mv: u8) {
        self.0.fetch_max(Self::pack(score, mv), Ordering::Relaxed);
    }

    /// The best score and its move.
    pub(super) fn get(&self) -> (i32, u8) {
        let packed = self.0.load(Ordering::Relaxed);
        ((packed >> 8) as i32 - 1024, packed as u8)
    }
}

/// A split, chained to the splits above it from the root down: once one of them is raised (a
/// sibling failed high there), every search below it is pointless and returns at once.
pub(super) struct Abort<'p> {
    flag: AtomicBool,
    parent: Option<&'p Abort<'p>>,
}

impl<'p> Abort<'p> {
    /// A split below `parent` (`None` at the top of the chain).
    pub(super) fn new(parent: Option<&'p Abort<'p>>) -> Abort<'p> {
        Abort {
            flag: AtomicBool::new(false),
            parent,
        }
    }

    /// Ends the searches below this split.
    pub(super) fn raise(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// What a worker of the split does after a move scored `score` against the window's
    /// `beta`: the split's shared bound rises to it, and a fail high ends the split.
    pub(super) fn after_move(
        &self,
        shared_alpha: &AtomicI32,
        score: i32,
        beta: i32,
    ) -> ControlFlow<()> {
        shared_alpha.fetch_max(score, Ordering::Relaxed);
        if score >= beta {
            self.raise();
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    /// Whether this split or one above it was raised.
    #[inline]
    pub(super) fn raised(&self) -> bool {
        let mut at = Some(self);
        while let Some(split) = at {
            if split.flag.load(Ordering::Relaxed) {
                return true;
            }
            at = split.parent;
        }
        false
    }
}

/// The nodes some thread is searching now, by key, for threads that search the same tree
/// (simplified ABDADA): a thread that finds a move's position being searched elsewhere defers
/// it to after its other moves, by when the table likely holds its result. A slot holds one
/// key and the threads inside its node; a collision only costs a missed or a needless
/// deferral. A thread that completes a node the other threads are inside too leaves them a
/// notice of it, so that they stop searching below it (see [`BusyNodes::notify`]).
pub(super) struct BusyNodes {
    slots: Box<[AtomicU64]>,
    notices: Box<[Notice]>,
}

/// A node completed by another thread, by key, for one thread (0: none); alone on its cache
/// line, so that polling it costs its thread nothing until it is written.
#[repr(align(128))]
struct Notice(AtomicU64);

impl BusyNodes {
    const SLOTS: usize = 1 << 13;
    /// A slot holds the key's bits above the slot index and, in the index bits, one bit for
    /// each thread inside the node (threads share bits beyond as many threads).
    const OCCUPANTS: u64 = Self::SLOTS as u64 - 1;
    const OCCUPANT_BITS: usize = Self::SLOTS.trailing_zeros() as usize;

    pub(super) fn new() -> BusyNodes {
        BusyNodes {
            slots: (0..Self::SLOTS).map(|_| AtomicU64::new(0)).collect(),
            notices: (0..Self::OCCUPANT_BITS)
                .map(|_| Notice(AtomicU64::new(0)))
                .collect(),
        }
    }

    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[key as usize & (Self::SLOTS - 1)]
    }

    /// The occupant bit of `thread` in a slot and in [`BusyNodes::notify`].
    pub(super) fn occupant(thread: usize) -> u64 {
        1 << (thread % Self::OCCUPANT_BITS)
    }

    fn holds(slot: u64, key: u64) -> bool {
        slot & !Self::OCCUPANTS == key & !Self::OCCUPANTS && slot & Self::OCCUPANTS != 0
    }

    /// Whether a thread is searching the node of `key`.
    #[inline]
    pub(super) fn is_busy(&self, key: u64) -> bool {
        Self::holds(self.slot(key).load(Ordering::Relaxed), key)
    }

    /// Marks the node of `key` as being searched by `thread` (a pool thread index).
    #[inline]
    pub(super) fn enter(&self, key: u64, thread: usize) {
        let slot = self.slot(key);
        let mut current = slot.load(Ordering::Relaxed);
        loop {
            let inside = if Self::holds(current, key) {
                current & Self::OCCUPANTS
            } else {
                0
            };
            let marked = key & !Self::OCCUPANTS | inside | Self::occupant(thread);
            match slot.compare_exchange_weak(current, marked, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(now) => current = now,
            }
        }
    }

    /// The threads other than `thread` inside the node of `key`, as occupant bits.
    #[inline]
    pub(super) fn others_inside(&self, key: u64, thread: usize) -> u64 {
        let current = self.slot(key).load(Ordering::Relaxed);
        if Self::holds(current, key) {
            current & Self::OCCUPANTS & !Self::occupant(thread)
        } else {
            0
        }
    }

    /// Ends `thread`'s mark of `key`, unless another node took its slot since.
    #[inline]
    pub(super) fn leave(&self, key: u64, thread: usize) {
        let slot = self.slot(key);
        let mut current = slot.load(Ordering::Relaxed);
        while Self::holds(current, key) {
            let left = match current & !Self::occupant(thread) {
                rest if rest & Self::OCCUPANTS == 0 => 0,
                rest => rest,
            };
            match slot.compare_exchange_weak(current, left, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return,
                Err(now) => current = now,
            }
        }
    }

    /// Tells the threads of `occupants` that the node of `key` is complete, its result in the
    /// table: a thread still below it can stop there (it takes the notice with
    /// [`BusyNodes::take_notice`]). A later notice replaces one not taken yet.
    pub(super) fn notify(&self, occupants: u64, key: u64) {
        let mut rest = occupants;
        while rest != 0 {
            let bit = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            self.notices[bit].0.store(key, Ordering::Release);
        }
    }

    /// The key of the last node completed for `thread` by another thread, if any, once.
    #[inline]
    pub(super) fn take_notice(&self, thread: usize) -> Option<u64> {
        let notice = &self.notices[thread % Self::OCCUPANT_BITS].0;
        if notice.load(Ordering::Relaxed) == 0 {
            return None;
        }
        Some(notice.swap(0, Ordering::Acquire)).filter(|&key| key != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::{Abort, BusyNodes};

    #[test]
    fn a_busy_node_is_seen_until_its_search_leaves_it() {
        let busy = BusyNodes::new();
        let (key, same_slot) = (0x1234_5678_9abc_def0, 0x0fed_cba9_8765_5ef0);
        assert!(!busy.is_busy(key));
        busy.enter(key, 0);
        assert!(busy.is_busy(key) && !busy.is_busy(same_slot));
        busy.enter(same_slot, 1);
        busy.leave(key, 0);
        assert!(
            busy.is_busy(same_slot),
            "leaving a node keeps the mark that replaced it"
        );
        busy.leave(same_slot, 1);
        assert!(!busy.is_busy(same_slot) && !busy.is_busy(key));
    }

    #[test]
    fn a_node_stays_busy_until_its_last_thread_leaves() {
        let busy = BusyNodes::new();
        let key = 0x1234_5678_9abc_def0;
        for thread in 0..3 {
            busy.enter(key, thread);
        }
        busy.leave(key, 1);
        assert_eq!(
            busy.others_inside(key, 1),
            0b101,
            "threads 0 and 2 are inside"
        );
        busy.leave(key, 0);
        assert_eq!(busy.others_inside(key, 0), 0b100);
        assert!(busy.is_busy(key));
        busy.leave(key, 2);
        assert!(!busy.is_busy(key) && busy.others_inside(key, 0) == 0);
    }

    #[test]
    fn a_notice_reaches_the_threads_it_names_once() {
        let busy = BusyNodes::new();
        let key = 0x1234_5678_9abc_def0;
        busy.notify(0b110, key);
        assert_eq!(busy.take_notice(0), None);
        assert_eq!(busy.take_notice(1), Some(key));
        assert_eq!(busy.take_notice(2), Some(key));
        assert_eq!(busy.take_notice(2), None, "a notice is taken once");
    }

    #[test]
    fn raising_a_split_ends_the_searches_below_it_and_none_above() {
        let root = Abort::new(None);
        let middle = Abort::new(Some(&root));
        let leaf = Abort::new(Some(&middle));
        let beside = Abort::new(Some(&root));
        assert!(!leaf.raised());
        middle.raise();
        assert!(middle.raised() && leaf.raised());
        assert!(!root.raised() && !beside.raised());
        root.raise();
        assert!(beside.raised());
    }
}
