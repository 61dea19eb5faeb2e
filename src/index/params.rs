//! Index parameters as `key=value` strings (`--set` on the command line),
//! with typed getters. Every getter marks its key as known; `finish` rejects
//! keys no getter asked for, naming the accepted ones.

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::str::FromStr;

use super::IndexError;

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

    /// The raw string of `key`, if given.
    pub fn raw(&mut self, key: &str) -> Option<String> {
        self.asked.insert(key.to_string());
        self.values.get(key).cloned()
    }

    /// Typed value of `key`, or `default` when absent.
    pub fn get<T: FromStr>(&mut self, key: &str, default: T) -> Result<T, IndexError> {
        Ok(self.get_opt(key)?.unwrap_or(default))
    }

    /// Typed value of `key`, if given.
    pub fn get_opt<T: FromStr>(&mut self, key: &str) -> Result<Option<T>, IndexError> {
        match self.raw(key) {
            None => Ok(None),
            Some(v) => v
                .parse::<T>()
                .map(Some)
                .map_err(|_| IndexError::Config(format!("parameter `{key}`: cannot parse `{v}`"))),
        }
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
