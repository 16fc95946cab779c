//! Finding a key in State's data (or in a small map it holds, such as
//! `tool_call_counts`) by comparing keys rather than hashing.
//!
//! `State::data` is a `serde_json::Map`: an `IndexMap` hashed with SipHash.
//! The loop reads and writes its run-metadata keys several times per step;
//! in a map of a few keys, comparing them (by length first) costs a
//! fraction of hashing one, so a small map is scanned in order and only a
//! larger one is hashed. Both find the same entry: keys are unique.

use serde_json::{Map, Value};

/// Up to this many keys, a scan; past it, a hash lookup.
const SCAN_LIMIT: usize = 16;

/// The value under `key`.
pub(crate) fn get<'m>(data: &'m Map<String, Value>, key: &str) -> Option<&'m Value> {
    if data.len() > SCAN_LIMIT {
        return data.get(key);
    }
    data.iter().find_map(|(k, v)| (k == key).then_some(v))
}

/// The value under `key`, mutable.
pub(crate) fn get_mut<'m>(data: &'m mut Map<String, Value>, key: &str) -> Option<&'m mut Value> {
    if data.len() > SCAN_LIMIT {
        return data.get_mut(key);
    }
    data.iter_mut().find_map(|(k, v)| (k == key).then_some(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(keys: usize) -> Map<String, Value> {
        (0..keys).map(|i| (format!("key_{i}"), json!(i))).collect()
    }

    #[test]
    fn a_small_and_a_large_map_find_the_same_entries() {
        for size in [0, 1, SCAN_LIMIT, SCAN_LIMIT + 1, 40] {
            let mut data = map(size);
            for i in 0..size + 2 {
                let key = format!("key_{i}");
                let expected = data.get(&key).cloned();
                assert_eq!(get(&data, &key).cloned(), expected, "{key} of {size}");
                assert_eq!(get_mut(&mut data, &key).map(|v| v.clone()), expected);
            }
        }
    }

    #[test]
    fn a_write_through_get_mut_lands_in_the_map() {
        for size in [3, 40] {
            let mut data = map(size);
            *get_mut(&mut data, "key_2").unwrap() = json!("new");
            assert_eq!(data["key_2"], json!("new"));
            assert_eq!(data.len(), size);
        }
    }

    #[test]
    fn a_key_that_only_shares_a_prefix_is_not_found() {
        let data = map(3);
        assert_eq!(get(&data, "key_"), None);
        assert_eq!(get(&data, "key_10"), None);
    }
}
