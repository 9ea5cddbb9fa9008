//! The transposition table, shared by all search threads without locks: each entry is two
//! atomics, the data word and the key XOR the data (Hyatt's lockless hashing), so a torn write
//! from two threads fails verification instead of returning a wrong entry. Entries live in
//! buckets of four (one cache line) with depth- and age-aware replacement. A result shallower
//! than the one held for its position goes beside it rather than being dropped: the deeper
//! entry's bounds need not answer the shallower search's window (Multi-ProbCut's shallow
//! searches and the re-searches ask a position at several depths and windows), and
//! [`TranspositionTable::probe_window`] consults both.
//!
//! Clearing the table costs nothing: every entry carries the table's *era*, and
//! [`TranspositionTable::clear`] only starts a new one, after which the entries of older eras
//! read as empty. The memory is written again only when the era counter wraps around.

use crate::zeroed_memory::{Zeroable, ZeroedArray};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// No best move recorded.
pub const NO_MOVE: u8 = 0xFF;

/// Bit marking a used slot (so that an all-zero entry never looks valid).
const USED: u64 = 1 << 40;
/// Position of the selectivity level (three bits).
const SELECTIVITY_SHIFT: u32 = 41;
/// The bits of the selectivity level, once shifted down.
const SELECTIVITY_MASK: u8 = 0b111;
/// The most selective level an entry can record.
pub const MAX_SELECTIVITY: u8 = 4;
/// Position of the era (16 bits, the top of the data word).
const ERA_SHIFT: u32 = 48;

/// Whether a slot's data word holds an entry of the current era.
#[inline]
fn is_live(data: u64, era: u16) -> bool {
    data & USED != 0 && (data >> ERA_SHIFT) as u16 == era
}

/// How trustworthy bounds of a selectivity level are: full width (0) best, then the least
/// selective levels.
#[inline]
fn accuracy(selectivity: u8) -> u8 {
    if selectivity == 0 {
        u8::MAX
    } else {
        MAX_SELECTIVITY + 1 - selectivity.min(MAX_SELECTIVITY)
    }
}

/// What the search learned about a position: bounds on its score at a depth, and a best move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    pub depth: u8,
    pub lower: i8,
    pub upper: i8,
    pub best_move: u8,
    /// 0 for a full-width search; otherwise the level of the selective (probable-cut)
    /// search that found it, higher = more selective: its bounds are likely, not proved.
    pub selectivity: u8,
}

impl TtEntry {
    /// Whether the bounds answer a search of `depth` at `selectivity`: an entry at least as
    /// deep and at most as selective does; a selective bound never answers a less selective
    /// search, however deep it went.
    #[inline]
    pub fn covers(&self, depth: u32, selectivity: u8) -> bool {
        u32::from(self.depth) >= depth && accuracy(self.selectivity) >= accuracy(selectivity)
    }

    /// Orders results of one position: deeper first, then less selective first.
    fn quality(&self) -> (u8, u8) {
        (self.depth, accuracy(self.selectivity))
    }

    fn pack(self, generation: u8, era: u16) -> u64 {
        u64::from(self.best_move)
            | u64::from(self.depth) << 8
            | u64::from(self.lower as u8) << 16
            | u64::from(self.upper as u8) << 24
            | u64::from(generation) << 32
            | USED
            | u64::from(self.selectivity.min(MAX_SELECTIVITY)) << SELECTIVITY_SHIFT
            | u64::from(era) << ERA_SHIFT
    }

    fn unpack(data: u64) -> (TtEntry, u8) {
        (
            TtEntry {
                best_move: data as u8,
                depth: (data >> 8) as u8,
                lower: (data >> 16) as u8 as i8,
                upper: (data >> 24) as u8 as i8,
                selectivity: (data >> SELECTIVITY_SHIFT) as u8 & SELECTIVITY_MASK,
            },
            (data >> 32) as u8,
        )
    }
}

struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

#[repr(align(64))]
struct Bucket([Slot; 4]);

// SAFETY: a bucket is atomics only; all zero is four unused slots.
unsafe impl Zeroable for Bucket {}

/// Bytes of a table mapped when it is committed, before the engine goes on: the default
/// table's size, so that the default table is whole from the start.
pub const COMMITTED_AT_ONCE: usize = 64 << 20;

/// The memory for a table of the size asked could not be allocated.
#[derive(Debug, thiserror::Error)]
#[error("cannot allocate {mib} MiB for the transposition table")]
pub struct TableAllocationError {
    /// The size asked for.
    pub mib: usize,
}

/// The machine's memory in bytes, where the system tells it.
fn physical_memory() -> Option<usize> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf only reads system settings.
        let (pages, page_size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        (pages > 0 && page_size > 0).then(|| (pages as usize).saturating_mul(page_size as usize))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A lock-free table of [`TtEntry`] keyed by 64-bit position hashes.
pub struct TranspositionTable {
    buckets: ZeroedArray<Bucket>,
    mask: usize,
    generation: AtomicU8,
    /// The key of the last search's root (see [`TranspositionTable::new_search`]).
    last_root: AtomicU64,
    /// Entries of other eras are empty slots; see the module documentation. Only `clear`,
    /// which has the table to itself, changes it.
    era: u16,
}

impl TranspositionTable {
    /// A table using at most `mib` mebibytes (at least one bucket), rounded down to a power of
    /// two; an error when the machine cannot give that much memory.
    pub fn try_new(mib: usize) -> Result<TranspositionTable, TableAllocationError> {
        let bytes = mib.max(1).saturating_mul(1 << 20);
        let wanted = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let count = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        let buckets = ZeroedArray::try_new(count).ok_or(TableAllocationError { mib })?;
        Ok(TranspositionTable {
            buckets,
            mask: count - 1,
            generation: AtomicU8::new(0),
            last_root: AtomicU64::new(0),
            era: 0,
        })
    }

    /// Backs the table with memory without making anyone wait for all of it: a fresh
    /// table's pages are mapped on first touch, which costs a search page faults (and huge
    /// page compaction), and mapping a table of gigabytes takes seconds, during which an
    /// engine that waited would not answer. The first [`COMMITTED_AT_ONCE`] bytes are mapped
    /// now; the rest by a thread of low priority, the table using only its mapped part (see
    /// `ZeroedArray::commit_in_background`) until all of it is, each doubling carrying its
    /// entries along (`spread_entries`). A table larger
    /// than half the machine's memory is left to be mapped as it is used, so that asking for
    /// too much slows the engine down rather than getting it killed.
    pub fn commit_memory(&mut self) {
        if physical_memory().is_some_and(|bytes| self.size_bytes() <= bytes / 2) {
            let first = (COMMITTED_AT_ONCE / std::mem::size_of::<Bucket>()).min(self.buckets.len());
            self.buckets.commit_in_background(first, spread_entries);
        } else {
            log::warn!(
                "a table of {} MiB is more than half this machine's memory: it is not committed up front",
                self.size_bytes() >> 20
            );
        }
    }

    /// Whether all of the table is usable (its memory mapped, or left to be mapped as used).
    pub fn fully_usable(&self) -> bool {
        self.buckets.usable_len() == self.buckets.len()
    }

    /// A small table for tools and tests, where failing to allocate it is a bug.
    pub fn new(mib: usize) -> TranspositionTable {
        Self::try_new(mib).expect("a small transposition table")
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Forgets everything (a new game) by starting a new era, without touching the entries;
    /// once in 65,536 clears, when the era wraps around, the memory is zeroed instead.
    pub fn clear(&mut self) {
        self.era = self.era.wrapping_add(1);
        if self.era == 0 {
            self.buckets.zero();
        }
        self.generation.store(0, Ordering::Relaxed);
        self.last_root.store(0, Ordering::Relaxed);
    }

    /// Starts a search of the position whose key is `root`: the entries of earlier searches
    /// become preferred victims for replacement. A search of the same root as the last one
    /// goes on with that search's work (a ponder restarted or hit, a position analysed again),
    /// so its entries keep their standing: each restart aging them would let the shallow
    /// entries of the new search's first iterations push out the deep ones it needs.
    pub fn new_search(&self, root: u64) {
        if self.last_root.swap(root, Ordering::Relaxed) != root {
            self.generation.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The bucket of `key` in the usable part of the table (a power of two of buckets).
    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        let mask = self.mask & (self.buckets.usable_len() - 1);
        &self.buckets[(key as usize) & mask]
    }

    /// Starts loading the bucket of `key` into the cache, so that a probe soon after does not
    /// wait for memory.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        super::prefetch::prefetch(self.bucket(key));
    }

    /// The live entries of `key`: one, or more when the table holds results of more than one
    /// depth for it.
    #[inline]
    fn entries(&self, key: u64) -> impl Iterator<Item = TtEntry> + '_ {
        self.bucket(key).0.iter().filter_map(move |slot| {
            let data = slot.data.load(Ordering::Relaxed);
            (slot.check.load(Ordering::Relaxed) ^ data == key && is_live(data, self.era))
                .then(|| TtEntry::unpack(data).0)
        })
    }

    /// The entry for `key`, if present: the most trustworthy one, when the table holds
    /// results of more than one depth for it.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        self.entries(key).reduce(|best, entry| {
            if entry.quality() > best.quality() {
                entry
            } else {
                best
            }
        })
    }

    /// What the table knows of `key` for a search of `depth` at `selectivity` with the window
    /// (`alpha`, `beta`): the score, if an entry's bounds settle the search (fail-soft), and
    /// the best move of the most trustworthy entry.
    #[inline]
    pub fn probe_window(
        &self,
        key: u64,
        depth: u32,
        selectivity: u8,
        (alpha, beta): (i32, i32),
    ) -> (Option<i32>, u8) {
        let mut best: Option<TtEntry> = None;
        for entry in self.entries(key) {
            if entry.covers(depth, selectivity) {
                let (lower, upper) = (i32::from(entry.lower), i32::from(entry.upper));
                if lower >= beta || lower == upper {
                    return (Some(lower), entry.best_move);
                }
                if upper <= alpha {
                    return (Some(upper), entry.best_move);
                }
            }
            if best.is_none_or(|b| entry.quality() > b.quality()) {
                best = Some(entry);
            }
        }
        (None, best.map_or(NO_MOVE, |b| b.best_move))
    }

    /// Stores what a search of `depth` found: `score` within the window (`alpha`, `beta`)
    /// bounds the true value from above (fail low), from below (fail high), or is exact.
    /// `selectivity` is that of the search (0 = full width).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        depth: u32,
        selectivity: u8,
        alpha: i32,
        beta: i32,
        score: i32,
        best_move: u8,
    ) {
        let depth = depth.min(u8::MAX as u32) as u8;
        let quality = (depth, accuracy(selectivity));
        let score = score.clamp(-64, 64) as i8;
        let (mut lower, mut upper) = (-64i8, 64i8);
        if i32::from(score) > alpha {
            lower = score;
        }
        if i32::from(score) < beta {
            upper = score;
        }
        let generation = self.generation.load(Ordering::Relaxed);
        let era = self.era;
        let bucket = self.bucket(key);
        let mut victim = &bucket.0[0];
        let mut victim_worth = i32::MAX;
        let mut replaced: Option<TtEntry> = None;
        // A result shallower than the key's entry goes beside it, not over it: it answers
        // windows the deeper one may not. It takes a free slot, else the place of the
        // shallower of two such entries, else that of the least worth entry of another key.
        let mut beside: Option<(&Slot, TtEntry)> = None;
        for slot in &bucket.0 {
            let data = slot.data.load(Ordering::Relaxed);
            if !is_live(data, era) {
                victim = slot;
                break;
            }
            let (old, old_generation) = TtEntry::unpack(data);
            if slot.check.load(Ordering::Relaxed) ^ data == key {
                if old.quality() > quality {
                    // Of two such entries, the shallower makes room.
                    match beside {
                        Some((first_slot, first)) if first.quality() < old.quality() => {
                            (victim, victim_worth) = (first_slot, i32::MIN);
                            beside = Some((slot, old));
                        }
                        Some(_) => (victim, victim_worth) = (slot, i32::MIN),
                        None => beside = Some((slot, old)),
                    }
                    continue;
                }
                if old.quality() == quality {
                    lower = lower.max(old.lower);
                    upper = upper.min(old.upper);
                    if lower > upper {
                        (lower, upper) = (score, score);
                    }
                }
                replaced = Some(old);
                victim = slot;
                break;
            }
            let age = generation.wrapping_sub(old_generation) as i32;
            let worth = i32::from(old.depth) - 8 * age;
            if worth < victim_worth {
                victim_worth = worth;
                victim = slot;
            }
        }
        // A fail low names no real best move (every move failed; the highest fail-soft bound
        // is noise), so the one found before, in the entry replaced or the deeper one beside,
        // is kept.
        let fails_low = i32::from(score) <= alpha;
        let entry_move = match replaced.or(beside.map(|(_, deeper)| deeper)) {
            Some(earlier)
                if best_move == NO_MOVE || (fails_low && earlier.best_move != NO_MOVE) =>
            {
                earlier.best_move
            }
            _ => best_move,
        };
        let entry = TtEntry {
            depth,
            lower,
            upper,
            best_move: entry_move,
            selectivity,
        };
        write(victim, key, entry.pack(generation, era));
    }
}

/// Copies into the new half of a table growing from `old` buckets to twice as many the
/// entries whose keys index that half at the new size, so that what the search stored before
/// the table grew is found after (a pondered position, the previous iterations). The originals
/// stay behind, where no probe reaches them (their keys now index the other half), until they
/// are replaced. An entry written to the old half while the copy runs may be lost.
fn spread_entries(buckets: &[Bucket], old: usize) {
    debug_assert_eq!(buckets.len(), 2 * old);
    for (low, high) in buckets[..old].iter().zip(&buckets[old..]) {
        for (from, to) in low.0.iter().zip(&high.0) {
            let data = from.data.load(Ordering::Relaxed);
            let key = from.check.load(Ordering::Relaxed) ^ data;
            if data & USED != 0 && key as usize & old != 0 {
                write(to, key, data);
            }
        }
    }
}

#[inline]
fn write(slot: &Slot, key: u64, data: u64) {
    slot.data.store(data, Ordering::Relaxed);
    slot.check.store(key ^ data, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_too_large_for_the_machine_is_an_error() {
        // 2^42 MiB is 2^62 bytes: no address space holds it.
        let error = TranspositionTable::try_new(1 << 42).err().expect("refused");
        assert_eq!(error.mib, 1 << 42);
        assert!(error.to_string().contains("cannot allocate"));
    }

    #[test]
    fn stores_bounds_and_merges_them() {
        let tt = TranspositionTable::new(1);
        assert_eq!(tt.probe(42), None);
        tt.store(42, 5, 0, -10, 10, 12, 19);
        let e = tt.probe(42).unwrap();
        assert_eq!((e.lower, e.upper, e.best_move, e.depth), (12, 64, 19, 5));
        tt.store(42, 5, 0, 20, 30, 15, NO_MOVE);
        let e = tt.probe(42).unwrap();
        assert_eq!((e.lower, e.upper, e.best_move), (12, 15, 19));
        tt.store(42, 3, 0, -64, 64, 0, 1);
        assert_eq!(
            tt.probe(42).unwrap().depth,
            5,
            "a shallower result does not replace"
        );
        tt.store(42, 7, 0, -64, 64, -3, 2);
        let e = tt.probe(42).unwrap();
        assert_eq!((e.lower, e.upper, e.depth, e.best_move), (-3, -3, 7, 2));
    }

    #[test]
    fn a_shallower_result_is_kept_beside_the_deeper_one() {
        let tt = TranspositionTable::new(1);
        tt.store(42, 9, 2, 0, 1, 3, 19);
        tt.store(42, 5, 2, 20, 21, 22, 7);
        assert_eq!(
            tt.probe(42).unwrap().depth,
            9,
            "probe gives the deeper entry"
        );
        assert_eq!(
            tt.probe_window(42, 5, 2, (20, 21)),
            (Some(22), 7),
            "the shallower one answers a window the deeper one does not"
        );
        assert_eq!(
            tt.probe_window(42, 9, 2, (20, 21)),
            (None, 19),
            "but no deeper search, whose move is the deeper entry's"
        );
        assert_eq!(tt.probe_window(42, 6, 2, (0, 1)), (Some(3), 19));
        let others: Vec<u64> = (1..3).map(|i| 42 + i * (tt.mask as u64 + 1)).collect();
        for &key in &others {
            tt.store(key, 4, 2, -64, 64, 1, 1);
        }
        tt.store(42, 3, 2, 30, 31, 31, 8);
        assert_eq!(tt.probe_window(42, 3, 2, (30, 31)), (Some(31), 8));
        assert_eq!(
            tt.probe_window(42, 5, 2, (20, 21)).0,
            None,
            "in a full bucket, a third result of the key takes the place of the shallower"
        );
        assert!(others.iter().all(|&key| tt.probe(key).is_some()));
        assert_eq!(tt.probe(42).unwrap().depth, 9);
    }

    #[test]
    fn a_clear_forgets_every_entry_and_frees_its_slot() {
        let mut tt = TranspositionTable::new(1);
        let stride = (tt.mask + 1) as u64;
        // Four keys fill one bucket; after the clear a fifth of the same bucket takes the
        // first slot, and none of the four is found again.
        for i in 0..4 {
            tt.store(3 + i * stride, 9, 0, -64, 64, 2, 10);
        }
        tt.clear();
        for i in 0..5 {
            assert_eq!(tt.probe(3 + i * stride), None);
        }
        tt.store(3 + 4 * stride, 1, 0, -64, 64, -7, 11);
        let e = tt.probe(3 + 4 * stride).unwrap();
        assert_eq!((e.depth, e.lower, e.upper, e.best_move), (1, -7, -7, 11));
        tt.store(3, 1, 0, -64, 64, 5, 12);
        assert_eq!(
            tt.probe(3).unwrap().lower,
            5,
            "a deeper entry of an old era does not block a new one"
        );
    }

    #[test]
    fn entries_of_an_old_era_stay_forgotten_when_the_era_wraps_around() {
        let mut tt = TranspositionTable::new(1);
        tt.store(77, 4, 0, -64, 64, 1, 2);
        for _ in 0..u16::MAX {
            tt.clear();
        }
        tt.store(78, 4, 0, -64, 64, 1, 2);
        tt.clear();
        assert_eq!(tt.era, 0, "back to the first era");
        assert_eq!(tt.probe(77), None, "zeroed when the era wrapped");
        assert_eq!(tt.probe(78), None);
    }

    #[test]
    fn entries_stored_before_the_table_grows_are_found_after() {
        let tt = TranspositionTable::new(1);
        let mut usable = 1 << 8;
        tt.buckets.set_usable_len(usable);
        let keys: Vec<u64> = (1..=300u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        for (i, &key) in keys.iter().enumerate() {
            tt.store(key, 10, 0, -64, 64, i as i32 % 60, i as u8);
        }
        let before: Vec<Option<TtEntry>> = keys.iter().map(|&key| tt.probe(key)).collect();
        assert!(before.iter().flatten().count() > 250, "most keys stored");
        while usable < tt.buckets.len() {
            spread_entries(&tt.buckets[..2 * usable], usable);
            usable *= 2;
            tt.buckets.set_usable_len(usable);
        }
        let after: Vec<Option<TtEntry>> = keys.iter().map(|&key| tt.probe(key)).collect();
        assert_eq!(after, before, "every entry found at the full size");
    }

    #[test]
    fn a_search_of_the_same_root_goes_on_in_the_same_generation() {
        let mut tt = TranspositionTable::new(1);
        let generation = |tt: &TranspositionTable| tt.generation.load(Ordering::Relaxed);
        tt.new_search(5);
        let first = generation(&tt);
        tt.new_search(5);
        assert_eq!(generation(&tt), first, "the same root again");
        tt.new_search(6);
        assert_eq!(generation(&tt), first.wrapping_add(1), "another root");
        tt.clear();
        tt.new_search(6);
        assert_eq!(generation(&tt), 1, "after a clear, a new search");
        // In a full bucket, a new entry takes the place of the least worth one: the shallowest
        // of the same search, and one of an earlier search before a deeper one of this.
        let stride = (tt.mask + 1) as u64;
        let fill_and_add_one = |tt: &TranspositionTable, next_root: u64| {
            for i in 0..3 {
                tt.store(i * stride, 6, 0, -64, 64, 0, 1);
            }
            tt.new_search(next_root);
            tt.store(3 * stride, 3, 0, -64, 64, 0, 1);
            tt.store(4 * stride, 1, 0, -64, 64, 0, 1);
            (0..4)
                .map(|i| tt.probe(i * stride).is_some())
                .collect::<Vec<bool>>()
        };
        assert_eq!(
            fill_and_add_one(&tt, 6),
            [true, true, true, false],
            "the same root: the shallowest entry gives way"
        );
        tt.clear();
        tt.new_search(6);
        assert_eq!(
            fill_and_add_one(&tt, 7),
            [false, true, true, true],
            "another root: an entry of the search before gives way"
        );
    }

    #[test]
    fn a_fail_low_keeps_the_best_move_found_before() {
        let tt = TranspositionTable::new(1);
        tt.store(8, 12, 0, 0, 1, -6, 33);
        assert_eq!(
            tt.probe(8).unwrap().best_move,
            33,
            "a first fail low still names one"
        );
        tt.store(9, 12, 0, 2, 3, 5, 21);
        tt.store(9, 12, 0, 8, 9, 8, 40);
        let e = tt.probe(9).unwrap();
        assert_eq!(
            (e.lower, e.upper, e.best_move),
            (5, 8, 21),
            "a fail low keeps it"
        );
        tt.store(9, 12, 0, 6, 7, 7, 40);
        let e = tt.probe(9).unwrap();
        assert_eq!(
            (e.lower, e.upper, e.best_move),
            (7, 8, 40),
            "a fail high replaces it"
        );
    }

    #[test]
    fn selective_results_never_pass_for_full_width_ones() {
        let tt = TranspositionTable::new(1);
        tt.store(7, 20, 2, -1, 0, 6, 3);
        let e = tt.probe(7).unwrap();
        assert_eq!(e.selectivity, 2);
        assert!(e.covers(20, 2) && e.covers(20, 3) && e.covers(19, 3));
        assert!(!e.covers(20, 0), "a selective bound proves nothing");
        assert!(
            !e.covers(12, 0),
            "nor answers a full-width search, however much shallower"
        );
        assert!(!e.covers(20, 1), "nor serves a less selective search");
        tt.store(7, 20, 1, -1, 0, 2, 9);
        let e = tt.probe(7).unwrap();
        assert_eq!(
            (e.selectivity, e.best_move),
            (1, 9),
            "less selective replaces"
        );
        tt.store(7, 20, 0, 3, 5, 4, 5);
        let e = tt.probe(7).unwrap();
        assert_eq!((e.selectivity, e.lower, e.upper, e.best_move), (0, 4, 4, 5));
        tt.store(7, 20, 3, -1, 0, 6, 8);
        let e = tt.probe(7).unwrap();
        assert_eq!(
            (e.selectivity, e.upper, e.best_move),
            (0, 4, 5),
            "a selective result does not replace a proved one"
        );
    }
}
