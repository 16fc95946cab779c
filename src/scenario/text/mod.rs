//! The text front end of scenario files: YAML and JSON text into one
//! spanned tree (every node with its line and column), typed reading of that
//! tree with the key path of whatever it rejects, and lookups of where a key
//! is written (the source map a loaded scenario keeps).

pub(super) mod budget;
pub(super) mod json;
mod key_index;
pub(super) mod locate;
pub(super) mod node;
pub(super) mod reader;
mod scalar;
pub(super) mod source_map;
pub(super) mod yaml;

use super::{
    ALIAS_BUDGET, ALIAS_BYTES, Format, MAX_DEPTH, MEMORY_BYTES_FLOOR, MEMORY_BYTES_PER_FILE_BYTE,
    error,
};
