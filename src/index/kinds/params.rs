//! Index parameters as `key=value` strings (`--set` on the command line),
//! with typed getters. Every getter marks its key as known; `finish` rejects
//! keys no getter asked for, naming the accepted ones.

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::str::FromStr;

use crate::index::{EntryFormat, IndexError};
use crate::node::{Budget, NodeFormat, Tables};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    values: BTreeMap<String, String>,
    asked: BTreeSet<String>,
}

impl Params {
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses `K=V` pairs.
    pub fn parse<'a>(pairs: impl IntoIterator<Item = &'a str>) -> Result<Self, IndexError> {
        let mut p = Params::new();
        for pair in pairs {
            let (k, v) = pair.split_once('=').ok_or_else(|| {
                IndexError::Config(format!("parameter `{pair}` is not of the form KEY=VALUE"))
            })?;
            p.set(k.trim(), v.trim());
        }
        Ok(p)
    }

    pub fn set(&mut self, key: &str, value: &str) {
        self.values.insert(key.to_string(), value.to_string());
    }

    pub fn contains(&self, key: &str) -> bool {
        self.values.contains_key(key)
    }

    /// Whether `node_format=paper` was given, without asking for the key
    /// (an index without nodes still reports it unknown).
    pub fn paper_nodes(&self) -> bool {
        self.values.get("node_format").map(String::as_str) == Some("paper")
    }

    /// The raw string of `key`, if given.
    pub fn raw(&mut self, key: &str) -> Option<String> {
        self.asked.insert(key.to_string());
        self.values.get(key).cloned()
    }

    /// `versions=pair` (the papers' set of pairs, the default) or
    /// `versions=key` (the newest entry of a key shadows every older one:
    /// `Index::versions_by_key`); true for `key`.
    pub fn versions_by_key(&mut self) -> Result<bool, IndexError> {
        self.switch("versions", "pair", "key")
    }

    /// The entry widths `key_bytes` / `value_bytes` (default 4 + 4) and
    /// the node format `node_format` (`flashix`, the default, or the
    /// simulation-only `paper`: `node::paper`).
    pub fn entry_format(&mut self) -> Result<EntryFormat, IndexError> {
        let k = self.get("key_bytes", 4u8)?;
        let v = self.get("value_bytes", 4u8)?;
        let node = self.node_format()?;
        Ok(EntryFormat::new(k, v)?.with_node_format(node))
    }

    /// `node_format`: `flashix` (the default) or `paper`.
    pub fn node_format(&mut self) -> Result<NodeFormat, IndexError> {
        match self.raw("node_format") {
            None => Ok(NodeFormat::Flashix),
            Some(v) => Ok(NodeFormat::parse(&v)?),
        }
    }

    /// The budget of `memory` bytes with `tables=in-budget|outside`
    /// (default `in-budget`: data-bound tables paid out of the budget
    /// first; `node::budget`).
    pub fn budget(&mut self, memory: usize) -> Result<Budget, IndexError> {
        let tables = match self.raw("tables") {
            None => Tables::InBudget,
            Some(v) => Tables::parse(&v).ok_or_else(|| {
                IndexError::Config(format!("tables must be in-budget or outside, got `{v}`"))
            })?,
        };
        Ok(Budget::new(memory, tables))
    }

    /// Typed value of `key`, or `default` when absent.
    pub fn get<T: FromStr>(&mut self, key: &str, default: T) -> Result<T, IndexError> {
        Ok(self.get_opt(key)?.unwrap_or(default))
    }

    /// A two-way switch: `false` for `off` (the default when absent),
    /// `true` for `on`; any other value is a clear error naming both.
    pub fn switch(&mut self, key: &str, off: &str, on: &str) -> Result<bool, IndexError> {
        match self.raw(key) {
            None => Ok(false),
            Some(v) if v == off => Ok(false),
            Some(v) if v == on => Ok(true),
            Some(v) => Err(IndexError::Config(format!(
                "{key}={v}: expected {off} or {on}"
            ))),
        }
    }

    /// Typed value of `key`, if given. A key named `*_bytes` is a size and
    /// takes the units every size on the command line takes (`4KiB`,
    /// `64K`, `20KB`: [`crate::device::size`]).
    pub fn get_opt<T: FromStr>(&mut self, key: &str) -> Result<Option<T>, IndexError> {
        let Some(given) = self.raw(key) else {
            return Ok(None);
        };
        let text = if key.ends_with("_bytes") {
            crate::device::size::parse_size(&given)
                .map_err(|e| IndexError::Config(format!("parameter `{key}`: {e}")))?
                .to_string()
        } else {
            given.clone()
        };
        text.parse::<T>()
            .map(Some)
            .map_err(|_| IndexError::Config(format!("parameter `{key}`: cannot parse `{given}`")))
    }

    /// Fails on any key that no getter asked for.
    pub fn finish(&self, index: &str) -> Result<(), IndexError> {
        let unknown: Vec<&String> = self
            .values
            .keys()
            .filter(|k| !self.asked.contains(*k))
            .collect();
        if let Some(k) = unknown.first() {
            let accepted: Vec<&str> = self.asked.iter().map(String::as_str).collect();
            return Err(IndexError::Config(format!(
                "unknown parameter `{k}` for index `{index}`; accepted: {}",
                accepted.join(", ")
            )));
        }
        Ok(())
    }

    /// All pairs, for reports.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes_take_units() {
        let mut p = Params::parse(["node_bytes=4KiB", "head_bytes=20KB", "fanout=8"]).unwrap();
        assert_eq!(p.get_opt::<usize>("node_bytes").unwrap(), Some(4096));
        assert_eq!(p.get::<u64>("head_bytes", 0).unwrap(), 20_000);
        assert_eq!(p.get::<usize>("fanout", 0).unwrap(), 8);
        let mut bad = Params::parse(["node_bytes=4 parsecs", "fanout=8KiB"]).unwrap();
        let e = bad.get_opt::<usize>("node_bytes").unwrap_err().to_string();
        assert!(e.contains("node_bytes") && e.contains("parsecs"), "{e}");
        // Only sizes take units: a fanout is a count.
        assert!(bad.get_opt::<usize>("fanout").is_err());
    }

    #[test]
    fn unknown_keys_are_named_with_the_accepted_ones() {
        let mut p = Params::parse(["fanout=8", "cahce=lru"]).unwrap();
        assert_eq!(p.get("fanout", 0u32).unwrap(), 8);
        assert_eq!(p.get("cache", "mlru".to_string()).unwrap(), "mlru");
        let e = p.finish("btree").unwrap_err().to_string();
        assert!(
            e.contains("cahce") && e.contains("cache") && e.contains("fanout"),
            "{e}"
        );
        assert!(Params::parse(["nokv"]).is_err());
        let mut q = Params::parse(["fanout=x"]).unwrap();
        assert!(q.get("fanout", 0u32).is_err());
    }
}
