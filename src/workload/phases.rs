//! A workload's two phases, the preload and the measured operations, from
//! one generator: the measured phase starts where the preload's generator
//! stopped (its live set, ascending position and value counter:
//! [`Generator::continue_with`]), so the preload is generated once.
//!
//! Why: the runner takes both phases as iterators before it starts, and
//! the measured phase needs the preload's final state. It used to generate
//! the preload twice, once ahead to reach that state; at 10^8 entries that
//! pass was seconds of every run (issue #31). Here the two iterators share
//! the generator, and the measured one takes it over at its first item.
//!
//! Invariant: both phases' operations are exactly those the two-pass way
//! gave. The preload's generator is run to its end before it is continued
//! (a runner that stopped drawing the preload early still gets the
//! measured phase that follows the whole preload), and a preload of
//! inserts does not depend on whether it keeps its live entries. A
//! workload in phases (`lat-phases`) is the exception: its preload takes
//! the phases' searches too, whose keys come from the live set, and the
//! two-pass way drew them from a preload that counted its live entries
//! only (so searched key 0); such a workload keeps the two passes, so that
//! its results do not move (docs/PERFORMANCE.md, issue #31).

use std::cell::RefCell;
use std::rc::Rc;

use super::{Generator, WorkloadError, WorkloadSpec};
use crate::workload::Op;

/// The preload's generator, until the measured phase takes it over.
pub type Shared = Rc<RefCell<Option<Generator>>>;

/// The preload phase: its generator shared with [`Measured`], or its own
/// (a workload in phases, module docs).
pub enum Preload {
    Shared(Shared),
    Own(Box<Generator>),
}

/// The measured phase: [`Generator::continue_with`] of the preload's
/// generator, taken over at the first item.
pub struct Measured {
    preload: Option<Shared>,
    spec: WorkloadSpec,
    running: Option<Generator>,
}

/// `spec`'s preload and measured phases, values wrapping below
/// `max_value` (the entry format's largest value).
pub fn phases(spec: &WorkloadSpec, max_value: u64) -> Result<(Preload, Measured), WorkloadError> {
    if !spec.phases.is_empty() {
        let mut ahead = spec.preload_ops()?.with_max_value(max_value);
        ahead.by_ref().for_each(drop);
        let measured = Measured {
            preload: None,
            spec: spec.clone(),
            running: Some(ahead.continue_with(spec)?),
        };
        let own = spec
            .preload_ops()?
            .with_max_value(max_value)
            .counting_live();
        return Ok((Preload::Own(Box::new(own)), measured));
    }
    let shared = Rc::new(RefCell::new(Some(
        spec.preload_ops()?.with_max_value(max_value),
    )));
    let measured = Measured {
        preload: Some(shared.clone()),
        spec: spec.clone(),
        running: None,
    };
    Ok((Preload::Shared(shared), measured))
}

impl Iterator for Preload {
    type Item = Result<Op, WorkloadError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Preload::Shared(g) => g.borrow_mut().as_mut()?.next(),
            Preload::Own(g) => g.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Preload::Shared(g) => g
                .borrow()
                .as_ref()
                .map_or((0, Some(0)), Iterator::size_hint),
            Preload::Own(g) => g.size_hint(),
        }
    }
}

impl Iterator for Measured {
    type Item = Result<Op, WorkloadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.running.is_none() {
            let mut preload = self.preload.as_ref()?.borrow_mut().take()?;
            preload.by_ref().for_each(drop);
            match preload.continue_with(&self.spec) {
                Ok(g) => self.running = Some(g),
                Err(e) => return Some(Err(e)),
            }
        }
        self.running.as_mut()?.next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both phases equal the two-pass way's, for a mix that reads the
    /// preload's live entries and one that does not, and when the preload
    /// is not drawn to its end.
    #[test]
    fn phases_equal_generating_the_preload_twice() {
        for (mix, preload, drawn) in [
            ("w-update", 3_000, 3_000),
            ("w-search", 3_000, 3_000),
            ("w-update", 2_000, 500),
            ("lat-phases", 3_000, 3_000),
        ] {
            let sorted = [("preload_sorted".to_string(), "true".to_string())];
            let spec = crate::workload::preset::build(mix, &sorted, Some(preload), Some(4_000), 11)
                .unwrap();
            let mut ahead = spec.preload_ops().unwrap().with_max_value(u32::MAX as u64);
            let want_pre: Vec<Op> = spec
                .preload_ops()
                .unwrap()
                .with_max_value(u32::MAX as u64)
                .counting_live()
                .take(drawn)
                .map(Result::unwrap)
                .collect();
            ahead.by_ref().for_each(drop);
            let want: Vec<Op> = ahead
                .continue_with(&spec)
                .unwrap()
                .map(Result::unwrap)
                .collect();
            let (pre, measured) = phases(&spec, u32::MAX as u64).unwrap();
            let got_pre: Vec<Op> = pre.take(drawn).map(Result::unwrap).collect();
            let got: Vec<Op> = measured.map(Result::unwrap).collect();
            assert_eq!(got_pre, want_pre, "{mix}");
            assert_eq!(got.len(), 4_000, "{mix}");
            assert_eq!(got, want, "{mix}");
        }
    }
}
