//! Duplicate keys of a map being read, found without copying a key: a
//! short map is scanned, a long one looked up through an index of its
//! entries (their positions, hashed by the key each holds), built when
//! the map gets past [`SCANNED_KEYS`] entries.

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

use super::node::{Entry, Pos};

/// Maps up to this many entries are checked for duplicate keys by a scan;
/// larger ones through the index.
const SCANNED_KEYS: usize = 16;

/// What one slot of the index takes: an entry's position and its control
/// byte, in a table at most 8/7 full, rounded up.
const SLOT: usize = (std::mem::size_of::<usize>() + 1) * 8 / 7 + 1;

/// The index of one open map's keys.
#[derive(Default)]
pub(crate) struct KeyIndex {
    index: HashTable<usize>,
}

impl KeyIndex {
    /// Where `key` is first defined among `entries` (the map's entries so
    /// far, in file order), if it is.
    pub(crate) fn first_position(
        &mut self,
        entries: &[Entry],
        hasher: &DefaultHashBuilder,
        key: &str,
    ) -> Option<Pos> {
        if entries.len() <= SCANNED_KEYS {
            return entries.iter().find(|e| e.key == key).map(|e| e.key_pos);
        }
        let hash = |i: &usize| hasher.hash_one(entries[*i].key.as_str());
        for i in self.index.len()..entries.len() {
            self.index.insert_unique(hash(&i), i, hash);
        }
        self.index
            .find(hasher.hash_one(key), |&i| entries[i].key == key)
            .map(|&i| entries[i].key_pos)
    }

    /// The bytes the index takes (at most).
    pub(crate) fn bytes(&self) -> usize {
        self.index.capacity() * SLOT
    }
}

#[cfg(test)]
mod tests {
    use super::super::node::{Node, NodeValue};
    use super::*;

    fn entry(key: String, line: usize) -> Entry {
        let pos = Pos { line, column: 1 };
        Entry {
            key,
            key_pos: pos,
            value: Node {
                value: NodeValue::Null,
                pos,
            },
        }
    }

    #[test]
    fn a_key_is_found_first_defined_in_short_and_long_maps() {
        let hasher = DefaultHashBuilder::default();
        for len in [3, 40] {
            let entries: Vec<Entry> = (0..len).map(|i| entry(format!("k{i}"), i + 1)).collect();
            let mut index = KeyIndex::default();
            let found = index.first_position(&entries, &hasher, "k2");
            assert_eq!(found.map(|p| p.line), Some(3));
            assert_eq!(index.first_position(&entries, &hasher, "new"), None);
            assert_eq!(index.bytes() > 0, len > SCANNED_KEYS);
        }
    }
}
