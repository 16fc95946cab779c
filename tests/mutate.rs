//! `hookharness mutate`: the mutation score of scenario files, the
//! survivors at the line they changed, and its exit codes.

mod common;

use common::{hookharness, scratch, stdout};
use serde_json::Value;

/// `hookharness mutate --format json PATH`'s document.
fn mutate_json(path: &std::path::Path) -> Value {
    let output = hookharness(&["mutate", "--format", "json", path.to_str().unwrap()]);
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The document's mutants.
fn mutants(document: &Value) -> &[Value] {
    document["mutants"].as_array().unwrap()
}

/// A scenario whose hook stops the run, and which expects only the final text.
const WEAK: &str = "\
name: weak
hooks:
  before_llm:
    - when: {step_count: 1}
      do:
        - stop_run: enough
model:
  - tool_calls: [{tool: search, arguments: {q: rust}}]
  - text: done
tools:
  - name: search
    results: [found]
run:
  messages: [{role: user, text: hi}]
expect:
  unused_replies: allow
";

/// The same run with expectations that pin the stop, its step, the call
/// and its arguments, and a model script that must be used up.
const STRONG: &str = "\
name: strong
agent:
  state_schema:
    query: {type: str}
hooks:
  before_llm:
    - when: {step_count: 1}
      do:
        - stop_run: enough
model:
  - tool_calls: [{tool: search, arguments: {q: rust}}]
tools:
  - name: search
    outputs_to_state:
      query: {source: q}
    results: [{echo_arguments: true}]
run:
  messages: [{role: user, text: hi}]
expect:
  exit_reason: enough
  step_count: 1
  tools_run: [search]
  state: {query: rust}
";

#[test]
fn survivors_are_listed_at_the_line_they_changed_with_the_score_last() {
    let dir = scratch("mutate", "weak");
    let file = dir.join("weak.yaml");
    std::fs::write(&file, WEAK).unwrap();
    let output = hookharness(&["mutate", file.to_str().unwrap()]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let f = file.display();
    assert!(
        text.contains(&format!(
            "{f}:6:11: survived: drop `do[0]` (`stop_run`) (hooks.before_llm[0].do[0])\n"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{f}:8:45: survived: argument `q` of the call to `search`: \"rust\" -> \"xyzzy\" \
             (model[0].tool_calls[0].arguments.q)\n"
        )),
        "{text}"
    );
    // Nothing but the final text is expected: no mutant is noticed.
    assert_eq!(
        text.lines().last().unwrap(),
        "mutation score: 0/13 killed (3 not reached)",
        "{text}"
    );
}

#[test]
fn a_scenario_whose_expectations_pin_its_hook_kills_every_mutant_and_exits_0() {
    let dir = scratch("mutate", "strong");
    let file = dir.join("strong.yaml");
    std::fs::write(&file, STRONG).unwrap();
    let output = hookharness(&["mutate", file.to_str().unwrap()]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(!text.contains("survived"), "{text}");
    assert!(text.starts_with("mutation score: "), "{text}");
    let score = text.trim_end().trim_start_matches("mutation score: ");
    let (killed, total) = score
        .split_once(" killed")
        .unwrap()
        .0
        .split_once('/')
        .unwrap();
    assert_eq!(killed, total, "{text}");
}

#[test]
fn json_output_is_one_document_with_every_mutants_verdict_and_the_same_on_every_run() {
    let dir = scratch("mutate", "json");
    std::fs::write(dir.join("weak.yaml"), WEAK).unwrap();
    std::fs::write(dir.join("strong.yaml"), STRONG).unwrap();
    let run = || hookharness(&["mutate", "--format", "json", dir.to_str().unwrap()]);
    let output = run();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        output.stdout,
        run().stdout,
        "the report changed between runs"
    );
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mutants = mutants(&document);
    let count = |verdict: &str| mutants.iter().filter(|m| m["verdict"] == verdict).count();
    assert_eq!(document["score"]["killed"], count("killed"));
    assert_eq!(document["score"]["survived"], count("survived"));
    assert!(count("survived") > 0 && count("killed") > 0);
    let survivor = mutants.iter().find(|m| m["verdict"] == "survived").unwrap();
    for key in ["file", "line", "column", "place", "operator", "description"] {
        assert!(!survivor[key].is_null(), "{key} missing in {survivor}");
    }
}

#[test]
fn a_scenario_that_fails_as_written_is_not_mutated_and_an_invalid_file_exits_2() {
    let dir = scratch("mutate", "not_green");
    let failing = dir.join("failing.yaml");
    std::fs::write(
        &failing,
        STRONG.replace("exit_reason: enough", "exit_reason: other"),
    )
    .unwrap();
    let output = hookharness(&["mutate", failing.to_str().unwrap()]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.starts_with(&format!(
            "{}: not mutated: the scenario does not pass as written (fail)",
            failing.display()
        )),
        "{text}"
    );

    let invalid = dir.join("invalid.yaml");
    std::fs::write(&invalid, "model: [{txt: hi}]\n").unwrap();
    let output = hookharness(&["mutate", invalid.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("invalid.yaml:1:"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_scenario_with_a_custom_hook_is_not_mutated_and_the_report_says_why_as_explore_does() {
    let file = "examples/scenarios/require_citation.yaml";
    let mutate = hookharness(&["mutate", file]);
    assert_eq!(mutate.status.code(), Some(1));
    assert_eq!(
        stdout(&mutate).lines().next(),
        Some(
            "examples/scenarios/require_citation.yaml: not mutated: it uses `custom: \
             require_citation`, a hook your test registers; mutate it with \
             `hookharness::mutate::run` and a `Replay` that registers it"
        )
    );
    let explore = hookharness(&["explore", file]);
    assert!(
        stdout(&explore).contains("not explored: it uses `custom: require_citation`"),
        "{}",
        stdout(&explore)
    );
}

#[test]
fn mutate_takes_the_exit_codes_of_run_for_no_scenario_and_a_bad_flag() {
    let dir = scratch("mutate", "empty");
    assert_eq!(
        hookharness(&["mutate", dir.to_str().unwrap()])
            .status
            .code(),
        Some(3)
    );
    assert_eq!(
        hookharness(&["mutate", "--format", "xml", "scenarios"])
            .status
            .code(),
        Some(4)
    );
}

#[test]
fn changes_to_parts_the_run_never_used_are_not_reached_and_not_counted() {
    let dir = scratch("mutate", "reach");
    // The second reply and the second result are never asked for (nor a
    // copy of the first reply, which would be the second); the
    // `on_exit` hook never runs, as the run stops before any exit check.
    let file = dir.join("reach.yaml");
    std::fs::write(
        &file,
        "hooks:\n  before_llm:\n    - when: {step_count: 1}\n      do: [{stop_run: enough}]\n  on_exit:\n    - do: [{set: {seen: true}}]\nagent:\n  state_schema: {seen: {type: bool}}\nmodel:\n  - tool_calls: [{tool: t, arguments: {}}]\n  - text: never\ntools: [{name: t, results: [one, two]}]\nrun:\n  messages: [{role: user, text: hi}]\nexpect:\n  unused_replies: allow\n  exit_reason: enough\n  last_message: {role: tool}\n",
    )
    .unwrap();
    let document = mutate_json(&file);
    let not_reached: Vec<&str> = mutants(&document)
        .iter()
        .filter(|m| m["verdict"] == "not_reached")
        .map(|m| m["place"].as_str().unwrap())
        .collect();
    assert_eq!(
        not_reached,
        [
            "hooks.on_exit[0].do[0]",
            "model[0]",
            "model[1]",
            "model[1]",
            "tools[0].results[1]"
        ]
    );
    assert_eq!(document["score"]["not_reached"], 5);
}

#[test]
fn a_hook_that_only_breaks_construction_is_used_there_so_dropping_it_is_killed() {
    let dir = scratch("mutate", "construction");
    let file = dir.join("unknown_point.yaml");
    std::fs::write(
        &file,
        "hooks:\n  after_everything:\n    - do: []\nmodel: [{text: hi}]\nexpect:\n  error: Invalid hook point\n  unused_replies: allow\n",
    )
    .unwrap();
    let document = mutate_json(&file);
    let drop = mutants(&document)
        .iter()
        .find(|m| m["operator"] == "drop_hook")
        .unwrap();
    assert_eq!(drop["verdict"], "killed", "{document}");
}

#[test]
fn killed_by_outcome_counts_any_change_to_the_outcome_so_only_equivalent_mutants_survive() {
    let dir = scratch("mutate", "outcome");
    let file = dir.join("weak.yaml");
    std::fs::write(&file, WEAK).unwrap();
    let output = hookharness(&["mutate", "--killed-by", "outcome", file.to_str().unwrap()]);
    let text = stdout(&output);
    // Every change shows in the outcome, though no expectation checks it.
    assert_eq!(text, "mutation score: 13/13 killed (3 not reached)\n");
    assert_eq!(output.status.code(), Some(0));
}

/// A hook that stops the run at step 0, the only step it sees: dropping its
/// `when.step_count` changes nothing in the outcome (equivalent), moving it
/// to `before_run` changes the trace but no expectation (survives).
const EQUIVALENT: &str = "\
name: equivalent
hooks:
  before_llm:
    - when: {step_count: 0}
      do: [{stop_run: enough}]
model:
  - text: never
run:
  messages: [{role: user, text: hi}]
expect:
  unused_replies: allow
  exit_reason: enough
";

#[test]
fn a_mutant_whose_outcome_is_the_unmutated_runs_is_equivalent_and_not_counted() {
    let dir = scratch("mutate", "equivalent");
    let file = dir.join("equivalent.yaml");
    std::fs::write(&file, EQUIVALENT).unwrap();
    let document = mutate_json(&file);
    let with = |verdict: &str| -> Vec<&str> {
        mutants(&document)
            .iter()
            .filter(|m| m["verdict"] == verdict)
            .map(|m| m["description"].as_str().unwrap())
            .collect()
    };
    assert_eq!(with("equivalent"), ["drop `when.step_count`"]);
    assert_eq!(
        with("survived"),
        ["move the hook from `before_llm` to `before_run`"]
    );
    let score = &document["score"];
    assert_eq!(
        (score["killed"].as_u64(), score["survived"].as_u64()),
        (Some(7), Some(1))
    );
    assert_eq!(score["equivalent"], 1);
    let output = hookharness(&["mutate", file.to_str().unwrap()]);
    assert_eq!(
        stdout(&output).lines().last().unwrap(),
        "mutation score: 7/8 killed (2 not reached, 1 equivalent)"
    );

    // Pinning the hook's point kills the survivor; the equivalent mutant
    // stays out of the count, so every counted mutant is killed: exit 0.
    std::fs::write(
        &file,
        EQUIVALENT.replace(
            "  exit_reason: enough\n",
            "  exit_reason: enough\n  hooks: [before_llm]\n",
        ),
    )
    .unwrap();
    let output = hookharness(&["mutate", file.to_str().unwrap()]);
    assert_eq!(
        stdout(&output),
        "mutation score: 8/8 killed (2 not reached, 1 equivalent)\n"
    );
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn killed_by_outcome_kills_every_change_the_outcome_shows_and_lists_the_equivalent_ones() {
    let dir = scratch("mutate", "outcome_equivalent");
    let file = dir.join("equivalent.yaml");
    std::fs::write(&file, EQUIVALENT).unwrap();
    let output = hookharness(&["mutate", "--killed-by", "outcome", file.to_str().unwrap()]);
    assert_eq!(
        stdout(&output),
        format!(
            "{}:4:14: equivalent: drop `when.step_count` (hooks.before_llm[0].when.step_count)\n\
             mutation score: 8/8 killed (2 not reached, 1 equivalent)\n",
            file.display()
        )
    );
    assert_eq!(output.status.code(), Some(0));
}

/// The corpus kills at least 95% of its viable mutants, and every survivor
/// is one `docs/mutation.md` lists by kind, with why: a scenario whose new
/// survivor is not explained there fails here, as does a stale count.
#[test]
fn the_corpus_kills_95_percent_and_its_survivors_are_the_documented_ones() {
    let document = mutate_json(std::path::Path::new("scenarios"));
    let score = &document["score"];
    let killed = score["killed"].as_u64().unwrap();
    let survived = score["survived"].as_u64().unwrap();
    assert!(
        killed * 100 >= (killed + survived) * 95,
        "mutate scenarios/ kills {killed} of {}",
        killed + survived
    );
    let docs = std::fs::read_to_string("docs/mutation.md").unwrap();
    let heading = format!("The {survived} survivors, by kind.");
    let table = docs
        .split_once(&heading)
        .unwrap_or_else(|| panic!("docs/mutation.md has no {heading:?}"))
        .1
        .split_once("equivalent mutants")
        .unwrap()
        .0;
    let mut listed = 0;
    for row in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        listed += cells[2].parse::<u64>().unwrap();
    }
    assert_eq!(listed, survived, "the table's counts: {table}");
    for mutant in mutants(&document) {
        if mutant["verdict"] != "survived" {
            continue;
        }
        let file = mutant["file"].as_str().unwrap();
        let name = file.rsplit('/').next().unwrap();
        let operator = mutant["operator"].as_str().unwrap();
        let explained = table.lines().any(|row| {
            row.starts_with(&format!("| `{operator}`")) && row.contains(&format!("{name}`"))
        });
        assert!(
            explained,
            "{file}: a surviving `{operator}` mutant ({}) that docs/mutation.md does not list",
            mutant["description"]
        );
    }
}

#[test]
fn outcomes_are_compared_as_their_values_are_without_building_the_trace() {
    use hookharness::replay::Replay;
    use hookharness::scenario::{Format, Scenario};
    let texts = [
        "model: [{text: hi}]",
        "model: [{text: ho}]",
        "hooks: {before_llm: [{name: a}]}\nmodel: [{text: hi}]",
        "hooks: {before_llm: [{name: b}]}\nmodel: [{text: hi}]",
        "hooks: {before_llm: [{name: a}]}\nmodel: [{text: hi}]",
        "hooks: {before_llm: [{name: a}, {name: a}]}\nmodel: [{text: hi}]",
    ];
    let outcomes: Vec<_> = texts
        .iter()
        .map(|text| {
            let scenario = Scenario::from_str(text, "same.yaml", Format::Yaml).unwrap();
            Replay::new().run(&scenario)
        })
        .collect();
    let mut same = 0;
    for a in &outcomes {
        for b in &outcomes {
            assert_eq!(a.same_value(b), a.to_value() == b.to_value());
            same += usize::from(a.same_value(b));
        }
    }
    // Each outcome is its own, and the third and fifth are one.
    assert_eq!(same, texts.len() + 2);
}
