//! Haystack's `SimpleConsoleUI`: asks a person at the console.

use super::decision::ConfirmationUIResult;
use super::ui::{ConfirmationRequest, ConfirmationUI};
use super::ui_error::ConfirmationUIError;
use crate::hooks::component::{FromValueError, component, open};
use serde_json::{Map, Value};
use std::io::{BufRead, Write};
use std::sync::Mutex;

/// Haystack's `SimpleConsoleUI`: shows the call and asks on standard input
/// (`y`/`n`/`m`), with Haystack's prompts and texts.
///
/// A scenario accepts it only under `NeverAskPolicy`, which never asks: a
/// scenario run has nobody at the console.
///
/// ```
/// use hookharness::hooks::confirmation::{ConfirmationRequest, ConfirmationUI, SimpleConsoleUI};
/// use serde_json::{Map, json};
///
/// let ui = SimpleConsoleUI::with_io(&b"m\n\"news\"\n"[..], Vec::new());
/// let mut params = Map::new();
/// params.insert("q".into(), json!("weather"));
/// let request = ConfirmationRequest { tool_name: "search", tool_description: "Search.", tool_params: &params, tool_call_id: None };
/// let answer = ui.get_user_confirmation(&request).unwrap();
/// assert_eq!(answer.action, "modify");
/// assert_eq!(answer.new_tool_params.unwrap()["q"], json!("\"news\""));
/// ```
pub struct SimpleConsoleUI {
    io: Mutex<ConsoleIo>,
}

struct ConsoleIo {
    input: Box<dyn BufRead + Send>,
    output: Box<dyn Write + Send>,
}

impl std::fmt::Debug for SimpleConsoleUI {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimpleConsoleUI").finish_non_exhaustive()
    }
}

impl Default for SimpleConsoleUI {
    fn default() -> Self {
        Self::new()
    }
}

impl SimpleConsoleUI {
    /// The qualified class name in the serialized form.
    pub const TYPE: &'static str =
        "haystack.hooks.human_in_the_loop.user_interfaces.SimpleConsoleUI";

    /// A UI on standard input and standard output.
    pub fn new() -> Self {
        Self::with_io(std::io::BufReader::new(std::io::stdin()), std::io::stdout())
    }

    /// A UI reading answers from `input` and writing prompts to `output`.
    pub fn with_io(
        input: impl BufRead + Send + 'static,
        output: impl Write + Send + 'static,
    ) -> Self {
        SimpleConsoleUI {
            io: Mutex::new(ConsoleIo {
                input: Box::new(input),
                output: Box::new(output),
            }),
        }
    }

    /// Reads the serialized form (no parameters).
    pub fn from_value(value: &Value, path: &str) -> Result<Self, FromValueError> {
        open(value, Self::TYPE, path)?.only(&[])?;
        Ok(Self::new())
    }
}

impl ConsoleIo {
    fn say(&mut self, text: &str) -> Result<(), ConfirmationUIError> {
        Ok(writeln!(self.output, "{text}")?)
    }

    /// Python's `input(prompt).strip()`; the end of input is `EOFError`.
    fn ask(&mut self, prompt: &str) -> Result<String, ConfirmationUIError> {
        write!(self.output, "{prompt}")?;
        self.output.flush()?;
        let mut line = String::new();
        match self.input.read_line(&mut line)? {
            0 => Err("EOF when reading a line".into()),
            _ => Ok(line.trim().to_owned()),
        }
    }

    fn modify(
        &mut self,
        params: &Map<String, Value>,
    ) -> Result<ConfirmationUIResult, ConfirmationUIError> {
        let mut new_params = Map::new();
        if params.is_empty() {
            self.say("No parameters to modify, skipping modification.")?;
        }
        for (key, value) in params {
            let current = match value {
                Value::String(text) => text.clone(),
                other => crate::pyfmt::json_dumps_ascii(other),
            };
            loop {
                let answer = self.ask(&format!("Modify '{key}' (current: {current}): "))?;
                let answer = if answer.is_empty() {
                    current.clone()
                } else {
                    answer
                };
                if value.is_string() {
                    new_params.insert(key.clone(), Value::String(answer));
                    break;
                }
                match serde_json::from_str::<Value>(&answer).map(crate::value::canonical_numbers) {
                    Ok(parsed) => {
                        new_params.insert(key.clone(), parsed);
                        break;
                    }
                    Err(_) => self.say("❌ Invalid JSON, please try again.")?,
                }
            }
        }
        Ok(ConfirmationUIResult::new("modify").with_params(new_params))
    }
}

impl ConfirmationUI for SimpleConsoleUI {
    fn get_user_confirmation(
        &self,
        request: &ConfirmationRequest<'_>,
    ) -> Result<ConfirmationUIResult, ConfirmationUIError> {
        let mut io = self
            .io
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        io.say("\n--- Tool Execution Request ---")?;
        io.say(&format!("Tool: {}", request.tool_name))?;
        io.say(&format!("Description: {}", request.tool_description))?;
        io.say("Arguments:")?;
        if request.tool_params.is_empty() {
            io.say("  (No arguments)")?;
        }
        for (key, value) in request.tool_params {
            let shown = match value {
                Value::String(text) => text.clone(),
                other => crate::pyfmt::repr(other),
            };
            io.say(&format!("  {key}: {shown}"))?;
        }
        io.say(&"-".repeat(30))?;
        let choice = loop {
            let choice = io
                .ask("Confirm execution? (y=confirm / n=reject / m=modify): ")?
                .to_lowercase();
            if ["y", "yes", "n", "no", "m", "modify"].contains(&choice.as_str()) {
                break choice;
            }
            io.say("Invalid input. Please enter 'y', 'n', or 'm'.")?;
        };
        match choice.as_str() {
            "y" | "yes" => Ok(ConfirmationUIResult::new("confirm")),
            "m" | "modify" => io.modify(request.tool_params),
            _ => {
                let feedback = io.ask("Feedback message (optional): ")?;
                let answer = ConfirmationUIResult::new("reject");
                Ok(if feedback.is_empty() {
                    answer
                } else {
                    answer.with_feedback(feedback)
                })
            }
        }
    }

    fn to_value(&self) -> Value {
        component(Self::TYPE, Map::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    /// Output captured for the assertions.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn ask(
        input: &'static str,
        params: Value,
    ) -> (Result<ConfirmationUIResult, ConfirmationUIError>, String) {
        let out = Shared::default();
        let ui = SimpleConsoleUI::with_io(input.as_bytes(), out.clone());
        let Value::Object(params) = params else {
            panic!("params are a map")
        };
        let request = ConfirmationRequest {
            tool_name: "search",
            tool_description: "Search the web.",
            tool_params: &params,
            tool_call_id: Some("c1"),
        };
        let answer = ui.get_user_confirmation(&request);
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        (answer, text)
    }

    #[test]
    fn shows_the_call_as_haystack_prints_it_and_reprompts_on_invalid_input() {
        let (answer, text) = ask("maybe\nY\n", json!({"q": "x", "n": 2, "deep": true}));
        assert_eq!(answer.unwrap(), ConfirmationUIResult::new("confirm"));
        assert_eq!(
            text,
            "\n--- Tool Execution Request ---\nTool: search\nDescription: Search the web.\nArguments:\n  q: x\n  n: 2\n  deep: True\n------------------------------\n\
             Confirm execution? (y=confirm / n=reject / m=modify): Invalid input. Please enter 'y', 'n', or 'm'.\n\
             Confirm execution? (y=confirm / n=reject / m=modify): "
        );
    }

    #[test]
    fn reject_takes_optional_feedback() {
        let (answer, _) = ask("n\n  too slow \n", json!({}));
        assert_eq!(
            answer.unwrap(),
            ConfirmationUIResult::new("reject").with_feedback("too slow")
        );
        let (answer, _) = ask("no\n\n", json!({}));
        assert_eq!(answer.unwrap(), ConfirmationUIResult::new("reject"));
    }

    #[test]
    fn modify_keeps_strings_and_parses_json_for_other_values() {
        let (answer, text) = ask(
            "m\nnews\noops\n[1, 2]\n\n",
            json!({"q": "x", "ids": [3], "k": 5}),
        );
        let mut expected = Map::new();
        expected.insert("q".into(), json!("news"));
        expected.insert("ids".into(), json!([1, 2]));
        expected.insert("k".into(), json!(5));
        assert_eq!(
            answer.unwrap(),
            ConfirmationUIResult::new("modify").with_params(expected)
        );
        assert!(text.contains("Modify 'ids' (current: [3]): ❌ Invalid JSON, please try again.\n"));
    }

    #[test]
    fn the_end_of_input_fails_as_pythons_input_does() {
        let (answer, _) = ask("", json!({}));
        assert_eq!(answer.unwrap_err().message(), "EOF when reading a line");
    }
}
