//! The writing commands under the fuzz target: `rebase`, `import --output`
//! and `explore --out` get mutated corpus files (and mutated Haystack
//! Agent dicts for `import`) through the binary. None may panic (exit 101),
//! abort (end by a signal) or hang, and each writes only what it was told
//! to: `rebase` its file, `import` its `--output` (an existing one only
//! with `--force`), `explore` new variant files in its `--out` folder;
//! every other file of the folder keeps its bytes, and no temporary file
//! is left.

use super::{DEADLINE, apply, budget_left, mutation, seeds};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::AtomicUsize;
use std::time::Instant;

/// The cases a campaign has run of this target, and when it began.
static RUN: AtomicUsize = AtomicUsize::new(0);
static STARTED: OnceLock<Instant> = OnceLock::new();

/// What is left in place of an existing `--output` before `import`.
const KEPT: &str = "# written before the command\n";

/// A writing command and how it is called.
#[derive(Debug, Clone, Copy)]
enum Writer {
    /// `rebase FILE` (`--all` when set).
    Rebase { all: bool },
    /// `import FILE --output OUT` (`.json` when set), with OUT already
    /// there when `existing`, and `--force` when `force`.
    Import {
        json: bool,
        existing: bool,
        force: bool,
    },
    /// `explore FILE --out DIR --max-variants 4` (`--faults` when set).
    Explore { faults: bool },
}

fn writer() -> impl Strategy<Value = Writer> {
    prop_oneof![
        any::<bool>().prop_map(|all| Writer::Rebase { all }),
        (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(json, existing, force)| {
            Writer::Import {
                json,
                existing,
                force,
            }
        }),
        any::<bool>().prop_map(|faults| Writer::Explore { faults }),
    ]
}

/// The Haystack Agent dicts and pipelines `import` reads, read once.
fn dicts() -> &'static [(PathBuf, String)] {
    static DICTS: OnceLock<Vec<(PathBuf, String)>> = OnceLock::new();
    DICTS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/haystack");
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("import"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.push(root.join("agent.json"));
        files.sort();
        files
            .into_iter()
            .filter_map(|path| Some((path.clone(), std::fs::read_to_string(&path).ok()?)))
            .collect()
    })
}

/// Every file under `dir` with its bytes (a link as its target's name).
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let relative = path.strip_prefix(dir).unwrap().to_owned();
            if meta.is_dir() {
                pending.push(path);
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap_or_default();
                found.insert(relative, target.into_os_string().into_encoded_bytes());
            } else {
                found.insert(relative, std::fs::read(&path).unwrap_or_default());
            }
        }
    }
    found
}

/// A fresh folder for one case.
fn case_dir() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("fuzz_cli_writing")
        .join(format!("{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `hookharness ARGS` in `dir`, its output discarded; its exit code,
/// or why it has none (a signal, a hang).
fn hookharness_in(dir: &Path, args: &[&str]) -> Result<i32, String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookharness"))
        .args(args)
        .current_dir(dir)
        .env_remove("HOOKHARNESS_PROGRESS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the hookharness binary runs");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            return status
                .code()
                .ok_or_else(|| format!("`hookharness {}` ended by {status}", args.join(" ")));
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "`hookharness {}` ran past {DEADLINE:?}",
                args.join(" ")
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Runs `writer` on `text` (named like `seed`) and checks what it wrote.
fn check(writer: Writer, seed: &Path, text: &str) -> Result<(), String> {
    let dir = case_dir();
    let ext = seed.extension().and_then(|e| e.to_str()).unwrap_or("yaml");
    let input = format!("input.{ext}");
    std::fs::write(dir.join(&input), text).unwrap();
    std::fs::write(dir.join("bystander.yaml"), KEPT).unwrap();
    let out = match writer {
        Writer::Import { json: true, .. } => "out.json",
        _ => "out.yaml",
    };
    if let Writer::Import { existing: true, .. } = writer {
        std::fs::write(dir.join(out), KEPT).unwrap();
    }
    let before = tree(&dir);
    let mut args: Vec<&str> = Vec::new();
    match writer {
        Writer::Rebase { all } => {
            args.extend(["rebase", &input]);
            if all {
                args.push("--all");
            }
        }
        Writer::Import { force, .. } => {
            args.extend(["import", &input, "--output", out]);
            if force {
                args.push("--force");
            }
        }
        Writer::Explore { faults } => {
            args.extend([
                "explore",
                &input,
                "--out",
                "variants",
                "--max-variants",
                "4",
            ]);
            if faults {
                args.push("--faults");
            }
        }
    }
    let code = hookharness_in(&dir, &args)?;
    if code == 101 {
        return Err(format!("`hookharness {}` panicked", args.join(" ")));
    }
    let after = tree(&dir);
    let may_change = |path: &Path| match writer {
        Writer::Rebase { .. } => path == Path::new(&input),
        Writer::Import {
            existing, force, ..
        } => path == Path::new(out) && (force || !existing),
        Writer::Explore { .. } => {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            path.parent() == Some(Path::new("variants"))
                && !before.contains_key(path)
                && name.contains(".variant-")
                && name.ends_with(".yaml")
        }
    };
    for (path, bytes) in &after {
        if before.get(path) != Some(bytes) && !may_change(path) {
            return Err(format!(
                "`hookharness {}` (exit {code}) wrote {}, which it was not given",
                args.join(" "),
                path.display()
            ));
        }
    }
    if let Some(gone) = before.keys().find(|path| !after.contains_key(*path)) {
        return Err(format!(
            "`hookharness {}` (exit {code}) removed {}",
            args.join(" "),
            gone.display()
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64),
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("regressions"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn writing_commands_never_panic_abort_hang_or_write_what_they_were_not_given(
        writer in writer(),
        seed in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 0..4),
    ) {
        if !budget_left(&STARTED, &RUN, "fuzz_cli (writing)") {
            return Ok(());
        }
        let pool = match writer {
            Writer::Import { .. } if seed.index(2) == 0 => dicts(),
            _ => seeds(),
        };
        let (path, text) = &pool[seed.index(pool.len())];
        let mutated = mutations.iter().fold(text.clone(), |text, m| apply(&text, m));
        if let Err(problem) = check(writer, path, &mutated) {
            let shown: String = mutated.chars().take(2000).collect();
            panic!("{problem}; on this file (from {}):\n{shown}", path.display());
        }
    }
}

#[test]
fn the_import_seeds_hold_the_haystack_fixtures() {
    assert!(dicts().len() >= 5, "{} dicts", dicts().len());
}
