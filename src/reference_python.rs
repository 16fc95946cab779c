//! The interpreter `HOOKHARNESS_PYTHON` names, for the tests that check a
//! table of Python's (Unicode names, identifiers, `str` methods,
//! printable characters) against the Python Haystack runs on.

use std::process::Command;

/// Whether `HOOKHARNESS_PYTHON` names an interpreter.
pub(crate) fn named() -> bool {
    std::env::var_os("HOOKHARNESS_PYTHON").is_some_and(|p| !p.is_empty())
}

/// What `python -c script` prints, the interpreter being
/// `HOOKHARNESS_PYTHON` (the test fails, saying so, when none is named or
/// the script fails).
pub(crate) fn output(script: &str) -> String {
    let python = std::env::var("HOOKHARNESS_PYTHON").unwrap_or_else(|_| {
        panic!("set HOOKHARNESS_PYTHON to a Python 3.11 (the tables are its Unicode data)")
    });
    let output = Command::new(&python)
        .args(["-c", script])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}
