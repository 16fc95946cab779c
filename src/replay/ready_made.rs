//! Ready-made scenario entries (`token_budget:`, `tool_result_offload:`, ...)
//! to hooks: each entry's parameters are the hook's constructor parameters.

use crate::hook::Hook;
use crate::hooks::offload::{FileSystemToolResultStore, ToolResultOffloadHook};
use crate::hooks::{CompactionHook, ConfirmationHook, FromValueError, TokenBudgetHook};
use crate::scenario::ReadyMadeKind;
use serde_json::Value;
use std::sync::Arc;

/// Why an entry could not become a hook.
pub(crate) enum ReadyMadeError {
    /// The entry is malformed: a scenario error.
    Scenario(String),
    /// Haystack's constructor would raise: an Agent construction error.
    Constructor(String),
}

impl From<FromValueError> for ReadyMadeError {
    fn from(error: FromValueError) -> Self {
        match error {
            FromValueError::Invalid(message) => ReadyMadeError::Constructor(message),
            other => ReadyMadeError::Scenario(other.to_string()),
        }
    }
}

pub(crate) fn build(kind: ReadyMadeKind, params: &Value) -> Result<Arc<dyn Hook>, ReadyMadeError> {
    match kind {
        ReadyMadeKind::TokenBudget => Ok(Arc::new(TokenBudgetHook::from_params(params)?)),
        ReadyMadeKind::ToolResultOffload => {
            let hook = ToolResultOffloadHook::from_params(params)?;
            if hook.store().to_value()["type"] == FileSystemToolResultStore::TYPE {
                return Err(ReadyMadeError::Scenario(format!(
                    "`tool_result_offload.store`: `{}` puts absolute paths in the conversation, so the \
                     outcome would depend on the machine; use `{}` in scenarios",
                    FileSystemToolResultStore::TYPE,
                    crate::hooks::offload::InMemoryToolResultStore::TYPE
                )));
            }
            Ok(Arc::new(hook))
        }
        ReadyMadeKind::Confirmation => Ok(Arc::new(ConfirmationHook::from_params(params)?)),
        ReadyMadeKind::Compaction => {
            let hook = CompactionHook::from_params(params)?;
            let store =
                &hook.to_value()["init_parameters"]["compactor"]["init_parameters"]["store"];
            if store["type"] == FileSystemToolResultStore::TYPE {
                return Err(ReadyMadeError::Scenario(format!(
                    "`compaction.compactor.store`: `{}` puts absolute paths in the conversation, so the \
                     outcome would depend on the machine; use `{}` in scenarios",
                    FileSystemToolResultStore::TYPE,
                    crate::hooks::offload::InMemoryToolResultStore::TYPE
                )));
            }
            Ok(Arc::new(hook))
        }
    }
}
