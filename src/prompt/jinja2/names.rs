//! The template's variables in Haystack's order: Jinja2's
//! `meta.find_undeclared_variables`, minus the names `{% set %}` assigns.
//!
//! Haystack's `ChatPromptBuilder.variables` is
//! `list(template_variables - assigned_variables)`, where
//! `template_variables` is the set Jinja2's `TrackingCodeGenerator` fills:
//! each frame the code generator enters (`enter_frame`), in code generation
//! order, adds the names its symbols resolve from the context, in the order
//! its `symbols.loads` dict holds them. The printed sets built from the list
//! (`Provided variables: {...}`) and the first conflicting variable reported
//! at construction depend on that order, so it is reproduced step by step:
//!
//! - the symbols of a frame are `jinja2/idtracking.py`'s: `RootVisitor` for
//!   the frame's own node, `FrameSymbolVisitor` for what it holds (a loop's
//!   iterable and a call block's call belong to the enclosing frame; an `if`
//!   analyses each branch on a copy and merges them with `branch_update`);
//! - the frames are `jinja2/compiler.py`'s: the template's root, then in
//!   code order a `for`'s test frame, body frame and else frame, a macro's or
//!   call block's, a filter block's, a `with`'s and a set block's; the
//!   `{% block %}` frames come last, in the order `find_all` finds them;
//! - the set and the difference are [`PySet`]'s, CPython's own tables.

use crate::pyfmt::pyset::PySet;
use indexmap::IndexMap;
use std::collections::{BTreeSet, HashMap};

/// A Jinja2 `Name` node's `ctx`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ctx {
    Load,
    Store,
    Param,
}

/// What the analysis reads of Jinja2's AST (`jinja2/nodes.py`). Every
/// node's children are kept in the order of its class's `fields`, which is
/// the order Jinja2's visitors walk them.
#[derive(Debug, Clone)]
pub(super) enum Node {
    /// `Name(name, ctx)`.
    Name(String, Ctx),
    /// `NSRef(name, attr)`: `ns.attr` as an assignment target.
    NsRef(String),
    /// A `Tuple` or `List`: its items.
    Seq(Vec<Node>),
    /// Any node without a rule of its own: its child nodes.
    Group(Vec<Node>),
    /// `If(test, body, elif_, else_)`; each `elif` is an `If` without
    /// branches of its own.
    If {
        test: Box<Node>,
        body: Vec<Node>,
        elifs: Vec<Node>,
        else_: Vec<Node>,
    },
    /// `For(target, iter, body, else_, test, recursive)`.
    For {
        target: Box<Node>,
        iter: Box<Node>,
        body: Vec<Node>,
        else_: Vec<Node>,
        test: Option<Box<Node>>,
        recursive: bool,
    },
    /// `Macro(name, args, defaults, body)`.
    Macro {
        name: String,
        args: Vec<Node>,
        defaults: Vec<Node>,
        body: Vec<Node>,
    },
    /// `CallBlock(call, args, defaults, body)`; Haystack's `message` and
    /// `insert` tags are call blocks too.
    CallBlock {
        call: Box<Node>,
        args: Vec<Node>,
        defaults: Vec<Node>,
        body: Vec<Node>,
    },
    /// `FilterBlock(body, filter)`.
    FilterBlock { body: Vec<Node>, filter: Box<Node> },
    /// `With(targets, values, body)`.
    With {
        targets: Vec<Node>,
        values: Vec<Node>,
        body: Vec<Node>,
    },
    /// `Assign(target, node)`.
    Assign { target: Box<Node>, node: Box<Node> },
    /// `AssignBlock(target, filter, body)`.
    AssignBlock {
        target: Box<Node>,
        filter: Option<Box<Node>>,
        body: Vec<Node>,
    },
    /// `Scope(body)`: `{% autoescape %}` wraps its
    /// `ScopedEvalContextModifier` in one, a frame of its own.
    Scope(Vec<Node>),
    /// `Block(name, body, scoped, required)`.
    Block { body: Vec<Node>, scoped: bool },
    /// `Import(template, target)` and `FromImport(template, names)`: the
    /// names they store.
    Import {
        template: Box<Node>,
        targets: Vec<String>,
    },
}

impl Node {
    /// `iter_child_nodes()`: the child nodes in field order.
    pub(super) fn children(&self) -> Vec<&Node> {
        fn all<'a>(lists: &[&'a [Node]]) -> Vec<&'a Node> {
            lists.iter().flat_map(|l| l.iter()).collect()
        }
        match self {
            Node::Name(..) | Node::NsRef(_) => Vec::new(),
            Node::Seq(items) | Node::Group(items) | Node::Scope(items) => all(&[items]),
            Node::If {
                test,
                body,
                elifs,
                else_,
            } => {
                let mut out = vec![test.as_ref()];
                out.extend(all(&[body, elifs, else_]));
                out
            }
            Node::For {
                target,
                iter,
                body,
                else_,
                test,
                ..
            } => {
                let mut out = vec![target.as_ref(), iter.as_ref()];
                out.extend(all(&[body, else_]));
                out.extend(test.as_deref());
                out
            }
            Node::Macro {
                args,
                defaults,
                body,
                ..
            } => all(&[args, defaults, body]),
            Node::CallBlock {
                call,
                args,
                defaults,
                body,
            } => {
                let mut out = vec![call.as_ref()];
                out.extend(all(&[args, defaults, body]));
                out
            }
            Node::FilterBlock { body, filter } => {
                let mut out = all(&[body]);
                out.push(filter);
                out
            }
            Node::With {
                targets,
                values,
                body,
            } => all(&[targets, values, body]),
            Node::Assign { target, node } => vec![target, node],
            Node::AssignBlock {
                target,
                filter,
                body,
            } => {
                let mut out = vec![target.as_ref()];
                out.extend(filter.as_deref());
                out.extend(all(&[body]));
                out
            }
            Node::Block { body, .. } => all(&[body]),
            Node::Import { template, .. } => vec![template],
        }
    }

    /// `find_all(nodes.Block)`, depth first.
    fn blocks<'a>(&'a self, out: &mut Vec<&'a Node>) {
        for child in self.children() {
            if matches!(child, Node::Block { .. }) {
                out.push(child);
            }
            child.blocks(out);
        }
    }

    /// The names `find_all(nodes.Assign)` finds assigned, as Haystack's
    /// `_collect_assigned_variables` reads them: a `Name` target, or the
    /// `Name` items of a tuple or list target.
    fn assigned(&self, out: &mut Vec<String>) {
        if let Node::Assign { target, .. } = self {
            match target.as_ref() {
                Node::Name(name, _) => out.push(name.clone()),
                Node::Seq(items) => {
                    for item in items {
                        if let Node::Name(name, _) = item {
                            out.push(name.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        for child in self.children() {
            child.assigned(out);
        }
    }
}

/// Jinja2's `find_undeclared(nodes, names)` (`UndeclaredNameVisitor`): which
/// of `names` the nodes load before storing them, not looking into blocks.
pub(super) fn find_undeclared(nodes: &[Node], names: &[&str]) -> Vec<String> {
    fn visit(node: &Node, names: &mut Vec<String>, found: &mut Vec<String>) {
        if names.is_empty() || found.len() == names.len() {
            return;
        }
        match node {
            Node::Name(name, ctx) => {
                if *ctx == Ctx::Load && names.contains(name) {
                    if !found.contains(name) {
                        found.push(name.clone());
                    }
                } else {
                    names.retain(|n| n != name);
                }
            }
            Node::Block { .. } => {}
            _ => {
                for child in node.children() {
                    visit(child, names, found);
                    if found.len() == names.len() {
                        return;
                    }
                }
            }
        }
    }
    let mut remaining: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    let mut found = Vec::new();
    for node in nodes {
        visit(node, &mut remaining, &mut found);
        if found.len() == remaining.len() {
            break;
        }
    }
    found
}

/// A `symbols.loads` instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Load {
    Param,
    Resolve(String),
    Alias(String),
    Undefined,
}

/// What a frame's analysis defines: `refs`, `loads` (in insertion order,
/// as the dict keeps them) and `stores`.
#[derive(Debug, Clone, Default)]
struct Layer {
    refs: HashMap<String, String>,
    loads: IndexMap<String, Load>,
    stores: BTreeSet<String>,
}

/// `idtracking.Symbols`; the parent is an index into the analysis' frames.
///
/// Jinja2 analyses each branch of an `if` on a full copy of the symbols and
/// merges the copies back; here a branch is a layer over them holding only
/// what it adds or changes, so that a frame with many names and many `if`s
/// is not copied for each (the merge gives the same dict, see
/// [`Frames::branch_update`]). `layers[0]` is the frame's own.
#[derive(Debug, Clone)]
struct Symbols {
    parent: Option<usize>,
    level: usize,
    layers: Vec<Layer>,
}

impl Symbols {
    fn new(parent: Option<usize>, level: usize) -> Symbols {
        Symbols {
            parent,
            level,
            layers: vec![Layer::default()],
        }
    }

    fn top(&mut self) -> &mut Layer {
        self.layers.last_mut().expect("a frame has its own layer")
    }

    /// `name in self.refs`, through the branches being analysed.
    fn own_ref(&self, name: &str) -> Option<&String> {
        self.layers.iter().rev().find_map(|l| l.refs.get(name))
    }

    fn has_load(&self, ident: &str) -> bool {
        self.layers.iter().any(|l| l.loads.contains_key(ident))
    }

    fn has_store(&self, name: &str) -> bool {
        self.layers.iter().any(|l| l.stores.contains(name))
    }
}

/// The frames analysed so far, each with the symbols it was entered with.
struct Frames {
    frames: Vec<Symbols>,
    /// `undeclared_identifiers.add(...)` calls, in order.
    added: Vec<String>,
}

/// Jinja2's globals: `find_undeclared_variables` leaves them out.
const GLOBALS: [&str; 6] = ["cycler", "dict", "joiner", "lipsum", "namespace", "range"];

impl Frames {
    fn find_ref_from(&self, mut frame: Option<usize>, name: &str) -> Option<String> {
        while let Some(index) = frame {
            let symbols = &self.frames[index];
            if let Some(ident) = symbols.own_ref(name) {
                return Some(ident.clone());
            }
            frame = symbols.parent;
        }
        None
    }

    fn find_ref(&self, symbols: &Symbols, name: &str) -> Option<String> {
        symbols
            .own_ref(name)
            .cloned()
            .or_else(|| self.find_ref_from(symbols.parent, name))
    }

    fn define_ref(symbols: &mut Symbols, name: &str, load: Option<Load>) -> String {
        let ident = format!("l_{}_{name}", symbols.level);
        let top = symbols.top();
        top.refs.insert(name.to_owned(), ident.clone());
        if let Some(load) = load {
            top.loads.insert(ident.clone(), load);
        }
        ident
    }

    fn store(&self, symbols: &mut Symbols, name: &str) {
        symbols.top().stores.insert(name.to_owned());
        if symbols.own_ref(name).is_some() {
            return;
        }
        if let Some(outer) = self.find_ref_from(symbols.parent, name) {
            Self::define_ref(symbols, name, Some(Load::Alias(outer)));
            return;
        }
        Self::define_ref(symbols, name, Some(Load::Undefined));
    }

    fn declare_parameter(symbols: &mut Symbols, name: &str) {
        symbols.top().stores.insert(name.to_owned());
        Self::define_ref(symbols, name, Some(Load::Param));
    }

    fn load(&self, symbols: &mut Symbols, name: &str) {
        if self.find_ref(symbols, name).is_none() {
            Self::define_ref(symbols, name, Some(Load::Resolve(name.to_owned())));
        }
    }

    /// `Symbols.branch_update` of the branches' layers. Jinja2 updates the
    /// dicts with each full copy in turn: a name new in a branch is added
    /// (its value the last branch's that has it), and every name the frame
    /// already had takes the value of the last branch (`else`, present even
    /// when empty), which is the frame's own unless that branch changed it.
    fn branch_update(&self, symbols: &mut Symbols, branches: Vec<Layer>) {
        let mut stores: BTreeSet<String> = BTreeSet::new();
        for branch in &branches {
            stores.extend(branch.stores.iter().cloned());
        }
        stores.retain(|name| !symbols.has_store(name));
        let had: std::collections::HashSet<String> = branches
            .iter()
            .flat_map(|b| b.loads.keys())
            .filter(|ident| symbols.has_load(ident))
            .cloned()
            .collect();
        let last = branches.len().saturating_sub(1);
        for (i, branch) in branches.into_iter().enumerate() {
            let top = symbols.top();
            top.refs.extend(branch.refs);
            for (ident, load) in branch.loads {
                if i == last || !had.contains(&ident) {
                    top.loads.insert(ident, load);
                }
            }
            top.stores.extend(branch.stores);
        }
        for name in stores {
            let Some(target) = self.find_ref(symbols, &name) else {
                continue;
            };
            if symbols.parent.is_some() {
                if let Some(outer) = self.find_ref_from(symbols.parent, &name) {
                    symbols.top().loads.insert(target, Load::Alias(outer));
                    continue;
                }
            }
            symbols.top().loads.insert(target, Load::Resolve(name));
        }
    }

    /// `FrameSymbolVisitor.visit`.
    fn visit(&self, symbols: &mut Symbols, node: &Node, as_param: bool) {
        match node {
            Node::Name(name, ctx) => match (as_param, ctx) {
                (true, _) | (_, Ctx::Param) => Self::declare_parameter(symbols, name),
                (_, Ctx::Store) => self.store(symbols, name),
                (_, Ctx::Load) => self.load(symbols, name),
            },
            Node::NsRef(name) => self.load(symbols, name),
            Node::Seq(items) | Node::Group(items) => {
                for item in items {
                    self.visit(symbols, item, as_param);
                }
            }
            Node::If {
                test,
                body,
                elifs,
                else_,
            } => {
                self.visit(symbols, test, as_param);
                let branches = [body, elifs, else_]
                    .into_iter()
                    .map(|nodes| {
                        symbols.layers.push(Layer::default());
                        for node in nodes {
                            self.visit(symbols, node, as_param);
                        }
                        symbols.layers.pop().unwrap_or_default()
                    })
                    .collect();
                self.branch_update(symbols, branches);
            }
            Node::Macro { name, .. } => self.store(symbols, name),
            Node::Import { template, targets } => {
                self.visit(symbols, template, as_param);
                for target in targets {
                    self.store(symbols, target);
                }
            }
            Node::Assign { target, node } => {
                self.visit(symbols, node, as_param);
                self.visit(symbols, target, as_param);
            }
            Node::For { iter, .. } => self.visit(symbols, iter, as_param),
            Node::CallBlock { call, .. } => self.visit(symbols, call, as_param),
            Node::FilterBlock { filter, .. } => self.visit(symbols, filter, as_param),
            Node::With { values, .. } => {
                for value in values {
                    self.visit(symbols, value, false);
                }
            }
            Node::AssignBlock { target, .. } => self.visit(symbols, target, as_param),
            Node::Block { .. } | Node::Scope(_) => {}
        }
    }

    fn visit_all<'a>(&self, symbols: &mut Symbols, nodes: impl IntoIterator<Item = &'a Node>) {
        for node in nodes {
            self.visit(symbols, node, false);
        }
    }

    /// `enter_frame`: the frame's resolved names join the set.
    fn enter(&mut self, symbols: Symbols) -> usize {
        for load in symbols.layers.iter().flat_map(|l| l.loads.values()) {
            if let Load::Resolve(name) = load {
                if !GLOBALS.contains(&name.as_str()) {
                    self.added.push(name.clone());
                }
            }
        }
        self.frames.push(symbols);
        self.frames.len() - 1
    }

    fn inner(&self, frame: usize) -> Symbols {
        Symbols::new(Some(frame), self.frames[frame].level + 1)
    }

    /// The code generator's walk of `nodes` in `frame`: the frames of the
    /// statements they hold, in code order.
    fn generate(&mut self, nodes: &[Node], frame: usize) {
        for node in nodes {
            self.generate_node(node, frame);
        }
    }

    fn generate_node(&mut self, node: &Node, frame: usize) {
        match node {
            Node::Name(..) | Node::NsRef(_) | Node::Block { .. } => {}
            Node::Seq(items) | Node::Group(items) => self.generate(items, frame),
            Node::If {
                body, elifs, else_, ..
            } => {
                self.generate(body, frame);
                for elif in elifs {
                    if let Node::If { body, .. } = elif {
                        self.generate(body, frame);
                    }
                }
                self.generate(else_, frame);
            }
            Node::For {
                target,
                body,
                else_,
                test,
                recursive,
                ..
            } => {
                let extended = *recursive
                    || !find_undeclared(body, &["loop"]).is_empty()
                    || body_has_scoped_block(node);
                let mut loop_symbols = self.inner(frame);
                if extended {
                    Self::declare_parameter(&mut loop_symbols, "loop");
                }
                self.visit(&mut loop_symbols, target, true);
                self.visit_all(&mut loop_symbols, body);
                let else_symbols = (!else_.is_empty()).then(|| {
                    let mut symbols = self.inner(frame);
                    self.visit_all(&mut symbols, else_);
                    symbols
                });
                if let Some(test) = test {
                    let mut test_symbols = self.inner(frame);
                    self.visit(&mut test_symbols, target, true);
                    self.visit(&mut test_symbols, test, false);
                    self.enter(test_symbols);
                }
                let loop_frame = self.enter(loop_symbols);
                self.generate(body, loop_frame);
                if let Some(symbols) = else_symbols {
                    let else_frame = self.enter(symbols);
                    self.generate(else_, else_frame);
                }
            }
            Node::Macro {
                args,
                defaults,
                body,
                ..
            }
            | Node::CallBlock {
                args,
                defaults,
                body,
                ..
            } => {
                // `macro_body`: the node analysed, its special names made
                // parameters, then analysed again.
                let mut symbols = self.inner(frame);
                let analyse = |frames: &Frames, symbols: &mut Symbols| {
                    frames.visit_all(symbols, args.iter().chain(defaults).chain(body));
                };
                analyse(self, &mut symbols);
                let named: Vec<&str> = args
                    .iter()
                    .filter_map(|a| match a {
                        Node::Name(name, _) => Some(name.as_str()),
                        _ => None,
                    })
                    .collect();
                let undeclared = find_undeclared(body, &["caller", "kwargs", "varargs"]);
                for special in ["caller", "kwargs", "varargs"] {
                    let explicit = special != "caller" && named.contains(&special);
                    if undeclared.iter().any(|n| n == special) && !explicit {
                        Self::declare_parameter(&mut symbols, special);
                    }
                }
                analyse(self, &mut symbols);
                let macro_frame = self.enter(symbols);
                self.generate(body, macro_frame);
            }
            Node::FilterBlock { body, filter } => {
                let mut symbols = self.inner(frame);
                self.visit_all(&mut symbols, body);
                self.visit(&mut symbols, filter, false);
                let filter_frame = self.enter(symbols);
                self.generate(body, filter_frame);
            }
            Node::With { targets, body, .. } => {
                let mut symbols = self.inner(frame);
                self.visit_all(&mut symbols, targets.iter().chain(body));
                let with_frame = self.enter(symbols);
                self.generate(body, with_frame);
            }
            Node::Scope(body) => {
                let mut symbols = self.inner(frame);
                self.visit_all(&mut symbols, body);
                let scope_frame = self.enter(symbols);
                self.generate(body, scope_frame);
            }
            Node::AssignBlock { body, .. } => {
                let mut symbols = self.inner(frame);
                self.visit_all(&mut symbols, body);
                let block_frame = self.enter(symbols);
                self.generate(body, block_frame);
            }
            Node::Assign { .. } | Node::Import { .. } => {}
        }
    }
}

/// `any(block.scoped for block in node.find_all(nodes.Block))`.
fn body_has_scoped_block(node: &Node) -> bool {
    let mut blocks = Vec::new();
    node.blocks(&mut blocks);
    blocks
        .iter()
        .any(|b| matches!(b, Node::Block { scoped: true, .. }))
}

/// `list(find_undeclared_variables(ast) - assigned_variables)` for the
/// template's body: the variables of Haystack's `ChatPromptBuilder`, in its
/// order.
pub(super) fn variables(body: &[Node]) -> Vec<String> {
    let mut frames = Frames {
        frames: Vec::new(),
        added: Vec::new(),
    };
    let mut root = Symbols::new(None, 0);
    if !find_undeclared(body, &["self"]).is_empty() {
        Frames::declare_parameter(&mut root, "self");
    }
    frames.visit_all(&mut root, body);
    let root = frames.enter(root);
    frames.generate(body, root);
    let mut blocks = Vec::new();
    for node in body {
        if matches!(node, Node::Block { .. }) {
            blocks.push(node);
        }
        node.blocks(&mut blocks);
    }
    for block in blocks {
        let Node::Block { body, .. } = block else {
            continue;
        };
        let mut symbols = Symbols::new(None, 0);
        for special in find_undeclared(body, &["self", "super"]) {
            Frames::declare_parameter(&mut symbols, &special);
        }
        frames.visit_all(&mut symbols, body);
        let frame = frames.enter(symbols);
        frames.generate(body, frame);
    }
    let undeclared = PySet::from_items(&frames.added);
    let mut assigned = Vec::new();
    for node in body {
        node.assigned(&mut assigned);
    }
    undeclared
        .difference(&PySet::from_items(&assigned))
        .iter()
        .map(str::to_owned)
        .collect()
}
