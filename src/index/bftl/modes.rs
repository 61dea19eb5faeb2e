//! FlashDB's self-tuning node modes (Roh et al. 2009 §2.3; Nath and Kansal,
//! "FlashDB: dynamic self-tuning database for NAND flash", IPSN 2007),
//! over BFTL's index units, reservation buffer and node translation table.
//!
//! Every node is in one of two modes:
//! * **log mode** — BFTL's: a change becomes index units packed with other
//!   nodes' into shared sectors; reading the node reads every sector of its
//!   list (at most C before a compaction);
//! * **disk mode** — "it operates as does an original B-Tree node": a
//!   change rewrites the node whole as its *node page* (a one-sector B+-tree
//!   node image, `docs/FORMAT.md`), so a read costs one sector.
//!
//! A log-mode node's compaction (its list past C) also writes its node page,
//! and units of later batches follow it: a log is a node page (or nothing)
//! and then unit sectors.
//!
//! The switch is FlashDB's two-state task system, solved online by a
//! working variable per node: each operation adds the cost it had in the
//! current mode minus what it would have cost in the other, and when the
//! variable reaches the cost of translating the node to the other mode and
//! back, the node switches and the variable restarts at 0. The variable is
//! not clamped, so a mode's accumulated benefit must be paid back before it
//! switches — the behaviour Roh et al. 2009 §2.3 criticises ("the node mode
//! cannot be switched until the loss from the current mode dominates the
//! accumulated benefit").
//!
//! Costs, in the device's energy (time when it has none; unit weights on a
//! real file), with `r` a sector read, `w` a sector program, `k` the
//! sectors of the node's list, `d` the sectors its whole image takes and
//! `u` the units one commit adds to it (a node page is one sector, so
//! `d` = 1 in the code):
//!
//! | operation | log mode | disk mode |
//! |---|---|---|
//! | a read from flash | `k·r` | `d·r` |
//! | a commit that changes it | `(u / Λ)·w`, plus `d·w` when it compacts | `d·w` |
//!
//! A node in disk mode has no log to measure, so the cost it would have in
//! log mode follows a *virtual list*: it starts at `d` sectors, grows by one
//! each commit and is compacted (costing `d·w`) past C, as a real list is.
//! Translating log → disk reads the list and writes the image
//! (`k·r + d·w`); disk → log costs nothing, since the image becomes the
//! first sectors of the new log. The threshold is their sum.
//!
//! The modes are RAM state, not format: a reopened index starts every node
//! in log mode, as a new one does. Reads of the top levels kept in RAM, and
//! reads served by a batch's logical views, touch no flash and are not
//! counted. A store opened read-only keeps every node in log mode and
//! counts no read: translating to disk mode writes the node page, and a
//! read-only store writes nothing, so its reads answer through the lists
//! as they are (`BftlStore::set_read_only`).
//!
//! **Log-mode inserts** (`log_insert_reads_leaf`, default `true`). By
//! default an insert reads the leaf it goes into, through its list, as
//! BFTL's does (Wu et al. 2003 §4, Eq. 2: `O(n·H·C)` sectors read for `n`
//! insertions, the leaf level included). With `false` an insert into a
//! log-mode leaf that has room appends its index unit without reading the
//! leaf: only the internal nodes on its way are read, and the leaf's entry
//! count, kept here per node, says whether it has room (a leaf whose count
//! is not known, or that would split, is read as usual). The count is
//! learnt whenever the node is read or written whole, and forgotten on a
//! reopen. An appended pair that is already in the leaf replays as
//! nothing, but the tree counts it once more in its `entries`: the count
//! cannot tell it is a duplicate without the read it saves.
//!
//! Memory: the working variable (`f32`) and the mode (1 byte) per node,
//! and with `log_insert_reads_leaf=false` the leaf's entry count (`u16`),
//! counted in `memory_bytes` as `mode_table_bytes`.

use crate::device::CostModel;

/// Bytes counted per node: its working variable (`f32`); the mode is the
/// top bit of the node's node-translation-table entry.
const MODE_BYTES: usize = 4;

/// Bytes counted per node for its entry count, when log-mode inserts
/// append without reading the leaf.
const COUNT_BYTES: usize = 2;

/// Sectors a node's whole image takes: one node page (`d`).
const IMAGE: usize = 1;

/// What an operation's accounting decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Switch {
    Stay,
    ToDisk,
    ToLog,
}

#[derive(Clone, Copy, Debug, Default)]
struct NodeMode {
    disk: bool,
    working: f32,
    /// Disk mode: the sectors the node's list would have in log mode.
    virtual_sectors: u8,
    /// The leaf's entry count plus one; 0: not known.
    entries: u16,
}

/// The per-node modes and the online switching rule.
pub(super) struct SelfTuning {
    read_cost: f64,
    write_cost: f64,
    lambda: f64,
    compaction_c: usize,
    nodes: Vec<NodeMode>,
    /// `log_insert_reads_leaf=false`: leaf entry counts are kept (and
    /// charged).
    counts_entries: bool,
    pub(super) switches_to_disk: u64,
    pub(super) switches_to_log: u64,
}

impl SelfTuning {
    /// Weights from the device's cost model for sectors of `sector_size`.
    pub(super) fn new(
        cost: Option<CostModel>,
        sector_size: usize,
        lambda: usize,
        compaction_c: usize,
    ) -> Self {
        let (read_cost, write_cost) = CostModel::read_write_weights(cost, sector_size, sector_size);
        SelfTuning {
            read_cost,
            write_cost,
            lambda: lambda.max(1) as f64,
            compaction_c,
            nodes: Vec::new(),
            counts_entries: false,
            switches_to_disk: 0,
            switches_to_log: 0,
        }
    }

    fn slot(&mut self, id: u32) -> &mut NodeMode {
        let i = id as usize;
        if self.nodes.len() <= i {
            self.nodes.resize(i + 1, NodeMode::default());
        }
        &mut self.nodes[i]
    }

    /// Whether node `id` is in disk mode.
    pub(super) fn is_disk(&self, id: u32) -> bool {
        self.nodes.get(id as usize).is_some_and(|m| m.disk)
    }

    /// Keeps each leaf's entry count from now on, for inserts that append
    /// to a log-mode leaf without reading it.
    pub(super) fn count_entries(&mut self) {
        self.counts_entries = true;
    }

    /// Whether leaf entry counts are kept.
    pub(super) fn counts_entries(&self) -> bool {
        self.counts_entries
    }

    /// Leaf `id` holds `n` entries (it was read or written whole).
    pub(super) fn set_entries(&mut self, id: u32, n: usize) {
        if self.counts_entries {
            // A count past u16 is left unknown: such a leaf is read.
            self.slot(id).entries = u16::try_from(n + 1).unwrap_or(0);
        }
    }

    /// Leaf `id`'s entry count, if known.
    pub(super) fn entries(&self, id: u32) -> Option<usize> {
        self.nodes
            .get(id as usize)
            .and_then(|m| (m.entries as usize).checked_sub(1))
    }

    /// A freed node's identifier starts afresh, in log mode.
    pub(super) fn forget(&mut self, id: u32) {
        if let Some(m) = self.nodes.get_mut(id as usize) {
            *m = NodeMode::default();
        }
    }

    /// Node `id` was read from flash through its list of `list` sectors.
    pub(super) fn on_read(&mut self, id: u32, list: usize) -> Switch {
        let r = self.read_cost;
        let m = *self.slot(id);
        let (current, other, log_list) = if m.disk {
            (
                list as f64 * r,
                m.virtual_sectors as f64 * r,
                m.virtual_sectors as usize,
            )
        } else {
            (list as f64 * r, IMAGE as f64 * r, list)
        };
        self.account(id, current - other, log_list)
    }

    /// A commit wrote `units` index units of node `id` (`compacted` when it
    /// then compacted the node's list).
    pub(super) fn on_commit(&mut self, id: u32, units: usize, compacted: bool) -> Switch {
        let (w, lambda, c) = (self.write_cost, self.lambda, self.compaction_c);
        let whole = IMAGE as f64 * w;
        let logged = units as f64 / lambda * w;
        let m = self.slot(id);
        let (delta, log_list) = if m.disk {
            let mut would = logged;
            let mut v = (m.virtual_sectors as usize).max(IMAGE) + 1;
            if v > c {
                would += whole;
                v = IMAGE;
            }
            m.virtual_sectors = v.min(u8::MAX as usize) as u8;
            (whole - would, v)
        } else {
            let spent = logged + if compacted { whole } else { 0.0 };
            (spent - whole, IMAGE)
        };
        self.account(id, delta, log_list)
    }

    /// Adds `delta` to node `id`'s working variable and switches it when the
    /// variable reaches the cost of translating there and back (a log of
    /// `log_list` sectors read, the node page written).
    fn account(&mut self, id: u32, delta: f64, log_list: usize) -> Switch {
        let threshold = log_list as f64 * self.read_cost + IMAGE as f64 * self.write_cost;
        let m = self.slot(id);
        m.working += delta as f32;
        if (m.working as f64) < threshold {
            return Switch::Stay;
        }
        m.working = 0.0;
        m.disk = !m.disk;
        if m.disk {
            m.virtual_sectors = IMAGE as u8;
            self.switches_to_disk += 1;
            Switch::ToDisk
        } else {
            self.switches_to_log += 1;
            Switch::ToLog
        }
    }

    /// Nodes in disk mode.
    pub(super) fn disk_nodes(&self) -> usize {
        self.nodes.iter().filter(|m| m.disk).count()
    }

    /// RAM of the mode table.
    pub(super) fn memory_bytes(&self) -> usize {
        let count = if self.counts_entries { COUNT_BYTES } else { 0 };
        self.nodes.len() * (MODE_BYTES + count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuning() -> SelfTuning {
        // Unit weights: a read and a write cost the same.
        SelfTuning::new(None, 512, 20, 3)
    }

    #[test]
    fn a_node_read_through_a_long_list_switches_to_disk_mode() {
        let mut t = tuning();
        // Each read of a 3-sector list loses 2 against a 1-sector image;
        // translating costs 3 reads + 1 write = 4.
        assert_eq!(t.on_read(7, 3), Switch::Stay);
        assert_eq!(t.on_read(7, 3), Switch::ToDisk);
        assert!(t.is_disk(7));
        assert_eq!(t.switches_to_disk, 1);
    }

    #[test]
    fn writes_pay_back_a_disk_node_and_return_it_to_log_mode() {
        let mut t = tuning();
        t.on_read(7, 3);
        t.on_read(7, 3);
        assert!(t.is_disk(7));
        // A disk-mode commit of one unit costs a whole sector against 1/20
        // of one (less the virtual log's compaction every C commits): with
        // no reads to win it back, the node returns to log mode.
        let mut commits = 0;
        while t.is_disk(7) {
            t.on_commit(7, 1, false);
            commits += 1;
            assert!(commits < 100, "never switched back");
        }
        assert_eq!(t.switches_to_log, 1);
        assert!(commits > 1, "one commit cannot outweigh the threshold");
    }

    #[test]
    fn a_node_read_at_every_commit_stays_in_disk_mode() {
        let mut t = tuning();
        t.on_read(7, 3);
        t.on_read(7, 3);
        for _ in 0..1000 {
            // Each read of the one-sector image saves the virtual log's.
            assert_eq!(t.on_read(7, 1), Switch::Stay);
            assert_eq!(t.on_commit(7, 1, false), Switch::Stay);
        }
        assert!(t.is_disk(7));
    }

    #[test]
    fn accumulated_benefit_delays_a_switch() {
        let mut t = tuning();
        // Log-mode commits bank benefit (a unit instead of a sector) ...
        for _ in 0..10 {
            assert_eq!(t.on_commit(3, 1, false), Switch::Stay);
        }
        // ... so reads through a long list must first pay it back.
        let mut reads = 0;
        while !t.is_disk(3) {
            t.on_read(3, 3);
            reads += 1;
        }
        assert!(
            reads > 2,
            "switched after {reads} reads despite the benefit"
        );
    }

    #[test]
    fn entry_counts_are_kept_only_when_asked_and_forgotten_with_the_node() {
        let mut t = tuning();
        // Node 4 has a mode entry, which the counts widen once kept.
        t.on_read(4, 1);
        t.set_entries(4, 7);
        assert_eq!(t.entries(4), None, "not kept by default");
        let before = t.memory_bytes();
        t.count_entries();
        assert!(t.memory_bytes() > before, "the counts are charged");
        t.set_entries(4, 0);
        assert_eq!(t.entries(4), Some(0));
        t.set_entries(4, 7);
        assert_eq!(t.entries(4), Some(7));
        assert_eq!(t.entries(5), None);
        t.forget(4);
        assert_eq!(t.entries(4), None);
    }

    #[test]
    fn freed_nodes_start_in_log_mode() {
        let mut t = tuning();
        t.on_read(1, 3);
        t.on_read(1, 3);
        assert!(t.is_disk(1));
        t.forget(1);
        assert!(!t.is_disk(1));
        assert_eq!(t.disk_nodes(), 0);
    }
}
