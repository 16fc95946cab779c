//! Hostile inputs through the `hookharness` binary: a scenario that ends
//! its process costs only its own outcome, prompt templates stay within
//! their byte budgets, and the reports of the other scenarios are whole.

mod common;

use common::{hookharness, hookharness_within_memory, stdout};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    common::scratch("cli_robustness", name)
}

/// A scenario whose user prompt is `template`, expecting the model's reply.
fn prompt_scenario(name: &str, template: &str) -> String {
    format!(
        "name: {name}\nagent:\n  user_prompt: {}\nmodel:\n  - text: ok\nrun:\n  variables: {{x: \"x\"}}\nexpect:\n  last_message: {{role: assistant, text: ok}}\n",
        serde_json::Value::String(template.to_owned())
    )
}

const GOOD: &str = "model:\n  - text: ok\nexpect:\n  last_message: {role: assistant, text: ok}\n";

/// The scenario needs about 130 MB to run (a 50 MB string, and its copies);
/// with 80 MB of address space its allocation fails and Rust ends the
/// process. The scenarios before and after it still report, in the human
/// and the JUnit report.
#[cfg(target_os = "linux")]
#[test]
fn a_scenario_that_exhausts_memory_costs_only_its_own_outcome() {
    let dir = scratch("exhausts_memory");
    std::fs::write(dir.join("a_good.yaml"), GOOD).unwrap();
    std::fs::write(
        dir.join("b_big.yaml"),
        prompt_scenario("big", "{% set s = \"x\" * 25000000 %}{{ (s ~ s)|length }}"),
    )
    .unwrap();
    std::fs::write(dir.join("c_good.yaml"), GOOD).unwrap();
    std::fs::write(
        dir.join("d_failing.yaml"),
        "model:\n  - text: ok\nexpect:\n  last_message: {text: other}\n",
    )
    .unwrap();
    let path = dir.to_str().unwrap();

    let human = hookharness_within_memory(80_000, &["run", path]);
    let text = stdout(&human);
    assert_eq!(human.status.code(), Some(1), "{text}");
    for file in ["a_good.yaml", "c_good.yaml"] {
        assert!(
            text.contains(&format!("PASS  {}", Path::new(path).join(file).display())),
            "{text}"
        );
    }
    assert!(text.contains("FAIL  "), "{text}");
    let big = text.lines().position(|l| l.contains("b_big.yaml")).unwrap();
    let report: String = text.lines().skip(big).take(2).collect();
    assert!(
        report.starts_with("ERROR") && report.contains("(big)"),
        "{text}"
    );
    assert!(
        report.contains("ended before its outcome") && report.contains("memory allocation"),
        "{report}"
    );
    assert!(
        text.trim_end().ends_with("2 passed, 1 failed, 1 errors"),
        "{text}"
    );

    let junit = hookharness_within_memory(80_000, &["run", "--format", "junit", path]);
    let xml = stdout(&junit);
    assert_eq!(junit.status.code(), Some(1), "{xml}");
    assert!(
        xml.contains("tests=\"4\" failures=\"1\" errors=\"1\""),
        "{xml}"
    );
    assert!(xml.trim_end().ends_with("</testsuites>"), "{xml}");

    // Without the bound, the same scenario runs and passes.
    let unbounded = hookharness(&["run", path]);
    assert!(
        stdout(&unbounded)
            .trim_end()
            .ends_with("3 passed, 1 failed, 0 errors")
    );
}

/// A file of three million zeros (6 MB, two bytes a value) would take
/// about 900 MB once read and checked: it is refused at the value past
/// the loader's value budget, with its line and column, and the scenarios
/// beside it still report, within an address space far below what the
/// whole file would take.
#[cfg(target_os = "linux")]
#[test]
fn a_file_dense_in_values_is_refused_at_its_place_and_costs_no_other_report() {
    let dir = scratch("dense_values");
    std::fs::write(dir.join("a_good.yaml"), GOOD).unwrap();
    let zeros = vec!["0"; 3_000_000].join(",");
    std::fs::write(
        dir.join("b_dense.yaml"),
        format!("model:\n  - text: hi\nrun:\n  variables:\n    big: [{zeros}]\n"),
    )
    .unwrap();
    std::fs::write(dir.join("c_good.yaml"), GOOD).unwrap();
    let path = dir.to_str().unwrap();

    let human = hookharness_within_memory(400_000, &["run", path]);
    let text = stdout(&human);
    assert_eq!(human.status.code(), Some(2), "{text}");
    for file in ["a_good.yaml", "c_good.yaml"] {
        assert!(
            text.contains(&format!("PASS  {}", Path::new(path).join(file).display())),
            "{text}"
        );
    }
    let dense = format!("{}:5:", Path::new(path).join("b_dense.yaml").display());
    assert!(
        text.contains(&dense) && text.contains("the values up to `run.variables.big["),
        "{text}"
    );
}

/// A scenario that runs past `--timeout` (a template joining a list of two
/// million items, within its budget, takes seconds) has its child process
/// killed: the scenario errors,
/// saying so, and the scenarios before and after it report, in the human
/// and the JUnit report.
#[test]
fn a_scenario_that_does_not_end_costs_only_its_own_outcome() {
    let dir = scratch("does_not_end");
    std::fs::write(dir.join("a_good.yaml"), GOOD).unwrap();
    std::fs::write(
        dir.join("b_hang.yaml"),
        prompt_scenario(
            "hang",
            "{% set ns = namespace(l=[1]) %}{% for i in range(21) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{% for i in range(10) %}{{ ns.l|join(',')|length }}{% endfor %}",
        ),
    )
    .unwrap();
    std::fs::write(dir.join("c_good.yaml"), GOOD).unwrap();
    let path = dir.to_str().unwrap();

    let human = hookharness(&["run", "--timeout", "1", path]);
    let text = stdout(&human);
    assert_eq!(human.status.code(), Some(1), "{text}");
    for file in ["a_good.yaml", "c_good.yaml"] {
        assert!(
            text.contains(&format!("PASS  {}", Path::new(path).join(file).display())),
            "{text}"
        );
    }
    let hang = text
        .lines()
        .position(|l| l.contains("b_hang.yaml"))
        .unwrap();
    let report: String = text.lines().skip(hang).take(2).collect();
    assert!(
        report.starts_with("ERROR") && report.contains("(hang)"),
        "{text}"
    );
    assert!(
        report.contains("ran for more than 1 s on this file")
            && report.contains("`--timeout`")
            && !report.contains("report this file as a bug"),
        "{report}"
    );
    assert!(
        text.trim_end().ends_with("2 passed, 0 failed, 1 errors"),
        "{text}"
    );

    let junit = hookharness(&["run", "--timeout", "1", "--format", "junit", path]);
    let xml = stdout(&junit);
    assert_eq!(junit.status.code(), Some(1), "{xml}");
    assert!(
        xml.contains("tests=\"3\" failures=\"0\" errors=\"1\""),
        "{xml}"
    );
    assert!(xml.trim_end().ends_with("</testsuites>"), "{xml}");
}

/// Each template once aborted the process (exit 134), overflowed its
/// stack or exhausted its memory; each now fails its own scenario with
/// Python's exception or a message naming the budget.
#[test]
fn hostile_templates_fail_their_scenario_within_budget() {
    let dir = scratch("hostile_templates");
    let doubling = format!(
        "{{% set s = x %}}{}{{{{ s|length }}}}",
        "{% set s = s ~ s %}".repeat(40)
    );
    let cases: Vec<(&str, String, &str)> = vec![
        ("center", "{{ x|center(500000000000) }}".into(), "MemoryError"),
        ("center_past_ssize", "{{ x|center(100000000000000000000) }}".into(), "OverflowError: Python int too large to convert to C ssize_t"),
        ("str_format", "{{ \"{:>100000000000}\".format(x) }}".into(), "MemoryError"),
        ("precision", "{{ \"{:.100000000000f}\".format(1.5) }}".into(), "ValueError: precision too big"),
        ("precision_in_budget", "{{ \"{:.2147483647f}\".format(1.5) }}".into(), "MemoryError"),
        ("nested_tojson", "{% set ns = namespace(d=[1]) %}{% for i in range(3000) %}{% set ns.d = [ns.d] %}{% endfor %}{{ ns.d|tojson }}".into(), "RecursionError"),
        ("ljust", "{{ x.ljust(1000000000000) }}".into(), "MemoryError"),
        ("doubling", doubling, "MemoryError"),
        ("set_block", "{% set b %}{% for i in range(100000) %}{{ \"y\" * 10000 }}{% endfor %}{% endset %}{{ b|length }}".into(), "used up its budget"),
        ("join", "{{ [1, 2]|join(x * 1000000000) }}".into(), "MemoryError"),
        ("indent", "{{ \"a\\nb\"|indent(100000000000) }}".into(), "MemoryError"),
        ("tojson_indent", "{{ range(1000)|list|tojson(1000000000) }}".into(), "MemoryError"),
        ("tojson_shared", "{% set l = range(100000)|list %}{% set m = [l, l, l, l, l, l, l, l, l, l] %}{% set n = [m, m, m, m, m, m, m, m, m, m] %}{{ [n, n, n, n]|tojson|length }}".into(), "MemoryError"),
        ("meta_shared", "{% set l = range(100000)|list %}{% set m = [l, l, l, l, l, l, l, l, l, l] %}{% set n = [m, m, m, m, m, m, m, m, m, m] %}{% message role=\"user\" meta={\"k\": [n, n, n, n]} %}hi{% endmessage %}".into(), "MemoryError"),
        ("replace_shared", "{% set ns = namespace(l=[x * 1000000]) %}{% for i in range(40) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l|replace(\"a\", \"b\") }}".into(), "MemoryError"),
        ("percent", "{{ \"%1000000000s\"|format(x) }}".into(), "MemoryError"),
        ("list_doubling", "{% set ns = namespace(l=[1]) %}{% for i in range(60) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l[0] }}".into(), "MemoryError"),
        ("list_repeat", "{{ ([x] * 1000000000000)|join }}".into(), "MemoryError"),
        // Keys each filter makes (lowercased copies, a set's keys) pay for
        // themselves; a value printed by `safe` or used as `join`'s joiner
        // is printed within the budget.
        ("sort_fold", "{% set s = x * 1000000 %}{{ ([s] * 5000)|sort|length }}".into(), "MemoryError"),
        ("sort_attribute", "{% set s = x * 1000000 %}{{ ([{\"a\": s}] * 5000)|sort(attribute=\"a\")|length }}".into(), "MemoryError"),
        ("unique_keys", "{% set s = x * 1000000 %}{{ ([s ~ \"a\", s ~ \"b\"] * 2500)|unique|list|length }}".into(), "MemoryError"),
        ("unique_tuple_shared", format!("{{% set t = (1, 2) %}}{}{{{{ [t, t]|unique|list|length }}}}", "{% set t = (t, t) %}".repeat(40)), "MemoryError"),
        ("safe_shared", "{% set l = range(100000)|list %}{% set m = [l, l, l, l, l, l, l, l, l, l] %}{% set n = [m, m, m, m, m, m, m, m, m, m] %}{{ [n, n, n, n]|safe|length }}".into(), "MemoryError"),
        ("join_joiner_shared", "{% set l = range(100000)|list %}{% set m = [l, l, l, l, l, l, l, l, l, l] %}{% set n = [m, m, m, m, m, m, m, m, m, m] %}{{ [1, 2]|join(n) }}".into(), "prompt-template-budget"),
        ("wordwrap_joiner", "{% set s = x * 1000000 %}{{ s|wordwrap(1, wrapstring=s)|length }}".into(), "MemoryError"),
    ];
    // Refused before parsing: the Agent cannot be built, as in Haystack,
    // whose Jinja2 raises `RecursionError` past about 490 terms.
    let flat = [
        ("flat_sum", format!("{{{{ 1{} }}}}", "+1".repeat(100_000))),
        ("flat_concat", format!("{{{{ 1{} }}}}", "~1".repeat(20_000))),
    ];
    for (name, template) in &flat {
        std::fs::write(
            dir.join(format!("{name}.yaml")),
            prompt_scenario(name, template),
        )
        .unwrap();
    }
    for (name, template, _) in &cases {
        std::fs::write(
            dir.join(format!("{name}.yaml")),
            prompt_scenario(name, template),
        )
        .unwrap();
    }
    std::fs::write(dir.join("good.yaml"), GOOD).unwrap();
    let output = hookharness(&["run", dir.to_str().unwrap()]);
    let text = stdout(&output);
    for (name, _, error) in &cases {
        let at = text
            .lines()
            .position(|l| l.contains(&format!("{name}.yaml ")))
            .unwrap_or_else(|| panic!("{name}: {text}"));
        let report: String = text.lines().skip(at).take(2).collect();
        assert!(
            report.starts_with("ERROR")
                && report.contains(error)
                && !report.contains("ended before its outcome"),
            "{name}: {report}"
        );
    }
    for (name, _) in &flat {
        let at = text
            .lines()
            .position(|l| l.contains(&format!("{name}.yaml ")))
            .unwrap();
        let report: String = text.lines().skip(at).take(2).collect();
        assert!(
            report.contains("the Agent cannot be built: RecursionError"),
            "{name}: {report}"
        );
    }
    assert!(
        text.trim_end().ends_with(&format!(
            "1 passed, 0 failed, {} errors",
            cases.len() + flat.len()
        )),
        "{text}"
    );
    assert_eq!(output.status.code(), Some(2));
}

/// A scenario whose second reply's `sees` is stale: `rebase` rewrites it.
const STALE: &str = "hooks:\n  on_exit:\n    - name: nudge\n      when: {times: 1}\n      do:\n        - append_messages: [{role: user, text: \"Cite a source.\"}]\n        - continue_run: true\nmodel:\n  - text: \"Fusion is going well.\"\n  - text: \"Per ITER.\"\n    sees:\n      messages:\n        - {role: user, text: \"What is new?\"}\n        - {role: assistant, text: \"Fusion is going well.\"}\n        - {role: user, text: \"Be brief.\"}\nrun:\n  messages: [{role: user, text: \"What is new?\"}]\n";

#[cfg(unix)]
#[test]
fn rebase_writes_through_a_link_keeps_the_mode_and_never_follows_a_planted_link() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("rebase_files");
    let real = dir.join("real.yaml");
    std::fs::write(&real, STALE).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.join("link.yaml");
    std::os::unix::fs::symlink("real.yaml", &link).unwrap();
    // The temporary name rebase once wrote, planted as a link to a victim.
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("link.yaml.rebase-tmp")).unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("real.yaml.rebase-tmp")).unwrap();

    let output = hookharness(&["rebase", link.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let rebased = std::fs::read_to_string(&real).unwrap();
    assert!(rebased.contains("Cite a source."), "{rebased}");
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the private file stays private");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    let temporaries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(temporaries.is_empty(), "{temporaries:?}");
}

#[cfg(unix)]
#[test]
fn rebase_refuses_a_hard_linked_file_with_the_exit_code_of_a_refused_output() {
    let dir = scratch("rebase_hard_link");
    let file = dir.join("scenario.yaml");
    std::fs::write(&file, STALE).unwrap();
    std::fs::hard_link(&file, dir.join("other.yaml")).unwrap();
    let output = hookharness(&["rebase", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("has 2 hard links"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.join("other.yaml")).unwrap(),
        STALE
    );
}

const ORDER_MATTERS: &str = "examples/explore/order_matters.yaml";

#[test]
fn explore_names_same_stem_variants_apart_and_replaces_a_file_only_with_force() {
    let dir = scratch("explore_out");
    for folder in ["a", "b"] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        std::fs::copy(ORDER_MATTERS, dir.join(folder).join("order_matters.yaml")).unwrap();
    }
    let out = dir.join("out");
    let args = |extra: &[&str]| {
        let mut args = vec![
            "explore".to_owned(),
            dir.join("a").display().to_string(),
            dir.join("b").display().to_string(),
            "--out".to_owned(),
            out.display().to_string(),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args
    };
    let run = |extra: &[&str]| {
        let args = args(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        hookharness(&args)
    };
    let first = run(&[]);
    assert_eq!(first.status.code(), Some(1), "{}", stdout(&first));
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    // Named by the folders that tell them apart, not by the whole path
    // given (which here is absolute).
    assert_eq!(
        written,
        [
            "a-order_matters.variant-2.yaml",
            "b-order_matters.variant-2.yaml"
        ],
        "{written:?}"
    );

    // Written again: refused without --force, as `record` refuses.
    let variant = out.join(&written[0]);
    std::fs::write(&variant, "keep me").unwrap();
    let again = run(&[]);
    assert_eq!(again.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&again.stderr).contains("pass --force"));
    assert_eq!(std::fs::read_to_string(&variant).unwrap(), "keep me");
    let forced = run(&["--force"]);
    assert_eq!(forced.status.code(), Some(1));
    assert_ne!(std::fs::read_to_string(&variant).unwrap(), "keep me");
}

/// Whether two paths are one file (device and inode): a hard link kept.
#[cfg(unix)]
fn one_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let (a, b) = (std::fs::metadata(a).unwrap(), std::fs::metadata(b).unwrap());
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

/// A hard link to the input at an output's name is the input under another
/// name: refused as a symbolic link there is (exit 4, even with `--force`),
/// the message naming both paths, and the link is not split.
#[cfg(unix)]
#[test]
fn import_and_explore_refuse_a_hard_link_to_their_input_even_forced() {
    let dir = scratch("hard_link_outputs");
    let input = dir.join("in.json");
    std::fs::copy("tests/fixtures/haystack/import/agent.json", &input).unwrap();
    let original = std::fs::read_to_string(&input).unwrap();
    let output = dir.join("out.yaml");
    std::fs::hard_link(&input, &output).unwrap();
    let run = hookharness(&[
        "import",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--force",
    ]);
    let said = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(4), "{said}");
    assert!(
        said.contains(&format!(
            "`{}` is a hard link to the input file `{}`; give another --output \
             (even --force does not overwrite the input)",
            output.display(),
            input.display()
        )),
        "{said}"
    );
    assert!(one_file(&input, &output), "the link was split");
    assert_eq!(std::fs::read_to_string(&input).unwrap(), original);

    // explore: a variant's name that is a hard link to the explored file
    // (or to another file explored with it).
    let scenarios = dir.join("scenarios");
    let out = dir.join("variants");
    std::fs::create_dir_all(&scenarios).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let explored = scenarios.join("order_matters.yaml");
    std::fs::copy(ORDER_MATTERS, &explored).unwrap();
    let other = scenarios.join("other.yaml");
    std::fs::write(&other, GOOD).unwrap();
    for input in [&explored, &other] {
        let variant = out.join("order_matters.variant-2.yaml");
        let _ = std::fs::remove_file(&variant);
        std::fs::hard_link(input, &variant).unwrap();
        let run = hookharness(&[
            "explore",
            scenarios.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--force",
        ]);
        let said = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(4), "{said}");
        assert!(
            said.contains(&format!(
                "`{}` is a hard link to the input file `{}`; explore chose this name \
                 for the variant in --out: remove the link, or give another --out",
                variant.display(),
                input.display()
            )),
            "{said}"
        );
        assert!(one_file(input, &variant), "the link was split");
    }
}

#[test]
fn control_characters_never_reach_the_terminal_raw_and_json_keeps_them() {
    let dir = scratch("controls");
    let file = dir.join("osc.yaml");
    // An OSC 52 clipboard write and a title change in the name, BEL and a
    // CSI (C1) in the model's text.
    std::fs::write(
        &file,
        "name: \"evil\\e]52;c;aGk=\\a\\e]0;title\\a\"\nmodel:\n  - text: \"x\\a\\u009b31m\"\nexpect:\n  last_message: {text: other}\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    for args in [
        vec!["run", path],
        vec!["explain", path],
        vec!["check", path],
    ] {
        let output = hookharness(&args);
        for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            assert!(
                !text
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != '\t'),
                "{args:?} {stream}: {text:?}"
            );
        }
        if args[0] == "run" {
            assert!(
                stdout(&output).contains("evil\\u001b]52;c;aGk=\\u0007"),
                "{}",
                stdout(&output)
            );
        }
    }
    let json = hookharness(&["run", "--format", "json", path]);
    let line: serde_json::Value = serde_json::from_str(stdout(&json).trim()).unwrap();
    assert_eq!(
        line["scenario"],
        "evil\u{1b}]52;c;aGk=\u{7}\u{1b}]0;title\u{7}"
    );
}

/// `rebase` runs the scenario in a child process first, as `run` does: a
/// run past `--timeout` is reported and the file is left as it was (it
/// hung `rebase` itself, and an abort ended it).
#[test]
fn rebase_of_a_run_that_does_not_end_reports_it_and_writes_nothing() {
    let dir = scratch("rebase_does_not_end");
    let file = dir.join("slow.yaml");
    let text = prompt_scenario(
        "slow",
        "{% set ns = namespace(l=[1]) %}{% for i in range(21) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{% for i in range(10) %}{{ ns.l|join(',')|length }}{% endfor %}",
    );
    std::fs::write(&file, &text).unwrap();
    let output = hookharness(&["rebase", "--all", "--timeout", "1", file.to_str().unwrap()]);
    let report = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{report}");
    assert!(
        report.contains("the run gave no outcome, so nothing was rebased")
            && report.contains("ran for more than 1 s on this file"),
        "{report}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}
