//! Shared on-flash formats and in-memory node machinery for tree-shaped
//! indexes (filled in by the B+-tree work).
