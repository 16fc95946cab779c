//! Where Jinja2's built-in filters raise on an undefined value.
//!
//! Jinja2's `Undefined` prints as nothing and iterates as empty, so most
//! filters pass it through; a filter that computes with it (`int` calls
//! `int(value)`, `indent` repeats a space `width` times, `truncate`
//! compares its length) raises `UndefinedError` naming the variable. The
//! parser makes such an operand, when the filter reads it first, go through
//! the harness's check ([`super::DEFINED_FUNCTION`],
//! [`super::ATTR_FUNCTION`]), which raises the same error with the same
//! text; a name the filter reads later (an argument, `indent`'s operand) is
//! named to the filter ([`super::HINTS_KEYWORD`]), which raises when Python
//! would. Each entry was read from Jinja2 3.1's filters and checked against
//! Haystack (`conformance/make_prompt_fixtures.py`).

/// How a filter reads an undefined operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Operand {
    /// It does not raise on it.
    Passed,
    /// It raises before anything else: checked before the filter runs.
    Checked,
    /// It raises after reading some arguments: named to the filter.
    Hinted,
}

/// A filter that raises on an undefined operand or argument.
pub(super) struct Raising {
    /// The filter's name.
    pub(super) filter: &'static str,
    /// How it reads an undefined operand (the value filtered).
    pub(super) operand: Operand,
    /// Its parameters, in the order it takes them positionally, an
    /// undefined value of which raises when the filter reads it (`""` for
    /// one that does not).
    pub(super) parameters: &'static [&'static str],
}

/// The filters that compare, add or look into the items of their operand,
/// where an undefined item raises (Python's `min`, `max`, `sum`,
/// `groupby`'s attribute): a list written in the template as their operand
/// names its items to them.
pub(super) const LIST_ITEMS: &[&str] = &["groupby", "max", "min", "sum"];

/// The filters that raise, by name.
const RAISING: &[Raising] = &[
    Raising {
        filter: "attr",
        operand: Operand::Checked,
        parameters: &[],
    },
    Raising {
        filter: "dictsort",
        operand: Operand::Hinted,
        parameters: &[],
    },
    Raising {
        filter: "filesizeformat",
        operand: Operand::Checked,
        parameters: &[],
    },
    Raising {
        filter: "float",
        operand: Operand::Checked,
        parameters: &[],
    },
    Raising {
        filter: "int",
        operand: Operand::Checked,
        parameters: &[],
    },
    Raising {
        filter: "indent",
        operand: Operand::Hinted,
        parameters: &["width"],
    },
    Raising {
        filter: "round",
        operand: Operand::Hinted,
        parameters: &["precision", ""],
    },
    Raising {
        filter: "wordwrap",
        operand: Operand::Checked,
        parameters: &["width", "", "wrapstring"],
    },
    Raising {
        filter: "xmlattr",
        operand: Operand::Checked,
        parameters: &[],
    },
    Raising {
        filter: "slice",
        operand: Operand::Passed,
        parameters: &["slices", ""],
    },
    Raising {
        filter: "truncate",
        operand: Operand::Passed,
        parameters: &["length", "", "end", "leeway"],
    },
];

/// What `filter` raises on, when it raises on anything.
pub(super) fn raising(filter: &str) -> Option<&'static Raising> {
    RAISING.iter().find(|r| r.filter == filter)
}

impl Raising {
    /// The parameter the argument at `position` (counting positional
    /// arguments), or given by `keyword`, is, when an undefined value of it
    /// raises.
    pub(super) fn parameter(&self, position: usize, keyword: Option<&str>) -> Option<&'static str> {
        let found = match keyword {
            Some(keyword) => self.parameters.iter().find(|name| **name == keyword),
            None => self.parameters.get(position),
        };
        found.copied().filter(|name| !name.is_empty())
    }
}
