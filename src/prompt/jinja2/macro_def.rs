//! A macro's definition written for the harness's `Macro`
//! (src/prompt/py_macro.rs): what Jinja2's compiler learns of a macro
//! (`macro_body`: the special names its body reads) and the edits that
//! give minijinja's macro the parameters `kwargs` and `varargs`, undo a
//! default for an argument given as undefined, and wrap the macro.

use super::lexer::Token;
use super::names::{Node, find_undeclared};
use super::parser::Edit;
use crate::prompt::py_macro::{GIVEN_FUNCTION, MACRO_FUNCTION};

/// A `{% macro %}` just parsed.
pub(super) struct MacroDef<'a> {
    pub(super) name: &'a str,
    pub(super) arguments: &'a [String],
    /// How many of the last arguments have a default.
    pub(super) defaults: usize,
    pub(super) body: &'a [Node],
}

impl MacroDef<'_> {
    /// Jinja2's `catch_kwargs`, `catch_varargs` and `caller`: whether the
    /// body reads `kwargs` or `varargs` that no argument declares, and
    /// whether it reads `caller`.
    fn specials(&self) -> (bool, bool, bool) {
        let undeclared = find_undeclared(self.body, &["caller", "kwargs", "varargs"]);
        let reads = |name: &str| undeclared.iter().any(|n| n == name);
        let declared = |name: &str| self.arguments.iter().any(|a| a == name);
        (
            reads("kwargs") && !declared("kwargs"),
            reads("varargs") && !declared("varargs"),
            reads("caller"),
        )
    }

    /// The edits: `kwargs=none, varargs=none` at `signature_end` (the
    /// closing parenthesis) for those the body reads, the arguments with a
    /// default taken back from [`GIVEN_FUNCTION`] after the `opening` tag's
    /// end, and `{% set f = __py_macro(f, ...) %}` after the `closing` one
    /// (`{% endmacro %}`'s); a `-%}` stays last, so that it strips the
    /// same whitespace.
    pub(super) fn edits(
        &self,
        signature_end: usize,
        opening: &Token,
        closing: &Token,
    ) -> Vec<Edit> {
        // minijinja reserves `self`: such a macro stays minijinja's.
        if self.name == "self" {
            return Vec::new();
        }
        let (catch_kwargs, catch_varargs, caller) = self.specials();
        let mut edits = Vec::new();
        let hidden: Vec<&str> = [
            ("kwargs=none", catch_kwargs),
            ("varargs=none", catch_varargs),
        ]
        .into_iter()
        .filter_map(|(param, caught)| caught.then_some(param))
        .collect();
        if !hidden.is_empty() {
            let separator = if self.arguments.is_empty() { "" } else { ", " };
            edits.push(insertion(
                signature_end,
                format!("{separator}{}", hidden.join(", ")),
            ));
        }
        let with_default =
            &self.arguments[self.arguments.len() - self.defaults.min(self.arguments.len())..];
        let taken_back: Vec<String> = with_default
            .iter()
            .filter(|name| *name != "self")
            .map(|name| format!("{{% set {name} = {GIVEN_FUNCTION}({name}) "))
            .collect();
        if !taken_back.is_empty() {
            edits.push(after_tag(opening, &taken_back.join("%}")));
        }
        let arguments: Vec<String> = self.arguments.iter().map(|a| quoted(a)).collect();
        let wrap = format!(
            "{{% set {name} = {MACRO_FUNCTION}({name}, {}, [{}], {}, {}, {}, {}) ",
            quoted(self.name),
            arguments.join(", "),
            self.defaults,
            catch_kwargs,
            catch_varargs,
            caller,
            name = self.name,
        );
        edits.push(after_tag(closing, &wrap));
        edits
    }
}

/// `text` inserted at `at`.
fn insertion(at: usize, text: String) -> Edit {
    Edit {
        start: at,
        end: at,
        text,
        closing: false,
    }
}

/// The tag ending at `end` (a `block_end` token) closed plainly, then
/// `tag`, an unclosed tag, closed as `end` closed it (`%}` or `-%}`).
fn after_tag(end: &Token, tag: &str) -> Edit {
    Edit {
        start: end.span.0,
        end: end.span.1,
        text: format!("%}}{tag}{}", end.value),
        closing: false,
    }
}

/// A name as a string literal (a name has no quote or backslash).
fn quoted(name: &str) -> String {
    format!("'{name}'")
}
