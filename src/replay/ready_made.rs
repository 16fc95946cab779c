//! Ready-made scenario entries (`token_budget:`, `tool_result_offload:`, ...)
//! to hooks: each entry's parameters are the hook's constructor parameters.

use super::prepare_error::PrepareError;
use crate::hook::Hook;
use crate::hooks::confirmation::{NeverAskPolicy, ScriptedConfirmationUI, SimpleConsoleUI};
use crate::hooks::offload::{FileSystemToolResultStore, ToolResultOffloadHook};
use crate::hooks::{CompactionHook, ConfirmationHook, TokenBudgetHook};
use crate::scenario::ReadyMadeKind;
use serde_json::Value;
use std::sync::Arc;

pub(crate) fn build(kind: ReadyMadeKind, params: &Value) -> Result<Arc<dyn Hook>, PrepareError> {
    match kind {
        ReadyMadeKind::TokenBudget => Ok(Arc::new(TokenBudgetHook::from_params(params)?)),
        ReadyMadeKind::ToolResultOffload => {
            let hook = ToolResultOffloadHook::from_params(params)?;
            if hook.store().to_value()["type"] == FileSystemToolResultStore::TYPE {
                return Err(PrepareError::invalid_at(
                    "tool_result_offload.store",
                    format!(
                        "`tool_result_offload.store`: `{}` puts absolute paths in the conversation, so the \
                     outcome would depend on the machine; use `{}` in scenarios",
                        FileSystemToolResultStore::TYPE,
                        crate::hooks::offload::InMemoryToolResultStore::TYPE
                    ),
                ));
            }
            Ok(Arc::new(hook))
        }
        ReadyMadeKind::Confirmation => {
            let hook = ConfirmationHook::from_params(params)?;
            refuse_asking_console(&hook.to_value())?;
            Ok(Arc::new(hook))
        }
        ReadyMadeKind::Compaction => {
            let hook = CompactionHook::from_params(params)?;
            let store =
                &hook.to_value()["init_parameters"]["compactor"]["init_parameters"]["store"];
            if store["type"] == FileSystemToolResultStore::TYPE {
                return Err(PrepareError::invalid_at(
                    "compaction.compactor.init_parameters.store",
                    format!(
                        "`compaction.compactor.store`: `{}` puts absolute paths in the conversation, so the \
                     outcome would depend on the machine; use `{}` in scenarios",
                        FileSystemToolResultStore::TYPE,
                        crate::hooks::offload::InMemoryToolResultStore::TYPE
                    ),
                ));
            }
            Ok(Arc::new(hook))
        }
    }
}

/// A console UI asks a person, whom a scenario run does not have: it is
/// accepted only under `NeverAskPolicy`, which never asks.
fn refuse_asking_console(hook: &Value) -> Result<(), PrepareError> {
    let strategies = hook["init_parameters"]["confirmation_strategies"].as_object();
    for (key, strategy) in strategies.into_iter().flatten() {
        let init = &strategy["init_parameters"];
        let policy = init["confirmation_policy"]["type"]
            .as_str()
            .unwrap_or_default();
        if init["confirmation_ui"]["type"] == SimpleConsoleUI::TYPE
            && policy != NeverAskPolicy::TYPE
        {
            return Err(PrepareError::invalid_at(
                format!("confirmation.confirmation_strategies.{key}"),
                format!(
                    "`confirmation.confirmation_strategies.{key}`: `{}` asks a person at the console, \
                 and a scenario run has none; use it with `{}` (which never asks), or use `{}`",
                    SimpleConsoleUI::TYPE,
                    NeverAskPolicy::TYPE,
                    ScriptedConfirmationUI::TYPE
                ),
            ));
        }
    }
    Ok(())
}
