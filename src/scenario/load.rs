//! Loading: from a path (format by extension) or from text.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use super::error::{ScenarioError, ScenarioErrorKind};
use super::node::{Node, NodeValue};
use super::reader::Field;
use super::source_map::SourceMap;
use super::spec::{Scenario, read_scenario};
use super::{json, yaml};

/// The syntax of a scenario file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// YAML 1.2 (`.yaml`, `.yml`).
    Yaml,
    /// JSON (`.json`).
    Json,
}

impl Format {
    /// The format a file name's extension stands for (case-insensitive), if any.
    #[must_use]
    pub fn from_path(path: &Path) -> Option<Format> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "yaml" | "yml" => Some(Format::Yaml),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Yaml => "yaml",
            Format::Json => "json",
        })
    }
}

impl Scenario {
    /// Reads and checks a scenario file; `.yaml`/`.yml` files are read as
    /// YAML, `.json` files as JSON.
    ///
    /// # Errors
    /// A [`ScenarioError`] naming the file, the key path and, where known,
    /// the line and column: unreadable file, unsupported extension, syntax
    /// error, or a value the format does not allow.
    pub fn from_path(path: &Path) -> Result<Scenario, ScenarioError> {
        let origin = path.display().to_string();
        let io_error = |e: std::io::Error| {
            let kind = ScenarioErrorKind::Io {
                kind: e.kind(),
                message: e.to_string(),
            };
            ScenarioError::new(kind, &origin)
        };
        // Before the extension, so that a missing path is reported as
        // missing; and never open a FIFO or a device, which may block.
        if let Some(what) = not_regular(path).map_err(io_error)? {
            return Err(ScenarioError::new(
                ScenarioErrorKind::NotAFile { what },
                &origin,
            ));
        }
        let Some(format) = Format::from_path(path) else {
            let extension = path.extension().map(|e| e.to_string_lossy().into_owned());
            let kind = ScenarioErrorKind::UnsupportedExtension { extension };
            return Err(ScenarioError::new(kind, &origin));
        };
        let bytes = std::fs::read(path).map_err(io_error)?;
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            let valid = &bytes[..e.valid_up_to()];
            let line = 1 + valid.iter().filter(|&&b| b == b'\n').count();
            let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let column = 1 + String::from_utf8_lossy(&valid[line_start..])
                .chars()
                .count();
            ScenarioError::new(ScenarioErrorKind::InvalidUtf8, &origin).at(line, column)
        })?;
        let mut scenario = Scenario::from_str(text, &origin, format)?;
        scenario.file = Some(path.to_owned());
        Ok(scenario)
    }

    /// Reads and checks a scenario from text; `origin` names it in errors
    /// (usually the file name) and gives the default `name` (its stem).
    ///
    /// # Errors
    /// A [`ScenarioError`], as for [`Scenario::from_path`].
    pub fn from_str(text: &str, origin: &str, format: Format) -> Result<Scenario, ScenarioError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut root = match format {
            Format::Yaml => yaml::parse(text, origin)?,
            Format::Json => json::parse(text, origin)?,
        };
        let model_items = take_model_items(&mut root);
        let mut sees = BTreeMap::new();
        let mut scenario =
            read_scenario(&Field::root(&root, origin), origin, model_items, &mut sees)
                .map_err(|error| error.in_scenario(top_level_name(&root)))?;
        scenario.source = SourceMap::new(origin, text, root, sees);
        Ok(scenario)
    }
}

/// The top-level `name` when it is a string, for naming an invalid file.
fn top_level_name(root: &Node) -> Option<String> {
    match &root.value {
        NodeValue::Map(entries) => {
            entries
                .iter()
                .find_map(|entry| match (&*entry.key, &entry.value.value) {
                    ("name", NodeValue::String(name)) => Some(name.clone()),
                    _ => None,
                })
        }
        _ => None,
    }
}

/// What `path` names when it is not a regular file (`a FIFO`, `a
/// folder`), found without opening it: opening or reading a FIFO or a
/// device may block for ever. Every command checks a file it is named
/// with here before reading it (the loader for scenario files, `rebase`,
/// `import` and `explain --outcome` before their own reads), and refuses
/// what is not a regular file.
///
/// # Errors
/// The error of reading the path's metadata (a missing file, a folder
/// that cannot be searched).
pub(crate) fn not_regular(path: &Path) -> std::io::Result<Option<&'static str>> {
    let metadata = std::fs::metadata(path)?;
    Ok((!metadata.is_file()).then(|| not_a_file(&metadata.file_type())))
}

/// What a path that is not a regular file names, for an error message.
pub(crate) fn not_a_file(file_type: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_block_device() || file_type.is_char_device() {
            return "a device";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else {
        "not a file"
    }
}

/// The items of a top-level `model` list, taken out of the tree (an empty
/// list stays in their place), for [`read_scenario`] to read one by one.
fn take_model_items(root: &mut Node) -> Option<Vec<Node>> {
    let NodeValue::Map(entries) = &mut root.value else {
        return None;
    };
    let entry = entries.iter_mut().find(|entry| entry.key == "model")?;
    match &mut entry.value.value {
        NodeValue::Seq(items) => Some(std::mem::take(items)),
        _ => None,
    }
}
