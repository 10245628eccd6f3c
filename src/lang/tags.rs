//! Running a tags query over a parsed tree: definitions (placed in their
//! parents, marked local inside a function) and references (with the name
//! they are accessed on).

use super::kinds::{DefKind, Definition, RefKind, Reference, Symbols};
use super::table::{Compiled, Equations};
use std::collections::HashMap;
use tree_sitter::{Node, QueryCursor, QueryCursorOptions, QueryMatch, StreamingIterator, Tree};

/// The 1-based last line of `node`. A node that ends with its line's newline
/// (a C `#define`, a Ruby or PHP statement) ends on that line, not the next.
fn end_line(node: tree_sitter::Node) -> usize {
    let (start, end) = (node.start_position(), node.end_position());
    if end.column == 0 && end.row > start.row {
        end.row
    } else {
        end.row + 1
    }
}

/// The object `name` is accessed on (`a` in `a.b`), when it is a plain
/// identifier. `node` is the match's labelled capture holding `name` (the
/// call or the access): the access node is found by walking down from it,
/// not with `Node::parent`, which walks down from the tree's root on every
/// call (5 % of a cold sympy call's CPU in `perf`, with `prev_named_sibling`).
fn receiver_of(name: Node, node: Node, text: &str) -> Option<String> {
    // `access`: the node whose child `name` is; `above`: its parent, when
    // both are inside `node`.
    let (mut above, mut access) = (None, node);
    while let Some(next) = access.child_with_descendant(name).filter(|n| *n != name) {
        above = Some(access);
        access = next;
    }
    if access.child_with_descendant(name) != Some(name) {
        // `name` is not below `node` (a capture the query placed elsewhere).
        (above, access) = (None, name.parent()?);
    }
    let recv = match access.kind() {
        "attribute"
        | "member_expression"
        | "selector_expression"
        | "field_expression"
        | "navigation_expression"
        // R: `rlang::abort`, `self$check`.
        | "namespace_operator"
        | "extract_operator" => {
            let mut cursor = access.walk();
            let mut prev = None;
            for child in access.named_children(&mut cursor) {
                if child == name {
                    break;
                }
                prev = Some(child);
            }
            prev?
        }
        // Swift: `(navigation_expression target: a suffix: (navigation_suffix
        // suffix: b))`.
        "navigation_suffix" => above
            .or_else(|| access.parent())?
            .child_by_field_name("target")?,
        _ => return None,
    };
    matches!(recv.kind(), "identifier" | "simple_identifier")
        .then(|| recv.utf8_text(text.as_bytes()).ok().map(str::to_string))
        .flatten()
}

/// A dotted name (`Phoenix.Router`) read by its last part where the
/// language names things so ([`Compiled::dotted_names`]), and without the
/// mark the language may end it with ([`Compiled::name_mark`]: Julia's
/// `push!` is `push`; not an operator that is the mark alone); else `t`.
fn last_part<'t>(c: &Compiled, t: &'t str) -> &'t str {
    let t = if c.dotted_names {
        t.rsplit('.').next().unwrap_or(t)
    } else {
        t
    };
    match c.name_mark.and_then(|m| t.strip_suffix(m)) {
        Some(bare) if !bare.is_empty() => bare,
        _ => t,
    }
}

/// Runs the tags query over a parsed tree; `None` when `halt` (called every
/// 100 query operations) returned true.
pub(super) fn symbols_of(
    c: &Compiled,
    tree: &Tree,
    text: &str,
    halt: &dyn Fn() -> bool,
) -> Option<Symbols> {
    let mut found = Found::default();
    let mut cursor = QueryCursor::new();
    let halted = std::cell::Cell::new(false);
    let mut progress = |_: &tree_sitter::QueryCursorState| {
        halted.set(halt());
        halted.get()
    };
    let mut matches = cursor.matches_with_options(
        &c.query,
        tree.root_node(),
        text.as_bytes(),
        QueryCursorOptions::new().progress_callback(&mut progress),
    );
    while let Some(m) = matches.next() {
        let Some(Parts {
            name,
            name_text,
            label,
            node,
            parent,
        }) = match_parts(c, m, text)
        else {
            continue;
        };
        if let Some(kind) = label
            .strip_prefix("definition.")
            .and_then(DefKind::from_capture)
        {
            let mut def = definition(kind, last_part(c, name_text), parent, node, text);
            if let Some(line) = c.doc_before.and_then(|doc| doc_start(node, doc)) {
                def.start_line = line;
            }
            found.define(def, node, m.pattern_index);
            found.def_names.insert(name.start_byte(), name.end_byte());
        } else if let Some(kind) = label
            .strip_prefix("reference.")
            .and_then(RefKind::from_capture)
        {
            let name_text = if kind == RefKind::Import {
                // A path in a string literal the grammar gives no content
                // node (Erlang's `-include("x.hrl")`): without its quotes.
                unquote(name_text)
            } else {
                last_part(c, name_text)
            };
            found.symbols.references.push(Reference {
                receiver: receiver_of(name, node, text),
                kind,
                name: name_text.to_string(),
                line: name.start_position().row + 1,
            });
            found.ref_names.push(name.byte_range());
        }
    }
    // A call whose name is (in) a definition's name is that definition's
    // head (Elixir's `def f(x) do` is the call `f(x)` inside the call
    // `def`; Julia's `Base.show(io::IO, x::T) = ...` the call of `show` on
    // `Base` in the name `Base.show`), not a use. Name nodes nest or are
    // disjoint: the name starting last at or before the call's holds it, if
    // any does. A call whose name is a method call's is that method call
    // (Erlang's `lists:map(F, L)` holds the call `map(F, L)`).
    let mut out = found.symbols;
    let heads = &found.def_names;
    let is_head = |name: &std::ops::Range<usize>| {
        heads
            .range(..=name.start)
            .next_back()
            .is_some_and(|(_, &end)| name.end <= end)
    };
    let methods: std::collections::HashSet<&std::ops::Range<usize>> = out
        .references
        .iter()
        .zip(&found.ref_names)
        .filter(|(r, _)| r.kind == RefKind::Method)
        .map(|(_, name)| name)
        .collect();
    out.references = std::mem::take(&mut out.references)
        .into_iter()
        .zip(&found.ref_names)
        .filter(|(r, name)| {
            let head = matches!(r.kind, RefKind::Call | RefKind::Method) && is_head(name);
            let method_call = r.kind == RefKind::Call && methods.contains(name);
            !(head || method_call)
        })
        .map(|(r, _)| r)
        .collect();
    if let Some(style) = c.equations {
        join_equations(&mut out.definitions, &mut found.spans, text, style);
    }
    nest(&mut out.definitions, &mut found.spans);
    out.references.dedup();
    drop(matches);
    (!halted.get()).then_some(out)
}

/// The captures of one match that make a symbol.
struct Parts<'a, 't> {
    /// The `@name` node and its text.
    name: Node<'t>,
    name_text: &'t str,
    /// The other capture's label (`definition.<kind>` or
    /// `reference.<kind>`) and node.
    label: &'a str,
    node: Node<'t>,
    /// The `@parent` text.
    parent: Option<&'t str>,
}

/// The [`Parts`] of one match; `None` when it lacks a name or the labelled
/// capture, or the name is not UTF-8.
fn match_parts<'a, 't>(
    c: &'a Compiled,
    m: &QueryMatch<'_, 't>,
    text: &'t str,
) -> Option<Parts<'a, 't>> {
    let names = c.query.capture_names();
    let mut name = None;
    let mut outer = None;
    let mut parent = None;
    for cap in m.captures {
        if cap.index == c.name_idx {
            name = Some(cap.node);
        } else if Some(cap.index) == c.parent_idx {
            parent = cap.node.utf8_text(text.as_bytes()).ok();
        } else if !names[cap.index as usize].starts_with('_') {
            // `@_x` captures are the query's own, for its predicates
            // (tree-sitter's convention for private captures).
            outer = Some((names[cap.index as usize], cap.node));
        }
    }
    let (Some(name), Some((label, node))) = (name, outer) else {
        return None;
    };
    let name_text = name.utf8_text(text.as_bytes()).ok()?;
    Some(Parts {
        name,
        name_text,
        label,
        node,
        parent,
    })
}

/// Where a definition's node is while the matches are read: (start byte,
/// end byte, index in the definitions, pattern index, explicit parent).
type Span = (usize, usize, usize, usize, bool);

/// The symbols read so far, and the span of each definition.
#[derive(Default)]
struct Found {
    symbols: Symbols,
    spans: Vec<Span>,
    /// (start byte, end byte) → index in `spans`.
    by_range: HashMap<(usize, usize), usize>,
    /// The byte ranges of the definitions' `@name` nodes: start → end.
    def_names: std::collections::BTreeMap<usize, usize>,
    /// The byte range of each reference's `@name` node, in order.
    ref_names: Vec<std::ops::Range<usize>>,
}

impl Found {
    /// Adds `def`, found at `node` by the query's pattern `pattern`.
    fn define(&mut self, def: Definition, node: Node, pattern: usize) {
        // One definition per node: the earliest pattern in the file wins
        // (e.g. Rust `method` before the generic `function`, a JavaScript
        // arrow-function `const` before the generic constant), whatever
        // order the cursor reports the matches in.
        let (start, end) = (node.start_byte(), node.end_byte());
        if let Some(r) = self
            .by_range
            .get(&(start, end))
            .map(|&i| &mut self.spans[i])
        {
            if pattern < r.3 {
                r.3 = pattern;
                r.4 = def.parent.is_some();
                self.symbols.definitions[r.2] = def;
            }
            return;
        }
        self.by_range.insert((start, end), self.spans.len());
        self.spans.push((
            start,
            end,
            self.symbols.definitions.len(),
            pattern,
            def.parent.is_some(),
        ));
        self.symbols.definitions.push(def);
    }
}

/// The first line of the docstring of the definition at `node`: a node of
/// kind `doc` ([`Compiled::doc_before`]) right before it, ending on the
/// line before it or on its first line, perhaps before the macro calls
/// that wrap it (Julia's `@inline function f`, `Base.@kwdef struct S`:
/// nodes that start on its first line). `None` when it has none. Its
/// span's bytes stay the node's, so definitions still nest by their nodes.
fn doc_start(node: Node, doc: &str) -> Option<usize> {
    let row = node.start_position().row;
    let mut at = node;
    loop {
        match at.prev_named_sibling() {
            Some(prev) if prev.kind() == doc => {
                return (prev.end_position().row + 1 >= row).then(|| prev.start_position().row + 1);
            }
            Some(prev) if prev.start_position().row != row => return None,
            _ => {}
        }
        at = at
            .parent()
            .filter(|p| p.start_position().row == row && p.parent().is_some())?;
    }
}

/// A definition of `kind` named `name` at `node` (not yet placed in its
/// parent: see [`nest`]).
fn definition(
    kind: DefKind,
    name: &str,
    parent: Option<&str>,
    node: tree_sitter::Node,
    text: &str,
) -> Definition {
    let start_line = node.start_position().row + 1;
    // The node's first line, found from its byte offset (not by
    // counting lines from the top: that is quadratic on large files).
    let line_start = text[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    let signature = text[line_start..line_end].trim().to_string();
    Definition {
        kind,
        name: name.to_string(),
        parent: parent.map(str::to_string),
        start_line,
        end_line: end_line(node),
        signature,
        local: false,
    }
}

/// Joins the parts of a function its grammar leaves as sibling nodes
/// ([`Compiled::equations`]: Haskell's `len :: [a] -> Int`, `len [] = 0`,
/// `len (_:xs) = 1 + len xs`; Erlang's `-spec len(list()) -> integer().`,
/// `len([]) -> 0;`, `len([_ | T]) -> 1 + len(T).`) into one definition,
/// from the first line of the first to the last line of the last, so the
/// function is one snippet and one definition of its name: consecutive
/// functions (or methods) of one name with only blank lines, comments,
/// pragmas and preprocessor lines between ([`only_trivia`]); in Erlang, not
/// past a clause that ends in `.` (the function's last: a next clause of
/// that name is another arity's). The joined parts are removed from `defs`
/// and `spans` (each definition's [`Span`]).
fn join_equations(defs: &mut Vec<Definition>, spans: &mut Vec<Span>, text: &str, style: Equations) {
    spans.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut gone = vec![false; defs.len()];
    // The span (index in `spans`) of the function the next part may join.
    let mut open: Option<usize> = None;
    for j in 0..spans.len() {
        let dj = spans[j].2;
        if !defs[dj].kind.is_callable() {
            continue;
        }
        if let Some(i) = open {
            let di = spans[i].2;
            let (end, start) = (spans[i].1, spans[j].0);
            if defs[di].name == defs[dj].name
                && defs[di].kind == defs[dj].kind
                && end <= start
                && only_trivia(&text[end..start], style)
            {
                spans[i].1 = spans[j].1;
                defs[di].end_line = defs[dj].end_line;
                gone[dj] = true;
                open = (!ends_function(&text[spans[j].0..spans[j].1], style)).then_some(i);
                continue;
            }
        }
        open = (!ends_function(&text[spans[j].0..spans[j].1], style)).then_some(j);
    }
    if !gone.contains(&true) {
        return;
    }
    // Each kept definition's new index: how many kept ones precede it.
    let at: Vec<usize> = gone
        .iter()
        .scan(0, |kept, &g| {
            let i = *kept;
            *kept += usize::from(!g);
            Some(i)
        })
        .collect();
    let mut keep = gone.iter().map(|&g| !g);
    defs.retain(|_| keep.next().unwrap_or(true));
    spans.retain(|s| !gone[s.2]);
    for s in spans.iter_mut() {
        s.2 = at[s.2];
    }
}

/// Whether `part` (the text of one part of a function) is its last: an
/// Erlang clause ending in `.` (not a `-spec`, which is an attribute and
/// ends in `.` too). A Haskell function ends where another name's begins.
fn ends_function(part: &str, style: Equations) -> bool {
    style == Equations::Erlang && !part.starts_with('-') && part.trim_end().ends_with('.')
}

/// Whether `between` (the text between two definitions) holds only blank
/// lines and comments: in Haskell `--` and `{- -}` comments, `{-# #-}`
/// pragmas and `#` preprocessor lines, in Erlang `%` comments.
fn only_trivia(between: &str, style: Equations) -> bool {
    let mut rest = between.trim_start();
    if style == Equations::Erlang {
        while let Some(comment) = rest.strip_prefix('%') {
            rest = comment
                .find('\n')
                .map_or("", |n| &comment[n..])
                .trim_start();
        }
        return rest.is_empty();
    }
    while !rest.is_empty() {
        if let Some(block) = rest.strip_prefix("{-") {
            let Some(end) = block.find("-}") else {
                return false;
            };
            rest = &block[end + 2..];
        } else if rest.starts_with("--") || rest.starts_with('#') {
            rest = rest.find('\n').map_or("", |n| &rest[n..]);
        } else {
            return false;
        }
        rest = rest.trim_start();
    }
    true
}

/// `name` without the double quotes around it, if it has them.
fn unquote(name: &str) -> &str {
    name.strip_prefix('"')
        .and_then(|n| n.strip_suffix('"'))
        .unwrap_or(name)
}

/// Sets each definition's parent and `local`, then sorts them by line.
/// `ranges`: each definition's [`Span`].
fn nest(defs: &mut [Definition], ranges: &mut [Span]) {
    // Parent = the one the query named (`@parent`), else the smallest other
    // definition that encloses this one. Definition nodes are syntax-tree
    // nodes, so two ranges nest or are disjoint: sorted by start (outer first),
    // a stack of the open ranges has the innermost encloser on top.
    ranges.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut open: Vec<(usize, usize)> = Vec::new(); // (end byte, def index)
    for &(s, e, di, _, named) in ranges.iter() {
        while open.last().is_some_and(|&(pe, _)| pe < e || pe <= s) {
            open.pop();
        }
        if !named {
            let parent = open.last().map(|&(_, pi)| defs[pi].name.clone());
            defs[di].parent = parent;
        }
        defs[di].local = open
            .last()
            .is_some_and(|&(_, pi)| defs[pi].kind.is_callable());
        open.push((e, di));
    }
    defs.sort_by(|a, b| {
        a.start_line
            .cmp(&b.start_line)
            .then(b.end_line.cmp(&a.end_line))
    });
}
