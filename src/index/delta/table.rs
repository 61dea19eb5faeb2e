//! The node table of Basic Delta and Consolidation ([`super::chain`]) laid
//! out close to what it is charged (issue #43): per node an 8-byte head
//! (base page `u32`, its offset `u16`, the number of delta pages `u8`),
//! `max_deltas` delta-page slots of 4 bytes, and for Consolidation its
//! counter C, in flat arrays grown by an eighth at a time (not doubled).
//! A per-node `Vec` of delta pages (24 bytes and a heap block a node) held
//! several times what the table is charged.

/// A node with no base: absent from the table.
pub(super) const NOWHERE: u32 = u32::MAX - 1;

#[derive(Clone, Copy, Debug)]
struct Head {
    base: u32,
    base_at: u16,
    deltas: u8,
}

const EMPTY: Head = Head {
    base: NOWHERE,
    base_at: 0,
    deltas: 0,
};

/// Base and delta pages of every node id, with Consolidation's counters.
#[derive(Debug)]
pub(super) struct ChainTable {
    max_deltas: usize,
    heads: Vec<Head>,
    /// `max_deltas` slots a node; the first `Head::deltas` are its pages.
    pages: Vec<u32>,
    /// Consolidation's counter C a node; empty for Basic Delta.
    counters: Vec<f64>,
    counting: bool,
}

impl ChainTable {
    /// `max_deltas` ≤ 64 (checked by the store).
    pub(super) fn new(max_deltas: usize, counting: bool) -> Self {
        ChainTable {
            max_deltas,
            heads: Vec::new(),
            pages: Vec::new(),
            counters: Vec::new(),
            counting,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.heads.len()
    }

    pub(super) fn clear(&mut self) {
        self.heads.clear();
        self.pages.clear();
        self.counters.clear();
    }

    /// Makes room for node `id`, growing by an eighth so the arrays'
    /// spare capacity stays small.
    pub(super) fn ensure(&mut self, id: u32) {
        let n = id as usize + 1;
        if self.heads.len() >= n {
            return;
        }
        if self.heads.capacity() < n {
            let want = n.max(self.heads.len() + self.heads.len() / 8 + 16);
            self.heads.reserve_exact(want - self.heads.len());
            self.pages
                .reserve_exact(want * self.max_deltas - self.pages.len());
            if self.counting {
                self.counters.reserve_exact(want - self.counters.len());
            }
        }
        self.heads.resize(n, EMPTY);
        self.pages.resize(n * self.max_deltas, 0);
        if self.counting {
            self.counters.resize(n, 0.0);
        }
    }

    /// Node `id`'s base page (`NOWHERE` when it has none).
    pub(super) fn base(&self, id: u32) -> u32 {
        self.heads.get(id as usize).map_or(NOWHERE, |h| h.base)
    }

    pub(super) fn base_at(&self, id: u32) -> u16 {
        self.heads.get(id as usize).map_or(0, |h| h.base_at)
    }

    /// Sets node `id`'s base (after [`ChainTable::ensure`]).
    pub(super) fn set_base(&mut self, id: u32, base: u32, at: u16) {
        let h = &mut self.heads[id as usize];
        h.base = base;
        h.base_at = at;
    }

    /// Node `id`'s delta pages in log order (none when out of the table).
    pub(super) fn deltas(&self, id: u32) -> &[u32] {
        match self.heads.get(id as usize) {
            Some(h) => {
                let at = id as usize * self.max_deltas;
                &self.pages[at..at + h.deltas as usize]
            }
            None => &[],
        }
    }

    pub(super) fn deltas_mut(&mut self, id: u32) -> &mut [u32] {
        match self.heads.get(id as usize) {
            Some(h) => {
                let at = id as usize * self.max_deltas;
                &mut self.pages[at..at + h.deltas as usize]
            }
            None => &mut [],
        }
    }

    /// Appends a delta page to node `id`'s chain (after `ensure`); false
    /// when it already names `max_deltas`.
    pub(super) fn push_delta(&mut self, id: u32, page: u32) -> bool {
        let h = &mut self.heads[id as usize];
        let n = h.deltas as usize;
        if n >= self.max_deltas {
            return false;
        }
        self.pages[id as usize * self.max_deltas + n] = page;
        h.deltas += 1;
        true
    }

    pub(super) fn clear_deltas(&mut self, id: u32) {
        if let Some(h) = self.heads.get_mut(id as usize) {
            h.deltas = 0;
        }
    }

    /// Node `id`'s counter C (0 for Basic Delta).
    pub(super) fn counter(&self, id: u32) -> f64 {
        self.counters.get(id as usize).copied().unwrap_or(0.0)
    }

    pub(super) fn set_counter(&mut self, id: u32, c: f64) {
        if let Some(x) = self.counters.get_mut(id as usize) {
            *x = c;
        }
    }

    /// Forgets node `id`'s chain: no base, no deltas, C = 0.
    pub(super) fn reset(&mut self, id: u32) {
        if let Some(h) = self.heads.get_mut(id as usize) {
            *h = EMPTY;
        }
        self.set_counter(id, 0.0);
    }

    /// Ids of the nodes with a base.
    pub(super) fn live(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.heads.len() as u32).filter(|&id| self.heads[id as usize].base != NOWHERE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_hold_at_most_max_deltas_pages_in_order() {
        let mut t = ChainTable::new(2, true);
        assert_eq!(t.base(3), NOWHERE);
        assert!(t.deltas(3).is_empty());
        t.ensure(3);
        t.set_base(3, 7, 40);
        assert!(t.push_delta(3, 9) && t.push_delta(3, 11));
        assert!(!t.push_delta(3, 12), "max_deltas");
        assert_eq!(
            (t.base(3), t.base_at(3), t.deltas(3)),
            (7, 40, &[9, 11][..])
        );
        t.deltas_mut(3)[1] = 12;
        t.set_counter(3, 1.5);
        assert_eq!(t.deltas(2), &[] as &[u32]);
        assert_eq!(t.live().collect::<Vec<_>>(), vec![3]);
        assert_eq!((t.counter(3), t.deltas(3)), (1.5, &[9, 12][..]));
        t.reset(3);
        assert_eq!(
            (t.base(3), t.deltas(3).len(), t.counter(3)),
            (NOWHERE, 0, 0.0)
        );
    }
}
