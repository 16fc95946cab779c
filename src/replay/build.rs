//! From a scenario to an Agent and its run inputs.

use super::declarative::DeclarativeHook;
use super::named::NamedHook;
use super::prepare_error::PrepareError;
use super::ready_made;
use super::stream::Streamed;
use crate::agent::{Agent, RunOptions};
use crate::generator::ChatGenerator;
use crate::hook::{Hook, HookPoint};
use crate::message::ChatMessage;
use crate::scenario::{HookEntry, KeyPath, Scenario, ToolScript};
use crate::scripted::{ScriptedChatGenerator, ScriptedTool};
use crate::state::{HookContext, StateSchema};
use crate::tool::ToolSpec;
use indexmap::IndexMap;
use serde_json::Value;
use std::sync::Arc;

pub(crate) struct Prepared {
    pub agent: Agent,
    pub messages: Vec<ChatMessage>,
    pub options: RunOptions,
    /// What the run streams, with `run.stream`.
    pub streamed: Option<Streamed>,
}

/// The scenario's `model` script as a chat generator.
pub(crate) fn scripted(scenario: &Scenario) -> Arc<dyn ChatGenerator> {
    Arc::new(ScriptedChatGenerator::new(scenario.model.iter().cloned()))
}

/// `generator`: the model to run instead of the scenario's `model` script.
pub(crate) fn prepare(
    scenario: &Scenario,
    custom: &IndexMap<String, Arc<dyn Hook>>,
    generator: Option<Arc<dyn ChatGenerator>>,
) -> Result<Prepared, PrepareError> {
    let spec = &scenario.agent;
    if let Some(call) = &spec.python {
        return Err(PrepareError::NeedsHaystack {
            message: format!(
                "the Agent comes from your Python factory (`agent.python: {}`), which only the \
                 Haystack engine runs: run this scenario with `--engine haystack`",
                call.target
            ),
        });
    }
    if let Some(name) = &spec.custom {
        return Err(PrepareError::NeedsHaystack {
            message: format!(
                "the Agent is one your test registers (`agent.custom: {name}`), which only the \
                 pytest plugin hands to the Haystack engine: run this scenario with `pytest`, its \
                 conftest.py's `hookharness_agents` fixture giving `{name}` (docs/pytest.md)"
            ),
        });
    }
    // One wrapper per custom hook, so a hook used at several points stays one object.
    let custom: IndexMap<String, Arc<dyn Hook>> = custom
        .iter()
        .map(|(name, hook)| {
            let named: Arc<dyn Hook> = Arc::new(NamedHook::new(name.clone(), hook.clone()));
            (name.clone(), named)
        })
        .collect();
    let custom = &custom;
    let generator = generator.unwrap_or_else(|| scripted(scenario));
    let mut builder = Agent::builder()
        .chat_generator_arc(generator)
        .exit_conditions(spec.exit_conditions.iter().cloned())
        .max_agent_steps(spec.max_agent_steps)
        .raise_on_tool_invocation_failure(spec.raise_on_tool_invocation_failure)
        .tool_concurrency_limit(spec.tool_concurrency_limit)
        .state_schema(schema(scenario));
    if let Some(prompt) = &spec.system_prompt {
        builder = builder.system_prompt(prompt.clone());
    }
    if let Some(prompt) = &spec.user_prompt {
        builder = builder.user_prompt(prompt.clone());
    }
    builder = builder.required_variables(spec.required_variables.clone());
    for tool in &scenario.tools {
        let tool_spec = tool_spec(tool);
        builder = builder.tool(
            ScriptedTool::new(tool_spec, tool.results.iter().cloned())
                .repeat_last(tool.repeat_last),
        );
    }
    let mut shared: IndexMap<&str, Arc<dyn Hook>> = IndexMap::new();
    for (key, entry) in &scenario.shared_hooks {
        let place = KeyPath::default().key("shared_hooks").key(key).to_string();
        let hook = hook_for(entry, key, None, custom).map_err(|e| e.within(&place))?;
        shared.insert(key.as_str(), hook);
    }
    for (point, entries) in &scenario.hooks {
        for (index, entry) in entries.iter().enumerate() {
            let fallback = format!("{point}#{index}");
            let place = KeyPath::default()
                .key("hooks")
                .key(point)
                .index(index)
                .to_string();
            let hook = match entry {
                HookEntry::Shared(name) => shared.get(name.as_str()).cloned().ok_or_else(|| {
                    PrepareError::invalid_at(&place, format!(
                        "`hooks.{point}[{index}]` uses `shared: {name}`, but `shared_hooks` defines no `{name}`; \
                         add it under `shared_hooks`"
                    ))
                })?,
                other => hook_for(other, &fallback, Some(&shared), custom)
                    .map_err(|e| e.within(&place))?,
            };
            builder = builder.hook_arc(point, hook);
        }
    }
    let agent = builder.build().map_err(PrepareError::Construction)?;
    let messages = scenario
        .run
        .messages
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            spec.to_message().map_err(|e| {
                let place = format!("run.messages[{i}]");
                PrepareError::invalid_at(&place, format!("`{place}`: {e}"))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (reply, sees) in &scenario.sees {
        let lists = [
            ("messages", &sees.messages),
            ("new_messages", &sees.new_messages),
        ];
        for (key, specs) in lists {
            for (i, spec) in specs.iter().flatten().enumerate() {
                let place = format!("model[{reply}].sees.{key}[{i}]");
                spec.to_message()
                    .map_err(|e| PrepareError::invalid_at(&place, format!("`{place}`: {e}")))?;
            }
        }
    }
    let options = RunOptions {
        hook_context: HookContext::from(scenario.run.hook_context.clone()),
        state: scenario.run.state.clone(),
        tools: scenario.run.tools.clone(),
        variables: scenario.run.variables.clone(),
        generation_kwargs: scenario.run.generation_kwargs.clone(),
        ..RunOptions::default()
    };
    let streamed = scenario.run.stream.then(Streamed::default);
    let options = match &streamed {
        Some(streamed) => options.streaming_callback(streamed.callback(scenario.run.is_async)),
        None => options,
    };
    Ok(Prepared {
        agent,
        messages,
        options,
        streamed,
    })
}

/// Builds one hook entry.
fn hook_for(
    entry: &HookEntry,
    fallback: &str,
    shared: Option<&IndexMap<&str, Arc<dyn Hook>>>,
    custom: &IndexMap<String, Arc<dyn Hook>>,
) -> Result<Arc<dyn Hook>, PrepareError> {
    Ok(match entry {
        HookEntry::Declarative {
            name,
            when,
            actions,
            allowed_hook_points,
        } => {
            // Haystack never checks these names: one that is no hook point
            // can never match where the hook is registered, so it is dropped.
            let allowed = allowed_hook_points.as_ref().map(|points| {
                points
                    .iter()
                    .filter_map(|p| p.parse::<HookPoint>().ok())
                    .collect::<Vec<_>>()
            });
            let name = name.clone().unwrap_or_else(|| fallback.to_owned());
            Arc::new(DeclarativeHook::new(
                name,
                when.clone(),
                actions.clone(),
                allowed,
            ))
        }
        HookEntry::ReadyMade { kind, name, params } => {
            let hook = ready_made::build(*kind, params)?;
            let name = name.clone().unwrap_or_else(|| fallback.to_owned());
            Arc::new(NamedHook::new(name, hook))
        }
        HookEntry::Custom(name) => match custom.get(name) {
            Some(hook) => hook.clone(),
            None => {
                let message = match crate::wording::closest(name, custom.keys()) {
                    Some(known) => format!(
                        "custom hook `{name}` is not registered; did you mean `{known}`, the name \
                         the Rust test registers?"
                    ),
                    None => format!(
                        "custom hook `{name}` is not registered; register it with \
                     `Replay::new().custom_hook(\"{name}\", hook)` in the Rust test that runs this scenario"
                    ),
                };
                return Err(PrepareError::UnregisteredHook {
                    name: name.clone(),
                    message,
                });
            }
        },
        HookEntry::Python { call, .. } => {
            return Err(PrepareError::NeedsHaystack {
                message: format!(
                    "this hook is your Python code (`python: {}`), which only the Haystack engine runs: \
                     run this scenario with `--engine haystack`",
                    call.target
                ),
            });
        }
        HookEntry::Shared(name) => match shared.and_then(|s| s.get(name.as_str())) {
            Some(hook) => hook.clone(),
            None => {
                return Err(PrepareError::invalid(format!(
                    "`shared: {name}` cannot be used inside `shared_hooks`"
                )));
            }
        },
    })
}

/// A scripted tool's spec: its description, parameters and State and string
/// mappings.
fn tool_spec(tool: &ToolScript) -> ToolSpec {
    let mut spec = ToolSpec::new(tool.name.clone())
        .description(tool.description.clone())
        .parameters(Value::Object(tool.parameters.clone()));
    for (state_key, param) in &tool.inputs_from_state {
        spec = spec.input_from_state(state_key.clone(), param.clone());
    }
    for (state_key, output) in &tool.outputs_to_state {
        spec = spec.output_to_state(state_key.clone(), output.clone());
    }
    if let Some(config) = &tool.outputs_to_string {
        spec = spec.outputs_to_string(config.clone());
    }
    spec
}

fn schema(scenario: &Scenario) -> StateSchema {
    let mut schema = StateSchema::new();
    for (key, entry) in &scenario.agent.state_schema {
        schema.insert(key.clone(), entry.clone());
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Format;

    #[test]
    fn a_run_message_haystack_cannot_read_is_invalid_at_its_index() {
        let text = "run:\n  messages:\n    - {role: user, text: hi}\n    - {role: user, content: [{text: 5}]}\nmodel: [{text: ok}]\n";
        let scenario = Scenario::from_str(text, "m.yaml", Format::Yaml).unwrap();
        let Err(PrepareError::Invalid { message, place, .. }) =
            prepare(&scenario, &IndexMap::new(), None)
        else {
            panic!("the second message is not a message")
        };
        assert_eq!(place.as_deref(), Some("run.messages[1]"));
        assert!(message.starts_with("`run.messages[1]`: "), "{message}");
        // Loaded from text, and still located: the source map kept it.
        let error =
            super::super::validity::prepare_error(&scenario, message, place.as_deref(), false);
        assert!(
            error
                .to_string()
                .starts_with("m.yaml:4:7: `run.messages[1]`: "),
            "{error}"
        );
    }
}
