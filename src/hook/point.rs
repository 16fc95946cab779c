//! The six points of the run loop where hooks run.

use std::fmt;
use std::str::FromStr;

/// A hook point, in Haystack's canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookPoint {
    /// Once per run, after State is initialised, before the first step.
    BeforeRun,
    /// Before each chat-generator call; `stop_run` is read right after.
    BeforeLlm,
    /// After the model asked for tools (or gave a non-terminal reply),
    /// before the tools run.
    BeforeTool,
    /// After the tools ran, before `step_count` is incremented.
    AfterTool,
    /// When the run is about to stop on an exit condition.
    OnExit,
    /// Once per run, after the loop, for every ending that did not fail.
    AfterRun,
}

impl HookPoint {
    /// All six, in canonical order.
    pub const ALL: [HookPoint; 6] = [
        HookPoint::BeforeRun,
        HookPoint::BeforeLlm,
        HookPoint::BeforeTool,
        HookPoint::AfterTool,
        HookPoint::OnExit,
        HookPoint::AfterRun,
    ];

    /// The point as Haystack spells it (`before_llm`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            HookPoint::BeforeRun => "before_run",
            HookPoint::BeforeLlm => "before_llm",
            HookPoint::BeforeTool => "before_tool",
            HookPoint::AfterTool => "after_tool",
            HookPoint::OnExit => "on_exit",
            HookPoint::AfterRun => "after_run",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for HookPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of the six hook points.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Invalid hook point '{0}'. Valid hook points are: before_run, before_llm, before_tool, after_tool, on_exit, after_run."
)]
pub struct InvalidHookPoint(pub String);

impl FromStr for HookPoint {
    type Err = InvalidHookPoint;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        HookPoint::ALL
            .into_iter()
            .find(|point| point.as_str() == name)
            .ok_or_else(|| InvalidHookPoint(name.to_owned()))
    }
}

impl serde::Serialize for HookPoint {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for HookPoint {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}
