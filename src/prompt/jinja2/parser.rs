//! Jinja2 3.1's parser (`jinja2/parser.py`) with Haystack's extension tags
//! (`message`, `insert`), as a checker: it follows the same grammar in the
//! same order and fails with the same texts, keeping of each node only what
//! a later check reads (its class, a constant's value) and the filters and
//! tests the compiler looks up.

use super::SyntaxError;
use super::lexer::Token;
use super::macro_def::MacroDef;
use super::names::{Ctx, Node};
use super::undefined_filters;
use crate::prompt::bound_method::is_method_name;
use crate::prompt::namespace::{NSREF_FUNCTION, SLOT_ATTRIBUTE};

/// What the checks read of an expression node.
#[derive(Debug, Clone)]
pub(super) struct Expr {
    /// The node's class, as Jinja2 names it (`Name`, `Const`, `Getattr`).
    class: &'static str,
    line: usize,
    assignable: bool,
    /// A `Const`'s value when it is a string.
    text: Option<String>,
    /// The node, as the variable analysis reads it.
    node: Node,
    /// Where a `Name` read in an expression sits in the source.
    span: Option<(usize, usize)>,
    /// Where a `Getattr` by a name sits in the source.
    attr: Option<AttrSite>,
    /// Where a `Getitem` by one subscript (not a slice) sits in the source.
    item: Option<ItemSite>,
}

/// A `Getitem` by one subscript (`obj[key]`) in the source: where its
/// object starts, and where its `[` and its `]` are; for a subscript that
/// is no literal, which of the parser's edits opens its call of
/// [`GETITEM_FUNCTION`].
#[derive(Debug, Clone, Copy)]
struct ItemSite {
    start: usize,
    open: (usize, usize),
    close: (usize, usize),
    opening: Option<usize>,
}

/// A slice in the source: whether its start is written, and each colon
/// with whether a part is written after it.
struct SliceShape {
    start: bool,
    colons: Vec<((usize, usize), bool)>,
}

/// A `Getattr` by a name (`obj.name`) in the source: where its object
/// starts, where its `.` starts, where the name ends, and the name.
#[derive(Debug, Clone)]
struct AttrSite {
    start: usize,
    dot: usize,
    end: usize,
    name: String,
}

impl Expr {
    /// This expression without its node: what a guard
    /// ([`Parser::guard_operand`]) reads of it.
    fn site(&self) -> Expr {
        Expr {
            class: self.class,
            line: self.line,
            assignable: false,
            text: self.text.clone(),
            node: Node::Group(Vec::new()),
            span: self.span,
            attr: self.attr.clone(),
            item: self.item,
        }
    }

    fn new(class: &'static str, line: usize, children: Vec<Node>) -> Expr {
        Expr {
            class,
            line,
            assignable: false,
            text: None,
            node: Node::Group(children),
            span: None,
            attr: None,
            item: None,
        }
    }
}

/// Where a filter's call ends in the source: right after its name when it
/// is written without parentheses, at its closing parenthesis otherwise.
#[derive(Debug, Clone, Copy)]
enum Call {
    Bare(usize),
    Closing(usize),
}

/// One comparison of a chain (`a < b in c` has two): its operator and
/// where the operator is written.
enum Link {
    /// `<`, `<=`, `>`, `>=`, `==` or `!=`.
    Compare(String, (usize, usize)),
    /// `in`, or `not in` when negated.
    In(bool, (usize, usize)),
}

impl Link {
    /// The call that compares: `__py_compare(` or `__py_in(true, `.
    fn opening(&self) -> String {
        match self {
            Link::Compare(..) => format!("{COMPARE_FUNCTION}("),
            Link::In(negated, _) => format!("{IN_FUNCTION}({negated}, "),
        }
    }

    /// What the operator becomes between the call's operands.
    fn separator(&self) -> String {
        match self {
            Link::Compare(operator, _) => format!(", \"{operator}\", "),
            Link::In(..) => ", ".to_owned(),
        }
    }

    fn span(&self) -> (usize, usize) {
        match self {
            Link::Compare(_, span) | Link::In(_, span) => *span,
        }
    }
}

/// Whether an assignment target names `self`.
fn names_self(node: &Node) -> bool {
    match node {
        Node::Name(name, _) => name == "self",
        Node::Seq(items) | Node::Group(items) => items.iter().any(names_self),
        _ => false,
    }
}

/// `Node.set_ctx`: the names of an assignment target take `ctx`.
fn set_ctx(node: &mut Node, ctx: Ctx) {
    match node {
        Node::Name(_, c) => *c = ctx,
        Node::Seq(items) | Node::Group(items) => {
            for item in items {
                set_ctx(item, ctx);
            }
        }
        _ => {}
    }
}

/// A filter or test the compiler looks up, and whether it sits in an `if`
/// (or inline if) frame, where a missing one fails only when called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Lookup {
    pub(super) filter: bool,
    pub(super) name: String,
    pub(super) line: usize,
    pub(super) soft: bool,
}

/// The parser over one template's tokens.
pub(super) struct Parser {
    tokens: Vec<Token>,
    error: Option<SyntaxError>,
    index: usize,
    /// The current token once the stream is closed.
    eof: Token,
    tag_stack: Vec<String>,
    end_token_stack: Vec<Vec<&'static str>>,
    /// Depth of `if` frames the node being parsed is in (reset by a frame
    /// of its own: a loop, a macro, a call or filter block).
    soft: Vec<bool>,
    pub(super) lookups: Vec<Lookup>,
    /// Nesting of statements and expressions being parsed.
    depth: usize,
    /// How the source must change for minijinja to render what Jinja2
    /// renders ([`Edit`]).
    pub(super) edits: Vec<Edit>,
    /// The lines of `extends` tags below the top level, which Jinja2's
    /// compiler refuses.
    pub(super) nested_extends: Vec<usize>,
    /// Where the template names `self` as a variable.
    pub(super) self_names: Vec<(usize, usize)>,
    /// Whether it assigns `self` (`{% set self = ... %}`, a loop variable,
    /// a macro argument): Jinja2 lets it, minijinja reserves the name.
    pub(super) assigns_self: bool,
    /// For each `{% message %}` being parsed, whether its body holds an
    /// `include ... without context` of its own (not in a macro, call
    /// block or block inside it).
    message_generators: Vec<bool>,
    /// The arguments of the call, filter or test parsed last: each one's
    /// keyword, if any, and its expression ([`Expr::site`]).
    arguments: Vec<(Option<String>, Expr)>,
    /// Where the closing parenthesis of that call sits (`None` when it
    /// passes `*args` or `**kwargs`, after which nothing may be added).
    call_end: Option<usize>,
}

/// The names of the namespaces an assignment's target sets attributes of
/// (`ns` of `{% set ns.a, b = ... %}`).
fn namespace_refs(target: &Node) -> Vec<String> {
    match target {
        Node::NsRef(name) => vec![name.clone()],
        _ => target
            .children()
            .into_iter()
            .flat_map(namespace_refs)
            .collect(),
    }
}

/// A change of the template's source (its newlines made `\n`): the
/// characters `start..end` replaced by `text`. Edits at one place apply
/// closings before openings ([`Edit::closing`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) text: String,
    /// A `)` closing a call, which goes before a call opened at the same place.
    pub(crate) closing: bool,
}

/// The function a `%` becomes (`a % b` is `__py_mod(hint_a, hint_b, a, b)`): Python's
/// string formatting for a string, the remainder for numbers.
pub(crate) const MOD_FUNCTION: &str = "__py_mod";

/// The function a dict literal's key goes through (`{k: v}` is
/// `{__py_key(k): v}`): Python's `TypeError` for an unhashable key.
pub(crate) const KEY_FUNCTION: &str = "__py_key";

/// The function a unary `+` becomes (`+a` is `__py_pos(a)`).
pub(crate) const POS_FUNCTION: &str = "__py_pos";

/// The function a binary `+` becomes (`a + b` is `__py_add(hint_a, hint_b,
/// a, b)`, as for `%`): Python's addition, within the rendering's budget.
pub(crate) const ADD_FUNCTION: &str = "__py_add";

/// The function a binary `*` becomes (`a * b` is `__py_mul(hint_a, hint_b,
/// a, b)`, as for `%`): Python's multiplication, within the budget.
pub(crate) const MUL_FUNCTION: &str = "__py_mul";

/// Python's `-`, `/`, `//` and `**`: `a - b` is `__py_sub(hint_a, hint_b,
/// a, b)`, and so on (`src/prompt/python_math.rs`).
pub(crate) const SUB_FUNCTION: &str = "__py_sub";
/// Python's `/` ([`SUB_FUNCTION`]).
pub(crate) const DIV_FUNCTION: &str = "__py_div";
/// Python's `//` ([`SUB_FUNCTION`]).
pub(crate) const FLOORDIV_FUNCTION: &str = "__py_floordiv";
/// Python's `**` ([`SUB_FUNCTION`]).
pub(crate) const POW_FUNCTION: &str = "__py_pow";
/// Python's unary `-`: `-a` is `__py_neg(a)`.
pub(crate) const NEG_FUNCTION: &str = "__py_neg";

/// The check a name goes through where Jinja2's `Undefined` raises and
/// minijinja's does not, or raises its own text: an operand of `-`, `/`,
/// `//`, `**`, an ordering comparison or a unary sign, and the object of an
/// attribute or item (`count - 1` is `(__py_defined("'count' is undefined",
/// count) and count) - 1`): Jinja2's `UndefinedError` when it is undefined.
pub(crate) const DEFINED_FUNCTION: &str = "__py_defined";

/// The function an attribute by a name becomes where Jinja2's `Undefined`
/// raises (`obj.name - 1` is `__py_attr(obj, "name") - 1`, where
/// [`DEFINED_FUNCTION`] checks a name): `UndefinedError` naming the
/// object's type and the attribute when the object lacks it.
pub(crate) const ATTR_FUNCTION: &str = "__py_attr";

/// The function an attribute named as a method of a dict or a list becomes
/// when it is not called (`order.items` is `__py_method(order, "items")`):
/// the bound method of a dict or a list, which Jinja2's sandbox reads
/// before a key; minijinja's attribute of anything else.
pub(crate) const METHOD_FUNCTION: &str = "__py_method";

/// The function an item by one subscript becomes where Jinja2's
/// `Undefined` raises (an operand, a value looked into further):
/// `obj[key]` is `__py_item(obj, key)`, Jinja2's `UndefinedError` when
/// `obj` of a Python built-in type lacks the item.
pub(crate) const ITEM_FUNCTION: &str = "__py_item";

/// The function an item by one subscript that is no integer or string
/// literal becomes (`l[i]` is `__py_getitem(l, i)`): Jinja2's `getitem`,
/// which indexes a list or a string by an integer only (`l[1.0]` is
/// undefined, as in Python). Where Jinja2's `Undefined` raises, the call
/// becomes one of [`ITEM_FUNCTION`] instead.
pub(crate) const GETITEM_FUNCTION: &str = "__py_getitem";

/// The function a slice becomes (`x[1:]` is `__py_slice(x, 1, none,
/// none)`): Python's slice, a list of a list, a string of a string
/// (minijinja's is a lazy sequence, which is no sequence to `is sequence`
/// and no list to `<`), with Python's errors for a value or an index it
/// does not slice by.
pub(crate) const SLICE_FUNCTION: &str = "__py_slice";

/// The keyword argument naming, to a filter that raises on an undefined
/// value where Python reads it, the names its operand and arguments were
/// (`{"width": "'count' is undefined"}`; `""` is the operand).
pub(crate) const HINTS_KEYWORD: &str = "__py_hints";

/// The function a comparison with `<`, `<=`, `>`, `>=`, `==` and `!=`
/// becomes (`a < b == c` is `__py_compare(a, "<", b, "==", c)`): Python's
/// order, and its `TypeError` for operands of types it does not order
/// (minijinja orders any two values); Python's equality, a group of
/// `groupby` equal to the tuple it is.
pub(crate) const COMPARE_FUNCTION: &str = "__py_compare";

/// The function a name compared by `<`, `<=`, `>` or `>=` goes through
/// (`count < 3` is `__py_compare(__py_named("'count' is undefined", count),
/// "<", 3)`): its value, or when it is undefined a value that the
/// comparison raises Jinja2's `UndefinedError` for.
pub(crate) const NAMED_FUNCTION: &str = "__py_named";

/// The function an attribute by a name compared by an ordering goes
/// through (`d.age < 3` is `__py_compare(__py_named_attr(d, "age"), "<",
/// 3)`): as [`NAMED_FUNCTION`], the comparison raising Jinja2's message
/// for the attribute the value lacks.
pub(crate) const NAMED_ATTR_FUNCTION: &str = "__py_named_attr";

/// The same for an item by one subscript (`d['age'] < 3`).
pub(crate) const NAMED_ITEM_FUNCTION: &str = "__py_named_item";

/// The function a comparison of two operands by `in` or `not in` becomes
/// (`a not in b` is `__py_in(true, a, b)`): Python's membership, and its
/// `TypeError` for a container it cannot search for that item.
pub(crate) const IN_FUNCTION: &str = "__py_in";

/// The function the operand two comparisons of a chain share goes through
/// (`a < b < c` is `(__py_compare(a, "<", __py_keep(b)) and
/// __py_compare(__py_take(), "<", c))`): it keeps the value for
/// [`TAKE_FUNCTION`], so that the operand is read once and the chain stops
/// at the first comparison that is false, as Python's does.
pub(crate) const KEEP_FUNCTION: &str = "__py_keep";

/// The value [`KEEP_FUNCTION`] kept last, which the next comparison of
/// the chain compares.
pub(crate) const TAKE_FUNCTION: &str = "__py_take";

/// The function a `~` chain becomes (`a ~ b ~ c` is `__py_concat(a, b,
/// c)`): each operand as Python's `str()` prints it, paid for before the
/// string is built (minijinja printed a list in full, unbounded).
pub(crate) const CONCAT_FUNCTION: &str = "__py_concat";

/// The function a tag loading a template becomes (`{% include x %}` is
/// `{{ __py_load(x, true, false) }}`, its arguments whether it is an
/// `include` and whether it ignores a missing template): Haystack's
/// environment has no loader, so it raises Jinja2's error when reached.
pub(crate) const LOAD_FUNCTION: &str = "__py_load";

/// The function the body of a `{% message %}` becomes when Jinja2 3.1
/// compiles it into a generator: an `include ... without context` in it is
/// a `yield from`, so the body's function returns a generator, which
/// Haystack's extension cannot strip (`AttributeError`, whether or not
/// the include is reached).
pub(crate) const GENERATOR_BODY_FUNCTION: &str = "__py_generator_body";

/// The name `self` takes, for minijinja, in a template that assigns it.
pub(crate) const SELF_NAME: &str = "__py_self";

/// Nesting past this fails as Python's parser fails past its recursion
/// limit (which Jinja2 meets about 70 brackets or 200 blocks deep).
const MAX_DEPTH: usize = 100;

type Parsed<T> = Result<T, SyntaxError>;

const STATEMENT_KEYWORDS: [&str; 12] = [
    "for",
    "if",
    "block",
    "extends",
    "print",
    "macro",
    "include",
    "from",
    "import",
    "set",
    "with",
    "autoescape",
];
/// Jinja2's tests that compute with their operands through Python's
/// operators, which raise on an undefined one: the orderings (`x is lt 3`,
/// `compare::TESTS`) and the remainders (`x is odd`, `named_tests`).
const OPERATOR_TESTS: [&str; 9] = [
    "lt",
    "lessthan",
    "le",
    "gt",
    "greaterthan",
    "ge",
    "odd",
    "even",
    "divisibleby",
];

const ROLES: [&str; 4] = ["user", "system", "assistant", "tool"];

/// Jinja2's `_describe_token_type`.
fn describe_kind(kind: &str) -> &str {
    match kind {
        "add" => "+",
        "sub" => "-",
        "div" => "/",
        "floordiv" => "//",
        "mul" => "*",
        "mod" => "%",
        "pow" => "**",
        "tilde" => "~",
        "lbracket" => "[",
        "rbracket" => "]",
        "lparen" => "(",
        "rparen" => ")",
        "lbrace" => "{",
        "rbrace" => "}",
        "eq" => "==",
        "ne" => "!=",
        "gt" => ">",
        "gteq" => ">=",
        "lt" => "<",
        "lteq" => "<=",
        "assign" => "=",
        "dot" => ".",
        "colon" => ":",
        "pipe" => "|",
        "comma" => ",",
        "semicolon" => ";",
        "comment_begin" => "begin of comment",
        "comment_end" => "end of comment",
        "comment" => "comment",
        "block_begin" => "begin of statement block",
        "block_end" => "end of statement block",
        "variable_begin" => "begin of print statement",
        "variable_end" => "end of print statement",
        "data" => "template data / text",
        "eof" => "end of template",
        other => other,
    }
}

fn describe(token: &Token) -> String {
    if token.kind == "name" {
        token.value.clone()
    } else {
        describe_kind(token.kind).to_owned()
    }
}

/// Jinja2's `describe_token_expr`: `name:endfor` is `endfor`.
fn describe_expr(expr: &str) -> String {
    match expr.split_once(':') {
        Some(("name", value)) => value.to_owned(),
        Some((kind, _)) => describe_kind(kind).to_owned(),
        None => describe_kind(expr).to_owned(),
    }
}

/// Python's `repr` of a str as Jinja2's messages write it.
fn quoted(text: &str) -> String {
    crate::pyfmt::repr(&serde_json::Value::String(text.to_owned()))
}

fn test_token(token: &Token, expr: &str) -> bool {
    if token.kind == expr {
        return true;
    }
    match expr.split_once(':') {
        Some((kind, value)) => token.kind == kind && token.value == value,
        None => false,
    }
}

impl Parser {
    pub(super) fn new(tokens: Vec<Token>, error: Option<SyntaxError>) -> Parsed<Parser> {
        if tokens.is_empty() {
            if let Some(error) = error {
                return Err(error);
            }
        }
        let eof_line = tokens.first().map_or(1, |t| t.line);
        Ok(Parser {
            tokens,
            error,
            index: 0,
            eof: Token {
                line: eof_line,
                kind: "eof",
                value: String::new(),
                span: (0, 0),
            },
            tag_stack: Vec::new(),
            end_token_stack: Vec::new(),
            soft: vec![false],
            lookups: Vec::new(),
            depth: 0,
            edits: Vec::new(),
            nested_extends: Vec::new(),
            self_names: Vec::new(),
            assigns_self: false,
            message_generators: Vec::new(),
            arguments: Vec::new(),
            call_end: None,
        })
    }

    fn current(&self) -> &Token {
        self.tokens.get(self.index).unwrap_or(&self.eof)
    }

    /// Where the tokens `from..self.index` start and end in the source.
    fn span_from(&self, from: usize) -> Option<(usize, usize)> {
        let first = self.tokens.get(from)?;
        let last = self.tokens.get(self.index.checked_sub(1)?)?;
        Some((first.span.0, last.span.1))
    }

    /// Wraps the tokens `from..self.index` in a call to `function`.
    fn wrap_in_call(&mut self, from: usize, function: &str) {
        let Some((start, end)) = self.span_from(from) else {
            return;
        };
        self.edits.push(Edit {
            start,
            end: start,
            text: format!("{function}("),
            closing: false,
        });
        self.edits.push(Edit {
            start: end,
            end,
            text: ")".to_owned(),
            closing: true,
        });
    }

    /// The binary operation just parsed (the tokens `from..self.index`, its
    /// operator at `operator`): a call of `function` when the harness has
    /// one for it ([`Parser::binary_call`], its names passing their hints,
    /// its attributes checked), else minijinja's operator over checked
    /// operands ([`Parser::guard_operand`]).
    fn operation(
        &mut self,
        from: usize,
        function: Option<&str>,
        (left, right): (&Expr, &Expr),
        operator: (usize, usize),
    ) {
        match function {
            Some(function) => {
                for operand in [left, right] {
                    self.guard_attr(operand);
                    self.guard_item(operand);
                }
                self.binary_call(from, function, (left, right), operator);
            }
            None => {
                self.guard_operand(left);
                self.guard_operand(right);
            }
        }
    }

    /// Makes the operation just parsed (the tokens `from..self.index`, its
    /// operator at `operator`) a call `function(hint_left, hint_right, left,
    /// right)`, a name's hint being Jinja2's text when it is undefined.
    fn binary_call(
        &mut self,
        from: usize,
        function: &str,
        (left, right): (&Expr, &Expr),
        operator: (usize, usize),
    ) {
        let hint = |e: &Expr| match (e.class, &e.text) {
            ("Name", Some(name)) => format!("\"'{name}' is undefined\""),
            _ => "none".to_owned(),
        };
        let leading = format!("{}, {}, ", hint(left), hint(right));
        self.call_around(from, function, &leading, operator);
    }

    /// Makes the operation just parsed (the tokens `from..self.index`, its
    /// operator at `operator`) a call `function(leading left, right)`.
    fn call_around(
        &mut self,
        from: usize,
        function: &str,
        leading: &str,
        operator: (usize, usize),
    ) {
        self.wrap_in_call(from, function);
        // In the opening, which no other call shares: a call closing at the
        // same place would land its `)` in front of them.
        let opening = format!("{function}({leading}");
        let count = self.edits.len();
        if let Some(edit) = count
            .checked_sub(2)
            .and_then(|at| self.edits.get_mut(at))
            .filter(|e| !e.closing)
        {
            edit.text = opening;
        }
        let (start, end) = operator;
        self.edits.push(Edit {
            start,
            end,
            text: ",".to_owned(),
            closing: false,
        });
    }

    /// Makes the comparisons just parsed (the tokens `from..self.index`,
    /// joined by `links`) calls of Python's operators: `a < b` is
    /// `__py_compare(a, "<", b)`, `a not in b` is `__py_in(true, a, b)`,
    /// and a chain is Python's, each operand read once and the chain
    /// stopping at the first comparison that is false: `a < b in c` is
    /// `(__py_compare(a, "<", __py_keep(b)) and __py_in(false,
    /// __py_take(), c))` ([`KEEP_FUNCTION`]).
    fn chain(&mut self, from: usize, links: &[Link]) {
        let Some((start, end)) = self.span_from(from) else {
            return;
        };
        let chained = links.len() > 1;
        let Some(head) = links.first() else {
            return;
        };
        // In the opening, which no other call shares ([`Parser::call_around`]).
        let open = if chained { "(" } else { "" };
        self.edits.push(Edit {
            start,
            end: start,
            text: format!("{open}{}", head.opening()),
            closing: false,
        });
        for (position, link) in links.iter().enumerate() {
            let mut text = String::new();
            if position > 0 {
                text = format!(")) and {}{TAKE_FUNCTION}()", link.opening());
            }
            text.push_str(&link.separator());
            if position + 1 < links.len() {
                text.push_str(&format!("{KEEP_FUNCTION}("));
            }
            let (start, end) = link.span();
            self.edits.push(Edit {
                start,
                end,
                text,
                closing: false,
            });
        }
        self.edits.push(Edit {
            start: end,
            end,
            text: if chained { "))" } else { ")" }.to_owned(),
            closing: true,
        });
    }

    /// Makes a name read in `expr` go through [`DEFINED_FUNCTION`] (not
    /// `self`, which minijinja reads under another name).
    fn guard_name(&mut self, expr: &Expr) {
        let (Some(span), Some(name)) = (expr.span, &expr.text) else {
            return;
        };
        if expr.class != "Name" || name == "self" {
            return;
        }
        self.edits.push(Edit {
            start: span.0,
            end: span.1,
            text: format!("({DEFINED_FUNCTION}(\"'{name}' is undefined\", {name}) and {name})"),
            closing: false,
        });
    }

    /// Makes an operand Jinja2's `Undefined` raises on go through a check:
    /// a name ([`Parser::guard_name`]), or an attribute by a name
    /// (`obj.name` is `__py_attr(obj, "name")`, not a dunder, which the
    /// sandbox hides).
    fn guard_operand(&mut self, expr: &Expr) {
        self.guard_name(expr);
        self.guard_attr(expr);
        self.guard_item(expr);
    }

    /// Makes an operand of a comparison carry what Jinja2's `Undefined`
    /// raises when it is compared: a name goes through [`NAMED_FUNCTION`],
    /// which raises only where the comparison is made, after every operand
    /// is read as Python reads them (`count < items.k` names `items`
    /// first); an attribute or an item through its check.
    fn guard_compared(&mut self, expr: &Expr) {
        match (expr.span, &expr.text) {
            (Some(span), Some(name)) if expr.class == "Name" && name != "self" => {
                self.edits.push(Edit {
                    start: span.0,
                    end: span.1,
                    text: format!("{NAMED_FUNCTION}(\"'{name}' is undefined\", {name})"),
                    closing: false,
                });
            }
            _ => {
                self.guard_attr_with(expr, NAMED_ATTR_FUNCTION);
                self.guard_item_with(expr, NAMED_ITEM_FUNCTION);
            }
        }
    }

    /// Makes an item by one subscript go through [`ITEM_FUNCTION`]
    /// (`obj[key]` is `__py_item(obj, key)`).
    fn guard_item(&mut self, expr: &Expr) {
        self.guard_item_with(expr, ITEM_FUNCTION);
    }

    /// Opens a call of `function` at `at` (its arguments and `)` are
    /// the caller's edits).
    fn open_call(&mut self, at: usize, function: &str) {
        self.edits.push(Edit {
            start: at,
            end: at,
            text: format!("{function}("),
            closing: false,
        });
    }

    /// Makes an item by one subscript a call `function(obj, key)`.
    fn guard_item_with(&mut self, expr: &Expr, function: &str) {
        let (Some(site), "Getitem") = (expr.item, expr.class) else {
            return;
        };
        // Already a call of [`GETITEM_FUNCTION`]: now one of `function`.
        let getitem = format!("{GETITEM_FUNCTION}(");
        if let Some(edit) = site
            .opening
            .and_then(|at| self.edits.get_mut(at))
            .filter(|edit| edit.start == site.start && edit.text == getitem)
        {
            edit.text = format!("{function}(");
            return;
        }
        self.item_call(site, function);
    }

    /// Makes the item at `site` a call `function(obj, key)`.
    fn item_call(&mut self, site: ItemSite, function: &str) {
        self.open_call(site.start, function);
        for (span, text) in [(site.open, ", "), (site.close, ")")] {
            self.edits.push(Edit {
                start: span.0,
                end: span.1,
                text: text.to_owned(),
                closing: false,
            });
        }
    }

    /// Makes the operand and the arguments of a filter that raises on an
    /// undefined value ([`undefined_filters`]) raise where Jinja2 does: an
    /// operand the filter computes with first goes through a check
    /// ([`Parser::guard_operand`]); an argument, or an operand the filter
    /// reads after its arguments, that is a name is named to the filter in
    /// its hints ([`HINTS_KEYWORD`]), for the filter to raise when Python
    /// reads it; an attribute by a name goes through its check.
    fn guard_filter(
        &mut self,
        raising: &undefined_filters::Raising,
        operand: Option<&Expr>,
        arguments: &[(Option<String>, Expr)],
        call: Option<Call>,
    ) {
        let mut hints: Vec<(&str, String)> = Vec::new();
        let mut hint = |parser: &mut Self, parameter: &'static str, expr: &Expr| match (
            expr.class, &expr.text,
        ) {
            ("Name", Some(name)) if name != "self" && call.is_some() => {
                hints.push((parameter, format!("'{name}' is undefined")));
            }
            _ => parser.guard_operand(expr),
        };
        match (operand, raising.operand) {
            (Some(operand), undefined_filters::Operand::Checked) => self.guard_operand(operand),
            (Some(operand), undefined_filters::Operand::Hinted) => hint(self, "", operand),
            _ => {}
        }
        let mut position = 0;
        for (keyword, argument) in arguments {
            if let Some(parameter) = raising.parameter(position, keyword.as_deref()) {
                hint(self, parameter, argument);
            }
            position += usize::from(keyword.is_none());
        }
        if let (Some(call), false) = (call, hints.is_empty()) {
            self.push_hints(&hints, arguments.is_empty(), call);
        }
    }

    /// Names to a filter that compares or adds the items of its operand
    /// ([`undefined_filters::LIST_ITEMS`]) the names a list written as
    /// its operand holds (`[count, topic]|max` hints `"[0]"` and `"[1]"`),
    /// for it to raise Jinja2's `UndefinedError` naming the one it meets.
    fn hint_list_items(&mut self, operand: &Expr, no_arguments: bool, call: Call) {
        let (Node::Group(items), "List") = (&operand.node, operand.class) else {
            return;
        };
        let positions: Vec<String> = (0..items.len()).map(|i| format!("[{i}]")).collect();
        let hints: Vec<(&str, String)> = items
            .iter()
            .zip(&positions)
            .filter_map(|(item, position)| match item {
                Node::Name(name, _) if name != "self" => {
                    Some((position.as_str(), format!("'{name}' is undefined")))
                }
                _ => None,
            })
            .collect();
        if !hints.is_empty() {
            self.push_hints(&hints, no_arguments, call);
        }
    }

    /// The keyword argument [`HINTS_KEYWORD`] added to a filter's call.
    fn push_hints(&mut self, hints: &[(&str, String)], no_arguments: bool, call: Call) {
        let entries: Vec<String> = hints
            .iter()
            .map(|(parameter, text)| format!("\"{parameter}\": \"{text}\""))
            .collect();
        let hints = format!("{HINTS_KEYWORD}={{{}}}", entries.join(", "));
        let (at, text) = match call {
            Call::Bare(at) => (at, format!("({hints})")),
            Call::Closing(at) if no_arguments => (at, hints),
            Call::Closing(at) => (at, format!(", {hints}")),
        };
        self.edits.push(Edit {
            start: at,
            end: at,
            text,
            closing: false,
        });
    }

    /// Makes an attribute by a name go through [`ATTR_FUNCTION`].
    fn guard_attr(&mut self, expr: &Expr) {
        self.guard_attr_with(expr, ATTR_FUNCTION);
    }

    /// Makes an attribute by a name (not a dunder) a call `function(obj,
    /// "name")`.
    fn guard_attr_with(&mut self, expr: &Expr, function: &str) {
        let Some(site) = &expr.attr else {
            return;
        };
        if expr.class != "Getattr" || site.name.starts_with("__") {
            return;
        }
        self.open_call(site.start, function);
        self.edits.push(Edit {
            start: site.dot,
            end: site.end,
            text: format!(", \"{}\")", site.name),
            closing: false,
        });
    }

    /// `next(stream)`: the current token, the stream one further.
    fn next(&mut self) -> Parsed<Token> {
        let current = self.current().clone();
        if current.kind == "eof" {
            return Ok(current);
        }
        self.index += 1;
        if self.index >= self.tokens.len() {
            if let Some(error) = self.error.take() {
                return Err(error);
            }
            self.eof.line = current.line;
        }
        Ok(current)
    }

    /// The token after the current one.
    fn look(&mut self) -> Parsed<Token> {
        if self.current().kind == "eof" {
            return Ok(self.current().clone());
        }
        match self.tokens.get(self.index + 1) {
            Some(token) => Ok(token.clone()),
            None => {
                if let Some(error) = self.error.take() {
                    return Err(error);
                }
                let mut eof = self.eof.clone();
                eof.line = self.current().line;
                Ok(eof)
            }
        }
    }

    fn fail<T>(&self, message: String, line: usize) -> Parsed<T> {
        Err(SyntaxError { message, line })
    }

    fn fail_here<T>(&self, message: String) -> Parsed<T> {
        self.fail(message, self.current().line)
    }

    fn is(&self, expr: &str) -> bool {
        test_token(self.current(), expr)
    }

    fn kind(&self) -> &'static str {
        self.current().kind
    }

    fn skip_if(&mut self, expr: &str) -> Parsed<bool> {
        if self.is(expr) {
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn expect(&mut self, expr: &str) -> Parsed<Token> {
        if !self.is(expr) {
            let wanted = quoted(&describe_expr(expr));
            if self.kind() == "eof" {
                return self.fail_here(format!("unexpected end of template, expected {wanted}."));
            }
            return self.fail_here(format!(
                "expected token {wanted}, got {}",
                quoted(&describe(self.current()))
            ));
        }
        self.next()
    }

    fn fail_ut_eof<T>(
        &self,
        name: Option<&str>,
        stack: &[Vec<&'static str>],
        line: usize,
    ) -> Parsed<T> {
        let mut expected = std::collections::HashSet::new();
        for exprs in stack {
            expected.extend(exprs.iter().map(|e| describe_expr(e)));
        }
        let looking = stack.last().map(|exprs| {
            exprs
                .iter()
                .map(|e| quoted(&describe_expr(e)))
                .collect::<Vec<_>>()
                .join(" or ")
        });
        let mut message = vec![match name {
            None => "Unexpected end of template.".to_owned(),
            Some(name) => format!("Encountered unknown tag {}.", quoted(name)),
        }];
        if let Some(looking) = looking.filter(|l| !l.is_empty()) {
            if name.is_some_and(|n| expected.contains(n)) {
                message.push(format!(
                    "You probably made a nesting mistake. Jinja is expecting this tag, but \
                     currently looking for {looking}."
                ));
            } else {
                message.push(format!(
                    "Jinja was looking for the following tags: {looking}."
                ));
            }
        }
        if let Some(tag) = self.tag_stack.last() {
            message.push(format!(
                "The innermost block that needs to be closed is {}.",
                quoted(tag)
            ));
        }
        self.fail(message.join(" "), line)
    }

    fn fail_eof<T>(&self, end_tokens: Option<&[&'static str]>, line: usize) -> Parsed<T> {
        let mut stack = self.end_token_stack.clone();
        if let Some(end) = end_tokens {
            stack.push(end.to_vec());
        }
        self.fail_ut_eof(None, &stack, line)
    }

    /// Jinja2's `is_tuple_end`, whose `extra_end_rules` never match: it
    /// passes the tuple of rules to `test_any` as one rule.
    fn is_tuple_end(&self, _extra: &[&str]) -> bool {
        matches!(self.kind(), "variable_end" | "block_end" | "rparen")
    }

    /// Runs `parse` in a frame of its own (not an `if` frame).
    fn inner<T>(&mut self, parse: impl FnOnce(&mut Self) -> Parsed<T>) -> Parsed<T> {
        self.soft.push(false);
        let out = parse(self);
        self.soft.pop();
        out
    }

    /// Runs `parse` in an `if` frame.
    fn soft_frame<T>(&mut self, parse: impl FnOnce(&mut Self) -> Parsed<T>) -> Parsed<T> {
        self.soft.push(true);
        let out = parse(self);
        self.soft.pop();
        out
    }

    /// A filter or test applied to the node whose lookups start at `at`:
    /// the compiler checks it before visiting that node and its arguments.
    fn lookup(&mut self, at: usize, filter: bool, name: String, line: usize) {
        let soft = self.soft.last().copied().unwrap_or(false);
        let at = at.min(self.lookups.len());
        self.lookups.insert(
            at,
            Lookup {
                filter,
                name,
                line,
                soft,
            },
        );
    }

    // ------------------------------------------------------------ statements

    /// Runs `parse` one level deeper, failing as Python does past its
    /// recursion limit.
    fn nested<T>(&mut self, parse: impl FnOnce(&mut Self) -> Parsed<T>) -> Parsed<T> {
        if self.depth >= MAX_DEPTH {
            return self.fail_here(
                "maximum recursion depth exceeded while calling a Python object".to_owned(),
            );
        }
        self.depth += 1;
        let out = parse(self);
        self.depth -= 1;
        out
    }

    fn parse_statement(&mut self) -> Parsed<Node> {
        self.nested(Self::parse_statement_at)
    }

    fn parse_statement_at(&mut self) -> Parsed<Node> {
        let token = self.current().clone();
        if token.kind != "name" {
            return self.fail("tag name expected".to_owned(), token.line);
        }
        self.tag_stack.push(token.value.clone());
        let value = token.value.as_str();
        let result = if STATEMENT_KEYWORDS.contains(&value) {
            match value {
                "for" => self.parse_for(),
                "if" => self.parse_if(),
                "block" => self.parse_block(),
                "extends" => self.parse_extends(),
                "print" => self.parse_print(),
                "macro" => self.parse_macro(),
                "include" => self.parse_include(),
                "from" => self.parse_from(),
                "import" => self.parse_import(),
                "set" => self.parse_set(),
                "with" => self.parse_with(),
                _ => self.parse_autoescape(),
            }
        } else if value == "call" {
            self.parse_call_block()
        } else if value == "filter" {
            self.parse_filter_block()
        } else if value == "message" || value == "insert" {
            self.parse_extension()
        } else {
            self.tag_stack.pop();
            return self.fail_ut_eof(Some(value), &self.end_token_stack, token.line);
        };
        self.tag_stack.pop();
        result
    }

    /// The body up to one of `end`, and whether it holds only whitespace
    /// text.
    fn parse_statements(
        &mut self,
        end: &[&'static str],
        drop_needle: bool,
    ) -> Parsed<(bool, Vec<Node>)> {
        self.skip_if("colon")?;
        self.expect("block_end")?;
        let body = self.subparse(Some(end))?;
        if self.kind() == "eof" {
            return self.fail_eof(Some(end), self.current().line);
        }
        if drop_needle {
            self.next()?;
        }
        Ok(body)
    }

    fn parse_set(&mut self) -> Parsed<Node> {
        self.next()?;
        let target = Box::new(self.parse_assign_target(true, false, &[], true)?.node);
        let namespaces = namespace_refs(&target).join(", ");
        if self.skip_if("assign")? {
            let from = self.index;
            let node = Box::new(self.parse_tuple(false, true, &[], false, false)?.node);
            // `__py_nsref(ns) or (value)`: Jinja2's check, then the value.
            if let Some((start, end)) = self.span_from(from).filter(|_| !namespaces.is_empty()) {
                self.edits.push(Edit {
                    start,
                    end: start,
                    text: format!("{NSREF_FUNCTION}({namespaces}) or ("),
                    closing: false,
                });
                self.edits.push(Edit {
                    start: end,
                    end,
                    text: ")".to_owned(),
                    closing: true,
                });
            }
            return Ok(Node::Assign { target, node });
        }
        let (filter, body) = self.inner(|p| {
            let start = p.lookups.len();
            let filter = p.parse_filter(None, false, start)?;
            // The body through `|__py_nsref(ns)`, after its filter.
            if !namespaces.is_empty() {
                let at = p.current().span.0;
                p.edits.push(Edit {
                    start: at,
                    end: at,
                    text: format!("|{NSREF_FUNCTION}({namespaces}) "),
                    closing: false,
                });
            }
            let (_, body) = p.parse_statements(&["name:endset"], true)?;
            Ok((filter, body))
        })?;
        Ok(Node::AssignBlock {
            target,
            filter: filter.map(|f| Box::new(f.node)),
            body,
        })
    }

    fn parse_for(&mut self) -> Parsed<Node> {
        self.expect("name:for")?;
        let target = Box::new(
            self.parse_assign_target(true, false, &["name:in"], false)?
                .node,
        );
        self.expect("name:in")?;
        let iter = Box::new(
            self.parse_tuple(false, false, &["name:recursive"], false, false)?
                .node,
        );
        self.inner(|p| {
            let test = if p.skip_if("name:if")? {
                Some(Box::new(p.parse_expression(true)?.node))
            } else {
                None
            };
            let recursive = p.skip_if("name:recursive")?;
            let (_, body) = p.parse_statements(&["name:endfor", "name:else"], false)?;
            let else_ = if p.next()?.value != "endfor" {
                p.parse_statements(&["name:endfor"], true)?.1
            } else {
                Vec::new()
            };
            Ok(Node::For {
                target,
                iter,
                body,
                else_,
                test,
                recursive,
            })
        })
    }

    fn parse_if(&mut self) -> Parsed<Node> {
        self.expect("name:if")?;
        self.soft_frame(|p| {
            let mut branches: Vec<(Node, Vec<Node>)> = Vec::new();
            let mut else_ = Vec::new();
            loop {
                let test = p.parse_tuple(false, false, &[], false, false)?.node;
                let (_, body) =
                    p.parse_statements(&["name:elif", "name:else", "name:endif"], false)?;
                branches.push((test, body));
                let token = p.next()?;
                if test_token(&token, "name:elif") {
                    continue;
                }
                if test_token(&token, "name:else") {
                    else_ = p.parse_statements(&["name:endif"], true)?.1;
                }
                break;
            }
            let mut branches = branches.into_iter();
            let (test, body) = branches.next().expect("an if has a test");
            let elifs = branches
                .map(|(test, body)| Node::If {
                    test: Box::new(test),
                    body,
                    elifs: Vec::new(),
                    else_: Vec::new(),
                })
                .collect();
            Ok(Node::If {
                test: Box::new(test),
                body,
                elifs,
                else_,
            })
        })
    }

    fn parse_with(&mut self) -> Parsed<Node> {
        self.next()?;
        let (mut targets, mut values) = (Vec::new(), Vec::new());
        while self.kind() != "block_end" {
            if !targets.is_empty() {
                self.expect("comma")?;
            }
            let mut target = self.parse_assign_target(true, false, &[], false)?.node;
            set_ctx(&mut target, Ctx::Param);
            targets.push(target);
            self.expect("assign")?;
            values.push(self.parse_expression(true)?.node);
        }
        let (_, body) = self.inner(|p| p.parse_statements(&["name:endwith"], true))?;
        Ok(Node::With {
            targets,
            values,
            body,
        })
    }

    fn parse_autoescape(&mut self) -> Parsed<Node> {
        self.next()?;
        let value = self.parse_expression(true)?.node;
        let (_, body) = self.inner(|p| p.parse_statements(&["name:endautoescape"], true))?;
        // `Scope([ScopedEvalContextModifier(options, body)])`.
        let mut children = vec![value];
        children.extend(body);
        Ok(Node::Scope(vec![Node::Group(children)]))
    }

    fn parse_block(&mut self) -> Parsed<Node> {
        self.next()?;
        let name = self.expect("name")?.value;
        let scoped = self.skip_if("name:scoped")?;
        let required = self.skip_if("name:required")?;
        if self.kind() == "sub" {
            return self.fail_here(
                "Block names in Jinja have to be valid Python identifiers and may not contain \
                 hyphens, use an underscore instead."
                    .to_owned(),
            );
        }
        let (blank, body) = self.inner(|p| p.parse_statements(&["name:endblock"], true))?;
        if required && !blank {
            return self
                .fail_here("Required blocks can only contain comments or whitespace".to_owned());
        }
        let end = format!("name:{name}");
        self.skip_if(&end)?;
        Ok(Node::Block { body, scoped })
    }

    /// The first half of the rewrite of a tag loading a template, before
    /// its keyword is consumed: `{% include` becomes `{{ __py_load(`. Gives
    /// whether the tag is rewritten (it is unless it is a line statement).
    fn open_load_tag(&mut self) -> bool {
        let opening = self
            .index
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .filter(|t| t.kind == "block_begin")
            .cloned();
        let (Some(opening), Some(keyword)) = (opening, self.tokens.get(self.index).cloned()) else {
            return false;
        };
        let trim = if opening.value.ends_with('-') {
            "-"
        } else {
            ""
        };
        self.edits.push(Edit {
            start: opening.span.0,
            end: keyword.span.1,
            text: format!("{{{{{trim} {LOAD_FUNCTION}("),
            closing: false,
        });
        true
    }

    /// Where the template's expression of a loading tag ends.
    fn expression_end(&self) -> usize {
        self.index
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or(0, |t| t.span.1)
    }

    /// The second half of the rewrite of a loading tag, once the parser
    /// stands at its `%}`: what follows the expression becomes
    /// `, include, ignore_missing) }}`.
    fn close_load_tag(&mut self, opened: bool, expression_end: usize, include: bool, ignore: bool) {
        let closing = self.current().clone();
        if !opened || closing.kind != "block_end" {
            return;
        }
        let trim = if closing.value.starts_with('-') {
            "-"
        } else {
            ""
        };
        self.edits.push(Edit {
            start: expression_end,
            end: closing.span.1,
            text: format!(", {include}, {ignore}) {trim}}}}}"),
            closing: false,
        });
    }

    fn parse_extends(&mut self) -> Parsed<Node> {
        let opened = self.open_load_tag();
        let token = self.next()?;
        // Jinja2's compiler refuses an `extends` inside anything but an
        // `if` (whose frame stays the template's top level).
        let enclosing = &self.tag_stack[..self.tag_stack.len().saturating_sub(1)];
        if enclosing.iter().any(|tag| tag != "if") {
            self.nested_extends.push(token.line);
        }
        let template = self.parse_expression(true)?.node;
        let end = self.expression_end();
        self.close_load_tag(opened, end, false, false);
        Ok(Node::Group(vec![template]))
    }

    fn parse_import_context(&mut self) -> Parsed<()> {
        if (self.is("name:with") || self.is("name:without"))
            && test_token(&self.look()?, "name:context")
        {
            self.next()?;
            self.next()?;
        }
        Ok(())
    }

    fn parse_include(&mut self) -> Parsed<Node> {
        let opened = self.open_load_tag();
        self.next()?;
        let template = self.parse_expression(true)?.node;
        let end = self.expression_end();
        let mut ignore = false;
        if self.is("name:ignore") && test_token(&self.look()?, "name:missing") {
            self.next()?;
            self.next()?;
            ignore = true;
        }
        if (self.is("name:with") || self.is("name:without"))
            && test_token(&self.look()?, "name:context")
            && self.is("name:without")
        {
            // The function the include is compiled into: the innermost
            // macro, call block, message or block around it.
            let function = self
                .tag_stack
                .iter()
                .rev()
                .skip(1)
                .find(|tag| matches!(tag.as_str(), "macro" | "call" | "message" | "block"));
            if function.is_some_and(|tag| tag == "message") {
                if let Some(generator) = self.message_generators.last_mut() {
                    *generator = true;
                }
            }
        }
        self.parse_import_context()?;
        self.close_load_tag(opened, end, true, ignore);
        Ok(Node::Group(vec![template]))
    }

    fn parse_import(&mut self) -> Parsed<Node> {
        let opened = self.open_load_tag();
        self.next()?;
        let template = Box::new(self.parse_expression(true)?.node);
        let end = self.expression_end();
        self.expect("name:as")?;
        let target = self.parse_assign_target(true, true, &[], false)?;
        self.parse_import_context()?;
        self.close_load_tag(opened, end, false, false);
        Ok(Node::Import {
            template,
            targets: target.text.into_iter().collect(),
        })
    }

    fn parse_from(&mut self) -> Parsed<Node> {
        let opened = self.open_load_tag();
        self.next()?;
        let template = Box::new(self.parse_expression(true)?.node);
        let end = self.expression_end();
        self.expect("name:import")?;
        let mut targets = Vec::new();
        let mut names = 0;
        loop {
            if names > 0 {
                self.expect("comma")?;
            }
            if self.kind() == "name" {
                if self.import_context_of_from()? {
                    break;
                }
                let target = self.parse_assign_target(true, true, &[], false)?;
                if target.text.as_deref().is_some_and(|n| n.starts_with('_')) {
                    return self.fail(
                        "names starting with an underline can not be imported".to_owned(),
                        target.line,
                    );
                }
                let mut stored = target.text;
                if self.skip_if("name:as")? {
                    stored = self.parse_assign_target(true, true, &[], false)?.text;
                }
                targets.extend(stored);
                names += 1;
                if self.import_context_of_from()? || self.kind() != "comma" {
                    break;
                }
            } else {
                self.expect("name")?;
            }
        }
        self.close_load_tag(opened, end, false, false);
        Ok(Node::Import { template, targets })
    }

    fn import_context_of_from(&mut self) -> Parsed<bool> {
        let current = self.current();
        if current.kind == "name"
            && (current.value == "with" || current.value == "without")
            && test_token(&self.look()?, "name:context")
        {
            self.next()?;
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// A macro's or call block's arguments and their defaults.
    fn parse_signature(&mut self) -> Parsed<(Vec<Node>, Vec<Node>)> {
        self.expect("lparen")?;
        let (mut args, mut defaults) = (Vec::new(), Vec::new());
        while self.kind() != "rparen" {
            if !args.is_empty() {
                self.expect("comma")?;
            }
            let mut arg = self.parse_assign_target(true, true, &[], false)?.node;
            set_ctx(&mut arg, Ctx::Param);
            args.push(arg);
            if self.skip_if("assign")? {
                defaults.push(self.parse_expression(true)?.node);
            } else if !defaults.is_empty() {
                return self.fail_here("non-default argument follows default argument".to_owned());
            }
        }
        self.expect("rparen")?;
        Ok((args, defaults))
    }

    fn parse_call_block(&mut self) -> Parsed<Node> {
        let line = self.next()?.line;
        let (args, defaults) = if self.kind() == "lparen" {
            self.parse_signature()?
        } else {
            (Vec::new(), Vec::new())
        };
        let call = self.parse_expression(true)?;
        if call.class != "Call" {
            return self.fail("expected call".to_owned(), line);
        }
        let (_, body) = self.inner(|p| p.parse_statements(&["name:endcall"], true))?;
        Ok(Node::CallBlock {
            call: Box::new(call.node),
            args,
            defaults,
            body,
        })
    }

    fn parse_filter_block(&mut self) -> Parsed<Node> {
        self.next()?;
        let (filter, body) = self.inner(|p| {
            let start = p.lookups.len();
            let filter = p.parse_filter(None, true, start)?;
            let (_, body) = p.parse_statements(&["name:endfilter"], true)?;
            Ok((filter, body))
        })?;
        Ok(Node::FilterBlock {
            body,
            filter: Box::new(filter.map_or(Node::Group(Vec::new()), |f| f.node)),
        })
    }

    fn parse_macro(&mut self) -> Parsed<Node> {
        self.next()?;
        let name = self
            .parse_assign_target(true, true, &[], false)?
            .text
            .unwrap_or_default();
        let (args, defaults, body) = self.inner(|p| {
            let (args, defaults) = p.parse_signature()?;
            let signature_end = p.index.checked_sub(1).and_then(|i| p.tokens.get(i));
            let signature_end = signature_end.map_or(0, |token| token.span.0);
            let opening = p.tokens[p.index..]
                .iter()
                .find(|token| token.kind == "block_end")
                .cloned();
            let (_, body) = p.parse_statements(&["name:endmacro"], true)?;
            let closing = p.current().clone();
            let names: Vec<String> = args
                .iter()
                .filter_map(|arg| match arg {
                    Node::Name(name, _) => Some(name.clone()),
                    _ => None,
                })
                .collect();
            if let (Some(opening), "block_end") = (opening, closing.kind) {
                let macro_def = MacroDef {
                    name: &name,
                    arguments: &names,
                    defaults: defaults.len(),
                    body: &body,
                };
                p.edits
                    .extend(macro_def.edits(signature_end, &opening, &closing));
            }
            Ok((args, defaults, body))
        })?;
        Ok(Node::Macro {
            name,
            args,
            defaults,
            body,
        })
    }

    fn parse_print(&mut self) -> Parsed<Node> {
        // `{% print a, b %}` writes each expression: for minijinja, which
        // has no `print`, it is `{{ a }}{{ b }}`.
        let opening = self
            .index
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .cloned();
        let keyword = self.next()?;
        let mut edits = Vec::new();
        if let Some(opening) = opening.filter(|t| t.kind == "block_begin") {
            let trim = if opening.value.ends_with('-') {
                "-"
            } else {
                ""
            };
            edits.push(Edit {
                start: opening.span.0,
                end: keyword.span.1,
                text: format!("{{{{{trim}"),
                closing: false,
            });
        }
        let mut nodes = Vec::new();
        while self.kind() != "block_end" {
            if !nodes.is_empty() {
                let comma = self.expect("comma")?;
                edits.push(Edit {
                    start: comma.span.0,
                    end: comma.span.1,
                    text: "}}{{".to_owned(),
                    closing: false,
                });
            }
            nodes.push(self.parse_expression(true)?.node);
        }
        let closing = self.current().clone();
        let trim = if closing.value.starts_with('-') {
            "-"
        } else {
            ""
        };
        edits.push(Edit {
            start: closing.span.0,
            end: closing.span.1,
            text: format!("{trim}}}}}"),
            closing: false,
        });
        if nodes.is_empty() {
            // `{% print %}` writes nothing.
            if let Some(last) = edits.last_mut() {
                last.text = format!("''{}", last.text);
            }
        }
        self.edits.extend(edits);
        Ok(Node::Group(nodes))
    }

    /// Haystack's `ChatMessageExtension.parse`: `{% insert EXPR %}` and
    /// `{% message role=... [name=...] [meta={...}] %}...{% endmessage %}`,
    /// each a `CallBlock` calling the extension with the tag's arguments.
    fn parse_extension(&mut self) -> Parsed<Node> {
        let tag = self.next()?;
        let line = tag.line;
        if tag.value == "insert" {
            if self.is("block_end") {
                return self.fail(
                    "The 'insert' tag requires an expression that evaluates to a ChatMessage or \
                     a list of ChatMessage objects, for example '{% insert messages %}' or \
                     '{% insert messages[-1:] %}'."
                        .to_owned(),
                    line,
                );
            }
            let expr = self.parse_expression(true)?.node;
            return Ok(Node::CallBlock {
                call: Box::new(Node::Group(vec![expr])),
                args: Vec::new(),
                defaults: Vec::new(),
                body: Vec::new(),
            });
        }
        self.expect("name:role")?;
        self.expect("assign")?;
        let role = self.parse_expression(true)?;
        if role.class == "Const" && !role.text.as_deref().is_some_and(|r| ROLES.contains(&r)) {
            return self.fail(format!("Role must be one of: {}", ROLES.join(", ")), line);
        }
        let mut arguments = vec![role.node];
        if self.is("name:name") {
            self.next()?;
            self.expect("assign")?;
            let name = self.parse_expression(true)?;
            if name.class != "Const" {
                return self.fail(
                    format!("'{}' object has no attribute 'value'", name.class),
                    line,
                );
            }
            if name.text.is_none() {
                return self.fail("name must be a string".to_owned(), line);
            }
            arguments.push(name.node);
        }
        if self.is("name:meta") {
            self.next()?;
            self.expect("assign")?;
            let meta = self.parse_expression(true)?;
            if meta.class != "Dict" {
                return self.fail("meta must be a dictionary".to_owned(), line);
            }
            arguments.push(meta.node);
        }
        let body_start = self.current().span.1;
        self.message_generators.push(false);
        let parsed = self.inner(|p| p.parse_statements(&["name:endmessage"], true));
        let generator = self.message_generators.pop().unwrap_or(false);
        let (_, body) = parsed?;
        let ending = self.index.checked_sub(2).and_then(|i| self.tokens.get(i));
        if let Some(ending) = ending.filter(|t| generator && t.kind == "block_begin") {
            // The body is never run: it is the call that raises.
            let body_end = ending.span.0;
            self.edits
                .retain(|e| !(e.start >= body_start && e.end <= body_end));
            self.edits.push(Edit {
                start: body_start,
                end: body_end,
                text: format!("{{{{ {GENERATOR_BODY_FUNCTION}() }}}}"),
                closing: false,
            });
        }
        Ok(Node::CallBlock {
            call: Box::new(Node::Group(arguments)),
            args: Vec::new(),
            defaults: Vec::new(),
            body,
        })
    }

    // ----------------------------------------------------------- expressions

    fn parse_assign_target(
        &mut self,
        with_tuple: bool,
        name_only: bool,
        extra: &[&str],
        with_namespace: bool,
    ) -> Parsed<Expr> {
        let mut target = if name_only {
            let token = self.expect("name")?;
            self.note_self(&token);
            Expr {
                class: "Name",
                line: token.line,
                assignable: true,
                node: Node::Name(token.value.clone(), Ctx::Load),
                span: None,
                attr: None,
                item: None,
                text: Some(token.value),
            }
        } else if with_tuple {
            self.parse_tuple(true, true, extra, false, with_namespace)?
        } else {
            self.parse_primary(with_namespace)?
        };
        if !target.assignable {
            return self.fail(
                format!(
                    "can't assign to {}",
                    quoted(&target.class.to_ascii_lowercase())
                ),
                target.line,
            );
        }
        set_ctx(&mut target.node, Ctx::Store);
        self.assigns_self |= names_self(&target.node);
        Ok(target)
    }

    /// Notes a name `self`: renamed for minijinja (which reserves it) when
    /// the template assigns it.
    fn note_self(&mut self, token: &Token) {
        if token.value == "self" {
            self.self_names.push(token.span);
        }
    }

    fn parse_expression(&mut self, with_condexpr: bool) -> Parsed<Expr> {
        if with_condexpr {
            self.parse_condexpr()
        } else {
            self.parse_or()
        }
    }

    fn parse_condexpr(&mut self) -> Parsed<Expr> {
        let line = self.current().line;
        let from = self.lookups.len();
        let mut expr = self.parse_or()?;
        while self.skip_if("name:if")? {
            // The whole inline if is compiled in a soft frame, its value too.
            for lookup in &mut self.lookups[from..] {
                lookup.soft = true;
            }
            let (test, otherwise) = self.soft_frame(|p| {
                let test = p.parse_or()?.node;
                let otherwise = if p.skip_if("name:else")? {
                    Some(p.parse_condexpr()?.node)
                } else {
                    None
                };
                Ok((test, otherwise))
            })?;
            // `CondExpr(test, expr1, expr2)`.
            let mut children = vec![test, expr.node];
            children.extend(otherwise);
            expr = Expr::new("CondExpr", line, children);
        }
        Ok(expr)
    }

    fn parse_or(&mut self) -> Parsed<Expr> {
        let line = self.current().line;
        let mut left = self.parse_and()?;
        while self.skip_if("name:or")? {
            let right = self.parse_and()?;
            left = Expr::new("Or", line, vec![left.node, right.node]);
        }
        Ok(left)
    }

    fn parse_and(&mut self) -> Parsed<Expr> {
        let line = self.current().line;
        let mut left = self.parse_not()?;
        while self.skip_if("name:and")? {
            let right = self.parse_not()?;
            left = Expr::new("And", line, vec![left.node, right.node]);
        }
        Ok(left)
    }

    fn parse_not(&mut self) -> Parsed<Expr> {
        if self.is("name:not") {
            let line = self.next()?.line;
            let node = self.parse_not()?;
            return Ok(Expr::new("Not", line, vec![node.node]));
        }
        self.parse_compare()
    }

    fn parse_compare(&mut self) -> Parsed<Expr> {
        let line = self.current().line;
        let from = self.index;
        let expr = self.parse_math1()?;
        let mut operands = Vec::new();
        let mut before = expr.clone();
        // Whether `before` went through the check already (`a < b < c`).
        let mut checked = false;
        // The operands an ordering compares, checked once the chain is read.
        let mut ordered: Vec<Expr> = Vec::new();
        let mut links: Vec<Link> = Vec::new();
        loop {
            let ordering = matches!(self.kind(), "lt" | "lteq" | "gt" | "gteq");
            if ordering || matches!(self.kind(), "eq" | "ne") {
                let operator = self.next()?;
                links.push(Link::Compare(operator.value, operator.span));
            } else if self.is("name:in") {
                let operator = self.next()?;
                links.push(Link::In(false, operator.span));
            } else if self.is("name:not") && test_token(&self.look()?, "name:in") {
                let not = self.next()?;
                let operator = self.next()?;
                links.push(Link::In(true, (not.span.0, operator.span.1)));
            } else {
                break;
            }
            let operand = self.parse_math1()?;
            if ordering {
                // Jinja2's `Undefined` raises on `<`, not on `==` or `in`.
                if !checked {
                    ordered.push(before.site());
                }
                ordered.push(operand.site());
            }
            checked = ordering;
            operands.push(operand.node.clone());
            before = operand;
        }
        if operands.is_empty() {
            return Ok(expr);
        }
        // Each comparison raises where it compares, after its operands are
        // read as Python reads them.
        for operand in &ordered {
            self.guard_compared(operand);
        }
        self.chain(from, &links);
        let mut children = vec![expr.node];
        children.extend(operands);
        Ok(Expr::new("Compare", line, children))
    }

    fn parse_math1(&mut self) -> Parsed<Expr> {
        let line = self.current().line;
        let from = self.index;
        let mut left = self.parse_concat()?;
        while matches!(self.kind(), "add" | "sub") {
            let class = if self.kind() == "add" { "Add" } else { "Sub" };
            let operator = self.next()?;
            let right = self.parse_concat()?;
            let function = Some(if class == "Add" {
                ADD_FUNCTION
            } else {
                SUB_FUNCTION
            });
            self.operation(from, function, (&left, &right), operator.span);
            left = Expr::new(class, line, vec![left.node, right.node]);
        }
        Ok(left)
    }

    fn parse_concat(&mut self) -> Parsed<Expr> {
        let line = self.current().line;
        let from = self.index;
        let first = self.parse_math2()?;
        let mut rest = Vec::new();
        let mut tildes = Vec::new();
        while self.kind() == "tilde" {
            tildes.push(self.next()?.span);
            rest.push(self.parse_math2()?.node);
        }
        if rest.is_empty() {
            return Ok(first);
        }
        // `a ~ b ~ c` is `__py_concat(a, b, c)`.
        self.wrap_in_call(from, CONCAT_FUNCTION);
        for (start, end) in tildes {
            self.edits.push(Edit {
                start,
                end,
                text: ",".to_owned(),
                closing: false,
            });
        }
        let mut children = vec![first.node];
        children.extend(rest);
        Ok(Expr::new("Concat", line, children))
    }

    fn parse_math2(&mut self) -> Parsed<Expr> {
        let line = self.current().line;
        let from = self.index;
        let mut left = self.parse_pow()?;
        while matches!(self.kind(), "mul" | "div" | "floordiv" | "mod") {
            let class = match self.kind() {
                "mul" => "Mul",
                "div" => "Div",
                "floordiv" => "FloorDiv",
                _ => "Mod",
            };
            let operator = self.next()?;
            let right = self.parse_pow()?;
            let function = Some(match class {
                "Mul" => MUL_FUNCTION,
                "Div" => DIV_FUNCTION,
                "FloorDiv" => FLOORDIV_FUNCTION,
                _ => MOD_FUNCTION,
            });
            self.operation(from, function, (&left, &right), operator.span);
            left = Expr::new(class, line, vec![left.node, right.node]);
        }
        Ok(left)
    }

    fn parse_pow(&mut self) -> Parsed<Expr> {
        let line = self.current().line;
        let from = self.index;
        let mut left = self.parse_unary(true)?;
        while self.kind() == "pow" {
            let operator = self.next()?;
            let right = self.parse_unary(true)?;
            self.operation(from, Some(POW_FUNCTION), (&left, &right), operator.span);
            left = Expr::new("Pow", line, vec![left.node, right.node]);
        }
        Ok(left)
    }

    fn parse_unary(&mut self, with_filter: bool) -> Parsed<Expr> {
        self.nested(|p| p.parse_unary_at(with_filter))
    }

    fn parse_unary_at(&mut self, with_filter: bool) -> Parsed<Expr> {
        let line = self.current().line;
        let begin = self.current().span.0;
        let start = self.lookups.len();
        let mut node = match self.kind() {
            "sub" | "add" => {
                // `-a` is `__py_neg(a)`, `+a` is `__py_pos(a)` (minijinja has
                // no unary plus, and negates as Rust does).
                let (class, function) = match self.kind() {
                    "sub" => ("Neg", NEG_FUNCTION),
                    _ => ("Pos", POS_FUNCTION),
                };
                let sign = self.next()?;
                let operand = self.parse_unary(false)?;
                self.guard_operand(&operand);
                if let Some(last) = self.index.checked_sub(1).and_then(|i| self.tokens.get(i)) {
                    let end = last.span.1;
                    self.edits.push(Edit {
                        start: sign.span.0,
                        end: sign.span.1,
                        text: format!("{function}("),
                        closing: false,
                    });
                    self.edits.push(Edit {
                        start: end,
                        end,
                        text: ")".to_owned(),
                        closing: true,
                    });
                }
                Expr::new(class, line, vec![operand.node])
            }
            _ => self.parse_primary(false)?,
        };
        node = self.parse_postfix(node, begin)?;
        if with_filter {
            node = self.parse_filter_expr(node, start)?;
        }
        Ok(node)
    }

    fn parse_primary(&mut self, with_namespace: bool) -> Parsed<Expr> {
        let token = self.current().clone();
        match token.kind {
            "name" => {
                self.next()?;
                let value = token.value.as_str();
                if matches!(value, "true" | "false" | "True" | "False" | "none" | "None") {
                    return Ok(Expr::new("Const", token.line, Vec::new()));
                }
                if with_namespace && self.kind() == "dot" {
                    self.next()?;
                    self.expect("name")?;
                    // minijinja assigns only to its own namespace: the
                    // harness's hands one out for each assignment.
                    self.edits.push(Edit {
                        start: token.span.1,
                        end: token.span.1,
                        text: format!(".{SLOT_ATTRIBUTE}"),
                        closing: false,
                    });
                    return Ok(Expr {
                        class: "NSRef",
                        line: token.line,
                        assignable: true,
                        text: None,
                        node: Node::NsRef(token.value),
                        span: None,
                        attr: None,
                        item: None,
                    });
                }
                self.note_self(&token);
                Ok(Expr {
                    class: "Name",
                    line: token.line,
                    assignable: true,
                    node: Node::Name(token.value.clone(), Ctx::Load),
                    text: Some(token.value),
                    span: Some(token.span),
                    attr: None,
                    item: None,
                })
            }
            "string" => {
                self.next()?;
                let mut text = token.value;
                while self.kind() == "string" {
                    text.push_str(&self.next()?.value);
                }
                Ok(Expr {
                    class: "Const",
                    line: token.line,
                    assignable: false,
                    text: Some(text),
                    node: Node::Group(Vec::new()),
                    span: None,
                    attr: None,
                    item: None,
                })
            }
            "integer" | "float" => {
                self.next()?;
                Ok(Expr::new("Const", token.line, Vec::new()))
            }
            "lparen" => {
                self.next()?;
                let node = self.parse_tuple(false, true, &[], true, false)?;
                self.expect("rparen")?;
                Ok(node)
            }
            "lbracket" => self.parse_list(),
            "lbrace" => self.parse_dict(),
            _ => self.fail(
                format!("unexpected {}", quoted(&describe(&token))),
                token.line,
            ),
        }
    }

    fn parse_tuple(
        &mut self,
        simplified: bool,
        with_condexpr: bool,
        extra: &[&str],
        explicit_parentheses: bool,
        with_namespace: bool,
    ) -> Parsed<Expr> {
        let mut line = self.current().line;
        let from = self.index;
        let mut args: Vec<Expr> = Vec::new();
        let mut is_tuple = false;
        loop {
            if !args.is_empty() {
                self.expect("comma")?;
            }
            if self.is_tuple_end(extra) {
                break;
            }
            args.push(if simplified {
                self.parse_primary(with_namespace)?
            } else {
                self.parse_expression(with_condexpr)?
            });
            if self.kind() == "comma" {
                is_tuple = true;
            } else {
                break;
            }
            line = self.current().line;
        }
        if !is_tuple {
            if let Some(first) = args.into_iter().next() {
                return Ok(first);
            }
            if !explicit_parentheses {
                return self.fail_here(format!(
                    "Expected an expression, got {}",
                    quoted(&describe(self.current()))
                ));
            }
            return Ok(Expr {
                class: "Tuple",
                line,
                assignable: true,
                text: None,
                node: Node::Seq(Vec::new()),
                span: None,
                attr: None,
                item: None,
            });
        }
        if !simplified && !explicit_parentheses {
            // `{{ a, b }}` is the tuple `(a, b)`, which minijinja reads
            // only in parentheses.
            if let (Some(first), Some(last)) = (
                self.tokens.get(from),
                self.index.checked_sub(1).and_then(|i| self.tokens.get(i)),
            ) {
                let (start, end) = (first.span.0, last.span.1);
                self.edits.push(Edit {
                    start,
                    end: start,
                    text: "(".to_owned(),
                    closing: false,
                });
                self.edits.push(Edit {
                    start: end,
                    end,
                    text: ")".to_owned(),
                    closing: true,
                });
            }
        }
        let assignable = args.iter().all(|a| a.assignable);
        Ok(Expr {
            class: "Tuple",
            line,
            assignable,
            text: None,
            node: Node::Seq(args.into_iter().map(|a| a.node).collect()),
            span: None,
            attr: None,
            item: None,
        })
    }

    fn parse_list(&mut self) -> Parsed<Expr> {
        let token = self.expect("lbracket")?;
        let mut items = Vec::new();
        while self.kind() != "rbracket" {
            if !items.is_empty() {
                self.expect("comma")?;
            }
            if self.kind() == "rbracket" {
                break;
            }
            items.push(self.parse_expression(true)?.node);
        }
        self.expect("rbracket")?;
        Ok(Expr::new("List", token.line, items))
    }

    fn parse_dict(&mut self) -> Parsed<Expr> {
        let token = self.expect("lbrace")?;
        let mut items = Vec::new();
        while self.kind() != "rbrace" {
            if !items.is_empty() {
                self.expect("comma")?;
            }
            if self.kind() == "rbrace" {
                break;
            }
            let from = self.index;
            let key = self.parse_expression(true)?.node;
            self.wrap_in_call(from, KEY_FUNCTION);
            self.expect("colon")?;
            let value = self.parse_expression(true)?.node;
            items.push(Node::Group(vec![key, value]));
        }
        self.expect("rbrace")?;
        Ok(Expr::new("Dict", token.line, items))
    }

    /// The postfixes of `node`, which starts at `begin` in the source.
    fn parse_postfix(&mut self, mut node: Expr, begin: usize) -> Parsed<Expr> {
        loop {
            match self.kind() {
                "dot" | "lbracket" => {
                    // A dunder attribute of `Undefined` is Python's own
                    // (`count.__class__`), which the sandbox hides.
                    let dunder = self.kind() == "dot" && self.look()?.value.starts_with("__");
                    if !dunder {
                        // Looking into an undefined name, or into an
                        // attribute a value lacks, raises (`x.y.z`).
                        self.guard_name(&node);
                        self.guard_attr(&node);
                        self.guard_item(&node);
                    }
                    node = self.parse_subscript(node, begin)?;
                }
                "lparen" => node = self.parse_call(node)?,
                _ => return Ok(node),
            }
        }
    }

    fn parse_filter_expr(&mut self, mut node: Expr, start: usize) -> Parsed<Expr> {
        loop {
            if self.kind() == "pipe" {
                node = self
                    .parse_filter(Some(node), false, start)?
                    .expect("a filter");
            } else if self.is("name:is") {
                node = self.parse_test(node, start)?;
            } else if self.kind() == "lparen" {
                node = self.parse_call(node)?;
            } else {
                return Ok(node);
            }
        }
    }

    fn parse_subscript(&mut self, node: Expr, begin: usize) -> Parsed<Expr> {
        let token = self.next()?;
        if token.kind == "dot" {
            let attr = self.current().clone();
            self.next()?;
            if attr.kind == "name" {
                let mut getattr = Expr::new("Getattr", token.line, vec![node.node]);
                getattr.attr = Some(AttrSite {
                    start: begin,
                    dot: token.span.0,
                    end: attr.span.1,
                    name: attr.value,
                });
                // A Python method's name not called (`order.items`) is the
                // method in Jinja2's sandbox, not the dict's key.
                let method = getattr
                    .attr
                    .as_ref()
                    .is_some_and(|site| is_method_name(&site.name) && self.kind() != "lparen");
                if method {
                    self.guard_attr_with(&getattr, METHOD_FUNCTION);
                    getattr.attr = None;
                }
                return Ok(getattr);
            }
            if attr.kind != "integer" {
                return self.fail("expected name or number".to_owned(), attr.line);
            }
            return Ok(Expr::new("Getitem", token.line, vec![node.node]));
        }
        let mut children = vec![node.node];
        let mut args = 0;
        let mut sliced = false;
        let mut shape = None;
        let subscript = self.index;
        while self.kind() != "rbracket" {
            if args > 0 {
                self.expect("comma")?;
            }
            let (subscript, slice) = self.parse_subscribed()?;
            children.push(subscript);
            sliced |= slice.is_some();
            shape = slice;
            args += 1;
        }
        // One integer or string token: minijinja's item is Jinja2's.
        let literal = self.index == subscript + 1
            && self
                .tokens
                .get(subscript)
                .is_some_and(|t| matches!(t.kind, "integer" | "string"));
        let closing = self.expect("rbracket")?;
        if args == 0 {
            // Jinja2 reads `x[]` as `x[()]`, an empty tuple's subscript;
            // minijinja does not parse the empty one.
            self.edits.push(Edit {
                start: closing.span.0,
                end: closing.span.0,
                text: "()".to_owned(),
                closing: false,
            });
        }
        if args > 1 && !sliced {
            // Jinja2's subscript by a tuple (`t[1, 0]`, which no list or
            // dict of a prompt holds): minijinja's by one in parentheses.
            for (at, text) in [(token.span.1, "("), (closing.span.0, ")")] {
                self.edits.push(Edit {
                    start: at,
                    end: at,
                    text: text.to_owned(),
                    closing: false,
                });
            }
        }
        if let (1, Some(shape)) = (args, &shape) {
            self.slice_call(begin, (token.span, closing.span), shape);
        }
        let mut getitem = Expr::new("Getitem", token.line, children);
        if !sliced {
            let mut site = ItemSite {
                start: begin,
                open: token.span,
                close: closing.span,
                opening: None,
            };
            if args == 1 && !literal {
                site.opening = Some(self.edits.len());
                self.item_call(site, GETITEM_FUNCTION);
            }
            getitem.item = Some(site);
        }
        Ok(getitem)
    }

    /// A subscript or a slice: its expressions in order, and a slice's
    /// shape.
    fn parse_subscribed(&mut self) -> Parsed<(Node, Option<SliceShape>)> {
        let mut parts = Vec::new();
        let mut shape = SliceShape {
            start: false,
            colons: Vec::new(),
        };
        let colon = if self.kind() == "colon" {
            self.next()?
        } else {
            let node = self.parse_expression(true)?.node;
            if self.kind() != "colon" {
                return Ok((node, None));
            }
            parts.push(node);
            shape.start = true;
            self.next()?
        };
        let stop = self.kind() != "colon" && !matches!(self.kind(), "rbracket" | "comma");
        if stop {
            parts.push(self.parse_expression(true)?.node);
        }
        shape.colons.push((colon.span, stop));
        if self.kind() == "colon" {
            let colon = self.next()?;
            let step = !matches!(self.kind(), "rbracket" | "comma");
            if step {
                parts.push(self.parse_expression(true)?.node);
            }
            shape.colons.push((colon.span, step));
        }
        Ok((Node::Group(parts), Some(shape)))
    }

    /// Makes the slice just parsed (`obj[a:b:c]`, its object from `begin`,
    /// its brackets at `open` and `close`) a call `__py_slice(obj, a, b,
    /// c)`, a part not written being `none`.
    fn slice_call(
        &mut self,
        begin: usize,
        (open, close): ((usize, usize), (usize, usize)),
        shape: &SliceShape,
    ) {
        let none = |written: bool| if written { ", " } else { ", none" };
        let mut edits = vec![
            (begin, begin, format!("{SLICE_FUNCTION}(")),
            (open.0, open.1, none(shape.start).to_owned()),
        ];
        for (colon, written) in &shape.colons {
            edits.push((colon.0, colon.1, none(*written).to_owned()));
        }
        let tail = if shape.colons.len() == 1 {
            ", none)"
        } else {
            ")"
        };
        edits.push((close.0, close.1, tail.to_owned()));
        for (start, end, text) in edits {
            self.edits.push(Edit {
                start,
                end,
                text,
                closing: false,
            });
        }
    }

    /// The arguments of a call, filter or test in the order of Jinja2's
    /// fields: `args`, `kwargs`, `dyn_args`, `dyn_kwargs`.
    fn parse_call_args(&mut self) -> Parsed<Vec<Node>> {
        let token = self.expect("lparen")?;
        let (mut args, mut kwargs) = (Vec::new(), Vec::new());
        let (mut dyn_args, mut dyn_kwargs): (Option<Node>, Option<Node>) = (None, None);
        let mut sites = Vec::new();
        let mut require_comma = false;
        let ensure = |p: &Self, ok: bool| -> Parsed<()> {
            if ok {
                Ok(())
            } else {
                p.fail(
                    "invalid syntax for function call expression".to_owned(),
                    token.line,
                )
            }
        };
        while self.kind() != "rparen" {
            if require_comma {
                self.expect("comma")?;
                if self.kind() == "rparen" {
                    break;
                }
            }
            if self.kind() == "mul" {
                ensure(self, dyn_args.is_none() && dyn_kwargs.is_none())?;
                self.next()?;
                dyn_args = Some(self.parse_expression(true)?.node);
            } else if self.kind() == "pow" {
                ensure(self, dyn_kwargs.is_none())?;
                self.next()?;
                dyn_kwargs = Some(self.parse_expression(true)?.node);
            } else if self.kind() == "name" && self.look()?.kind == "assign" {
                ensure(self, dyn_kwargs.is_none())?;
                let keyword = self.next()?.value;
                self.next()?;
                let value = self.parse_expression(true)?;
                sites.push((Some(keyword), value.site()));
                kwargs.push(value.node);
            } else {
                ensure(
                    self,
                    dyn_args.is_none() && dyn_kwargs.is_none() && kwargs.is_empty(),
                )?;
                let value = self.parse_expression(true)?;
                sites.push((None, value.site()));
                args.push(value.node);
            }
            require_comma = true;
        }
        let closing = self.expect("rparen")?;
        let dynamic = dyn_args.is_some() || dyn_kwargs.is_some();
        args.extend(kwargs);
        args.extend(dyn_args);
        args.extend(dyn_kwargs);
        self.arguments = sites;
        self.call_end = (!dynamic).then_some(closing.span.0);
        Ok(args)
    }

    fn parse_call(&mut self, node: Expr) -> Parsed<Expr> {
        let line = self.current().line;
        let mut children = vec![node.node];
        children.extend(self.parse_call_args()?);
        Ok(Expr::new("Call", line, children))
    }

    /// One or more `|name(args)` applied to `node` (none for a filter
    /// block or a set block); `start_inline` reads the first without its
    /// pipe (a filter block). `None` when there was none.
    fn parse_filter(
        &mut self,
        mut node: Option<Expr>,
        mut start_inline: bool,
        start: usize,
    ) -> Parsed<Option<Expr>> {
        let mut filtered = false;
        while self.kind() == "pipe" || start_inline {
            if !start_inline {
                self.next()?;
            }
            let token = self.expect("name")?;
            let mut name = token.value;
            let mut name_end = token.span.1;
            while self.kind() == "dot" {
                self.next()?;
                name.push('.');
                let part = self.expect("name")?;
                name_end = part.span.1;
                name.push_str(&part.value);
            }
            let operand = node.as_ref().map(Expr::site);
            let listed = node
                .as_ref()
                .filter(|_| undefined_filters::LIST_ITEMS.contains(&name.as_str()))
                .cloned();
            let mut children: Vec<Node> = node.take().map(|n| n.node).into_iter().collect();
            let mut arguments = Vec::new();
            let mut call = Some(Call::Bare(name_end));
            if self.kind() == "lparen" {
                children.extend(self.parse_call_args()?);
                arguments = std::mem::take(&mut self.arguments);
                call = self.call_end.map(Call::Closing);
            }
            if let Some(raising) = undefined_filters::raising(&name) {
                self.guard_filter(raising, operand.as_ref(), &arguments, call);
            } else if let (Some(listed), Some(call)) = (listed, call) {
                self.hint_list_items(&listed, arguments.is_empty(), call);
            }
            self.lookup(start, true, name, token.line);
            node = Some(Expr::new("Filter", token.line, children));
            filtered = true;
            start_inline = false;
        }
        Ok(if filtered { node } else { None })
    }

    fn parse_test(&mut self, node: Expr, start: usize) -> Parsed<Expr> {
        let token = self.next()?;
        let negated = self.skip_if("name:not")?;
        let mut name = self.expect("name")?.value;
        while self.kind() == "dot" {
            self.next()?;
            name.push('.');
            name.push_str(&self.expect("name")?.value);
        }
        // These tests are Python's operators, which raise on an undefined
        // operand: each operand goes through its check.
        let ordering = OPERATOR_TESTS.contains(&name.as_str());
        if ordering {
            self.guard_compared(&node);
        }
        let mut children = vec![node.node];
        if self.kind() == "lparen" {
            children.extend(self.parse_call_args()?);
            if ordering {
                for (_, argument) in std::mem::take(&mut self.arguments) {
                    self.guard_compared(&argument);
                }
            }
        } else if matches!(
            self.kind(),
            "name" | "string" | "integer" | "float" | "lparen" | "lbracket" | "lbrace"
        ) && !(self.is("name:else") || self.is("name:or") || self.is("name:and"))
        {
            if self.is("name:is") {
                return self.fail_here("You cannot chain multiple tests with is".to_owned());
            }
            let (from, begin) = (self.index, self.current().span.0);
            let arg = self.parse_primary(false)?;
            let arg = self.parse_postfix(arg, begin)?;
            if ordering {
                self.guard_compared(&arg);
            }
            children.push(arg.node);
            // minijinja takes a bare argument only as a literal: `1 is lt
            // d.b` is `1 is lt(d.b)`.
            self.wrap_in_call(from, "");
        }
        self.lookup(start, false, name, token.line);
        let test = Expr::new("Test", token.line, children);
        Ok(if negated {
            Expr::new("Not", token.line, vec![test.node])
        } else {
            test
        })
    }

    /// The template body up to one of `end` (or the end): whether it holds
    /// only whitespace text, and its nodes.
    fn subparse(&mut self, end: Option<&[&'static str]>) -> Parsed<(bool, Vec<Node>)> {
        if let Some(end) = end {
            self.end_token_stack.push(end.to_vec());
        }
        let result = self.subparse_body(end);
        if end.is_some() {
            self.end_token_stack.pop();
        }
        result
    }

    fn subparse_body(&mut self, end: Option<&[&'static str]>) -> Parsed<(bool, Vec<Node>)> {
        let mut blank = true;
        let mut body = Vec::new();
        while self.kind() != "eof" {
            match self.kind() {
                "data" => {
                    let token = self.next()?;
                    if !token.value.chars().all(char::is_whitespace) {
                        blank = false;
                    }
                }
                "variable_begin" => {
                    blank = false;
                    self.next()?;
                    body.push(self.parse_tuple(false, true, &[], false, false)?.node);
                    self.expect("variable_end")?;
                }
                _ => {
                    // block_begin: the lexer yields nothing else here.
                    blank = false;
                    self.next()?;
                    if let Some(end) = end {
                        if end.iter().any(|e| self.is(e)) {
                            return Ok((blank, body));
                        }
                    }
                    body.push(self.parse_statement()?);
                    self.expect("block_end")?;
                }
            }
        }
        Ok((blank, body))
    }

    /// The whole template: its nodes.
    pub(super) fn parse(&mut self) -> Parsed<Vec<Node>> {
        Ok(self.subparse(None)?.1)
    }
}
