//! FD-tree's merge (Li et al. 2009 §II-C) and the logarithmic deletion it
//! completes (§II-D): two adjacent levels are scanned in key order and
//! combined into one sorted run in contiguous pages; a filter entry and the
//! phantom entry it deletes meet here and both vanish.
//!
//! Counting makes the annihilation exact whatever the order the two meet
//! in: an index entry counts +1 and a filter entry −1 for its (key, value)
//! pair, the merged run holds each pair's net count (|n| entries of the
//! sign's kind, none at 0), and a pair is present when its net count over
//! all levels is positive.
//!
//! With versions of keys (`versions=key`, the `FdTree` module doc), a
//! level holds at most one entry per key and the merge compares by key: of
//! two entries of one key the newer level's wins, whatever the values, and
//! the older is dropped; a merge into the bottom level also drops filter
//! entries (key tombstones), which have nothing left below to shadow.

use crate::device::BlockDevice;
use crate::index::{EntryFormat, IndexError};

use super::run::{read_entries, span, Entry, Kind, RunMeta, RunWriter};

/// An entry stream item: a pair with its net count, or a fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Item {
    Pair { key: u64, value: u64, count: i64 },
    Fence(Entry),
}

impl Item {
    /// Run order (invariant 1 of [`super::run`]).
    fn order(&self) -> (u64, u8, u64) {
        match self {
            Item::Pair { key, value, .. } => (*key, 0, *value),
            Item::Fence(e) if e.kind == Kind::Last => (u64::MAX, 2, 0),
            Item::Fence(e) => (e.key, 1, 0),
        }
    }
}

/// Reads a run page by page with plain device reads (a merge's sequential
/// scan; it bypasses the page cache).
pub(super) struct RunReader {
    format: EntryFormat,
    level: u8,
    run: RunMeta,
    page: u64,
    /// The page being read, decoded into one reused vector, and the next
    /// entry's position in it.
    entries: Vec<Entry>,
    next: usize,
    buf: Vec<u8>,
}

impl RunReader {
    pub(super) fn new(format: EntryFormat, page_size: usize, level: u8, run: RunMeta) -> Self {
        RunReader {
            format,
            level,
            run,
            page: 0,
            entries: Vec::new(),
            next: 0,
            buf: vec![0u8; page_size],
        }
    }

    pub(super) fn next_entry(
        &mut self,
        dev: &mut dyn BlockDevice,
    ) -> Result<Option<Entry>, IndexError> {
        loop {
            if let Some(&e) = self.entries.get(self.next) {
                self.next += 1;
                return Ok(Some(e));
            }
            if self.page >= self.run.pages {
                return Ok(None);
            }
            let lba = self.run.start + self.page * span(dev, self.buf.len());
            let at = (self.format, self.level, self.page);
            read_entries(dev, lba, &mut self.buf, at, &mut self.entries)?;
            self.next = 0;
            self.page += 1;
        }
    }
}

/// One input of a merge: the head tree's pairs, or a run read in order.
pub(super) enum Source {
    Head(std::vec::IntoIter<Item>),
    Run {
        reader: RunReader,
        /// Keep external fences (the older level keeps its fences to the
        /// level below; the newer level's point at pages being replaced).
        keep_fences: bool,
        peeked: Option<Entry>,
    },
    Empty,
}

impl Source {
    pub(super) fn run(reader: RunReader, keep_fences: bool) -> Source {
        Source::Run {
            reader,
            keep_fences,
            peeked: None,
        }
    }

    /// The next item: consecutive entries of one pair become one item with
    /// their net count; internal fences are dropped (a merge builds its
    /// own).
    fn next_item(&mut self, dev: &mut dyn BlockDevice) -> Result<Option<Item>, IndexError> {
        let (reader, keep_fences, peeked) = match self {
            Source::Head(items) => return Ok(items.next()),
            Source::Empty => return Ok(None),
            Source::Run {
                reader,
                keep_fences,
                peeked,
            } => (reader, *keep_fences, peeked),
        };
        loop {
            let e = match peeked.take() {
                Some(e) => e,
                None => match reader.next_entry(dev)? {
                    Some(e) => e,
                    None => return Ok(None),
                },
            };
            if e.kind.is_fence() {
                if e.kind == Kind::Internal || !keep_fences {
                    continue;
                }
                return Ok(Some(Item::Fence(e)));
            }
            let mut count = e.kind.count();
            while let Some(n) = reader.next_entry(dev)? {
                if n.kind.is_fence() || n.key != e.key || n.value != e.value {
                    *peeked = Some(n);
                    break;
                }
                count += n.kind.count();
            }
            return Ok(Some(Item::Pair {
                key: e.key,
                value: e.value,
                count,
            }));
        }
    }
}

/// What a merge does with two entries of one key (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Versions {
    /// The paper's set of pairs: the counts of a pair add up.
    Pairs,
    /// Versions of keys: the newer entry of a key shadows the older;
    /// `bottom`: the merge writes the bottom level, where filter entries go.
    Keys { bottom: bool },
}

/// Merges `newer` into `older` (both in run order) and writes the result
/// through `out`. Returns the number of pairs annihilated (with versions
/// of keys: older versions shadowed, and filter entries dropped at the
/// bottom).
pub(super) fn merge_into(
    dev: &mut dyn BlockDevice,
    newer: &mut Source,
    older: &mut Source,
    out: &mut RunWriter,
    versions: Versions,
) -> Result<u64, IndexError> {
    let mut x = newer.next_item(dev)?;
    let mut y = older.next_item(dev)?;
    let mut annihilated = 0;
    loop {
        let item = match (x, y) {
            (None, None) => break,
            (Some(p), None) => {
                x = newer.next_item(dev)?;
                p
            }
            (None, Some(q)) => {
                y = older.next_item(dev)?;
                q
            }
            (Some(p), Some(q)) => match (p, q) {
                (Item::Pair { key, .. }, Item::Pair { key: k2, .. })
                    if key == k2 && versions != Versions::Pairs =>
                {
                    annihilated += 1;
                    x = newer.next_item(dev)?;
                    y = older.next_item(dev)?;
                    p
                }
                (
                    Item::Pair {
                        key,
                        value,
                        count: c1,
                    },
                    Item::Pair {
                        key: k2,
                        value: v2,
                        count: c2,
                    },
                ) if (key, value) == (k2, v2) => {
                    if c1.signum() != c2.signum() {
                        annihilated += c1.abs().min(c2.abs()) as u64;
                    }
                    x = newer.next_item(dev)?;
                    y = older.next_item(dev)?;
                    Item::Pair {
                        key,
                        value,
                        count: c1 + c2,
                    }
                }
                _ if p.order() <= q.order() => {
                    x = newer.next_item(dev)?;
                    p
                }
                _ => {
                    y = older.next_item(dev)?;
                    q
                }
            },
        };
        if versions == (Versions::Keys { bottom: true })
            && matches!(item, Item::Pair { count, .. } if count < 0)
        {
            annihilated += 1;
            continue;
        }
        emit(dev, out, item)?;
    }
    Ok(annihilated)
}

/// Writes an item as entries: |count| index or filter entries.
pub(super) fn emit(
    dev: &mut dyn BlockDevice,
    out: &mut RunWriter,
    item: Item,
) -> Result<(), IndexError> {
    match item {
        Item::Fence(e) => out.push(dev, e),
        Item::Pair { key, value, count } => {
            let kind = if count > 0 { Kind::Index } else { Kind::Filter };
            for _ in 0..count.unsigned_abs() {
                out.push(dev, Entry { key, value, kind })?;
            }
            Ok(())
        }
    }
}

/// The external fences of a level above a run whose pages end with
/// `last_keys` (§II-A: one per page, its last entry's key; the last page's
/// is the last-fence).
pub(super) fn fences_for(last_keys: &[u64]) -> Vec<Entry> {
    let n = last_keys.len();
    last_keys
        .iter()
        .enumerate()
        .map(|(pid, &key)| Entry {
            key,
            value: pid as u64,
            kind: if pid + 1 == n {
                Kind::Last
            } else {
                Kind::External
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_fence_closes_the_order() {
        let last = Item::Fence(Entry {
            key: 0,
            value: 9,
            kind: Kind::Last,
        });
        let big = Item::Pair {
            key: u64::MAX,
            value: u64::MAX,
            count: 1,
        };
        assert!(big.order() < last.order());
    }
}
