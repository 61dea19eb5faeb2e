//! Delayed lookups (the buffer tree's batched lookups, `buffered-bplus-
//! tree.md` §3.1): a lookup travels down the buffers as an element and is
//! answered when it reaches the leaves.
//!
//! A key's pairs may lie under several children, so a lookup splits into
//! **parts**, one per subtree it is sent to. Each part owns a range of
//! pairs (kept here, in RAM, by part id; the element on flash carries only
//! the id in its value field): at an emptying it is cut by the children's
//! ranges, at a buffer split by the separator, and at the leaves it is
//! answered with the tree's pairs of the key inside its range. The parts of
//! a lookup always cover the key's pairs exactly once, so the answer is
//! the union of the parts' answers, complete when the last part is in.
//! A part reaches the leaves after every older operation on its pairs and
//! before every newer one (a key's elements keep their order in every
//! buffer), so the answer is what `get` would have returned at the lookup.
//!
//! Invariants:
//! 1. Every part id in a buffer element is in `parts`, and no id is in two
//!    elements.
//! 2. A pending lookup's `parts` counts its parts in `parts`.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// A hash map with a fixed hasher: the order answers come out in, and so
/// the capacity of what holds them (counted in `memory_bytes`), is the
/// same in every run of a seeded experiment (with the standard random
/// hasher, `lat-fig9`'s `delayed_lookup_bytes` differed between two runs).
type Map<K, V> = HashMap<K, V, BuildHasherDefault<DefaultHasher>>;

/// A range of pairs: from the first (inclusive) to the second (exclusive;
/// `None`: no end).
pub type Span = ((u64, u64), Option<(u64, u64)>);

/// The pairs of `a` that are also in `b`, if any.
pub fn intersect(a: Span, b: Span) -> Option<Span> {
    let lo = a.0.max(b.0);
    let hi = match (a.1, b.1) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    };
    hi.is_none_or(|h| lo < h).then_some((lo, hi))
}

#[derive(Debug)]
struct Pending {
    parts: usize,
    values: Vec<u64>,
}

#[derive(Clone, Copy, Debug)]
struct Part {
    ticket: u64,
    span: Span,
}

/// Pending lookups, their parts and the answers ready for the caller.
#[derive(Debug)]
pub struct Delayed {
    /// Part ids ride in the value field: they cycle within its width.
    max_part: u64,
    next_part: u64,
    next_ticket: u64,
    pending: Map<u64, Pending>,
    parts: Map<u64, Part>,
    answers: Vec<(u64, Vec<u64>)>,
}

impl Delayed {
    pub fn new(max_value: u64) -> Self {
        Delayed {
            max_part: max_value,
            next_part: 0,
            next_ticket: 0,
            pending: Map::default(),
            parts: Map::default(),
            answers: Vec::new(),
        }
    }

    /// A new lookup of `key`: its ticket and its first part's id.
    pub fn issue(&mut self, key: u64) -> (u64, u64) {
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        self.pending.insert(
            ticket,
            Pending {
                parts: 1,
                values: Vec::new(),
            },
        );
        let hi = key.checked_add(1).map(|k| (k, 0));
        let part = self.new_part(ticket, ((key, 0), hi));
        (ticket, part)
    }

    fn new_part(&mut self, ticket: u64, span: Span) -> u64 {
        let mut p = self.next_part;
        while self.parts.contains_key(&p) {
            p = if p >= self.max_part { 0 } else { p + 1 };
        }
        self.next_part = if p >= self.max_part { 0 } else { p + 1 };
        self.parts.insert(p, Part { ticket, span });
        p
    }

    /// The pairs part `part` answers for.
    pub fn span(&self, part: u64) -> Option<Span> {
        self.parts.get(&part).map(|p| p.span)
    }

    /// Replaces part `part` by one part for each of `spans` it overlaps,
    /// appending (index into `spans`, new part id) to `out`.
    pub fn cut(&mut self, part: u64, spans: &[Span], out: &mut Vec<(usize, u64)>) {
        let Some(p) = self.parts.remove(&part) else {
            return;
        };
        let start = out.len();
        for (i, &s) in spans.iter().enumerate() {
            if let Some(span) = intersect(p.span, s) {
                let id = self.new_part(p.ticket, span);
                out.push((i, id));
            }
        }
        let made = out.len() - start;
        if let Some(l) = self.pending.get_mut(&p.ticket) {
            l.parts = (l.parts + made).saturating_sub(1);
            if l.parts == 0 {
                self.finish(p.ticket);
            }
        }
    }

    /// Part `part` found `values` (its pairs' values, ascending).
    pub fn answer(&mut self, part: u64, values: &[u64]) {
        let Some(p) = self.parts.remove(&part) else {
            return;
        };
        if let Some(l) = self.pending.get_mut(&p.ticket) {
            l.values.extend_from_slice(values);
            l.parts = l.parts.saturating_sub(1);
            if l.parts == 0 {
                self.finish(p.ticket);
            }
        }
    }

    fn finish(&mut self, ticket: u64) {
        if let Some(mut l) = self.pending.remove(&ticket) {
            l.values.sort_unstable();
            self.answers.push((ticket, l.values));
        }
    }

    pub fn take_answers(&mut self, out: &mut Vec<(u64, Vec<u64>)>) {
        out.append(&mut self.answers);
    }

    /// Lookups not answered yet.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Parts in flight.
    pub fn parts(&self) -> usize {
        self.parts.len()
    }

    /// RAM the delayed lookups hold: each pending lookup, each part in
    /// flight and each answer not yet taken, at their in-RAM widths and
    /// capacities (the paper gives them none: they exist only in RAM).
    pub fn memory_bytes(&self) -> usize {
        let pending: usize = self
            .pending
            .values()
            .map(|l| l.values.capacity() * 8)
            .sum::<usize>()
            // A hash table holds its capacity, a control byte a slot.
            + self.pending.capacity() * (std::mem::size_of::<(u64, Pending)>() + 1);
        let answers: usize = self
            .answers
            .iter()
            .map(|(_, v)| v.capacity() * 8)
            .sum::<usize>()
            + self.answers.capacity() * std::mem::size_of::<(u64, Vec<u64>)>();
        pending + self.parts.capacity() * (std::mem::size_of::<(u64, Part)>() + 1) + answers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_a_key_once_and_the_answer_waits_for_all() {
        let mut d = Delayed::new(u32::MAX as u64);
        let (ticket, p) = d.issue(7);
        let mut out = Vec::new();
        // Two children split the key's pairs at (7, 5); a third is elsewhere.
        d.cut(
            p,
            &[
                ((0, 0), Some((7, 5))),
                ((7, 5), Some((9, 0))),
                ((9, 0), None),
            ],
            &mut out,
        );
        assert_eq!(out.len(), 2);
        assert_eq!(d.span(out[0].1), Some(((7, 0), Some((7, 5)))));
        assert_eq!(d.span(out[1].1), Some(((7, 5), Some((8, 0)))));
        d.answer(out[1].1, &[5, 9]);
        let mut answers = Vec::new();
        d.take_answers(&mut answers);
        assert!(answers.is_empty());
        d.answer(out[0].1, &[1]);
        d.take_answers(&mut answers);
        assert_eq!(answers, vec![(ticket, vec![1, 5, 9])]);
        assert_eq!((d.pending(), d.parts()), (0, 0));
    }
}
