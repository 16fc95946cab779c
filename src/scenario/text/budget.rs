//! The memory budget of reading a file. Both parsers charge, as they
//! build the tree, what the file will hold in memory once read: the
//! tree's own bytes (the capacity of its vectors of nodes and entries,
//! the text of its strings, numbers and keys, the index of a long map's
//! keys while it is read) and the copy reading makes of every value
//! outside `model` (a `serde_json::Value` and its text, which the
//! scenario keeps beside the tree its source map keeps). The file is
//! refused at the first value past the budget, before its tree grows
//! further. A value costs a fixed size however short its text (`0,` is
//! two bytes of text, a 48-byte node and a 72-byte `Value` once read), so
//! text dense in values could otherwise take any multiple of its size and
//! abort the process for lack of memory.
//!
//! The `model` replies are charged as tree only: the loader reads them
//! one by one, dropping each reply's tree once read, and a reply keeps
//! less than its tree (`tests/loader_memory.rs`).

use super::node::{Entry, Node};
use super::{MEMORY_BYTES_FLOOR, MEMORY_BYTES_PER_FILE_BYTE};

/// What one value's copy costs once read: a `serde_json::Value`, however
/// short its text; its text's bytes are charged on top.
pub(crate) const VALUE: usize = std::mem::size_of::<serde_json::Value>();

/// What one map key's copy costs beside its value: the key's `String`,
/// the ordered map's hash of its entry and its index (a table of at
/// most twice as many slots as entries); its bytes are charged on top.
const KEY: usize = std::mem::size_of::<String>() + 4 * std::mem::size_of::<usize>();

/// What one value costs in the tree, and its copy: the least a value of
/// the file takes once read (`0` too).
pub(crate) const LEAST: usize = std::mem::size_of::<Node>() + VALUE;

/// The bytes a file may hold once read: `MEMORY_BYTES_PER_FILE_BYTE`
/// times the file's size, and at least `MEMORY_BYTES_FLOOR`.
pub(crate) fn limit_for(text: &str) -> usize {
    text.len()
        .saturating_mul(MEMORY_BYTES_PER_FILE_BYTE)
        .max(MEMORY_BYTES_FLOOR)
}

/// The bytes held so far against a file's limit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ValueBudget {
    limit: usize,
    held: usize,
}

/// The budget is spent: the value just charged is past it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spent {
    /// The file's limit, in bytes.
    pub(crate) limit: usize,
}

/// What the budget charges for a run of nodes added at once (a YAML
/// alias's copy, an anchor's): their number and the bytes of their text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Nodes {
    pub(crate) count: usize,
    pub(crate) bytes: usize,
}

impl ValueBudget {
    /// The budget of a file whose text is `text`.
    pub(crate) fn for_text(text: &str) -> ValueBudget {
        ValueBudget {
            limit: limit_for(text),
            held: 0,
        }
    }

    /// Charges a scalar of `bytes` bytes of text (its node's slot is
    /// charged with its vector), and its copy when `copied`.
    pub(crate) fn scalar(&mut self, bytes: usize, copied: bool) -> Result<(), Spent> {
        let copy = if copied { VALUE + bytes } else { 0 };
        self.charge(bytes.saturating_add(copy))
    }

    /// Charges a list or a map (its items are charged as they come), and
    /// its copy when `copied`.
    pub(crate) fn collection(&mut self, copied: bool) -> Result<(), Spent> {
        self.charge(if copied { VALUE } else { 0 })
    }

    /// Charges one map key of `bytes` bytes, and its copy when `copied`.
    pub(crate) fn key(&mut self, bytes: usize, copied: bool) -> Result<(), Spent> {
        let copy = if copied { KEY + bytes } else { 0 };
        self.charge(bytes.saturating_add(copy))
    }

    /// Charges nodes added whole (each as a map entry, the larger slot),
    /// and their copies when `copied`.
    pub(crate) fn nodes(&mut self, nodes: Nodes, copied: bool) -> Result<(), Spent> {
        let each = std::mem::size_of::<Entry>() + if copied { VALUE + KEY } else { 0 };
        let bytes = nodes.bytes.saturating_mul(1 + usize::from(copied));
        self.charge(nodes.count.saturating_mul(each).saturating_add(bytes))
    }

    /// Makes room in `items` for one more, charging the capacity it
    /// grows by (half its length, so that no more than a third of a
    /// long vector is ever empty) before it is allocated.
    pub(crate) fn room<T>(&mut self, items: &mut Vec<T>) -> Result<(), Spent> {
        if items.len() < items.capacity() {
            return Ok(());
        }
        let before = items.capacity();
        let more = (items.len() / 2).max(4);
        self.charge(more.saturating_mul(std::mem::size_of::<T>()))?;
        items.reserve_exact(more);
        // `reserve_exact` may give a little more than asked.
        let given = items.capacity() - before;
        self.charge(given.saturating_sub(more) * std::mem::size_of::<T>())
    }

    /// Charges a vector of `len` items allocated at its size.
    pub(crate) fn exact<T>(&mut self, len: usize) -> Result<(), Spent> {
        self.charge(len.saturating_mul(std::mem::size_of::<T>()))
    }

    /// Frees the growth room of `items` (the capacity past its length),
    /// and gives its bytes back.
    pub(crate) fn shrink<T>(&mut self, items: &mut Vec<T>) {
        let before = items.capacity();
        items.shrink_to_fit();
        self.release((before - items.capacity()) * std::mem::size_of::<T>());
    }

    /// Charges `bytes` bytes held.
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<(), Spent> {
        self.held = self.held.saturating_add(bytes);
        if self.held > self.limit {
            return Err(Spent { limit: self.limit });
        }
        Ok(())
    }

    /// Gives back `bytes` bytes no longer held.
    pub(crate) fn release(&mut self, bytes: usize) {
        self.held = self.held.saturating_sub(bytes);
    }

    /// The bytes held so far.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_file_may_use_the_floor_and_a_large_one_its_multiple() {
        assert_eq!(limit_for("model: []\n"), MEMORY_BYTES_FLOOR);
        let large = "0".repeat(MEMORY_BYTES_FLOOR / MEMORY_BYTES_PER_FILE_BYTE + 1);
        assert_eq!(limit_for(&large), large.len() * MEMORY_BYTES_PER_FILE_BYTE);
    }

    #[test]
    fn the_value_past_the_limit_is_the_one_refused() {
        let mut budget = ValueBudget {
            limit: 2 * (VALUE + 2),
            held: 0,
        };
        assert!(budget.scalar(1, true).is_ok());
        assert!(budget.scalar(1, true).is_ok());
        assert_eq!(budget.held(), budget.limit);
        assert_eq!(budget.collection(true).unwrap_err().limit, 2 * (VALUE + 2));
    }

    #[test]
    fn room_is_charged_before_it_is_made_and_given_back_when_shrunk() {
        let mut budget = ValueBudget {
            limit: 1 << 20,
            held: 0,
        };
        let mut items: Vec<u64> = Vec::new();
        for i in 0..1000 {
            budget.room(&mut items).unwrap();
            items.push(i);
            assert_eq!(budget.held(), items.capacity() * 8);
        }
        // Growth by half: at most a third of the capacity is empty.
        assert!(items.capacity() * 2 <= items.len() * 3);
        budget.shrink(&mut items);
        assert_eq!(budget.held(), 1000 * 8);
        let mut tight = ValueBudget { limit: 40, held: 0 };
        let mut none: Vec<u64> = Vec::new();
        for _ in 0..4 {
            tight.room(&mut none).unwrap();
            none.push(0);
        }
        assert!(tight.room(&mut none).is_err());
        assert_eq!(none.capacity(), 4, "refused before it is allocated");
    }
}
