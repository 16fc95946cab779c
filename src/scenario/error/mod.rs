//! The one error type of scenario loading: a kind, the file, the key path and
//! the position, rendered as one lowercase line that says what to do.

use super::Format;

mod wording;

/// Why a scenario file could not be loaded.
///
/// Displays as `FILE:LINE:COLUMN: MESSAGE` (or `FILE: MESSAGE` when the
/// position is unknown), for example
/// ``scenarios/x.yaml:4:3: unknown key `exit_condition` in `agent`; did you mean `exit_conditions`?``.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct ScenarioError(Box<Details>);

/// Boxed so that `Result<T, ScenarioError>` stays small.
#[derive(Debug, Clone, PartialEq)]
struct Details {
    kind: ScenarioErrorKind,
    file: String,
    path: String,
    line: Option<usize>,
    column: Option<usize>,
    scenario: Option<String>,
    /// The command reading the file takes one file, not folders: the
    /// advice for a path that is no file says so.
    one_file: bool,
}

/// What went wrong, with the details each message needs.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ScenarioErrorKind {
    /// The file could not be read.
    Io {
        /// The I/O error's category.
        kind: std::io::ErrorKind,
        /// The I/O error's text.
        message: String,
    },
    /// The path names something other than a regular file: a folder, a
    /// FIFO, a socket or a device (reading one could block forever).
    NotAFile {
        /// What the path names (`a folder`, `a FIFO`, ...).
        what: &'static str,
    },
    /// The file name ends neither in `.yaml`/`.yml` nor in `.json`.
    UnsupportedExtension {
        /// The extension found, if any.
        extension: Option<String>,
    },
    /// The file is not UTF-8.
    InvalidUtf8,
    /// The YAML or JSON text does not parse.
    Syntax {
        /// The format the file was read as.
        format: Format,
        /// The parser's message.
        message: String,
    },
    /// A YAML file holds more than one document.
    MultipleDocuments,
    /// The file holds no value at all.
    Empty,
    /// Collections are nested deeper than the loader accepts.
    TooDeep {
        /// The deepest nesting accepted.
        limit: usize,
    },
    /// YAML aliases expand to more nodes than the loader accepts.
    AliasBudget {
        /// The number of nodes accepted.
        limit: usize,
    },
    /// YAML aliases expand to more bytes of text than the loader accepts.
    AliasBytes {
        /// The number of bytes accepted.
        limit: usize,
    },
    /// The file's values would take more memory once read than the loader
    /// accepts for a file of its size.
    ValueBytes {
        /// The number of bytes accepted.
        limit: usize,
    },
    /// A YAML tag the loader does not know (only the core schema's are read).
    UnsupportedTag {
        /// The tag as written.
        tag: String,
    },
    /// `.nan`, `.inf` or a number too large for a double: not a JSON value.
    NonFiniteNumber {
        /// The number as written.
        text: String,
    },
    /// A map key that is not a string (a number, a boolean, null or a collection).
    NonStringKey {
        /// What the key is, e.g. `an integer`.
        found: &'static str,
        /// The key as written, when it is a scalar.
        text: Option<String>,
    },
    /// The same key twice in one map.
    DuplicateKey {
        /// The repeated key.
        key: String,
        /// Line of the first occurrence.
        first_line: usize,
        /// Column of the first occurrence.
        first_column: usize,
    },
    /// A key the format does not define at this place.
    UnknownKey {
        /// The key as written.
        key: String,
        /// A valid key close to it.
        suggestion: Option<String>,
        /// Every key valid at this place.
        valid: Vec<String>,
    },
    /// A value of the wrong type.
    WrongType {
        /// What the format wants, e.g. `an integer`.
        expected: &'static str,
        /// What the file holds, e.g. `a string`.
        found: &'static str,
    },
    /// A required key is absent.
    MissingKey {
        /// The missing key.
        key: String,
    },
    /// The `version` is not one this loader reads.
    UnsupportedVersion {
        /// The version found.
        found: i64,
        /// The versions this loader reads.
        supported: Vec<i64>,
    },
    /// A string that is not one of a fixed set of values.
    UnknownVariant {
        /// The value as written.
        value: String,
        /// A valid value close to it.
        suggestion: Option<String>,
        /// Every valid value.
        valid: Vec<String>,
    },
    /// A `model` entry holds `error` and other keys.
    ErrorWithOtherKeys {
        /// The other keys, in file order.
        keys: Vec<String>,
    },
    /// A hook entry that is none of the hook kinds.
    UnknownHookKind {
        /// The entry's keys, in file order.
        keys: Vec<String>,
        /// A hook kind's key close to one of them.
        suggestion: Option<String>,
    },
    /// A hook entry that mixes the keys of two hook kinds.
    ConflictingHookKinds {
        /// The conflicting keys, in file order.
        keys: Vec<String>,
    },
    /// A `do` entry that is not a map with exactly one key.
    ActionShape {
        /// The entry's keys, in file order.
        keys: Vec<String>,
    },
    /// A `do` action the format does not define.
    UnknownAction {
        /// The action as written.
        action: String,
        /// A valid action close to it.
        suggestion: Option<String>,
    },
    /// A map that must hold one (or at least one) of some keys does not.
    NeedsOneOf {
        /// The keys of which one is wanted.
        keys: Vec<String>,
        /// `true`: exactly one; `false`: at least one.
        exactly: bool,
    },
    /// `shared: NAME` names no entry of `shared_hooks`.
    UnknownSharedHook {
        /// The name as written.
        name: String,
        /// A defined name close to it.
        suggestion: Option<String>,
        /// Every defined name.
        defined: Vec<String>,
    },
    /// A `shared_hooks` definition that is itself `shared: NAME`.
    NestedSharedHook,
    /// A `run.state` key that `agent.state_schema` does not declare.
    UnknownStateKey {
        /// The key as written.
        key: String,
        /// A schema key close to it.
        suggestion: Option<String>,
        /// Every schema key.
        schema_keys: Vec<String>,
    },
    /// A `run.variables` name that `run.state` also gives.
    VariableAlsoInState {
        /// The name.
        name: String,
    },
    /// A `run.variables` name that is a parameter of `Agent.run`.
    VariableIsRunParameter {
        /// The name.
        name: String,
    },
    /// A matcher map (`{gte: 1}`) with a key that is not a matcher word.
    MixedMatcherKeys {
        /// The key that is no matcher word.
        key: String,
        /// The matcher words the map holds.
        matchers: Vec<String>,
        /// A matcher word close to `key`.
        suggestion: Option<String>,
    },
    /// A matcher map combining matchers that do not combine (only `gte`
    /// and `lte` do).
    MatcherCombination {
        /// The matcher words given, in file order.
        keys: Vec<String>,
    },
    /// A matcher that cannot apply to the value it is matched with (`gte`
    /// on a text).
    MatcherOnWrongType {
        /// The matcher word.
        matcher: String,
        /// What it applies to, e.g. `numbers`.
        accepts: &'static str,
        /// What the value holds, e.g. `text`.
        holds: &'static str,
    },
    /// `agent.required_variables` is a string other than `"*"`.
    RequiredVariablesString {
        /// The string as written.
        value: String,
    },
    /// A `python` value that is not `pkg.module:name`.
    PythonTarget {
        /// The value as written.
        value: String,
    },
    /// A `models` mapping names a script that is not defined.
    UnknownModel {
        /// The name as written.
        name: String,
        /// A defined name close to it.
        suggestion: Option<String>,
        /// Every defined name (`model` first).
        defined: Vec<String>,
    },
    /// `models` defines a script named `model` (the main script's name).
    ReservedModelName,
    /// `agent.python` beside keys the user's factory decides.
    AgentPythonWithKeys {
        /// The other keys, in file order.
        keys: Vec<String>,
    },
    /// `agent.custom` beside keys the registered Agent decides.
    AgentCustomWithKeys {
        /// The other keys, in file order.
        keys: Vec<String>,
    },
    /// A `python_path` entry holding a NUL character (no path can).
    PythonPathNul {
        /// The entry as written.
        value: String,
    },
    /// A `clock` that is not an ISO 8601 date or date and time.
    ClockFormat {
        /// The value as written.
        value: String,
    },
    /// A `sees.previous_messages` that the previous reply's `sees` does not
    /// back (it lists fewer messages, or none).
    Sees {
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A mistake only preparing the run finds (a ready-made hook's
    /// parameters, an undefined `shared:` name, a message Haystack cannot
    /// read): found by [`Replay::file_errors`](crate::replay::Replay::file_errors).
    Prepare {
        /// What is wrong and how to fix it.
        message: String,
    },
    /// What only Python decides (`check --engine haystack`): a `python:`
    /// object that does not import, a class or factory its `args` do not
    /// fit or that raises, a hook at a point it does not allow, an Agent
    /// Haystack refuses to build.
    Python {
        /// The problem, in the words a run would give it.
        message: String,
        /// What to change, when known.
        hint: Option<String>,
    },
    /// Haystack's `Agent(...)` refuses to build and `expect.error` does
    /// not expect it: found by
    /// [`Replay::file_errors`](crate::replay::Replay::file_errors), at the
    /// key the error comes from.
    Construction {
        /// The error, in Haystack's words.
        error: crate::agent::AgentError,
        /// What to change, when the error's cause is known.
        hint: Option<String>,
    },
}

impl ScenarioError {
    pub(crate) fn new(kind: ScenarioErrorKind, file: &str) -> ScenarioError {
        ScenarioError(Box::new(Details {
            kind,
            file: file.to_owned(),
            path: String::new(),
            line: None,
            column: None,
            scenario: None,
            one_file: false,
        }))
    }

    /// The error as a command that takes one scenario file (not folders)
    /// reports it: a folder given to it is told to name one file.
    pub(crate) fn for_one_file(mut self) -> ScenarioError {
        self.0.one_file = true;
        self
    }

    pub(crate) fn in_scenario(mut self, name: Option<String>) -> ScenarioError {
        self.0.scenario = name;
        self
    }

    /// The scenario's top-level `name`, when the file parsed far enough to
    /// read it (reports show it instead of the file stem).
    #[must_use]
    pub fn scenario_name(&self) -> Option<&str> {
        self.0.scenario.as_deref()
    }

    /// The error at `position`, when known.
    pub(crate) fn at_position(self, position: Option<(usize, usize)>) -> ScenarioError {
        match position {
            Some((line, column)) => self.at(line, column),
            None => self,
        }
    }

    pub(crate) fn at(mut self, line: usize, column: usize) -> ScenarioError {
        self.0.line = Some(line);
        self.0.column = Some(column);
        self
    }

    pub(crate) fn with_path(mut self, path: String) -> ScenarioError {
        self.0.path = path;
        self
    }

    /// What went wrong.
    #[must_use]
    pub fn kind(&self) -> &ScenarioErrorKind {
        &self.0.kind
    }

    /// The file, as given to the loader.
    #[must_use]
    pub fn file(&self) -> &str {
        &self.0.file
    }

    /// The key path of the offending value, like `hooks.on_exit[0].do[1]`;
    /// empty for the top level and for errors before decoding.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// The 1-based line, when known.
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        self.0.line
    }

    /// The 1-based column (in characters), when known.
    #[must_use]
    pub fn column(&self) -> Option<usize> {
        self.0.column
    }
}
