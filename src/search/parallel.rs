//! The two pieces every parallel split of the search is made of, on the rayon pool the search
//! runs in: workers that take the moves in their order ([`in_order`]), so the most promising
//! ones are searched first whatever the number of threads, and the best result of a split
//! kept in one atomic ([`SharedBest`]), and the chain of splits above a thread ([`Abort`]), so
//! that a fail high at one of them ends the searches below it. The midgame search and the
//! endgame solver build their splits from them.

use rayon::prelude::*;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

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
/// key; a collision only costs a missed or a needless deferral.
pub(super) struct BusyNodes(Box<[AtomicU64]>);

impl BusyNodes {
    const SLOTS: usize = 1 << 13;

    pub(super) fn new() -> BusyNodes {
        BusyNodes((0..Self::SLOTS).map(|_| AtomicU64::new(0)).collect())
    }

    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.0[key as usize & (Self::SLOTS - 1)]
    }

    /// Whether a thread is searching the node of `key`.
    #[inline]
    pub(super) fn is_busy(&self, key: u64) -> bool {
        self.slot(key).load(Ordering::Relaxed) == key
    }

    /// Marks the node of `key` as being searched.
    #[inline]
    pub(super) fn enter(&self, key: u64) {
        self.slot(key).store(key, Ordering::Relaxed);
    }

    /// Ends the mark of `key`, unless another node took its slot since.
    #[inline]
    pub(super) fn leave(&self, key: u64) {
        let _ = self
            .slot(key)
            .compare_exchange(key, 0, Ordering::Relaxed, Ordering::Relaxed);
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
        busy.enter(key);
        assert!(busy.is_busy(key) && !busy.is_busy(same_slot));
        busy.enter(same_slot);
        busy.leave(key);
        assert!(
            busy.is_busy(same_slot),
            "leaving a node keeps the mark that replaced it"
        );
        busy.leave(same_slot);
        assert!(!busy.is_busy(same_slot) && !busy.is_busy(key));
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
