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

/// `python` next to this executable (pip installs both into one scripts
/// folder: a venv's `bin/`, or the one pipx links from).
fn installed_beside() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let bin = exe.parent()?;
    ["python", "python3"]
        .iter()
        .map(|name| bin.join(name))
        .find(|path| path.is_file())
}

/// The repository's `python/` folder, when this build runs from a checkout
/// (or a `cargo install` of one) that has it: put first on `PYTHONPATH`, so
/// the worker matches the binary without a `pip install`. Not for an
/// interpreter installed beside the binary (a wheel): that one has the
/// package the wheel installed.
pub(crate) fn package_root(python: &Path) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok();
    if exe.as_deref().and_then(Path::parent)
        == python.parent().filter(|p| !p.as_os_str().is_empty())
    {
        return None;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("python");
    root.join("hookharness")
        .join("engine")
        .join("worker.py")
        .is_file()
        .then_some(root)
}
