//! The commit layer's page map, sized: how many levels a map of a
//! capacity needs, how many map pages it takes, and how many logical pages
//! a medium can offer once the map (twice over: a commit writes a new copy
//! of what changed before the old one is released) and the meta pages are
//! set aside. Pure arithmetic over the layout `super` (`device::shadow`)
//! documents; no state, no I/O.

use super::FIRST_DATA;

/// Map height for `capacity` logical pages at `per_page` entries a page.
pub(super) fn levels_for(capacity: u64, per_page: u64) -> u32 {
    let mut levels = 1;
    let mut covered = per_page;
    while covered < capacity {
        covered = covered.saturating_mul(per_page);
        levels += 1;
    }
    levels
}

/// The logical pages offered on `physical` pages: room for the map twice
/// over (a commit writes a new copy of what changed before the old one is
/// released) and the meta pages.
pub(super) fn offered_capacity(physical: u64, per_map_page: u64) -> u64 {
    let mut capacity = physical.saturating_sub(FIRST_DATA);
    for _ in 0..4 {
        let levels = levels_for(capacity.max(1), per_map_page);
        let overhead = 2 * map_pages(capacity, per_map_page, levels);
        capacity = physical.saturating_sub(FIRST_DATA + overhead);
    }
    capacity
}

/// Map pages a full map of `capacity` pages needs.
pub(super) fn map_pages(capacity: u64, per_page: u64, levels: u32) -> u64 {
    let mut total = 0;
    let mut span = 1u64;
    for _ in 0..levels {
        span = span.saturating_mul(per_page);
        total += capacity.div_ceil(span);
    }
    total
}
