//! The buffers' counters for the report (lat-fig8's breakdown of where
//! buffer pages go to flash, per level): kept by [`super::buffers`] and by
//! the partitions under them ([`super::space`]), so a file of their own
//! that both import.

/// What the buffers at one level took in and wrote out.
#[derive(Clone, Copy, Debug, Default)]
pub struct LevelCounts {
    /// Entries appended to buffers at the level.
    pub appended: u64,
    /// Entries that reached flash in a buffer page at the level.
    pub written: u64,
    pub pages: u64,
}

/// Levels [`BufferCounters::by_level`] tells apart (higher ones count as
/// the last).
pub const COUNTED_LEVELS: usize = 8;

/// Counters for the report.
#[derive(Clone, Copy, Debug, Default)]
pub struct BufferCounters {
    pub pages_written: u64,
    pub entries_written: u64,
    /// Per buffer level: where buffer pages go to flash, and with how
    /// many of the entries that passed through (lat-fig8's breakdown).
    pub by_level: [LevelCounts; COUNTED_LEVELS],
    pub pages_read: u64,
    pub pool_evictions: u64,
    pub partitions_taken: u64,
    pub partition_erases: u64,
}
