//! The superblock log of the stores that manage erase units themselves (the
//! node log of Agrawal et al. 2009 §5.2 and IPL): the newest valid
//! superblock says which state on flash is the durable one, and a power
//! cut at any moment, a torn superblock included, must leave one valid.
//!
//! On-flash format: units 0, 1 and 2 of the store (erase blocks on a raw
//! chip; aligned page groups where a store "erases" by trimming). Each
//! superblock is one page frame of kind 1 ([`TreeMeta::seal_superblock`])
//! whose payload is the 56-byte tree metadata, the store's own state bytes,
//! and a superblock counter (`u64`), one more for every superblock written.
//!
//! Invariants:
//! 1. Superblocks fill unit 0 page by page, then unit 1, then unit 2, then
//!    unit 1 again, and so on; the unit taken next is erased first and
//!    never holds the newest superblock, so a cut while erasing it, or a
//!    torn superblock, leaves the previous one valid.
//! 2. Unit 0 is never erased again: its page 0 keeps the first superblock,
//!    where every open reads the layout (`index::kinds::reopen::probe`).
//! 3. A page is programmed once between erases: a page that fails its
//!    checks (torn, or damaged) is skipped by the scan and never
//!    programmed again; the next superblock goes after the last page of its
//!    unit that holds anything.
//!
//! What a raw chip cannot tell apart: a damaged newest superblock from a
//! torn one. Both are skipped, and open takes the previous superblock (the
//! state of the flush before); `docs/FORMAT.md` says so.

use crate::node::NodeError;

use super::page::FRAME_HEADER;
use super::store::{TreeMeta, META_BYTES};

/// Erase units the log takes at the start of the store.
pub(crate) const SUPERBLOCK_UNITS: u32 = 3;
/// Bytes of the counter after the store's state.
const COUNTER_BYTES: usize = 8;
/// The most state bytes a store keeps in its superblock.
const MAX_STATE: usize = 48;

/// Bytes of a superblock frame whose store state is `state_len` bytes.
/// Every store computes its frame size with this in a `const`, so a state
/// longer than [`MAX_STATE`] fails to compile rather than at run time.
pub(crate) const fn superblock_bytes(state_len: usize) -> usize {
    assert!(state_len <= MAX_STATE, "superblock state too long");
    FRAME_HEADER + META_BYTES + state_len + COUNTER_BYTES
}

/// Where the next superblock goes.
#[derive(Clone, Debug)]
pub(crate) struct SuperblockLog {
    unit_pages: u64,
    unit: u32,
    next: u64,
    counter: u64,
}

/// The newest valid superblock a scan found.
#[derive(Debug)]
pub(crate) struct Newest {
    pub meta: TreeMeta,
    /// The store's state bytes (without the counter).
    pub state: Vec<u8>,
    /// Page it was read from.
    pub page: u64,
}

impl SuperblockLog {
    /// The log of a new store: nothing written yet.
    pub fn new(unit_pages: u64) -> Self {
        SuperblockLog {
            unit_pages,
            unit: 0,
            next: 0,
            counter: 1,
        }
    }

    /// The page the next superblock goes to, and the unit to erase before
    /// programming it (invariant 1). The page counts as used from here on:
    /// a failed program may have left bytes in it.
    pub fn take_page(&mut self) -> (u64, Option<u32>) {
        let mut erase = None;
        if self.next >= self.unit_pages {
            let other = if self.unit == 1 { 2 } else { 1 };
            erase = Some(other);
            self.unit = other;
            self.next = 0;
        }
        let page = self.unit as u64 * self.unit_pages + self.next;
        self.next += 1;
        (page, erase)
    }

    /// Seals a superblock of `meta` and `state` into `buf` (at least
    /// [`superblock_bytes`] long) with the next counter; returns its length.
    /// `state` is a store's fixed state, at most [`MAX_STATE`] bytes (see
    /// `superblock_bytes`).
    pub fn seal(&mut self, meta: &TreeMeta, state: &[u8], buf: &mut [u8]) -> usize {
        let mut all = [0u8; MAX_STATE + COUNTER_BYTES];
        let n = state.len();
        all[..n].copy_from_slice(state);
        all[n..n + COUNTER_BYTES].copy_from_slice(&self.counter.to_le_bytes());
        self.counter += 1;
        meta.seal_superblock(&all[..n + COUNTER_BYTES], buf)
    }

    /// Scans the three units through `read` (a whole page into the buffer
    /// given) for the valid superblock with the highest counter, whose
    /// store state is `state_len` bytes; returns the log positioned after
    /// it (invariant 3) and what it found, `None` when no page holds a
    /// valid superblock.
    pub fn scan(
        unit_pages: u64,
        page_size: usize,
        state_len: usize,
        mut read: impl FnMut(u64, &mut [u8]) -> Result<(), NodeError>,
    ) -> Result<(SuperblockLog, Option<Newest>), NodeError> {
        let mut best: Option<(Newest, u64, u32)> = None;
        let mut last_written = [None; SUPERBLOCK_UNITS as usize];
        let mut top = 0;
        let mut buf = vec![0u8; page_size];
        for unit in 0..SUPERBLOCK_UNITS {
            for i in 0..unit_pages {
                let p = unit as u64 * unit_pages + i;
                read(p, &mut buf)?;
                match TreeMeta::open_superblock(&buf, p, state_len + COUNTER_BYTES) {
                    Ok(None) => {}
                    // Torn or damaged: skipped, and never programmed again.
                    Err(_) => last_written[unit as usize] = Some(i),
                    Ok(Some((meta, state))) => {
                        last_written[unit as usize] = Some(i);
                        let mut c = [0u8; COUNTER_BYTES];
                        c.copy_from_slice(&state[state_len..]);
                        let counter = u64::from_le_bytes(c);
                        top = top.max(counter);
                        if best.as_ref().is_none_or(|b| counter > b.1) {
                            let newest = Newest {
                                meta,
                                state: state[..state_len].to_vec(),
                                page: p,
                            };
                            best = Some((newest, counter, unit));
                        }
                    }
                }
            }
        }
        let mut log = SuperblockLog::new(unit_pages);
        let Some((newest, _, unit)) = best else {
            return Ok((log, None));
        };
        log.unit = unit;
        log.next = last_written[unit as usize].map_or(0, |i| i + 1);
        log.counter = top + 1;
        Ok((log, Some(newest)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::EntryFormat;

    fn meta(generation: u64) -> TreeMeta {
        TreeMeta {
            index: "t".into(),
            format: EntryFormat::new(4, 4).unwrap(),
            node_bytes: 64,
            root: 0,
            height: 1,
            leaf_entries: 0,
            next_id: 1,
            entries: generation,
            generation,
            flags: 0,
        }
    }

    /// A chip of three units of four 128-byte pages, in RAM.
    struct Units(Vec<Vec<u8>>);

    impl Units {
        /// Writes superblock `g` (torn: its first half); returns its page.
        fn write(&mut self, log: &mut SuperblockLog, g: u64, torn: bool) -> u64 {
            let (page, erase) = log.take_page();
            if let Some(u) = erase {
                for p in 0..4 {
                    self.0[u as usize * 4 + p].fill(0);
                }
            }
            let mut buf = vec![0u8; 128];
            let len = log.seal(&meta(g), &[7, g as u8], &mut buf);
            let len = if torn { len / 2 } else { len };
            self.0[page as usize][..len].copy_from_slice(&buf[..len]);
            page
        }

        fn scan(&self) -> (SuperblockLog, Option<Newest>) {
            SuperblockLog::scan(4, 128, 2, |p, buf| {
                buf.copy_from_slice(&self.0[p as usize]);
                Ok(())
            })
            .unwrap()
        }
    }

    #[test]
    fn the_newest_survives_torn_superblocks_and_unit_turns() {
        let mut units = Units(vec![vec![0u8; 128]; 12]);
        let mut log = SuperblockLog::new(4);
        for g in 1..=30u64 {
            units.write(&mut log, g, false);
            let (_, found) = units.scan();
            let found = found.unwrap();
            assert_eq!(found.meta.generation, g);
            assert_eq!(found.state, vec![7, g as u8]);
            // A torn next superblock leaves this one the newest, and the
            // scan never places the next one on the torn page unless its
            // unit is erased first.
            let mut torn = Units(units.0.clone());
            let torn_page = torn.write(&mut log.clone(), g + 1, true);
            let (mut reopened, found) = torn.scan();
            assert_eq!(found.unwrap().meta.generation, g);
            let (page, erase) = reopened.take_page();
            assert!(
                page != torn_page || erase == Some((torn_page / 4) as u32),
                "generation {g}: page {page}"
            );
        }
        // Unit 0 kept the first superblock.
        let (_, first) = SuperblockLog::scan(4, 128, 2, |p, buf| {
            buf.copy_from_slice(&units.0[p as usize]);
            if p >= 4 {
                buf.fill(0);
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(first.unwrap().meta.generation, 4);
    }

    fn cases() -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3000)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(cases()))]

        /// The superblock decoders (the log's scan, the tree metadata and
        /// the store states after it) fed arbitrary pages, raw or sealed
        /// in a valid superblock frame: a value or an error, never a panic.
        #[test]
        fn random_superblock_pages_never_panic(
            pages in proptest::collection::vec(proptest::collection::vec(proptest::prelude::any::<u8>(), 0..128), 6),
            sealed in proptest::collection::vec(proptest::prelude::any::<bool>(), 6),
            state_len in 0usize..40,
        ) {
            use crate::node::page::{self, PageKind};
            let mut chip = vec![vec![0u8; 128]; 6];
            for (i, bytes) in pages.iter().enumerate() {
                if sealed[i] {
                    let len = bytes.len().min(128 - FRAME_HEADER);
                    chip[i][FRAME_HEADER..FRAME_HEADER + len].copy_from_slice(&bytes[..len]);
                    page::seal(&mut chip[i], PageKind::Superblock, len);
                } else {
                    chip[i][..bytes.len()].copy_from_slice(bytes);
                }
            }
            let scanned = SuperblockLog::scan(2, 128, state_len, |p, buf| {
                buf.copy_from_slice(&chip[p as usize]);
                Ok(())
            });
            if let Ok((mut log, Some(newest))) = scanned {
                proptest::prop_assert_eq!(newest.state.len(), state_len);
                let (page, _) = log.take_page();
                proptest::prop_assert!(page < 6);
            }
        }
    }
}
