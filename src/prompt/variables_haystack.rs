//! The template variables and the `Provided variables: {...}` set against
//! Haystack itself: generated prompt templates (nested `for`/`if`/`set`,
//! macros, call, filter and set blocks, `with`, `block`, filters and inline
//! ifs over a pool of many names, so that the sets' tables grow and their
//! items collide), each built into a `ChatPromptBuilder` by the interpreter
//! named by `HOOKHARNESS_PYTHON` (else `HOOKHARNESS_REF_VENV/bin/python`),
//! run with `PYTHONHASHSEED=0` and haystack-ai installed, and rendered by
//! Haystack's `_render_prompt_messages` with some variables missing.
//! Compared: the builder's `variables` list (its order too) and the whole
//! error text. Skipped, with the reason printed, when neither is set.

use super::{Prompt, PromptKind, RequiredVariables};
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// Reads `{"template": ..., "kwargs": {...}}` lines; answers each with
/// `{"variables": [...], "error": "..."}` (or `{"construction": "..."}`
/// when the builder is not built).
const EVALUATOR: &str = r#"
import json, sys
from haystack.components.builders import ChatPromptBuilder
from haystack.components.agents.utils import _render_prompt_messages, _template_for_role
from haystack.dataclasses import ChatRole
for line in sys.stdin:
    case = json.loads(line)
    try:
        builder = ChatPromptBuilder(template=_template_for_role(case["template"], "user"), required_variables="*")
    except Exception as e:
        print(json.dumps({"construction": type(e).__name__ + ": " + str(e)}), flush=True)
        continue
    out = {"variables": builder.variables, "error": None}
    try:
        _render_prompt_messages(prompt_builder=builder, expected_role=ChatRole.USER,
                                prompt_label="user_prompt", kwargs=case["kwargs"])
    except Exception as e:
        out["error"] = str(e)
    print(json.dumps(out), flush=True)
"#;

struct Evaluator {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

fn python() -> Option<String> {
    if let Ok(python) = std::env::var("HOOKHARNESS_PYTHON") {
        return Some(python);
    }
    std::env::var("HOOKHARNESS_REF_VENV")
        .ok()
        .map(|venv| format!("{venv}/bin/python"))
}

fn evaluator() -> Option<&'static Mutex<Evaluator>> {
    static EVALUATOR_PROCESS: OnceLock<Option<Mutex<Evaluator>>> = OnceLock::new();
    EVALUATOR_PROCESS
        .get_or_init(|| {
            let python = python()?;
            let mut child = Command::new(&python)
                .args(["-c", EVALUATOR])
                .env("PYTHONHASHSEED", "0")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
            let stdin = child.stdin.take().expect("piped stdin");
            let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
            Some(Mutex::new(Evaluator {
                _child: child,
                stdin,
                stdout,
            }))
        })
        .as_ref()
}

fn haystack(evaluator: &Mutex<Evaluator>, template: &str, kwargs: &Map<String, Value>) -> Value {
    let mut evaluator = evaluator.lock().unwrap_or_else(|e| e.into_inner());
    let case = json!({"template": template, "kwargs": kwargs});
    writeln!(evaluator.stdin, "{case}").expect("the evaluator reads its input");
    let mut line = String::new();
    evaluator
        .stdout
        .read_line(&mut line)
        .expect("the evaluator answers");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("the evaluator printed {line:?}: {e}"))
}

/// SplitMix64: the template is drawn from one seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Names of variables: many, so that the sets grow past 8 and 32 slots,
/// and a few Jinja2 treats specially.
const NAMES: [&str; 48] = [
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "m", "n", "p", "q", "r", "s", "t", "u",
    "v", "w", "x", "y", "z", "city", "name", "topic", "items", "user", "query", "docs", "lang",
    "tone", "date", "count", "limit", "style", "goal", "notes", "extra", "ctx", "data", "loop",
    "caller", "self", "kwargs", "range", "varargs",
];

struct Generator {
    rng: Rng,
    blocks: usize,
    budget: usize,
    /// Inside a macro or call block, where minijinja allows no block.
    in_macro: bool,
}

impl Generator {
    fn name(&mut self) -> String {
        // Mostly ordinary names; the special ones now and then.
        let pool = if self.rng.chance(92) { 42 } else { NAMES.len() };
        NAMES[self.rng.below(pool)].to_owned()
    }

    /// A name a statement assigns: never one of the special ones, which
    /// minijinja or Jinja2 refuse to assign (not this test's subject).
    fn target(&mut self) -> String {
        NAMES[self.rng.below(42)].to_owned()
    }

    fn expr(&mut self, depth: usize) -> String {
        let pick = if depth == 0 {
            self.rng.below(3)
        } else {
            self.rng.below(16)
        };
        let d = depth.saturating_sub(1);
        match pick {
            0 | 1 => self.name(),
            2 => ["1", "'x'", "none", "[1, 2]"][self.rng.below(4)].to_owned(),
            3 => format!("{}.{}", self.name(), self.name()),
            4 => format!("{}[{}]", self.name(), self.expr(d)),
            5 => format!(
                "{}|{}",
                self.expr(d),
                ["upper", "length", "first", "string"][self.rng.below(4)]
            ),
            6 => format!("{}|default({})", self.expr(d), self.expr(d)),
            7 => format!(
                "({} if {} else {})",
                self.expr(d),
                self.expr(d),
                self.expr(d)
            ),
            8 => format!("({} + {})", self.expr(d), self.expr(d)),
            9 => format!("{}({}, k={})", self.name(), self.expr(d), self.expr(d)),
            10 => format!("[{}, {}]", self.expr(d), self.expr(d)),
            // A key that is a constant list would fail Jinja2's constant
            // folding at construction (not this test's subject).
            11 => format!("{{'k': {}, {}: 1}}", self.expr(d), self.name()),
            12 => format!("({} is defined)", self.expr(d)),
            13 => format!("(not {} and {})", self.expr(d), self.expr(d)),
            14 => format!("({} ~ {})", self.expr(d), self.expr(d)),
            _ => format!("{}|join({})", self.expr(d), self.expr(d)),
        }
    }

    fn body(&mut self, depth: usize) -> String {
        let count = 1 + self.rng.below(3);
        (0..count).map(|_| self.statement(depth)).collect()
    }

    fn macro_body(&mut self, depth: usize) -> String {
        let outer = std::mem::replace(&mut self.in_macro, true);
        let body = self.body(depth);
        self.in_macro = outer;
        body
    }

    fn statement(&mut self, depth: usize) -> String {
        if self.budget == 0 {
            return format!("{{{{ {} }}}}", self.name());
        }
        self.budget -= 1;
        let pick = if depth == 0 {
            self.rng.below(3)
        } else {
            self.rng.below(16)
        };
        let d = depth - depth.min(1);
        match pick {
            0 | 1 => format!("{{{{ {} }}}} ", self.expr(2)),
            2 => format!("{{% set {} = {} %}}", self.target(), self.expr(2)),
            3 => format!(
                "{{% set {}, {} = {}, {} %}}",
                self.target(),
                self.target(),
                self.expr(1),
                self.expr(1)
            ),
            4 => format!(
                "{{% set {} %}}{}{{% endset %}}",
                self.target(),
                self.body(d)
            ),
            5 | 6 => {
                let target = if self.rng.chance(30) {
                    format!("{}, {}", self.target(), self.target())
                } else {
                    self.target()
                };
                let test = if self.rng.chance(25) {
                    format!(" if {}", self.expr(1))
                } else {
                    String::new()
                };
                let recursive = if self.rng.chance(10) {
                    " recursive"
                } else {
                    ""
                };
                let looped = if self.rng.chance(30) {
                    "{{ loop.index }}"
                } else {
                    ""
                };
                let otherwise = if self.rng.chance(30) {
                    format!("{{% else %}}{}", self.body(d))
                } else {
                    String::new()
                };
                format!(
                    "{{% for {target} in {}{test}{recursive} %}}{looped}{}{otherwise}{{% endfor %}}",
                    self.expr(1),
                    self.body(d)
                )
            }
            7 | 8 => {
                let mut out = format!("{{% if {} %}}{}", self.expr(2), self.body(d));
                for _ in 0..self.rng.below(3) {
                    out += &format!("{{% elif {} %}}{}", self.expr(1), self.body(d));
                }
                if self.rng.chance(50) {
                    out += &format!("{{% else %}}{}", self.body(d));
                }
                out + "{% endif %}"
            }
            9 => {
                let name = self.target();
                let (arg, optional, default) = (self.target(), self.target(), self.expr(1));
                let body = self.macro_body(d);
                format!(
                    "{{% macro {name}({arg}, {optional}={default}) %}}{body}{{% endmacro %}}{{{{ {name}({}) }}}}",
                    self.expr(1)
                )
            }
            10 => {
                let signature = if self.rng.chance(50) {
                    format!("({})", self.target())
                } else {
                    String::new()
                };
                let (callee, arg) = (self.name(), self.expr(1));
                let body = self.macro_body(d);
                format!("{{% call{signature} {callee}({arg}) %}}{body}{{% endcall %}}")
            }
            11 => format!(
                "{{% with {} = {} %}}{}{{% endwith %}}",
                self.target(),
                self.expr(1),
                self.body(d)
            ),
            12 => format!(
                "{{% filter replace({}, {}) %}}{}{{% endfilter %}}",
                self.expr(1),
                self.expr(1),
                self.body(d)
            ),
            13 if !self.in_macro => {
                self.blocks += 1;
                let scoped = if self.rng.chance(30) { " scoped" } else { "" };
                let number = self.blocks;
                format!(
                    "{{% block b{number}{scoped} %}}{}{{% endblock %}}",
                    self.body(d)
                )
            }
            14 => {
                let ns = self.target();
                format!(
                    "{{% set {ns} = namespace(v={}) %}}{{% set {ns}.v = {} %}}",
                    self.expr(1),
                    self.expr(1)
                )
            }
            _ => format!(
                "{{% autoescape {} %}}{}{{% endautoescape %}}",
                self.expr(0),
                self.body(d)
            ),
        }
    }
}

/// A template from `seed`, with a message block around it now and then
/// (its role a variable sometimes).
fn template(seed: u64) -> String {
    let mut generator = Generator {
        rng: Rng(seed),
        blocks: 0,
        budget: 30,
        in_macro: false,
    };
    let body = generator.body(4);
    match generator.rng.below(6) {
        0 => format!("{{% message role=\"user\" %}}{body}{{% endmessage %}}"),
        1 => format!(
            "{{% message role={} %}}{body}{{% endmessage %}}",
            generator.name()
        ),
        _ => body,
    }
}

/// The run's keyword arguments: some of the variables, in a shuffled order,
/// never all of them (so that the run fails on a missing one).
fn kwargs(variables: &[String], seed: u64) -> Map<String, Value> {
    let mut rng = Rng(seed ^ 0x5eed);
    let mut given: Vec<&String> = variables
        .iter()
        .skip(1)
        .filter(|_| rng.chance(70))
        .collect();
    for i in (1..given.len()).rev() {
        given.swap(i, rng.below(i + 1));
    }
    given
        .into_iter()
        .map(|name| (name.clone(), json!(1)))
        .collect()
}

/// What the harness gives for the same case, in the evaluator's shape.
fn harness(template: &str, kwargs: &Map<String, Value>) -> Value {
    match Prompt::new(PromptKind::User, template, &RequiredVariables::All) {
        Err(error) => json!({"construction": error.to_string()}),
        Ok(prompt) => {
            let error = prompt.render(kwargs).err().map(|e| e.to_string());
            json!({"variables": prompt.variables(), "error": error})
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn variables_and_provided_sets_are_haystacks(seed in any::<u64>()) {
        let Some(evaluator) = evaluator() else {
            eprintln!(
                "skipped: set HOOKHARNESS_PYTHON (or HOOKHARNESS_REF_VENV) to the reference \
                 interpreter with haystack-ai to compare template variables with Haystack's"
            );
            return Ok(());
        };
        let template = template(seed);
        let ours = harness(&template, &Map::new());
        let variables: Vec<String> = ours["variables"]
            .as_array()
            .map(|v| v.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        let kwargs = kwargs(&variables, seed);
        let theirs = haystack(evaluator, &template, &kwargs);
        if theirs.get("construction").is_some() {
            // A template Haystack refuses to build (the generator's
            // grammar allows a few, e.g. assigning `loop`): not this test's
            // subject, but the harness must refuse it too.
            prop_assert!(ours.get("construction").is_some(), "{template}\nHaystack: {theirs}\nharness: {ours}");
            return Ok(());
        }
        prop_assert!(ours.get("construction").is_none(), "{}\nHaystack: {}\nharness: {}", template, theirs, ours);
        prop_assert_eq!(&ours["variables"], &theirs["variables"], "variables of {}", template);
        if variables.is_empty() {
            // Nothing is missing: the template renders, not this test's subject.
            return Ok(());
        }
        let ours = harness(&template, &kwargs);
        prop_assert_eq!(&ours["error"], &theirs["error"], "{}\nkwargs {:?}", template, kwargs);
    }
}

/// Shapes the generator does not draw, each compared with Haystack.
#[test]
fn hand_written_templates_have_haystacks_variables() {
    let Some(evaluator) = evaluator() else {
        eprintln!("skipped: set HOOKHARNESS_PYTHON (or HOOKHARNESS_REF_VENV)");
        return;
    };
    for template in [
        "{{ x[a:b:c] }} {{ f(*d, **e) }} {{ g(h, k=i, *j) }}",
        "{% from t import m as n, o %}{% import u as v %}{{ n(w) }}{{ o }}{{ v }}{% include z %}",
        "{% with a = b, c = a %}{{ c }}{{ d }}{% endwith %}{{ a }}",
        "{% set (r, s), t = u %}{{ r }}{{ s }}{{ t }}{{ (r, s) }}",
        "{% for a in b recursive %}{{ loop(a.c) }}{{ d }}{% endfor %}",
        "{% for a in b %}{% if c %}{% set e = f %}{% else %}{{ e }}{% endif %}{{ e }}{% endfor %}{{ e }}",
        "{% message role=\"user\" name=\"n\" meta={\"k\": v, w: 1} %}{{ x }}{% endmessage %}",
        "{% message role=r %}{{ y }}{{ z }}{% endmessage %}",
        "{% macro m(a, b=c) %}{{ caller(d) }}{{ varargs }}{{ kwargs }}{{ e }}{% endmacro %}\
         {% call(x) m(f) %}{{ x }}{{ g }}{{ caller }}{% endcall %}",
        "{% block one %}{{ a }}{% block two scoped %}{{ b }}{{ self }}{{ super() }}{% endblock %}{% endblock %}{{ c }}",
        "{% for a in b %}{% block three scoped %}{{ loop.index }}{{ d }}{% endblock %}{% endfor %}",
        "{% filter replace(a, b) %}{{ c }}{% endfilter %}{% set d %}{{ e }}{% endset %}{{ d }}",
        "{% if a %}{% elif b %}{% set c = 1 %}{% elif d %}{{ c }}{% else %}{% set e = 2 %}{% endif %}{{ e }}",
        "{% set ns = namespace(a=b) %}{% for c in d %}{% set ns.a = c %}{% endfor %}{{ ns.a }}{{ range(e) }}",
        "{{ a if b }}{{ c if d if e }}{{ f if g else h if i else j }}",
        "{% for k, v in items if k is not in skip %}{{ k }}{{ v }}{% else %}{{ loop }}{% endfor %}",
    ] {
        let ours = harness(template, &Map::new());
        let theirs = haystack(evaluator, template, &Map::new());
        assert_eq!(
            ours["variables"], theirs["variables"],
            "{template}\n{theirs}\n{ours}"
        );
    }
}
