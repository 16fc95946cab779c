//! A Python `set` of strings, laid out as CPython lays it out, so that
//! `repr(...)` of it lists the items in CPython's order.
//!
//! Some of Haystack's error texts print a set of names (`The following tool
//! names are not valid: {'search', 'ghost'}.`). CPython iterates a set in the
//! order of its hash table, which depends on each string's hash, on the order
//! the items went in and on how the table grew. String hashes are salted per
//! process unless `PYTHONHASHSEED` is set; the Haystack engine worker and the
//! reference runner run Python with `PYTHONHASHSEED=0`, and this module
//! reproduces that process's order exactly:
//!
//! - [`str_hash`] is `hash(s)` with a zero seed: SipHash-1-3 with a zero key
//!   (`Python/pyhash.c`, the default since CPython 3.11) over the string's
//!   internal representation, one, two or four little-endian bytes per code
//!   point by its widest character (`Objects/unicodeobject.c`,
//!   `unicode_hash`); the empty string hashes to 0, and a hash of -1 is -2.
//! - [`PySet`] is the table of `Objects/setobject.c`: 8 slots to start,
//!   probing `LINEAR_PROBES` (9) neighbours before jumping to
//!   `i * 5 + 1 + perturb` (`perturb` shifted right by `PERTURB_SHIFT`, 5,
//!   each jump), growing to the smallest power of two above four times the
//!   items once the table is three fifths full, and re-inserting the items
//!   in table order when it grows. Each operation that builds a set is the
//!   one of CPython's C code, because the resulting layouts differ: adding
//!   one by one ([`PySet::add`], for `set(iterable)`, `set.update` and a set
//!   comprehension), copying a set ([`PySet::copy`], `set_merge`), and
//!   `a - b` ([`PySet::difference`], which iterates `a`'s table, or copies
//!   `a` and discards `b`'s items when `a` has more than four times as many).
//!
//! The property test in `pyset_cpython.rs` checks the order against the
//! reference interpreter (CPython 3.11, the one Haystack 3.4.1 is compared
//! with) over generated sets of every shape above.

/// `PySet_MINSIZE`.
const MIN_SIZE: usize = 8;
/// `LINEAR_PROBES`: slots tried after the first before jumping.
const LINEAR_PROBES: usize = 9;
/// `PERTURB_SHIFT`.
const PERTURB_SHIFT: u32 = 5;

/// `hash(text)` in a CPython (3.11 or later) run with `PYTHONHASHSEED=0`.
///
/// ```text
/// $ PYTHONHASHSEED=0 python3.11 -c 'print(hash("calc"))'
/// ```
pub(crate) fn str_hash(text: &str) -> i64 {
    let widest = text.chars().map(u32::from).max().unwrap_or(0);
    let width = match widest {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        _ => 4,
    };
    let mut bytes = Vec::with_capacity(text.len() * width);
    for c in text.chars() {
        bytes.extend_from_slice(&u32::from(c).to_le_bytes()[..width]);
    }
    if bytes.is_empty() {
        return 0;
    }
    // The u64 is reinterpreted as Python's signed `Py_hash_t`.
    let hash = siphash13_zero_key(&bytes) as i64;
    if hash == -1 { -2 } else { hash }
}

/// SipHash-1-3 with the key (0, 0), as `siphash13` in `Python/pyhash.c`.
fn siphash13_zero_key(data: &[u8]) -> u64 {
    let mut v = [
        0x736f_6d65_7073_6575_u64,
        0x646f_7261_6e64_6f6d,
        0x6c79_6765_6e65_7261,
        0x7465_6462_7974_6573,
    ];
    let round = |v: &mut [u64; 4]| {
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    };
    let mut chunks = data.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let m = u64::from_le_bytes(word);
        v[3] ^= m;
        round(&mut v);
        v[0] ^= m;
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    let b = ((data.len() as u64) << 56) | u64::from_le_bytes(last);
    v[3] ^= b;
    round(&mut v);
    v[0] ^= b;
    v[2] ^= 0xff;
    for _ in 0..3 {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

/// One slot of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    /// Never used.
    Empty,
    /// Held an item that was discarded (CPython's `dummy`).
    Dummy,
    /// Holds an item and its hash.
    Active(i64, String),
}

/// A Python `set` of `str` with CPython's table: [`iter`](Self::iter) and
/// [`repr`](Self::repr) give the order CPython (run with `PYTHONHASHSEED=0`)
/// iterates the same set built by the same operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PySet {
    table: Vec<Slot>,
    /// Active and dummy slots (`so->fill`).
    fill: usize,
    /// Active slots (`so->used`).
    used: usize,
}

impl Default for PySet {
    fn default() -> Self {
        PySet::new()
    }
}

impl PySet {
    /// `set()`.
    pub(crate) fn new() -> PySet {
        PySet {
            table: vec![Slot::Empty; MIN_SIZE],
            fill: 0,
            used: 0,
        }
    }

    /// `set(iterable)` of strings that are not a set (a list, a tuple, a
    /// dict's `keys()`), and a set comprehension: each item added in turn.
    pub(crate) fn from_items<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> PySet {
        let mut set = PySet::new();
        set.update(items);
        set
    }

    /// `set.update(iterable)` for an iterable that is not a set or a dict.
    pub(crate) fn update<S: AsRef<str>>(&mut self, items: impl IntoIterator<Item = S>) {
        for item in items {
            self.add(item.as_ref());
        }
    }

    /// Whether the set has no item.
    pub(crate) fn is_empty(&self) -> bool {
        self.used == 0
    }

    fn mask(&self) -> usize {
        self.table.len() - 1
    }

    /// The slots probed for `hash`, in CPython's order (endless: callers
    /// stop at the slot they look for; the table always has an empty one).
    fn probe(&self, hash: i64) -> impl Iterator<Item = usize> {
        let mask = self.mask();
        let mut perturb = hash as u64 as usize;
        let mut i = perturb & mask;
        let mut pending: Vec<usize> = Vec::new();
        std::iter::from_fn(move || {
            if pending.is_empty() {
                let probes = if i + LINEAR_PROBES <= mask {
                    LINEAR_PROBES
                } else {
                    0
                };
                pending = (i..=i + probes).rev().collect();
                perturb >>= PERTURB_SHIFT;
                i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb)) & mask;
            }
            pending.pop()
        })
    }

    /// The slot holding `key`, if any (`set_lookkey`).
    fn find(&self, key: &str, hash: i64) -> Option<usize> {
        for i in self.probe(hash) {
            match &self.table[i] {
                Slot::Empty => return None,
                Slot::Active(h, k) if *h == hash && k == key => return Some(i),
                _ => {}
            }
        }
        None
    }

    /// Whether `key` is in the set (`key in s`).
    pub(crate) fn contains(&self, key: &str) -> bool {
        self.find(key, str_hash(key)).is_some()
    }

    /// `s.add(key)` (`set_add_entry`): a new item takes the first empty slot
    /// of its probe sequence, then the table grows if three fifths are used.
    pub(crate) fn add(&mut self, key: &str) {
        self.add_hashed(key, str_hash(key));
    }

    fn add_hashed(&mut self, key: &str, hash: i64) {
        let mut slot = None;
        for i in self.probe(hash) {
            match &self.table[i] {
                // Dummies are passed over: CPython 3.11+ only fills a slot
                // that was never used.
                Slot::Empty => {
                    slot = Some(i);
                    break;
                }
                Slot::Active(h, k) if *h == hash && k == key => return,
                _ => {}
            }
        }
        let Some(i) = slot else { return };
        self.table[i] = Slot::Active(hash, key.to_owned());
        self.fill += 1;
        self.used += 1;
        if self.fill * 5 >= self.mask() * 3 {
            self.resize(self.grown_size());
        }
    }

    /// The `minused` CPython asks for when a table grows or sheds dummies.
    fn grown_size(&self) -> usize {
        if self.used > 50_000 {
            self.used * 2
        } else {
            self.used * 4
        }
    }

    /// `set_table_resize`: a table of the smallest power of two (at least
    /// 8) above `minused`, the active items re-inserted in table order.
    fn resize(&mut self, minused: usize) {
        let mut size = MIN_SIZE;
        while size <= minused {
            size <<= 1;
        }
        let old = std::mem::replace(&mut self.table, vec![Slot::Empty; size]);
        self.fill = 0;
        self.used = 0;
        for slot in old {
            if let Slot::Active(hash, key) = slot {
                self.insert_clean(key, hash);
            }
        }
    }

    /// `set_insert_clean`: an item known to be absent, into a table without
    /// dummies.
    fn insert_clean(&mut self, key: String, hash: i64) {
        let i = self
            .probe(hash)
            .find(|&i| self.table[i] == Slot::Empty)
            .expect("a set table always has an empty slot");
        self.table[i] = Slot::Active(hash, key);
        self.fill += 1;
        self.used += 1;
    }

    /// `s.copy()` and `set(s)` of a set (`set_merge` into an empty set): one
    /// resize up front, then the same layout when the sizes agree and `s`
    /// has no dummies, else `s`'s items re-inserted in its table order.
    pub(crate) fn copy(&self) -> PySet {
        let mut out = PySet::new();
        if self.used == 0 {
            return out;
        }
        if self.used * 5 >= out.mask() * 3 {
            out.resize(self.used * 2);
        }
        if out.table.len() == self.table.len() && self.fill == self.used {
            out.table = self.table.clone();
        } else {
            for (hash, key) in self.entries() {
                out.insert_clean(key.to_owned(), hash);
            }
        }
        out.fill = self.used;
        out.used = self.used;
        out
    }

    /// `s.discard(key)` (`set_discard_entry`): the slot becomes a dummy.
    fn discard_hashed(&mut self, key: &str, hash: i64) {
        if let Some(i) = self.find(key, hash) {
            self.table[i] = Slot::Dummy;
            self.used -= 1;
        }
    }

    /// `s - other` for two sets (`set_difference`).
    pub(crate) fn difference(&self, other: &PySet) -> PySet {
        if (self.used >> 2) > other.used {
            // `set_copy_and_difference`: copy, then
            // `set_difference_update_internal`. Its narrowing of a much
            // larger `other` to the intersection cannot apply here.
            let mut out = self.copy();
            for (hash, key) in other.entries() {
                out.discard_hashed(key, hash);
            }
            // "If more than 1/4th are dummies, then resize them away."
            if out.fill - out.used > out.mask() / 4 {
                out.resize(out.grown_size());
            }
            return out;
        }
        let mut out = PySet::new();
        for (hash, key) in self.entries() {
            if other.find(key, hash).is_none() {
                out.add_hashed(key, hash);
            }
        }
        out
    }

    fn entries(&self) -> impl Iterator<Item = (i64, &str)> {
        self.table.iter().filter_map(|slot| match slot {
            Slot::Active(hash, key) => Some((*hash, key.as_str())),
            _ => None,
        })
    }

    /// The items in CPython's iteration order (`list(s)`).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        self.entries().map(|(_, key)| key)
    }

    /// `repr(s)`: `{'a', 'b'}`, or `set()` when empty.
    pub(crate) fn repr(&self) -> String {
        super::set_of_strings(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `PYTHONHASHSEED=0 python3.11 -c 'print(hash(s))'` for each string.
    #[test]
    fn hashes_are_cpythons_with_a_zero_seed() {
        for (text, expected) in [
            ("", 0),
            ("calc", 4809749512595364122),
            ("é", 6047309291227476195),
            ("日本", 6243316497235261705),
            ("😀x", -8926728262118538918),
            ("a long name over eight bytes", -3385989521534745257),
        ] {
            assert_eq!(str_hash(text), expected, "hash({text:?})");
        }
    }

    /// `PYTHONHASHSEED=0 python3.11 -c 'print(set(["search", ...]))'`: nine
    /// items grow the table from 8 to 32 slots on the fifth.
    #[test]
    fn a_set_of_a_list_iterates_in_cpythons_order() {
        let set = PySet::from_items(["search", "ghost", "calc", "a", "b", "c", "d", "e", "f"]);
        assert_eq!(
            set.repr(),
            "{'d', 'ghost', 'e', 'f', 'b', 'c', 'a', 'search', 'calc'}"
        );
        assert_eq!(PySet::new().repr(), "set()");
    }
}
