//! The input of [`Index::bulk_load`](super::Index::bulk_load): entries in
//! strictly ascending (key, value) order, each within the entry format,
//! with their number known before the first is written.
//!
//! A bulk loader writes an index bottom-up in one sequential pass — the
//! way an index of 10⁸–10⁹ entries is built in practice, and the only way
//! Li et al. 2009 §III's 10⁹-entry indexes could have been built on a disk
//! that takes 25 random writes a second. The FD-tree and the LSM-tree
//! place the whole input in one level / component chosen by its size, so
//! the number of entries must be known first: it is the iterator's exact
//! upper size hint when it has one (the workload generator's does), and
//! otherwise the input is gathered in memory first.
//!
//! An input out of order, out of range, or longer than its size hint is an
//! [`IndexError::BulkLoad`] / `KeyOutOfRange` / `ValueOutOfRange`; the
//! loaders install nothing until the input is exhausted, so a failed bulk
//! load leaves the index empty (the pages it wrote are not referenced).

use super::{EntryFormat, IndexError, Result};

/// Checked bulk-load input. Iterate it, then call [`BulkInput::finish`]:
/// iteration stops at the first bad entry, whose error `finish` returns.
pub(crate) struct BulkInput<'a> {
    source: Source<'a>,
    format: EntryFormat,
    expected: u64,
    taken: u64,
    last: Option<(u64, u64)>,
    error: Option<IndexError>,
}

enum Source<'a> {
    Stream(&'a mut dyn Iterator<Item = (u64, u64)>),
    Gathered(std::vec::IntoIter<(u64, u64)>),
}

impl<'a> BulkInput<'a> {
    pub(crate) fn new(
        format: EntryFormat,
        entries: &'a mut dyn Iterator<Item = (u64, u64)>,
    ) -> Self {
        let (source, expected) = match entries.size_hint() {
            (lo, Some(hi)) if lo == hi => (Source::Stream(entries), hi as u64),
            _ => {
                let all: Vec<(u64, u64)> = entries.collect();
                let n = all.len() as u64;
                (Source::Gathered(all.into_iter()), n)
            }
        };
        BulkInput {
            source,
            format,
            expected,
            taken: 0,
            last: None,
            error: None,
        }
    }

    /// The input of a loader into an index that must be `empty` (`name`
    /// for the error): `None` when there is nothing to load.
    pub(crate) fn start(
        empty: bool,
        name: &str,
        format: EntryFormat,
        entries: &'a mut dyn Iterator<Item = (u64, u64)>,
    ) -> Result<Option<Self>> {
        require_empty(empty, name)?;
        let input = BulkInput::new(format, entries);
        Ok((input.expected() > 0).then_some(input))
    }

    /// The number of entries the input holds (at most; fewer only when it
    /// ends early with an error).
    pub(crate) fn expected(&self) -> u64 {
        self.expected
    }

    /// The number of entries taken, or the input's error: the entry that
    /// stopped iteration, or an input that ended before its size hint.
    pub(crate) fn finish(self) -> Result<u64> {
        match self.error {
            Some(e) => Err(e),
            None if self.taken < self.expected => Err(IndexError::BulkLoad(format!(
                "the input ended after {} of the {} entries its size hint promised",
                self.taken, self.expected
            ))),
            None => Ok(self.taken),
        }
    }

    /// The bad entry that stopped iteration, if one did (taken out, so
    /// `finish` then reports only an early end).
    pub(crate) fn take_error(&mut self) -> Option<IndexError> {
        self.error.take()
    }

    fn check(&mut self, e: (u64, u64)) -> Result<()> {
        self.format.check(e.0, e.1)?;
        if let Some(last) = self.last.filter(|&l| l >= e) {
            return Err(IndexError::BulkLoad(format!(
                "entry {} ({}, {}) is not above the entry before it ({}, {}): a bulk load takes entries in strictly ascending (key, value) order",
                self.taken + 1,
                e.0,
                e.1,
                last.0,
                last.1
            )));
        }
        if self.taken >= self.expected {
            return Err(IndexError::BulkLoad(format!(
                "the input holds more entries than the {} its size hint promised",
                self.expected
            )));
        }
        Ok(())
    }
}

impl Iterator for BulkInput<'_> {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        if self.error.is_some() {
            return None;
        }
        let e = match &mut self.source {
            Source::Stream(s) => s.next(),
            Source::Gathered(v) => v.next(),
        }?;
        if let Err(err) = self.check(e) {
            self.error = Some(err);
            return None;
        }
        self.taken += 1;
        self.last = Some(e);
        Some(e)
    }
}

/// Refuses a bulk load into an index that holds anything.
pub(crate) fn require_empty(empty: bool, name: &str) -> Result<()> {
    if empty {
        Ok(())
    } else {
        Err(IndexError::BulkLoad(format!(
            "{name} is not empty: a bulk load builds an index from nothing"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(entries: Vec<(u64, u64)>) -> Result<u64> {
        let mut it = entries.into_iter();
        let mut input = BulkInput::new(EntryFormat::default(), &mut it);
        input.by_ref().for_each(drop);
        input.finish()
    }

    #[test]
    fn ascending_input_passes() {
        assert_eq!(drain(vec![(1, 1), (1, 2), (2, 0)]).unwrap(), 3);
    }

    #[test]
    fn an_entry_out_of_order_is_refused() {
        assert!(matches!(
            drain(vec![(1, 1), (1, 1)]),
            Err(IndexError::BulkLoad(_))
        ));
        assert!(matches!(
            drain(vec![(2, 0), (1, 9)]),
            Err(IndexError::BulkLoad(_))
        ));
    }

    #[test]
    fn an_entry_out_of_range_is_refused() {
        assert!(matches!(
            drain(vec![(1, 1), (u64::MAX, 1)]),
            Err(IndexError::KeyOutOfRange { .. })
        ));
    }

    #[test]
    fn an_input_without_an_exact_hint_is_gathered() {
        let mut it = (0..10u64).map(|k| (k, 0)).filter(|_| true);
        let mut input = BulkInput::new(EntryFormat::default(), &mut it);
        assert_eq!(input.expected(), 10);
        input.by_ref().for_each(drop);
        assert_eq!(input.finish().unwrap(), 10);
    }
}
