//! Delayed lookups (the buffer tree's batched lookups, `buffered-bplus-
//! tree.md` §3.1): a lookup travels down the buffers as an element and is
//! answered when it reaches the leaves.
//!
//! The element carries what answers it (§3.1: the lookups are elements in
//! the buffers, on flash): a lookup is `Op::Lookup` with its **ticket** in
//! the value field, and needs no RAM until it is answered, whole, by the
//! key's pairs in the tree when it reaches the leaves.
//!
//! A key's pairs may lie under several children, so a lookup may split
//! into **parts** (`Op::LookupPart`), one per subtree it is sent to. Each
//! part owns a range of pairs, kept here, in RAM, by part id (the element
//! carries the id): at an emptying it is cut by the children's ranges, at
//! a buffer split by the separator, and at the leaves it is answered with
//! the tree's pairs of the key inside its range. The parts of a lookup
//! always cover the key's pairs exactly once, so the answer is the union
//! of the parts' answers, complete when the last part is in. Only a
//! lookup cut so (its key's pairs straddle a separator: rare), or one
//! whose ticket passes the value field, holds RAM while in flight.
//! A lookup reaches the leaves after every older operation on its pairs
//! and before every newer one (a key's elements keep their order in every
//! buffer), so the answer is what `get` would have returned at the lookup.
//!
//! Invariants:
//! 1. Every part id in a buffer element is in `parts`, and no id is in two
//!    elements.
//! 2. A pending lookup's `parts` counts its parts in `parts`.
//! 3. A ticket in an `Op::Lookup` element is in no other element and not
//!    in `pending`.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::buffers::{Elem, Op};

/// A hash map with a fixed hasher: the order answers come out in, and so
/// the capacity of what holds them (counted in `memory_bytes`), is the
/// same in every run of a seeded experiment (with the standard random
/// hasher, `lat-fig9`'s `delayed_lookup_bytes` differed between two runs).
type Map<K, V> = HashMap<K, V, BuildHasherDefault<DefaultHasher>>;

/// Answers' room kept between operations.
const KEPT_ANSWERS: usize = 16;

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
    /// Part ids and tickets ride in the value field: ids cycle within its
    /// width, and tickets past it take the parts' way.
    max_part: u64,
    next_part: u64,
    next_ticket: u64,
    /// Lookups in flight as parts (the others are their elements alone).
    pending: Map<u64, Pending>,
    parts: Map<u64, Part>,
    answers: Vec<(u64, Vec<u64>)>,
    /// Lookups in flight in all (for the report).
    in_flight: u64,
}

/// The pairs of `key`.
fn key_span(key: u64) -> Span {
    ((key, 0), key.checked_add(1).map(|k| (k, 0)))
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
            in_flight: 0,
        }
    }

    /// A new lookup of `key`: its ticket, and the value and op of its
    /// element.
    pub fn issue(&mut self, key: u64) -> (u64, u64, Op) {
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        self.in_flight += 1;
        if ticket <= self.max_part {
            return (ticket, ticket, Op::Lookup);
        }
        self.pending.insert(
            ticket,
            Pending {
                parts: 1,
                values: Vec::new(),
            },
        );
        let part = self.new_part(ticket, key_span(key));
        (ticket, part, Op::LookupPart)
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

    /// The pairs lookup element `e` answers for.
    pub fn span(&self, e: &Elem) -> Option<Span> {
        match e.op {
            Op::Lookup => Some(key_span(e.key)),
            _ => self.parts.get(&{ e.value }).map(|p| p.span),
        }
    }

    /// Cuts lookup element `e` by `spans`: one piece for each span its
    /// pairs overlap, appended to `out` as (index into `spans`, value);
    /// returns the op of the pieces. A whole lookup that meets one span
    /// stays whole (same ticket); one that meets more becomes parts.
    pub fn cut(&mut self, e: Elem, spans: &[Span], out: &mut Vec<(usize, u64)>) -> Op {
        if e.op == Op::Lookup {
            let whole = key_span(e.key);
            let mut meets = spans
                .iter()
                .enumerate()
                .filter(|&(_, &s)| intersect(whole, s).is_some());
            match (meets.next(), meets.next()) {
                (Some((i, _)), None) => {
                    out.push((i, e.value));
                    return Op::Lookup;
                }
                (None, _) => {
                    // No subtree holds the key's pairs: answered empty.
                    self.in_flight = self.in_flight.saturating_sub(1);
                    self.answers.push((e.value, Vec::new()));
                    return Op::Lookup;
                }
                _ => {}
            }
            // Invariant 3: the ticket is not pending yet; it counts as one
            // part until cut.
            self.pending.insert(
                e.value,
                Pending {
                    parts: 1,
                    values: Vec::new(),
                },
            );
            let p = Part {
                ticket: e.value,
                span: whole,
            };
            self.cut_part(p, spans, out);
        } else if let Some(p) = self.parts.remove(&{ e.value }) {
            self.cut_part(p, spans, out);
        }
        Op::LookupPart
    }

    /// Replaces part `p` (out of `parts`) by one part for each of `spans`
    /// it overlaps.
    fn cut_part(&mut self, p: Part, spans: &[Span], out: &mut Vec<(usize, u64)>) {
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

    /// Lookup element `e` found `values` (its pairs' values, ascending).
    pub fn answer(&mut self, e: &Elem, values: &[u64]) {
        if e.op == Op::Lookup {
            self.in_flight = self.in_flight.saturating_sub(1);
            self.answers.push((e.value, values.to_vec()));
            return;
        }
        let Some(p) = self.parts.remove(&{ e.value }) else {
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
            self.in_flight = self.in_flight.saturating_sub(1);
            l.values.sort_unstable();
            self.answers.push((ticket, l.values));
        }
    }

    /// Hands the answers over; a burst of them (a flush answers every
    /// lookup in flight) leaves no capacity behind.
    pub fn take_answers(&mut self, out: &mut Vec<(u64, Vec<u64>)>) {
        out.append(&mut self.answers);
        self.answers.shrink_to(KEPT_ANSWERS);
    }

    /// Lookups not answered yet.
    pub fn pending(&self) -> u64 {
        self.in_flight
    }

    /// Parts in flight.
    pub fn parts(&self) -> usize {
        self.parts.len()
    }

    /// The first pair of the part with the lowest id (the first to answer
    /// when the parts pass their share).
    pub fn some_part(&self) -> Option<(u64, u64)> {
        self.parts
            .iter()
            .min_by_key(|&(&id, _)| id)
            .map(|(_, p)| p.span.0)
    }

    /// What the lookups in flight as parts hold, at the tables' entry
    /// widths (without the tables' spare room).
    pub fn held_bytes(&self) -> usize {
        self.pending
            .values()
            .map(|l| l.values.capacity() * 8)
            .sum::<usize>()
            + self.pending.len() * (size_of::<(u64, Pending)>() + 1)
            + self.parts.len() * (size_of::<(u64, Part)>() + 1)
    }

    /// Gives the tables' spare room back (after many were answered).
    pub fn shrink(&mut self) {
        self.parts.shrink_to_fit();
        self.pending.shrink_to_fit();
    }

    /// RAM the delayed lookups hold: each lookup in flight as parts, each
    /// part and each answer not yet taken, at their in-RAM widths and
    /// capacities (a whole lookup in flight holds none: it is its element).
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
        let (ticket, value, op) = d.issue(7);
        assert_eq!((value, op), (ticket, Op::Lookup));
        let mut out = Vec::new();
        // Two children split the key's pairs at (7, 5); a third is elsewhere.
        let e = Elem { key: 7, value, op };
        let op = d.cut(
            e,
            &[
                ((0, 0), Some((7, 5))),
                ((7, 5), Some((9, 0))),
                ((9, 0), None),
            ],
            &mut out,
        );
        assert_eq!((out.len(), op), (2, Op::LookupPart));
        let part = |v| Elem {
            key: 7,
            value: v,
            op,
        };
        assert_eq!(d.span(&part(out[0].1)), Some(((7, 0), Some((7, 5)))));
        assert_eq!(d.span(&part(out[1].1)), Some(((7, 5), Some((8, 0)))));
        d.answer(&part(out[1].1), &[5, 9]);
        let mut answers = Vec::new();
        d.take_answers(&mut answers);
        assert!(answers.is_empty());
        d.answer(&part(out[0].1), &[1]);
        d.take_answers(&mut answers);
        assert_eq!(answers, vec![(ticket, vec![1, 5, 9])]);
        assert_eq!((d.pending(), d.parts()), (0, 0));
    }

    #[test]
    fn a_whole_lookup_holds_no_ram_in_flight() {
        let mut d = Delayed::new(u32::MAX as u64);
        let (ticket, value, op) = d.issue(3);
        let e = Elem { key: 3, value, op };
        let mut out = Vec::new();
        // The key's pairs lie under one child: it goes on whole.
        assert_eq!(
            d.cut(e, &[((0, 0), Some((5, 0))), ((5, 0), None)], &mut out),
            Op::Lookup
        );
        assert_eq!(out, vec![(0, ticket)]);
        assert_eq!((d.pending(), d.memory_bytes()), (1, 0));
        d.answer(&e, &[4]);
        let mut answers = Vec::new();
        d.take_answers(&mut answers);
        assert_eq!(answers, vec![(ticket, vec![4])]);
        assert_eq!(d.pending(), 0);
        // Past the value field's width, tickets take the parts' way.
        let mut d = Delayed::new(0);
        d.issue(1);
        assert_eq!(d.issue(1).2, Op::LookupPart);
    }
}
