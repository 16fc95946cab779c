//! Where Jinja2's built-in filters raise on an undefined value.
//!
//! Jinja2's `Undefined` prints as nothing and iterates as empty, so most
//! filters pass it through; a filter that computes with it (`int` calls
//! `int(value)`, `indent` adds a newline to it, `truncate` adds to its
//! length) raises `UndefinedError` naming the variable. The parser makes
//! such an operand or argument, when it is a name or an attribute by a
//! name, go through the harness's check ([`super::DEFINED_FUNCTION`],
//! [`super::ATTR_FUNCTION`]), which raises the same error with the same
//! text. Each entry was read from Jinja2 3.1's filters and checked against
//! Haystack (`conformance/make_prompt_fixtures.py`).

/// A filter that raises on an undefined operand or argument.
pub(super) struct Raising {
    /// The filter's name.
    pub(super) filter: &'static str,
    /// Whether an undefined operand (the value filtered) raises.
    pub(super) operand: bool,
    /// The arguments an undefined value raises in, by their names in the
    /// order the filter takes them positionally.
    pub(super) arguments: &'static [&'static str],
}

/// The filters that raise, by name.
const RAISING: &[Raising] = &[
    Raising {
        filter: "attr",
        operand: true,
        arguments: &[],
    },
    Raising {
        filter: "dictsort",
        operand: true,
        arguments: &[],
    },
    Raising {
        filter: "filesizeformat",
        operand: true,
        arguments: &[],
    },
    Raising {
        filter: "float",
        operand: true,
        arguments: &[],
    },
    Raising {
        filter: "int",
        operand: true,
        arguments: &[],
    },
    Raising {
        filter: "indent",
        operand: true,
        arguments: &["width"],
    },
    Raising {
        filter: "wordwrap",
        operand: true,
        arguments: &["width", "", "wrapstring"],
    },
    Raising {
        filter: "xmlattr",
        operand: true,
        arguments: &[],
    },
    Raising {
        filter: "truncate",
        operand: false,
        arguments: &["length", "", "", "leeway"],
    },
];

/// What `filter` raises on, when it raises on anything.
pub(super) fn raising(filter: &str) -> Option<&'static Raising> {
    RAISING.iter().find(|r| r.filter == filter)
}

impl Raising {
    /// Whether the argument at `position` (counting positional arguments),
    /// or given by `keyword`, raises when undefined.
    pub(super) fn raises_in(&self, position: usize, keyword: Option<&str>) -> bool {
        match keyword {
            Some(keyword) => self.arguments.contains(&keyword),
            None => self
                .arguments
                .get(position)
                .is_some_and(|name| !name.is_empty()),
        }
    }
}
