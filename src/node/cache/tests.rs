//! The node cache's tests: the id index, pins, eviction orders, the dirty order.

use super::*;

/// The id index agrees with a map over a mix of inserts, overwrites
/// and removals of clustered ids (long probe runs, so the backward
/// shift of `remove` is exercised), and stays at most eight times its
/// largest size (a quarter full, rounded up to a power of two).
#[test]
fn id_index_agrees_with_a_map() {
    let mut index = IdIndex::default();
    let mut model = std::collections::HashMap::new();
    let mut x: u64 = 43;
    for step in 0..20_000u32 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let id = ((x >> 33) % 97) as NodeId * 64;
        if (x >> 20).is_multiple_of(3) {
            index.remove(id);
            model.remove(&id);
        } else {
            index.insert(id, step);
            model.insert(id, step);
        }
        assert_eq!(index.len(), model.len());
    }
    for id in 0..97 * 64 {
        assert_eq!(index.get(id), model.get(&id).copied(), "id {id}");
    }
    assert!(index.table.len() <= 8 * 97);
}

fn node(level: u8) -> Node {
    Node {
        level,
        ..Node::default()
    }
}

fn ids(ev: &mut Vec<Evicted>) -> Vec<NodeId> {
    ev.drain(..).map(|e| e.id).collect()
}

#[test]
fn mlru_evicts_lowest_level_then_oldest_and_searches_do_not_insert() {
    let mut ev = Vec::new();
    let mut c = NodeCache::new(CachePolicy::ModifiedLru, 3);
    assert!(c.after_update_miss(1, node(2), &mut ev).is_none());
    assert!(c.after_update_miss(2, node(0), &mut ev).is_none());
    assert!(c.after_update_miss(3, node(0), &mut ev).is_none());
    assert!(ev.is_empty());
    // A search miss never inserts.
    assert!(c.after_read(9, node(0), false, false, &mut ev).is_some());
    assert!(!c.contains(9));
    // A search hit refreshes node 2, so node 3 is now the oldest leaf.
    let (n, d) = c.take(2).unwrap();
    assert!(c.after_read(2, n, true, d, &mut ev).is_none());
    assert!(c.after_update_miss(4, node(1), &mut ev).is_none());
    assert_eq!(ids(&mut ev), vec![3]);
    // Levels {2, 0, 1}: a new leaf beats the old leaf (newer).
    assert!(c.after_update_miss(5, node(0), &mut ev).is_none());
    assert_eq!(ids(&mut ev), vec![2]);
    // Evict leaf 5 for a level-1 node; then only internal nodes remain
    // and a leaf is refused.
    assert!(c.after_update_miss(6, node(1), &mut ev).is_none());
    assert_eq!(ids(&mut ev), vec![5]);
    assert!(c.after_update_miss(7, node(0), &mut ev).is_some());
    assert!(ev.is_empty());
    assert_eq!(c.len(), 3);
}

#[test]
fn touch_refreshes_like_take_and_after_read() {
    // The same sequence twice, refreshing node 1 by touch in one cache
    // and by take + after_read in the other: same victims, same
    // dirtiness, same hit counts.
    for by_touch in [true, false] {
        let mut ev = Vec::new();
        let mut c = NodeCache::new(CachePolicy::Lru, 2);
        c.after_update_hit(1, node(0), &mut ev);
        assert!(c.after_read(2, node(0), false, false, &mut ev).is_none());
        if by_touch {
            assert_eq!(c.touch(1).map(|n| n.level), Some(0));
            assert!(c.touch(9).is_none());
        } else {
            let (n, dirty) = c.take(1).unwrap();
            assert!(c.after_read(1, n, true, dirty, &mut ev).is_none());
        }
        assert!(c.after_read(3, node(0), false, false, &mut ev).is_none());
        assert_eq!(ids(&mut ev), vec![2], "touch={by_touch}");
        assert_eq!(
            c.dirty_nodes().map(|(id, _)| id).collect::<Vec<_>>(),
            vec![1]
        );
        assert_eq!(c.hits, 1);
    }
}

#[test]
fn pin_and_unpin_keep_the_slots_of_take_and_after_read() {
    // Root, an internal node and a leaf out at once, a new leaf placed
    // while they are out (an insert's descent): the same victims, the
    // same slots (the order dirty nodes are written in) and the same
    // counts whether the upper two are pinned or taken.
    let mut runs = Vec::new();
    for by_pin in [true, false] {
        let mut ev = Vec::new();
        let mut c = NodeCache::new(CachePolicy::ModifiedLru, 4);
        for (id, level) in [(1, 2), (2, 1), (3, 0), (4, 0)] {
            c.after_update_hit(id, node(level), &mut ev);
        }
        let mut log = Vec::new();
        for round in 0..6u32 {
            let leaf = 10 + round;
            if by_pin {
                let p1 = c.pin(1).unwrap();
                let p2 = c.pin(2).unwrap();
                assert_eq!(c.pinned(&p2).level, 1);
                assert!(c.after_update_miss(leaf, node(0), &mut ev).is_none());
                c.unpin(p2, &mut ev);
                c.unpin(p1, &mut ev);
            } else {
                let (n1, d1) = c.take(1).unwrap();
                let (n2, d2) = c.take(2).unwrap();
                assert!(c.after_update_miss(leaf, node(0), &mut ev).is_none());
                assert!(c.after_read(2, n2, true, d2, &mut ev).is_none());
                assert!(c.after_read(1, n1, true, d1, &mut ev).is_none());
            }
            log.push(ids(&mut ev));
        }
        assert!(c.pin(99).is_none());
        let dirty: Vec<NodeId> = c.dirty_nodes().map(|(id, _)| id).collect();
        runs.push((log, dirty, c.hits, c.misses, c.len()));
    }
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn a_pinned_node_stays_on_its_list_but_is_never_the_victim() {
    // LRU, node 1 the oldest when pinned: the victims pass over it, and
    // unpinned it is the newest, as after a take and an `after_read`.
    let mut ev = Vec::new();
    let mut c = NodeCache::new(CachePolicy::Lru, 2);
    c.after_update_hit(1, node(1), &mut ev);
    c.after_update_hit(2, node(0), &mut ev);
    let p = c.pin(1).unwrap();
    assert!(!c.contains(1));
    assert!(c.after_update_miss(3, node(0), &mut ev).is_none());
    assert!(c.after_update_miss(4, node(0), &mut ev).is_none());
    assert_eq!(ids(&mut ev), vec![2]);
    c.unpin(p, &mut ev);
    assert_eq!(ids(&mut ev), vec![3]);
    assert!(c.after_update_miss(5, node(0), &mut ev).is_none());
    assert_eq!(ids(&mut ev), vec![4]);
    assert!(c.contains(1) && c.contains(5));
    // `mlru`, a list of pinned nodes only is empty: the victim comes
    // from the next list up.
    let mut c = NodeCache::new(CachePolicy::ModifiedLru, 2);
    c.after_update_hit(1, node(1), &mut ev);
    c.after_update_hit(2, node(2), &mut ev);
    let p = c.pin(1).unwrap();
    c.after_update_hit(3, node(3), &mut ev);
    assert!(ev.is_empty());
    c.unpin(p, &mut ev);
    assert_eq!(ids(&mut ev), vec![2]);
    assert!(c.contains(1) && c.contains(3));
}

/// Pins against takes over random descents (with splits taking a
/// pinned node for good, leaves placed and dirtied below, flushes):
/// the same victims, the same order of dirty nodes (the slot numbers),
/// the same counts, for both caching policies that keep updates.
#[test]
fn pins_act_as_takes_over_random_descents() {
    for policy in [CachePolicy::ModifiedLru, CachePolicy::Lru] {
        let mut runs = Vec::new();
        for by_pin in [true, false] {
            let mut ev = Vec::new();
            let mut c = NodeCache::new(policy, 7);
            let mut log = Vec::new();
            let mut x: u64 = 5;
            let mut next = |m: u64| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) % m
            };
            for (id, level) in [(1, 3), (2, 2), (3, 2), (4, 1), (5, 1), (6, 1)] {
                c.after_update_hit(id, node(level), &mut ev);
            }
            for _ in 0..3_000 {
                // A descent through up to three cached upper nodes.
                let path = [1, 2 + next(2) as NodeId, 4 + next(3) as NodeId];
                let depth = 1 + next(3) as usize;
                let mut out = Vec::new();
                for &id in &path[..depth] {
                    if by_pin {
                        match c.pin(id) {
                            Some(p) => out.push((id, Some(p), None)),
                            None => break,
                        }
                    } else {
                        match c.take(id) {
                            Some(t) => out.push((id, None, Some(t))),
                            None => break,
                        }
                    }
                }
                // Now and then an id on the path (a tree whose nodes
                // name each other): the pinned record loses its id.
                let leaf = match next(60) {
                    0 => path[0],
                    1 => path[2],
                    _ => 100 + next(40) as NodeId,
                };
                match next(3) {
                    0 => drop(c.after_update_miss(leaf, node(0), &mut ev)),
                    1 => c.after_update_hit(leaf, node(0), &mut ev),
                    _ => drop(c.discard(leaf)),
                }
                let split = next(5) == 0;
                while let Some((id, p, t)) = out.pop() {
                    let (n, dirty, taken) = match (p, t) {
                        (Some(p), _) if split => {
                            let (n, d) = c.unpin_take(p);
                            (n, d, true)
                        }
                        (Some(p), _) => {
                            c.unpin(p, &mut ev);
                            continue;
                        }
                        (_, Some((n, d))) => (n, d, split),
                        _ => unreachable!(),
                    };
                    if taken {
                        c.after_update_hit(id, n, &mut ev);
                    } else {
                        assert!(c.after_read(id, n, true, dirty, &mut ev).is_none());
                    }
                }
                log.push(ids(&mut ev));
                if next(50) == 0 {
                    log.push(c.dirty_nodes().map(|(id, _)| id).collect());
                }
            }
            runs.push((log, c.hits, c.misses, c.len()));
        }
        assert_eq!(runs[0], runs[1], "{policy:?}");
    }
}

#[test]
fn wt_lru_keeps_every_copy_clean_and_admits_reads() {
    let mut ev = Vec::new();
    let mut c = NodeCache::new(CachePolicy::WriteThroughLru, 2);
    assert!(c.writes_through_on_miss() && c.writes_through_on_hit());
    assert!(c.after_update_miss(1, node(0), &mut ev).is_none());
    assert!(c.after_read(2, node(0), false, false, &mut ev).is_none());
    let (n, dirty) = c.take(1).unwrap();
    assert!(!dirty);
    c.after_update_hit(1, n, &mut ev);
    assert_eq!(c.dirty_nodes().count(), 0);
    // Node 2 is the oldest; evicted clean, nothing to write.
    assert!(c.after_update_miss(3, node(0), &mut ev).is_none());
    assert_eq!(ev.len(), 1);
    assert!(ev.iter().all(|e| e.id == 2 && !e.dirty));
}

#[test]
fn lru_is_write_back_and_admits_reads() {
    let mut ev = Vec::new();
    let mut c = NodeCache::new(CachePolicy::Lru, 2);
    assert!(!c.writes_through_on_miss());
    assert!(c.after_update_miss(1, node(0), &mut ev).is_none());
    assert!(c.after_read(2, node(0), false, false, &mut ev).is_none());
    assert!(c.after_read(3, node(0), false, false, &mut ev).is_none());
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].id, 1);
    assert!(ev[0].dirty, "a dirty victim must be written");
    assert_eq!(c.dirty_nodes().count(), 0);
}

#[test]
fn none_keeps_nothing() {
    let mut ev = Vec::new();
    let mut c = NodeCache::new(CachePolicy::None, 100);
    assert_eq!(c.capacity(), 0);
    assert!(c.after_update_miss(1, node(0), &mut ev).is_some());
    assert!(c.after_read(1, node(0), false, false, &mut ev).is_some());
}

/// The policies as plain lists (oldest first; a removal searches them),
/// with slot numbers handed out and freed as the cache's labels are: what
/// the cache's records, sentinels and pins must behave as.
struct Model {
    policy: CachePolicy,
    capacity: usize,
    lists: Vec<Vec<NodeId>>,
    /// Resident id → (label, dirty).
    slots: std::collections::HashMap<NodeId, (u32, bool)>,
    free_labels: Vec<u32>,
    labels: u32,
    hits: u64,
    misses: u64,
}

impl Model {
    fn new(policy: CachePolicy, capacity: usize) -> Self {
        Model {
            policy,
            capacity: if policy == CachePolicy::None {
                0
            } else {
                capacity
            },
            lists: vec![Vec::new(); 8],
            slots: Default::default(),
            free_labels: Vec::new(),
            labels: 0,
            hits: 0,
            misses: 0,
        }
    }
    fn list(&self, id: NodeId) -> usize {
        match self.policy {
            CachePolicy::ModifiedLru => model_level(id) as usize,
            _ => 0,
        }
    }
    fn remove(&mut self, id: NodeId) -> Option<bool> {
        let (label, dirty) = self.slots.remove(&id)?;
        let list = self.list(id);
        self.lists[list].retain(|&x| x != id);
        self.free_labels.push(label);
        Some(dirty)
    }
    fn insert(&mut self, id: NodeId, dirty: bool) {
        let label = self.free_labels.pop().unwrap_or_else(|| {
            self.labels += 1;
            self.labels - 1
        });
        let list = self.list(id);
        self.lists[list].push(id);
        self.slots.insert(id, (label, dirty));
    }
    fn victim(&self) -> Option<(u8, NodeId)> {
        let (level, l) = self.lists.iter().enumerate().find(|(_, l)| !l.is_empty())?;
        Some((level as u8, l[0]))
    }
    fn evict_to(&mut self, room: usize, out: &mut Vec<(NodeId, bool)>) {
        while !self.slots.is_empty() && self.slots.len() + room > self.capacity {
            let (_, id) = self.victim().unwrap();
            let dirty = self.remove(id).unwrap();
            out.push((id, dirty));
        }
    }
    fn take(&mut self, id: NodeId) -> Option<bool> {
        let dirty = self.remove(id);
        match dirty {
            Some(_) => self.hits += 1,
            None => self.misses += 1,
        }
        dirty
    }
    /// `after_read` of a taken node, or of one read after a miss.
    fn read_back(&mut self, id: NodeId, taken: Option<bool>, out: &mut Vec<(NodeId, bool)>) {
        let admits = matches!(self.policy, CachePolicy::Lru | CachePolicy::WriteThroughLru);
        if taken.is_some() || (admits && self.capacity > 0) {
            self.evict_to(1, out);
            self.insert(id, taken.unwrap_or(false));
        }
    }
    fn update(&mut self, id: NodeId, taken: Option<bool>, out: &mut Vec<(NodeId, bool)>) {
        if taken.is_some() {
            self.evict_to(1, out);
            self.insert(id, self.policy != CachePolicy::WriteThroughLru);
            return;
        }
        match self.policy {
            _ if self.capacity == 0 => {}
            CachePolicy::None => {}
            CachePolicy::Lru | CachePolicy::WriteThroughLru => {
                self.evict_to(1, out);
                self.insert(id, self.policy == CachePolicy::Lru);
            }
            CachePolicy::ModifiedLru => {
                if self.slots.len() >= self.capacity {
                    if let Some((victim, _)) = self.victim() {
                        if model_level(id) < victim {
                            return;
                        }
                    }
                }
                self.evict_to(1, out);
                self.insert(id, false);
            }
        }
    }
    fn dirty_nodes(&mut self) -> Vec<NodeId> {
        let mut dirty: Vec<(u32, NodeId)> = (self.slots.iter())
            .filter(|(_, s)| s.1)
            .map(|(&id, s)| (s.0, id))
            .collect();
        dirty.sort_unstable();
        for (_, id) in &dirty {
            self.slots.get_mut(id).unwrap().1 = false;
        }
        dirty.into_iter().map(|(_, id)| id).collect()
    }
}

fn model_level(id: NodeId) -> u8 {
    (id % 4) as u8
}

/// A node tagged with its id (in `next`), at its model level.
fn tagged(id: NodeId) -> Node {
    Node {
        level: model_level(id),
        next: id,
        ..Node::default()
    }
}

fn evicted_of(ev: &mut Vec<Evicted>) -> Vec<(NodeId, bool)> {
    ev.drain(..)
        .map(|e| {
            assert_eq!(e.node.next, e.id);
            (e.id, e.dirty)
        })
        .collect()
}

/// Every policy against [`Model`] over random reads, touches, updates,
/// descents of pins (some taken for good by a split), discards, flushes
/// and capacity changes: the same victims in the same order, the same
/// dirty order, hits, misses and length after every step.
#[test]
fn every_policy_agrees_with_the_model() {
    for policy in [
        CachePolicy::ModifiedLru,
        CachePolicy::Lru,
        CachePolicy::WriteThroughLru,
        CachePolicy::None,
    ] {
        for seed in 0..4u64 {
            let mut x: u64 = seed * 7 + 3;
            let mut next = |m: u64| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) % m
            };
            let capacity = 1 + seed as usize * 3;
            let mut c = NodeCache::new(policy, capacity);
            let mut m = Model::new(policy, capacity);
            let mut ev = Vec::new();
            let mut want = Vec::new();
            for step in 0..4_000 {
                let id = next(24) as NodeId;
                match next(12) {
                    0..=2 => {
                        let got = c.touch(id).map(|n| n.next);
                        let resident = m.slots.contains_key(&id);
                        if resident {
                            m.hits += 1;
                            let list = m.list(id);
                            m.lists[list].retain(|&x| x != id);
                            m.lists[list].push(id);
                        }
                        assert_eq!(got, resident.then_some(id), "step {step}");
                    }
                    3 | 4 => {
                        let taken = c.take(id);
                        let was = m.take(id);
                        assert_eq!(
                            taken.as_ref().map(|t| (t.0.next, t.1)),
                            was.map(|d| (id, d))
                        );
                        let (node, dirty) = taken.unwrap_or((tagged(id), false));
                        let back = c.after_read(id, node, was.is_some(), dirty, &mut ev);
                        m.read_back(id, was, &mut want);
                        assert_eq!(back.is_none(), m.slots.contains_key(&id), "step {step}");
                    }
                    5 | 6 => {
                        let taken = c.take(id);
                        let was = m.take(id);
                        match taken {
                            Some((node, _)) => c.after_update_hit(id, node, &mut ev),
                            None => drop(c.after_update_miss(id, tagged(id), &mut ev)),
                        }
                        m.update(id, was, &mut want);
                    }
                    7..=9 => {
                        // A descent: distinct ids on the path, an update
                        // below them, then back up (a split takes some).
                        let path = [id, 24 + next(8) as NodeId, 32 + next(8) as NodeId];
                        let mut out = Vec::new();
                        for &p in &path[..1 + next(3) as usize] {
                            let pin = c.pin(p);
                            let was = m.take(p);
                            assert_eq!(pin.is_some(), was.is_some(), "step {step}");
                            match pin {
                                Some(pin) => out.push((pin, was.unwrap())),
                                None => break,
                            }
                        }
                        // A pinned node reads as absent, to a touch and
                        // to another pin (no hit or miss counted).
                        for (pin, _) in &out {
                            assert!(c.touch(pin.id()).is_none(), "step {step}");
                            assert!(c.pin_cached(pin.id()).is_none(), "step {step}");
                        }
                        let leaf = 40 + next(8) as NodeId;
                        let was = m.take(leaf);
                        match c.take(leaf) {
                            Some((node, _)) => c.after_update_hit(leaf, node, &mut ev),
                            None => drop(c.after_update_miss(leaf, tagged(leaf), &mut ev)),
                        }
                        m.update(leaf, was, &mut want);
                        let split = next(4) == 0;
                        while let Some((pin, dirty)) = out.pop() {
                            let p = pin.id();
                            assert_eq!(c.pinned(&pin).next, p);
                            if split {
                                let (node, d) = c.unpin_take(pin);
                                assert_eq!(d, dirty);
                                c.after_update_hit(p, node, &mut ev);
                                m.update(p, Some(dirty), &mut want);
                            } else {
                                c.unpin(pin, &mut ev);
                                m.read_back(p, Some(dirty), &mut want);
                            }
                        }
                    }
                    10 => {
                        let got = c.discard(id).map(|n| n.next);
                        assert_eq!(got, m.remove(id).map(|_| id), "step {step}");
                    }
                    _ if next(4) == 0 => {
                        let cap = next(2 * capacity as u64 + 2) as usize;
                        c.set_capacity(cap, &mut ev);
                        if policy != CachePolicy::None {
                            m.capacity = cap;
                            m.evict_to(0, &mut want);
                        }
                    }
                    _ => {
                        let got: Vec<NodeId> = c.dirty_nodes().map(|(id, _)| id).collect();
                        assert_eq!(got, m.dirty_nodes(), "step {step}");
                    }
                }
                assert_eq!(
                    evicted_of(&mut ev),
                    std::mem::take(&mut want),
                    "step {step}"
                );
                assert_eq!(
                    (c.hits, c.misses, c.len()),
                    (m.hits, m.misses, m.slots.len())
                );
                assert_eq!(c.is_empty(), m.slots.is_empty());
                for probe in 0..48 {
                    assert_eq!(c.contains(probe), m.slots.contains_key(&probe));
                }
            }
        }
    }
}

/// An unpin that must evict hands the victim's label to the record
/// directly, unless the record lost its id while pinned (then the label is
/// freed and `place` takes it): both as a take and `after_read` would do.
#[test]
fn an_evicting_unpin_keeps_the_slots_of_take_and_after_read() {
    for lose in [false, true] {
        let mut runs = Vec::new();
        for by_pin in [true, false] {
            let mut ev = Vec::new();
            let mut c = NodeCache::new(CachePolicy::ModifiedLru, 3);
            for (id, level) in [(1, 2), (2, 1), (10, 0)] {
                c.after_update_hit(id, node(level), &mut ev);
            }
            let mut log = Vec::new();
            for round in 0..4u32 {
                let (p1, p2) = if by_pin {
                    (c.pin(1), c.pin(2))
                } else {
                    (None, None)
                };
                let (t1, t2) = if by_pin {
                    (None, None)
                } else {
                    (c.take(1), c.take(2))
                };
                drop(c.after_update_miss(20 + round, node(0), &mut ev));
                if lose {
                    c.after_update_hit(2, node(1), &mut ev);
                }
                match (p1, p2, t1, t2) {
                    (Some(p1), Some(p2), None, None) => {
                        c.unpin(p2, &mut ev);
                        c.unpin(p1, &mut ev);
                    }
                    (None, None, Some((n1, d1)), Some((n2, d2))) => {
                        assert!(c.after_read(2, n2, true, d2, &mut ev).is_none());
                        assert!(c.after_read(1, n1, true, d1, &mut ev).is_none());
                    }
                    _ => unreachable!(),
                }
                log.push(ids(&mut ev));
                log.push(c.dirty_nodes().map(|(id, _)| id).collect());
                c.after_update_hit(10 + round, node(0), &mut ev);
                log.push(ids(&mut ev));
            }
            runs.push((log, c.hits, c.misses, c.len()));
        }
        assert_eq!(runs[0], runs[1], "lose {lose}");
        assert!(runs[0].0.iter().any(|evicted| !evicted.is_empty()));
    }
}
