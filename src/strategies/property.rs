//! Running a property, and turning its shrunk counterexample into a
//! scenario file.

use crate::scenario::Scenario;
use proptest::strategy::Strategy;
use proptest::test_runner::{
    Config, FileFailurePersistence, RngSeed, TestCaseResult, TestError, TestRunner,
};
use std::fmt::Debug;
use std::path::{Path, PathBuf};

/// The environment variable naming the folder counterexamples are written
/// to. Unset: none are written.
///
/// ```
/// assert_eq!(hookharness::strategies::FAILURES_DIR_VAR, "HOOKHARNESS_FAILURES_DIR");
/// ```
pub const FAILURES_DIR_VAR: &str = "HOOKHARNESS_FAILURES_DIR";

/// The case count when neither [`Property::cases`] nor `PROPTEST_CASES` says.
///
/// ```
/// assert_eq!(hookharness::strategies::DEFAULT_CASES, 64);
/// ```
pub const DEFAULT_CASES: u32 = 64;

/// How many shrinking steps a failure may take (proptest's default is
/// 256); `PROPTEST_MAX_SHRINK_ITERS` overrides it.
///
/// ```
/// assert!(hookharness::strategies::MAX_SHRINK_ITERS > 256);
/// ```
pub const MAX_SHRINK_ITERS: u32 = 8192;

/// How long shrinking a failure may take, in milliseconds (each step
/// replays a scenario); `PROPTEST_MAX_SHRINK_TIME` overrides it.
///
/// ```
/// assert_eq!(hookharness::strategies::MAX_SHRINK_MILLIS, 10_000);
/// ```
pub const MAX_SHRINK_MILLIS: u32 = 10_000;

/// A named property, run by proptest. When it fails, the shrunk
/// counterexample is written as a scenario file that `hookharness run`
/// replays, into the folder named by `HOOKHARNESS_FAILURES_DIR` (or
/// [`failures_dir`](Property::failures_dir)), and the test panics with the
/// reason, the scenario and the file.
///
/// Case counts: [`DEFAULT_CASES`], or [`cases`](Property::cases);
/// `PROPTEST_CASES` overrides both. Runs are deterministic: the random
/// generator's seed comes from the property's name (or
/// [`seed`](Property::seed)), so a test run twice sees the same cases;
/// `PROPTEST_RNG_SEED` overrides it, to explore other cases, and failures
/// print the seed. Failing seeds are saved where
/// [`regressions`](Property::regressions) says (default:
/// `proptest-regressions/<test file name>.txt` under the package root, e.g.
/// `proptest-regressions/invariants.txt` for `tests/invariants.rs`) and
/// replayed first; commit that folder.
///
/// ```
/// use hookharness::replay::Replay;
/// use hookharness::strategies::{Property, Shape, scenarios_shaped};
/// use proptest::prop_assert;
///
/// let shape = Shape::default().failures(false);
/// Property::new("runs_without_failures_return_a_result")
///     .cases(8)
///     .run(scenarios_shaped(shape), |scenario| {
///         let outcome = Replay::new().run(&scenario);
///         prop_assert!(outcome.result.is_some(), "{:?}", outcome.error);
///         Ok(())
///     });
/// ```
#[derive(Debug, Clone)]
#[must_use = "a property does nothing until it is run"]
pub struct Property {
    name: &'static str,
    cases: Option<u32>,
    seed: Option<u64>,
    regressions: Regressions,
    failures_dir: Option<PathBuf>,
}

impl Property {
    /// A property; `name` names it in reports and counterexample files,
    /// and seeds its random generator.
    ///
    /// ```
    /// use hookharness::strategies::Property;
    /// Property::new("zero_is_small").run_with(0u8..1, |_| unreachable!(), |n| {
    ///     proptest::prop_assert_eq!(n, 0);
    ///     Ok(())
    /// });
    /// ```
    pub fn new(name: &'static str) -> Self {
        Property {
            name,
            cases: None,
            seed: None,
            regressions: Regressions::Default,
            failures_dir: None,
        }
    }

    /// How many passing cases are needed (`PROPTEST_CASES` overrides it).
    ///
    /// ```
    /// use hookharness::strategies::Property;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    ///
    /// let cases = AtomicU32::new(0);
    /// Property::new("counted").cases(5).run_with(0u8..10, |_| unreachable!(), |_| {
    ///     cases.fetch_add(1, Ordering::SeqCst);
    ///     Ok(())
    /// });
    /// if std::env::var_os("PROPTEST_CASES").is_none() {
    ///     assert_eq!(cases.load(Ordering::SeqCst), 5);
    /// }
    /// ```
    pub fn cases(mut self, cases: u32) -> Self {
        self.cases = Some(cases);
        self
    }

    /// The seed of the random generator (`PROPTEST_RNG_SEED` overrides
    /// it); the default is derived from the name.
    ///
    /// ```
    /// use hookharness::strategies::Property;
    /// use std::sync::Mutex;
    ///
    /// let draw = |seed| {
    ///     let seen = Mutex::new(Vec::new());
    ///     Property::new("draws").seed(seed).cases(3).run_with(0u32..1000, |_| unreachable!(), |n| {
    ///         seen.lock().unwrap().push(n);
    ///         Ok(())
    ///     });
    ///     seen.into_inner().unwrap()
    /// };
    /// assert_eq!(draw(7), draw(7));
    /// ```
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The seed a run uses.
    fn effective_seed(&self, config: &Config) -> u64 {
        match config.rng_seed {
            RngSeed::Fixed(seed) => seed,
            RngSeed::Random => self.seed.unwrap_or_else(|| name_seed(self.name)),
        }
    }

    /// The file failing seeds are saved to and replayed from, relative to
    /// the working directory (a test's is its package root), instead of
    /// `proptest-regressions/<test file name>.txt`.
    ///
    /// ```
    /// use hookharness::strategies::Property;
    /// let property = Property::new("shared").regressions("proptest-regressions/shared.txt");
    /// # let _ = property;
    /// ```
    pub fn regressions(mut self, file: &'static str) -> Self {
        self.regressions = Regressions::File(file);
        self
    }

    /// Saves no failing seeds (for a property that is expected to fail, as
    /// in a demonstration).
    ///
    /// ```
    /// use hookharness::strategies::Property;
    /// let failed = std::panic::catch_unwind(|| {
    ///     Property::new("always_false").without_regressions().cases(1).run_with(
    ///         proptest::strategy::Just(()),
    ///         |_| unreachable!("no failures directory"),
    ///         |()| Err(proptest::test_runner::TestCaseError::fail("on purpose")),
    ///     );
    /// });
    /// assert!(failed.is_err());
    /// ```
    pub fn without_regressions(mut self) -> Self {
        self.regressions = Regressions::Off;
        self
    }

    /// Writes counterexamples to this folder, whatever
    /// `HOOKHARNESS_FAILURES_DIR` says.
    ///
    /// ```
    /// use hookharness::scenario::{Format, Scenario};
    /// use hookharness::strategies::Property;
    ///
    /// let dir = std::env::temp_dir().join("hookharness-doc-failures");
    /// let into = dir.clone();
    /// let failed = std::panic::catch_unwind(move || {
    ///     Property::new("no_steps").without_regressions().failures_dir(into).cases(1).run_with(
    ///         proptest::strategy::Just(0i64),
    ///         |steps| {
    ///             let mut scenario = Scenario::from_str("model: []", "s.yaml", Format::Yaml).unwrap();
    ///             scenario.agent.max_agent_steps = *steps;
    ///             scenario
    ///         },
    ///         |steps| {
    ///             proptest::prop_assert!(steps > 0);
    ///             Ok(())
    ///         },
    ///     );
    /// });
    /// assert!(failed.is_err());
    /// let written = Scenario::from_path(&dir.join("no_steps.yaml"))?;
    /// assert_eq!(written.agent.max_agent_steps, 0);
    /// # Ok::<(), hookharness::scenario::ScenarioError>(())
    /// ```
    pub fn failures_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.failures_dir = Some(dir.into());
        self
    }

    /// Checks `test` on scenarios from `strategy`.
    ///
    /// ```
    /// use hookharness::replay::Replay;
    /// use hookharness::strategies::{Property, scenarios};
    ///
    /// Property::new("replays_are_repeatable").cases(8).run(scenarios(), |scenario| {
    ///     let first = Replay::new().run(&scenario).to_json_line();
    ///     proptest::prop_assert_eq!(first, Replay::new().run(&scenario).to_json_line());
    ///     Ok(())
    /// });
    /// ```
    ///
    /// # Panics
    /// When the property fails: with the reason, the shrunk scenario and
    /// the counterexample file, if one was written.
    #[track_caller]
    pub fn run<S>(&self, strategy: S, test: impl Fn(Scenario) -> TestCaseResult)
    where
        S: Strategy<Value = Scenario>,
    {
        self.run_inner(strategy, Clone::clone, test, false);
    }

    /// Checks `test` on values from `strategy`; `scenario_of` turns the
    /// shrunk counterexample into the scenario that is written out.
    ///
    /// ```
    /// use hookharness::scenario::{Format, Scenario};
    /// use hookharness::strategies::Property;
    /// use proptest::prelude::*;
    ///
    /// let base = Scenario::from_str("model: [{text: hi}]", "base.yaml", Format::Yaml).unwrap();
    /// Property::new("max_agent_steps_is_kept").cases(8).run_with(
    ///     0i64..5,
    ///     |steps| {
    ///         let mut scenario = base.clone();
    ///         scenario.agent.max_agent_steps = *steps;
    ///         scenario
    ///     },
    ///     |steps| {
    ///         prop_assert!(steps < 5);
    ///         Ok(())
    ///     },
    /// );
    /// ```
    ///
    /// # Panics
    /// As [`run`](Property::run).
    #[track_caller]
    pub fn run_with<S>(
        &self,
        strategy: S,
        scenario_of: impl Fn(&S::Value) -> Scenario,
        test: impl Fn(S::Value) -> TestCaseResult,
    ) where
        S: Strategy,
        S::Value: Debug,
    {
        self.run_inner(strategy, scenario_of, test, true);
    }

    #[track_caller]
    fn run_inner<S>(
        &self,
        strategy: S,
        scenario_of: impl Fn(&S::Value) -> Scenario,
        test: impl Fn(S::Value) -> TestCaseResult,
        show_value: bool,
    ) where
        S: Strategy,
        S::Value: Debug,
    {
        let mut config = Config::default();
        if std::env::var_os("PROPTEST_CASES").is_none() {
            config.cases = self.cases.unwrap_or(DEFAULT_CASES);
        }
        // Scenarios are wide values: shrinking them takes more steps than
        // proptest's default allows (PROPTEST_MAX_SHRINK_ITERS overrides).
        if std::env::var_os("PROPTEST_MAX_SHRINK_ITERS").is_none() {
            config.max_shrink_iters = MAX_SHRINK_ITERS;
        }
        if std::env::var_os("PROPTEST_MAX_SHRINK_TIME").is_none() {
            config.max_shrink_time = MAX_SHRINK_MILLIS;
        }
        let seed = self.effective_seed(&config);
        config.rng_seed = RngSeed::Fixed(seed);
        config.source_file = Some(std::panic::Location::caller().file());
        config.test_name = Some(self.name);
        match self.regressions {
            Regressions::Default => {
                let file = default_regressions(std::panic::Location::caller().file());
                // The persistence takes a `&'static str`: one short path per run.
                let file: &'static str = Box::leak(file.into_boxed_str());
                config.failure_persistence = Some(Box::new(FileFailurePersistence::Direct(file)));
            }
            Regressions::File(file) => {
                config.failure_persistence = Some(Box::new(FileFailurePersistence::Direct(file)));
            }
            Regressions::Off => config.failure_persistence = None,
        }
        let mut runner = TestRunner::new(config);
        match runner.run(&strategy, test) {
            Ok(()) => {}
            Err(TestError::Abort(reason)) => {
                panic!("property `{}` aborted (seed {seed}): {reason}", self.name)
            }
            Err(TestError::Fail(reason, value)) => {
                let mut scenario = scenario_of(&value);
                scenario.name = self.name.to_owned();
                scenario.description = Some(format!(
                    "Counterexample to the property `{}`: {reason}",
                    self.name
                ));
                let text = scenario.to_yaml();
                let written = match self.dir() {
                    Some(dir) => match write_counterexample(&dir, self.name, &text) {
                        Ok(path) => format!("written to {}", path.display()),
                        Err(error) => format!("not written to {}: {error}", dir.display()),
                    },
                    None => format!("set {FAILURES_DIR_VAR} to write it as a scenario file"),
                };
                let input = if show_value {
                    format!("minimal failing input: {value:?}\n")
                } else {
                    String::new()
                };
                panic!(
                    "property `{}` failed: {reason}\n{input}seed {seed} (PROPTEST_RNG_SEED={seed} replays this run)\n\
                     counterexample scenario ({written}):\n{text}",
                    self.name
                );
            }
        }
    }

    fn dir(&self) -> Option<PathBuf> {
        self.failures_dir
            .clone()
            .or_else(|| std::env::var_os(FAILURES_DIR_VAR).map(PathBuf::from))
            .filter(|dir| !dir.as_os_str().is_empty())
    }
}

/// `proptest-regressions/<source path without its top folder>.txt`:
/// `tests/invariants.rs` gives `proptest-regressions/invariants.txt`.
fn default_regressions(source: &str) -> String {
    let path = Path::new(source);
    let inner = ["src", "tests", "examples", "benches"]
        .iter()
        .find_map(|top| path.strip_prefix(top).ok())
        .unwrap_or(path);
    let mut file = Path::new("proptest-regressions").join(inner);
    file.set_extension("txt");
    file.to_string_lossy().into_owned()
}

/// Where failing seeds are saved.
#[derive(Debug, Clone, Copy)]
enum Regressions {
    /// `proptest-regressions/<source>.txt`, see [`default_regressions`].
    Default,
    /// This file.
    File(&'static str),
    /// Nowhere.
    Off,
}

/// FNV-1a of the name: a stable seed per property.
fn name_seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Writes `<dir>/<name>.yaml`, creating the folder.
fn write_counterexample(dir: &Path, name: &str, text: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{name}.yaml"));
    std::fs::write(&path, text)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regressions_go_to_one_file_per_test_file() {
        assert_eq!(
            default_regressions("tests/invariants.rs"),
            "proptest-regressions/invariants.txt"
        );
        assert_eq!(
            default_regressions("src/strategies/property.rs"),
            "proptest-regressions/strategies/property.txt"
        );
        assert_eq!(
            default_regressions("examples/fuzz_hook_order.rs"),
            "proptest-regressions/fuzz_hook_order.txt"
        );
    }

    #[test]
    fn name_seeds_are_stable() {
        assert_eq!(name_seed(""), 0xcbf2_9ce4_8422_2325);
        assert_ne!(name_seed("a"), name_seed("b"));
    }
}
