//! The confirmation dimension: every answer (confirm, modify, reject) to
//! every question a scripted confirmation UI answers.
//!
//! Each `ScriptedConfirmationUI` of a `confirmation:` entry (at a hook point
//! or under `shared_hooks`) scripts one answer per question. A variant gives
//! each question one of: `{action: confirm}`, the UI's first `modify`
//! answer (its `new_tool_params`, which a modification needs; a UI without
//! one varies between confirm and reject only), and the UI's first `reject`
//! answer (its feedback), or `{action: reject}`.

use super::rng::Rng;
use crate::hooks::confirmation::ScriptedConfirmationUI;
use crate::scenario::{HookEntry, ReadyMadeKind, Scenario};
use serde_json::{Value, json};

/// Where a confirmation entry is written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    Hook { point: String, index: usize },
    Shared(String),
}

/// One scripted UI: where, under which strategy key, and the answers each
/// of its questions may take.
#[derive(Debug, Clone)]
struct Ui {
    place: Place,
    strategy: String,
    /// The entry's name (or place), for descriptions.
    label: String,
    /// Per question, the possible answers (the one written first).
    options: Vec<Vec<Value>>,
}

/// One answer per question of every UI.
pub(crate) type Answers = Vec<Vec<usize>>;

/// The scripted confirmation UIs of a scenario.
pub(crate) struct Questions {
    uis: Vec<Ui>,
}

impl Questions {
    pub(crate) fn of(scenario: &Scenario) -> Self {
        let mut uis = Vec::new();
        let entries = scenario
            .hooks
            .iter()
            .flat_map(|(point, entries)| {
                entries.iter().enumerate().map(move |(index, entry)| {
                    let place = Place::Hook {
                        point: point.clone(),
                        index,
                    };
                    (place, format!("hooks.{point}[{index}]"), entry)
                })
            })
            .chain(
                scenario
                    .shared_hooks
                    .iter()
                    .map(|(key, entry)| (Place::Shared(key.clone()), key.clone(), entry)),
            );
        for (place, fallback, entry) in entries {
            let HookEntry::ReadyMade {
                kind: ReadyMadeKind::Confirmation,
                name,
                params,
            } = entry
            else {
                continue;
            };
            let label = name.clone().unwrap_or(fallback);
            let Some(strategies) = params
                .get("confirmation_strategies")
                .and_then(Value::as_object)
            else {
                continue;
            };
            for (strategy, value) in strategies {
                let Some(answers) = ui_answers(value) else {
                    continue;
                };
                uis.push(Ui {
                    place: place.clone(),
                    strategy: strategy.clone(),
                    label: format!("{label}[{strategy}]"),
                    options: options(answers),
                });
            }
        }
        Questions { uis }
    }

    /// How many answer sets there are (saturating).
    pub(crate) fn count(&self) -> u128 {
        self.uis
            .iter()
            .flat_map(|ui| &ui.options)
            .map(|o| o.len() as u128)
            .fold(1u128, u128::saturating_mul)
    }

    /// Every answer set, the scenario's own first.
    pub(crate) fn all(&self) -> Vec<Answers> {
        let sizes: Vec<usize> = self
            .uis
            .iter()
            .flat_map(|ui| ui.options.iter().map(Vec::len))
            .collect();
        let mut digits = vec![0usize; sizes.len()];
        let mut out = Vec::new();
        loop {
            out.push(self.split(&digits));
            let mut i = 0;
            loop {
                if i == digits.len() {
                    return out;
                }
                digits[i] += 1;
                if digits[i] < sizes[i] {
                    break;
                }
                digits[i] = 0;
                i += 1;
            }
        }
    }

    /// The scenario's own answers.
    pub(crate) fn own(&self) -> Answers {
        self.uis
            .iter()
            .map(|ui| vec![0; ui.options.len()])
            .collect()
    }

    /// One answer set at random.
    pub(crate) fn random(&self, rng: &mut Rng) -> Answers {
        self.uis
            .iter()
            .map(|ui| ui.options.iter().map(|o| rng.below(o.len())).collect())
            .collect()
    }

    fn split(&self, digits: &[usize]) -> Answers {
        let mut rest = digits;
        self.uis
            .iter()
            .map(|ui| {
                let (mine, others) = rest.split_at(ui.options.len());
                rest = others;
                mine.to_vec()
            })
            .collect()
    }

    /// `scenario` with these answers scripted.
    pub(crate) fn apply(&self, scenario: &mut Scenario, answers: &Answers) {
        for (ui, picks) in self.uis.iter().zip(answers) {
            let entry = match &ui.place {
                Place::Hook { point, index } => scenario
                    .hooks
                    .get_mut(point.as_str())
                    .and_then(|e| e.get_mut(*index)),
                Place::Shared(key) => scenario.shared_hooks.get_mut(key.as_str()),
            };
            let Some(HookEntry::ReadyMade { params, .. }) = entry else {
                continue;
            };
            let list: Vec<Value> = ui
                .options
                .iter()
                .zip(picks)
                .map(|(options, &pick)| options[pick].clone())
                .collect();
            let pointer = format!(
                "/confirmation_strategies/{}/init_parameters/confirmation_ui/init_parameters/answers",
                ui.strategy.replace('~', "~0").replace('/', "~1")
            );
            if let Some(slot) = params.pointer_mut(&pointer) {
                *slot = Value::Array(list);
            }
        }
    }

    /// How `answers` differ from the scenario's own: `confirm[*]: [reject, confirm]`.
    pub(crate) fn describe(&self, answers: &Answers) -> Vec<String> {
        self.uis
            .iter()
            .zip(answers)
            .filter(|(_, picks)| picks.iter().any(|&p| p != 0))
            .map(|(ui, picks)| {
                let actions: Vec<&str> = ui
                    .options
                    .iter()
                    .zip(picks)
                    .map(|(o, &p)| o[p].get("action").and_then(Value::as_str).unwrap_or("?"))
                    .collect();
                format!("{} answers: [{}]", ui.label, actions.join(", "))
            })
            .collect()
    }
}

/// The `answers` of a strategy whose UI is scripted.
fn ui_answers(strategy: &Value) -> Option<&Vec<Value>> {
    let ui = strategy.pointer("/init_parameters/confirmation_ui")?;
    if ui.get("type").and_then(Value::as_str) != Some(ScriptedConfirmationUI::TYPE) {
        return None;
    }
    ui.pointer("/init_parameters/answers")?.as_array()
}

/// Per question, the written answer first, then the others.
fn options(answers: &[Value]) -> Vec<Vec<Value>> {
    let first = |action: &str| {
        answers
            .iter()
            .find(|a| a.get("action").and_then(Value::as_str) == Some(action))
            .cloned()
    };
    let mut all = vec![json!({"action": "confirm"})];
    all.extend(first("modify"));
    all.push(first("reject").unwrap_or_else(|| json!({"action": "reject"})));
    answers
        .iter()
        .map(|written| {
            let action = written.get("action").and_then(Value::as_str);
            let mut options = vec![written.clone()];
            options.extend(
                all.iter()
                    .filter(|o| o.get("action").and_then(Value::as_str) != action)
                    .cloned(),
            );
            options
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Format;

    fn scenario(answers: &str) -> Scenario {
        let text = format!(
            r#"
hooks:
  before_tool:
    - name: confirm
      confirmation:
        confirmation_strategies:
          "*":
            type: haystack.hooks.human_in_the_loop.strategies.BlockingConfirmationStrategy
            init_parameters:
              confirmation_policy: {{type: haystack.hooks.human_in_the_loop.policies.AlwaysAskPolicy}}
              confirmation_ui:
                type: hookharness.hooks.confirmation.ScriptedConfirmationUI
                init_parameters: {{answers: {answers}}}
model: []
"#
        );
        Scenario::from_str(&text, "answers.yaml", Format::Yaml).unwrap()
    }

    #[test]
    fn two_questions_with_a_modify_answer_give_nine_answer_sets() {
        let s = scenario("[{action: confirm}, {action: modify, new_tool_params: {a: 1}}]");
        let questions = Questions::of(&s);
        assert_eq!(questions.count(), 9);
        let all = questions.all();
        assert_eq!(all.len(), 9);
        assert!(questions.describe(&all[0]).is_empty());
        assert_eq!(
            questions.describe(&all[8]),
            ["confirm[*] answers: [reject, reject]"]
        );
    }

    #[test]
    fn without_a_modify_answer_questions_vary_between_confirm_and_reject() {
        let s = scenario("[{action: reject, feedback: no}]");
        let questions = Questions::of(&s);
        assert_eq!(questions.count(), 2);
        let mut variant = s.clone();
        questions.apply(&mut variant, &vec![vec![1]]);
        let HookEntry::ReadyMade { params, .. } = &variant.hooks["before_tool"][0] else {
            panic!("not ready-made");
        };
        let answers = params
            .pointer("/confirmation_strategies/*/init_parameters/confirmation_ui/init_parameters/answers")
            .unwrap();
        assert_eq!(answers, &json!([{"action": "confirm"}]));
    }
}
