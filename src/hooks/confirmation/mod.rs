//! Human-in-the-loop confirmation (Haystack's `haystack.hooks.human_in_the_loop`):
//! the hook, its strategies, policies and UIs.

mod console;
mod decision;
mod hook;
mod policy;
mod strategy;
mod ui;
mod ui_error;

pub(crate) use ui::NO_ANSWER_LEFT;

pub use console::SimpleConsoleUI;
pub use decision::{ConfirmationUIResult, ToolExecutionDecision};
pub use hook::ConfirmationHook;
pub use policy::{
    AlwaysAskPolicy, AskOncePolicy, ConfirmationPolicy, NeverAskPolicy,
    confirmation_policy_from_value,
};
pub use strategy::{
    BlockingConfirmationStrategy, ConfirmationStrategy, MODIFICATION_FEEDBACK_TEMPLATE,
    REJECTION_FEEDBACK_TEMPLATE, USER_FEEDBACK_TEMPLATE, confirmation_strategy_from_value,
};
pub use ui::{
    ConfirmationRequest, ConfirmationUI, ScriptedConfirmationUI, confirmation_ui_from_value,
};
pub use ui_error::ConfirmationUIError;
