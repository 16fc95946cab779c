//! The memory budget of a file's values: both parsers charge every value
//! they read, in file order, and the file is refused at the first value
//! past the budget, before its tree grows further. A scenario is read
//! whole into memory, and a value costs a fixed size however short its
//! text (`0,` is two bytes of text, a `serde_json::Value` of 72 bytes
//! once read), so text dense in values could otherwise take any multiple
//! of its size and abort the process for lack of memory.

use super::{VALUE_BYTES_FLOOR, VALUE_BYTES_PER_FILE_BYTE};

/// What one value costs once read: a `serde_json::Value`, however short
/// its text; its text's bytes are charged on top.
pub(crate) const VALUE: usize = std::mem::size_of::<serde_json::Value>();

/// What one map key costs beside its value: the key's `String` and the
/// ordered map's hash and index of its entry; its bytes are charged on top.
const KEY: usize = std::mem::size_of::<String>() + 2 * std::mem::size_of::<usize>();

/// The bytes the values of one file may take: `VALUE_BYTES_PER_FILE_BYTE`
/// times the file's size, and at least `VALUE_BYTES_FLOOR`.
pub(crate) fn limit_for(text: &str) -> usize {
    text.len()
        .saturating_mul(VALUE_BYTES_PER_FILE_BYTE)
        .max(VALUE_BYTES_FLOOR)
}

/// The bytes charged so far against a file's limit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ValueBudget {
    limit: usize,
    used: usize,
}

/// The budget is spent: the value just charged is past it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spent {
    /// The file's limit, in bytes.
    pub(crate) limit: usize,
}

impl ValueBudget {
    /// The budget of a file whose text is `text`.
    pub(crate) fn for_text(text: &str) -> ValueBudget {
        ValueBudget {
            limit: limit_for(text),
            used: 0,
        }
    }

    /// Charges `values` values holding `bytes` bytes of text (strings,
    /// numbers, keys).
    pub(crate) fn values(&mut self, values: usize, bytes: usize) -> Result<(), Spent> {
        self.charge(values.saturating_mul(VALUE).saturating_add(bytes))
    }

    /// Charges one map key of `bytes` bytes.
    pub(crate) fn key(&mut self, bytes: usize) -> Result<(), Spent> {
        self.charge(KEY.saturating_add(bytes))
    }

    fn charge(&mut self, bytes: usize) -> Result<(), Spent> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit {
            return Err(Spent { limit: self.limit });
        }
        Ok(())
    }

    /// The bytes charged so far.
    #[cfg(test)]
    pub(crate) fn used(&self) -> usize {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_file_may_use_the_floor_and_a_large_one_ten_times_its_size() {
        assert_eq!(limit_for("model: []\n"), VALUE_BYTES_FLOOR);
        let large = "0".repeat(VALUE_BYTES_FLOOR / VALUE_BYTES_PER_FILE_BYTE + 1);
        assert_eq!(limit_for(&large), large.len() * VALUE_BYTES_PER_FILE_BYTE);
    }

    #[test]
    fn the_value_past_the_limit_is_the_one_refused() {
        let mut budget = ValueBudget {
            limit: 2 * VALUE + 2,
            used: 0,
        };
        assert!(budget.values(1, 1).is_ok());
        assert!(budget.values(1, 1).is_ok());
        assert_eq!(budget.used(), budget.limit);
        assert_eq!(budget.values(1, 0).unwrap_err().limit, 2 * VALUE + 2);
    }
}
