//! The named counters an index reports (compactions, merges, leaf-node
//! size, buffer fill, ...): one map from name to value, filled by the index
//! and by the node stores under it (`NodeStore::report`), which is why it
//! lives on the node floor. Reported as `index_stats`.

use std::collections::BTreeMap;

use serde::Serialize;

/// Index-specific counters, by name.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct IndexStats(pub BTreeMap<String, f64>);

impl IndexStats {
    pub fn set(&mut self, name: &str, value: f64) {
        self.0.insert(name.to_string(), value);
    }
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.get(name).copied()
    }
}
