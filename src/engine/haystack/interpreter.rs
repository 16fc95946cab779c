//! Which Python runs the worker, and where its package comes from.

use std::path::{Path, PathBuf};

/// The environment variable naming the interpreter when `--python` is not given.
pub const PYTHON_ENV: &str = "HOOKHARNESS_PYTHON";

/// The interpreter to run: `explicit` (`--python`), else `HOOKHARNESS_PYTHON`,
/// else the virtual environment this executable was installed into (`pip
/// install hookharness` puts it in `VENV/bin/` beside `python`), else `python3`.
#[must_use]
pub fn resolve(explicit: Option<&Path>) -> PathBuf {
    if let Some(path) = explicit {
        return path.to_owned();
    }
    if let Some(path) = std::env::var_os(PYTHON_ENV).filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    installed_beside().unwrap_or_else(|| PathBuf::from("python3"))
}

/// `python` next to this executable when that folder is a virtual
/// environment's `bin` (its parent holds `pyvenv.cfg`).
fn installed_beside() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?;
    if !bin.parent()?.join("pyvenv.cfg").is_file() {
        return None;
    }
    ["python", "python3"]
        .iter()
        .map(|name| bin.join(name))
        .find(|path| path.is_file())
}

/// The repository's `python/` folder, when this build runs from a checkout
/// (or a `cargo install` of one) that has it: put first on `PYTHONPATH`, so
/// the worker matches the binary without a `pip install`.
pub(crate) fn package_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("python");
    root.join("hookharness")
        .join("engine")
        .join("worker.py")
        .is_file()
        .then_some(root)
}
