//! LINKS: the files next to the high files in the code graph, brought in as
//! candidates by the cycles after the first (issue 13 item 3).
//!
//! From each high file not expanded yet, a file is linked when it
//! - defines what the high file calls, imports or uses as a type (a callee:
//!   its parsed definitions hold the name),
//! - uses what the high file defines (a caller: it holds a name the high
//!   file defines, a name held by few files),
//! - has the high file's name in the same directory (`foo.c` and `foo.h`,
//!   `x.go` and `x_unix.go`'s base name: same stem, another extension),
//! - is included or imported by the high file by path (`#include
//!   "internal.h"`, `import { x } from "./x"`, `from .mode import Mode`):
//!   a hub header links this way though its names are too common to,
//! - has the high file's name in a sibling directory (`src/unix/stream.c`
//!   and `src/win/stream.c`: a platform twin; a name in more than
//!   [`MAX_TWINS`] sibling directories links none),
//! - or changed together with the high file in the repository's history (at
//!   least [`MIN_SHARED`] shared commits; see [`co_changed`] for how the
//!   count is normalised so that a file changed in most commits, a changelog
//!   or the main module, links nothing).
//!
//! Only rare names link (held by at most [`MAX_HOLDERS`] code files): a hub
//! module every file imports says nothing about this task. Python's
//! `__dunder__` methods never link (every class defines `__init__`). Test
//! files and test doubles (`mock_client.go`, `FakeProcessResult.php`:
//! `lang::is_test_double_path`) are never linked, nor files under docs,
//! examples, scripts, benchmarks, vendored code or build output
//! (`lang::is_aside_path`, the
//! rule the priors and the bench's source-only baseline use: fixes land in
//! source files). A link by path or twin counts as one name (half strength);
//! on a tie the link naming what ties the files is kept. No history (no
//! repository, `--no-history`) means no co-change link and no error.

use crate::corpus::{holders_many, Doc};
use crate::history::RepoHistory;
use crate::lang::{is_aside_path, is_test_double_path, is_test_path, DefKind, RefKind, Symbols};
use crate::score::{Link, LinkKind};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// A name held by more code files than this links nothing (too common).
const MAX_HOLDERS: usize = 6;
/// Names of one high file looked up, at most, per direction.
const MAX_NAMES: usize = 80;
/// Files checked, per high file, for defining a used name.
const MAX_PARSED: usize = 16;
/// Files parsed afresh, per call, to check that they define a used name:
/// a file parsed already (by the first cycle's scoring, snippets or gaps)
/// is checked from its kept symbols at no cost; the others are parsed on the
/// later cycles' hot path, so only the best few of them (most names first).
const MAX_FRESH_PARSES: usize = 8;
/// Shortest name that links.
const MIN_NAME_LEN: usize = 4;
/// A file name with more twins than this (sibling directories holding a
/// file of that name) links none: `utils.py` in every package is no pair.
const MAX_TWINS: usize = 2;
/// Imports of one high file resolved, at most.
const MAX_IMPORTS: usize = 24;
/// How strongly a twin ties to its high file (one name's worth).
const TWIN_STRENGTH: f64 = 0.5;
/// How strongly a file the high file includes or imports by path ties to
/// it (one name's worth: a hub header is included by most files).
const IMPORT_STRENGTH: f64 = 0.5;
/// Fewest past commits a file must share with a high file to be linked by
/// the history (one shared commit is chance: a feature landing in one go).
const MIN_SHARED: usize = 2;
/// Files changed with one high file that are looked at, at most (most
/// shared commits first).
const MAX_CO_CHANGED: usize = 12;
/// A file changed in more than this share of the commits read links
/// nothing by history (a changelog, a version file, the main module).
const MAX_CHANGE_SHARE: f64 = 0.5;
/// File stems that say nothing about what a file holds.
const PLAIN_STEMS: &[&str] = &["mod", "index", "__init__", "lib", "main"];

/// A file linked to one or more high files.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Linked {
    /// Path relative to the root.
    pub path: String,
    /// Evidence in [0, 1]: the best high file's relevance times how strongly
    /// this file is linked to it (two or more names, or the same stem: 1).
    pub strength: f64,
    /// What links it to that high file (its reason's data).
    pub link: Link,
    /// The strongest link comes from a file the agent judged high.
    pub judged: bool,
}

/// The strongest link found so far per path.
#[derive(Default)]
struct Offers {
    /// path → (strength, link, judged).
    best: HashMap<String, (f64, Link, bool)>,
}

impl Offers {
    /// Keeps `kind` from `high` for `path` when it is stronger than the link kept.
    fn offer(&mut self, path: &str, strength: f64, kind: LinkKind, high: &str, judged: bool) {
        let link = Link {
            kind,
            high: high.to_string(),
        };
        match self.best.get_mut(path) {
            Some(e) if strength <= e.0 => {}
            Some(e) => *e = (strength, link, judged),
            None => {
                self.best.insert(path.to_string(), (strength, link, judged));
            }
        }
    }

    /// The links, strongest first (ties by path).
    fn into_sorted(self) -> Vec<Linked> {
        let mut out: Vec<Linked> = self
            .best
            .into_iter()
            .map(|(path, (strength, link, judged))| Linked {
                path,
                strength,
                link,
                judged,
            })
            .collect();
        out.sort_by(|a, b| {
            b.strength
                .total_cmp(&a.strength)
                .then_with(|| a.path.cmp(&b.path))
        });
        out
    }
}

/// The code files of a corpus, in path order, and their docs (the same order).
struct Code<'a> {
    paths: Vec<&'a str>,
    docs: Vec<&'a Doc>,
}

/// Which files may be linked (test files and files aside never are).
pub(super) enum Among<'a> {
    /// Any file but these (the files already in context).
    AllBut(&'a HashSet<&'a str>),
    /// Only these (the first cycle's candidates a lift may raise: no other
    /// file is parsed to check what it defines).
    Only(&'a HashSet<&'a str>),
}

/// The files linked to `highs` ((path, relevance, judged by the agent) of high files), best
/// first, among the files `among` allows, never a test file;
/// `history` (the root's, when there is one) adds the files that change
/// with them. Only code files of `corpus` (the walk's: never a hidden or
/// ignored file) are linked. Parses stop once `stop` returns true.
pub(super) fn linked(
    highs: &[(String, f64, bool)],
    corpus: &BTreeMap<String, Arc<Doc>>,
    history: Option<&RepoHistory>,
    among: Among<'_>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<Linked> {
    let (paths, docs) = corpus
        .iter()
        .filter(|(_, d)| d.language.is_some())
        .map(|(p, d)| (p.as_str(), &**d))
        .unzip();
    let code = Code { paths, docs };
    let wanted = |p: &str| {
        let allowed = match &among {
            Among::AllBut(skip) => !skip.contains(p),
            Among::Only(only) => only.contains(p),
        };
        allowed && !is_test_path(p) && !is_test_double_path(p) && !is_aside_path(p)
    };
    // The high files' symbols (until the call must stop), and the holders
    // of all their names in one scan of the code files: the high files of
    // one task share most names, and a scan costs the same for 128 names as
    // for one (sympy: one scan instead of four, each over the whole tree
    // for the rare names). A name's holders do not depend on the other
    // names looked up with it, so the links are those of one scan per file.
    let mut sources: Vec<(&str, f64, bool, Arc<Symbols>)> = Vec::new();
    for (high, rel, judged) in highs {
        if stop() {
            break;
        }
        if let Some(doc) = corpus.get(high).filter(|d| d.language.is_some()) {
            sources.push((high, *rel, *judged, doc.symbols_until(stop)));
        }
    }
    let names_of: Vec<(Vec<&str>, Vec<&str>)> = sources.iter().map(|s| link_names(&s.3)).collect();
    let all_names: Vec<&str> = names_of
        .iter()
        .flat_map(|(defs, uses)| defs.iter().chain(uses))
        .copied()
        .collect();
    let mut held_all = holders_of(&code, &all_names, &among).into_iter();
    let mut offers = Offers::default();
    let mut fresh_left = MAX_FRESH_PARSES;
    for ((high, rel, judged, syms), (defs, uses)) in sources.iter().zip(&names_of) {
        let (high, rel, judged) = (*high, rel, judged);
        if stop() {
            break;
        }
        let mut offer = |path: &str, strength: f64, kind: LinkKind| {
            if path != high && wanted(path) {
                offers.offer(path, strength, kind, high, *judged);
            }
        };
        for sib in siblings(high, corpus) {
            offer(&sib, *rel, LinkKind::SameName);
        }
        let held: Vec<Vec<usize>> = held_all.by_ref().take(defs.len() + uses.len()).collect();
        let (held_defs, held_uses) = held.split_at(defs.len());
        for (p, names) in holding_rare(defs, held_defs, &code, &wanted) {
            offer(
                p,
                rel * link_strength(names.len()),
                LinkKind::Uses(owned(&names)),
            );
        }
        let holding = holding_rare(uses, held_uses, &code, &wanted);
        for (p, names) in callees(holding, corpus, &mut fresh_left, stop) {
            offer(
                p,
                rel * link_strength(names.len()),
                LinkKind::Defines(owned(&names)),
            );
        }
        if let Some(history) = history {
            let admitted =
                |p: &str| wanted(p) && corpus.get(p).is_some_and(|d| d.language.is_some());
            for (p, strength, kind) in co_changed(history, high, *rel, &admitted) {
                offer(&p, strength, kind);
            }
        }
        // Last: on a tie, the link that names what ties the files is kept.
        for (path, spec) in imported(high, syms, corpus) {
            offer(&path, rel * IMPORT_STRENGTH, LinkKind::Imported(spec));
        }
        for twin in twins(high, &code.paths) {
            offer(twin, rel * TWIN_STRENGTH, LinkKind::Twin);
        }
    }
    offers.into_sorted()
}

/// The holders of each of `names` among the code files (the first
/// `MAX_HOLDERS + 2`, enough to tell a rare name). Linking only among a few
/// files (`Among::Only`: a lift's candidates), a name none of them holds
/// links nothing, so it is not looked for in the tree: those files are
/// scanned first, and only the names they hold are counted everywhere (a
/// name's rarity is over the whole tree). On the Linux kernel the lift's
/// search looked for 388 names in 55,543 files (4.25 s of a 6.8 s cold
/// call, the texts over the memory cap read again from disk).
fn holders_of(code: &Code<'_>, names: &[&str], among: &Among<'_>) -> Vec<Vec<usize>> {
    let max = MAX_HOLDERS + 2;
    let Among::Only(only) = among else {
        return holders_many(&code.docs, names, max);
    };
    let few: Vec<&Doc> = code
        .paths
        .iter()
        .zip(&code.docs)
        .filter(|(p, _)| only.contains(**p))
        .map(|(_, d)| *d)
        .collect();
    let in_few = holders_many(&few, names, 1);
    let held: Vec<&str> = names
        .iter()
        .zip(&in_few)
        .filter(|(_, h)| !h.is_empty())
        .map(|(n, _)| *n)
        .collect();
    let mut everywhere = holders_many(&code.docs, &held, max).into_iter();
    in_few
        .iter()
        .map(|h| {
            if h.is_empty() {
                Vec::new()
            } else {
                everywhere.next().unwrap_or_default()
            }
        })
        .collect()
}

/// The names of `syms` that may link, sorted, at most [`MAX_NAMES`] each:
/// what it defines (not local, not an `impl`, not a `__dunder__`) and what
/// it uses (calls, types, imported names, constants, implemented traits)
/// without defining it.
fn link_names(syms: &Symbols) -> (Vec<&str>, Vec<&str>) {
    let mut defs: Vec<&str> = syms
        .definitions
        .iter()
        .filter(|d| {
            !d.local
                && d.kind != DefKind::Impl
                && d.name.len() >= MIN_NAME_LEN
                && !(d.name.starts_with("__") && d.name.ends_with("__"))
        })
        .map(|d| d.name.as_str())
        .collect();
    defs.sort_unstable();
    defs.dedup();
    defs.truncate(MAX_NAMES);
    let own: HashSet<&str> = defs.iter().copied().collect();
    let mut uses: Vec<&str> = syms
        .references
        .iter()
        .filter(|r| {
            matches!(
                r.kind,
                RefKind::Call
                    | RefKind::Type
                    | RefKind::ImportName
                    | RefKind::Constant
                    | RefKind::Implementation
            ) && r.name.len() >= MIN_NAME_LEN
                && !own.contains(r.name.as_str())
        })
        .map(|r| r.name.as_str())
        .collect();
    uses.sort_unstable();
    uses.dedup();
    uses.truncate(MAX_NAMES);
    (defs, uses)
}

/// Per wanted code file, the rare `names` it holds (`held`: the holders of
/// each name, by index into `code`), in path order.
fn holding_rare<'a>(
    names: &[&'a str],
    held: &[Vec<usize>],
    code: &Code<'a>,
    wanted: &dyn Fn(&str) -> bool,
) -> BTreeMap<&'a str, Vec<&'a str>> {
    let mut holding: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (name, h) in names.iter().zip(held) {
        if h.len() > MAX_HOLDERS + 1 {
            continue;
        }
        for &i in h {
            let p = code.paths[i];
            if wanted(p) {
                holding.entry(p).or_default().push(name);
            }
        }
    }
    holding
}

/// Of the files `holding` used names, those whose parsed definitions hold
/// them, with the names they define: the [`MAX_PARSED`] holding most names,
/// checked from kept symbols, or parsed afresh while `fresh_left` allows.
fn callees<'a>(
    holding: BTreeMap<&'a str, Vec<&'a str>>,
    corpus: &BTreeMap<String, Arc<Doc>>,
    fresh_left: &mut usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<(&'a str, Vec<&'a str>)> {
    use rayon::prelude::*;
    let mut holding: Vec<(&str, Vec<&str>)> = holding.into_iter().collect();
    holding.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    holding.truncate(MAX_PARSED);
    holding.retain(|(p, _)| {
        let parsed = corpus[*p].kept_symbols().is_some();
        if !parsed && *fresh_left == 0 {
            return false;
        }
        *fresh_left -= usize::from(!parsed);
        true
    });
    holding
        .par_iter()
        .map(|(p, names)| {
            let syms = corpus[*p].symbols_until(stop);
            let hit: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| syms.defines(n).any(|d| !d.local))
                .collect();
            (*p, hit)
        })
        .filter(|(_, hit)| !hit.is_empty())
        .collect()
}

/// How strongly `names` linking names tie two files: one name half, two or more fully.
fn link_strength(names: usize) -> f64 {
    (names as f64 / 2.0).min(1.0)
}

/// Files `admitted` lets through that changed together with `high` in
/// `history`, as (path, strength, link), the [`MAX_CO_CHANGED`] strongest: those
/// sharing at least [`MIN_SHARED`] commits with it, changed in at most
/// [`MAX_CHANGE_SHARE`] of the commits read. The tie is the shared commits
/// over the geometric mean of how often each file changed, plus one (a
/// cosine shrunk for small counts: 2 of 2 and 2 ties 0.67, 6 of 6 and 6
/// ties 0.86, 10 shared by a file changed 10 times and a changelog changed
/// 2,000 times ties 0.07), times `relevance`.
fn co_changed(
    history: &RepoHistory,
    high: &str,
    relevance: f64,
    admitted: &dyn Fn(&str) -> bool,
) -> Vec<(String, f64, LinkKind)> {
    let own = history.changes(high);
    let most = (MAX_CHANGE_SHARE * history.len() as f64).max(1.0);
    if own == 0 || own as f64 > most {
        return Vec::new();
    }
    let mut out: Vec<(String, f64, LinkKind)> = history
        .co_changed(high, admitted)
        .into_iter()
        .take_while(|(_, shared)| *shared >= MIN_SHARED)
        .filter_map(|(path, shared)| {
            let theirs = history.changes(&path);
            if theirs as f64 > most {
                return None;
            }
            let tie = shared as f64 / (((own * theirs) as f64).sqrt() + 1.0);
            Some((path, relevance * tie, LinkKind::CoChanged(shared)))
        })
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out.truncate(MAX_CO_CHANGED);
    out
}

/// Code files in `path`'s directory with its stem and another extension
/// (`foo.h` for `foo.c`).
fn siblings(path: &str, corpus: &BTreeMap<String, Arc<Doc>>) -> Vec<String> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let Some((stem, _)) = name.split_once('.') else {
        return Vec::new();
    };
    if PLAIN_STEMS.contains(&stem) {
        return Vec::new();
    }
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let start = format!("{prefix}{stem}.");
    corpus
        .range(start.clone()..)
        .take_while(|(p, _)| p.starts_with(&start))
        .filter(|(p, d)| {
            p.as_str() != path && !p[prefix.len()..].contains('/') && d.language.is_some()
        })
        .map(|(p, _)| p.clone())
        .collect()
}

/// Code files (`paths`, sorted) with `path`'s file name in a sibling
/// directory (`src/win/stream.c` for `src/unix/stream.c`), none when there
/// are more than [`MAX_TWINS`] or the stem is a plain one (`mod.rs`).
fn twins<'a>(path: &str, paths: &[&'a str]) -> Vec<&'a str> {
    let Some((dir, name)) = path.rsplit_once('/') else {
        return Vec::new();
    };
    let stem = name.split_once('.').map_or(name, |(s, _)| s);
    if PLAIN_STEMS.contains(&stem) {
        return Vec::new();
    }
    let parent = dir.rsplit_once('/').map_or("", |(p, _)| p);
    let found: Vec<&str> = paths
        .iter()
        .copied()
        .filter(|p| {
            let Some((d, n)) = p.rsplit_once('/') else {
                return false;
            };
            n == name && d != dir && d.rsplit_once('/').map_or("", |(p, _)| p) == parent
        })
        .take(MAX_TWINS + 1)
        .collect();
    if found.len() > MAX_TWINS {
        return Vec::new();
    }
    found
}

/// The files `high` (parsed as `syms`) includes or imports by path, as
/// (path, the import as written), at most [`MAX_IMPORTS`]: C and C++
/// `#include "x.h"` (beside the file, else the one code file whose path
/// ends with it), JavaScript and TypeScript relative imports (`./x`, with
/// the usual extensions and `index` files), Python modules (`.x` relative,
/// `a.b` as the one file ending in `a/b.py` or `a/b/__init__.py`).
fn imported(
    high: &str,
    syms: &Symbols,
    corpus: &BTreeMap<String, Arc<Doc>>,
) -> Vec<(String, String)> {
    let dir = high.rsplit_once('/').map_or("", |(d, _)| d);
    let ext = high.rsplit_once('.').map_or("", |(_, e)| e);
    // C, C++ (headers and implementation files of every extension the
    // table gives them), Objective-C.
    let c_family = matches!(ext, "m" | "mm")
        || crate::lang::language_of(high).is_some_and(|l| l.id == "c" || l.id == "cpp");
    let mut out: Vec<(String, String)> = Vec::new();
    for r in syms.references.iter().filter(|r| r.kind == RefKind::Import) {
        if out.len() >= MAX_IMPORTS {
            break;
        }
        let spec = r.name.as_str();
        let tries: Vec<String> = match ext {
            _ if c_family => {
                if spec.starts_with('<') {
                    continue;
                }
                vec![
                    join(dir, spec),
                    format!("/{}", spec.trim_start_matches("./")),
                ]
            }
            "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => {
                if !spec.starts_with('.') {
                    continue;
                }
                let base = join(dir, spec);
                let bare = base
                    .strip_suffix(".js")
                    .or_else(|| base.strip_suffix(".mjs"))
                    .unwrap_or(&base);
                let mut t = vec![base.clone()];
                for e in ["ts", "tsx", "js", "jsx", "mjs", "cjs", "d.ts"] {
                    t.push(format!("{bare}.{e}"));
                }
                for e in ["ts", "tsx", "js", "jsx"] {
                    t.push(format!("{base}/index.{e}"));
                }
                t
            }
            "py" | "pyi" => {
                let dots = spec.len() - spec.trim_start_matches('.').len();
                let module = spec[dots..].replace('.', "/");
                if dots > 0 {
                    let mut base = dir.to_string();
                    for _ in 1..dots {
                        base = base.rsplit_once('/').map_or("", |(d, _)| d).to_string();
                    }
                    let m = join(&base, &module);
                    vec![format!("{m}.py"), format!("{m}/__init__.py")]
                } else {
                    vec![format!("/{module}.py"), format!("/{module}/__init__.py")]
                }
            }
            _ => continue,
        };
        if let Some(path) = tries.iter().find_map(|t| resolve(t, corpus)) {
            if path != high && !out.iter().any(|(p, _)| *p == path) {
                out.push((path, spec.to_string()));
            }
        }
    }
    out
}

/// The code file `t` names: the path itself, or (`t` starting with `/`)
/// the one code file whose path is or ends with it; `None` otherwise.
fn resolve(t: &str, corpus: &BTreeMap<String, Arc<Doc>>) -> Option<String> {
    let code = |p: &str| corpus.get(p).is_some_and(|d| d.language.is_some());
    let Some(tail) = t.strip_prefix('/') else {
        return code(t).then(|| t.to_string());
    };
    if code(tail) {
        return Some(tail.to_string());
    }
    let mut ends = corpus
        .iter()
        .filter(|(p, d)| d.language.is_some() && p.ends_with(t))
        .map(|(p, _)| p);
    let first = ends.next()?;
    ends.next().is_none().then(|| first.clone())
}

/// `spec` (`/`-separated, may hold `.` and `..`) joined to `dir`, normalized.
fn join(dir: &str, spec: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in spec.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// The names, owned, in their (sorted) order.
fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callees_are_checked_from_kept_symbols_and_few_files_are_parsed_afresh() {
        // A high file calling twelve functions, each defined in a file of
        // its own; the first cycle parsed two of those files already.
        let names: Vec<String> = (0..12).map(|i| format!("compute_part_{i}")).collect();
        let calls: String = names.iter().map(|n| format!("    {n}(x)\n")).collect();
        let mut corpus: BTreeMap<String, Arc<Doc>> = BTreeMap::new();
        corpus.insert(
            "src/high.py".into(),
            Arc::new(Doc::for_test(
                "src/high.py",
                &format!("def run(x):\n{calls}"),
            )),
        );
        let file_of = |i: usize| {
            if i >= 10 {
                format!("src/zz_part_{i}.py")
            } else {
                format!("src/part_{i}.py")
            }
        };
        for (i, n) in names.iter().enumerate() {
            let p = file_of(i);
            let doc = Doc::for_test(&p, &format!("def {n}(x):\n    return x\n"));
            corpus.insert(p, Arc::new(doc));
        }
        for i in [10, 11] {
            corpus[&file_of(i)].symbols();
        }
        let highs = [("src/high.py".to_string(), 0.9, false)];
        let found = linked(
            &highs,
            &corpus,
            None,
            Among::AllBut(&HashSet::new()),
            &|| false,
        );
        let fresh = (0..10)
            .filter(|&i| corpus[&file_of(i)].kept_symbols().is_some())
            .count();
        assert_eq!(fresh, MAX_FRESH_PARSES, "files parsed afresh");
        let callees: Vec<&str> = found.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(callees.len(), MAX_FRESH_PARSES + 2, "{callees:?}");
        for i in [10, 11] {
            assert!(callees.contains(&file_of(i).as_str()), "{callees:?}");
        }
        let l = found.iter().find(|l| l.path == file_of(10)).unwrap();
        assert_eq!(
            l.link.to_string(),
            "defines `compute_part_10` used by high file src/high.py"
        );
    }

    #[test]
    fn linking_among_few_files_counts_only_the_names_they_hold_and_each_in_full() {
        // `shared_name` is in every file, `rare_name` in a candidate and one
        // other file, `elsewhere_name` in no candidate: linking among the
        // candidates, it is not looked for, and the others' holders are
        // counted over the whole tree, in the order the names were asked.
        let mut files = vec![
            ("src/cand.py", "shared_name(); rare_name()\n".to_string()),
            (
                "src/other.py",
                "shared_name(); rare_name(); elsewhere_name()\n".to_string(),
            ),
        ];
        for i in 0..10 {
            files.push((
                [
                    "src/a.py", "src/b.py", "src/c.py", "src/d.py", "src/e.py", "src/f.py",
                    "src/g.py", "src/h.py", "src/i.py", "src/j.py",
                ][i],
                "shared_name()\n".to_string(),
            ));
        }
        let docs: Vec<Doc> = files.iter().map(|(p, t)| Doc::for_test(p, t)).collect();
        let code = Code {
            paths: files.iter().map(|(p, _)| *p).collect(),
            docs: docs.iter().collect(),
        };
        let names = ["elsewhere_name", "rare_name", "shared_name", "rare_name"];
        let only: HashSet<&str> = ["src/cand.py"].into_iter().collect();
        let few = holders_of(&code, &names, &Among::Only(&only));
        let all = holders_many(&code.docs, &names, MAX_HOLDERS + 2);
        assert!(few[0].is_empty(), "{few:?}");
        assert_eq!(all[0], [1]);
        assert_eq!(few[1..], all[1..]);
        assert_eq!(few[1], [0, 1]);
        assert_eq!(few[2].len(), MAX_HOLDERS + 2);
    }

    fn corpus_of(files: &[(&str, &str)]) -> BTreeMap<String, Arc<Doc>> {
        files
            .iter()
            .map(|(p, src)| (p.to_string(), Arc::new(Doc::for_test(p, src))))
            .collect()
    }

    fn links_of(high: &str, corpus: &BTreeMap<String, Arc<Doc>>) -> Vec<(String, String)> {
        let highs = [(high.to_string(), 0.9, false)];
        linked(
            &highs,
            corpus,
            None,
            Among::AllBut(&HashSet::new()),
            &|| false,
        )
        .into_iter()
        .map(|l| (l.path, l.link.to_string()))
        .collect()
    }

    #[test]
    fn a_platform_twin_in_a_sibling_directory_is_linked() {
        let corpus = corpus_of(&[
            ("src/unix/stream.c", "int uv_write(void) { return 0; }\n"),
            (
                "src/win/stream.c",
                "int uv__stream_flush(void) { return 1; }\n",
            ),
            ("src/win/tcp.c", "int uv_tcp(void) { return 1; }\n"),
            ("src/unix/tcp.c", "int uv_tcp(void) { return 0; }\n"),
        ]);
        let found = links_of("src/unix/stream.c", &corpus);
        assert!(
            found.contains(&(
                "src/win/stream.c".into(),
                "twin of high file src/unix/stream.c in a sibling directory".into()
            )),
            "{found:?}"
        );
        assert!(
            found.iter().all(|(p, _)| !p.ends_with("tcp.c")),
            "{found:?}"
        );
    }

    #[test]
    fn a_test_double_of_the_high_file_is_not_linked_but_its_real_caller_is() {
        let corpus = corpus_of(&[
            (
                "pkg/verification/sigstore.go",
                "package verification\nfunc VerifyBundleSignature() int { return 0 }\n",
            ),
            (
                "pkg/verification/mock_verifier.go",
                "package verification\nfunc mockVerify() int { return VerifyBundleSignature() }\n",
            ),
            (
                "pkg/verify/verify.go",
                "package verify\nfunc run() int { return verification.VerifyBundleSignature() }\n",
            ),
        ]);
        let found = links_of("pkg/verification/sigstore.go", &corpus);
        assert!(
            found.iter().any(|(p, _)| p == "pkg/verify/verify.go"),
            "{found:?}"
        );
        assert!(
            found.iter().all(|(p, _)| !p.ends_with("mock_verifier.go")),
            "{found:?}"
        );
    }

    #[test]
    fn a_name_in_many_sibling_directories_is_no_twin() {
        let files: Vec<(String, String)> = ["a", "b", "c", "d"]
            .iter()
            .map(|d| {
                (
                    format!("pkg/{d}/utils.py"),
                    format!("def f_{d}():\n    pass\n"),
                )
            })
            .collect();
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, s)| (p.as_str(), s.as_str()))
            .collect();
        let corpus = corpus_of(&refs);
        assert!(links_of("pkg/a/utils.py", &corpus).is_empty());
    }

    #[test]
    fn hub_headers_a_c_file_includes_are_linked_by_path() {
        // `common.h` and `internal.h` define names every file uses (too
        // common to link by name); the include still ties them.
        let mut files: Vec<(String, String)> = vec![
            (
                "src/unix/stream.c".into(),
                "#include \"internal.h\"\n#include \"uv-common.h\"\n#include <stdio.h>\nint uv_write(void) { return 0; }\n".into(),
            ),
            ("src/unix/internal.h".into(), "#define UV_HANDLE_ACTIVE 1\n".into()),
            ("src/uv-common.h".into(), "#define UV_REQ_INIT 1\n".into()),
        ];
        for i in 0..10 {
            files.push((
                format!("src/unix/f{i}.c"),
                "#include \"internal.h\"\nint g(void) { return UV_HANDLE_ACTIVE + UV_REQ_INIT; }\n"
                    .into(),
            ));
        }
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, s)| (p.as_str(), s.as_str()))
            .collect();
        let corpus = corpus_of(&refs);
        let found = links_of("src/unix/stream.c", &corpus);
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert!(paths.contains(&"src/unix/internal.h"), "{found:?}");
        assert!(paths.contains(&"src/uv-common.h"), "{found:?}");
        let why = &found
            .iter()
            .find(|(p, _)| p == "src/uv-common.h")
            .unwrap()
            .1;
        assert_eq!(
            why,
            "imported by high file src/unix/stream.c as `uv-common.h`"
        );
    }

    #[test]
    fn relative_script_imports_and_python_modules_resolve_to_files() {
        let corpus = corpus_of(&[
            (
                "packages/core/src/render.ts",
                "import { ctx } from \"./context\";\nimport { h } from \"../helpers/index.js\";\nexport function render() { return ctx(h); }\n",
            ),
            ("packages/core/src/context.ts", "export const ctx = (x) => x;\n"),
            ("packages/core/helpers/index.ts", "export const h = 1;\n"),
            (
                "src/black/linegen.py",
                "import black.mode\nfrom .nodes import walk\n\ndef line(m):\n    return black.mode.check(walk(m))\n",
            ),
            ("src/black/mode.py", "def check(m):\n    return m\n"),
            ("src/black/nodes.py", "def walk(x):\n    return x\n"),
        ]);
        let ts: Vec<String> = links_of("packages/core/src/render.ts", &corpus)
            .into_iter()
            .filter(|(_, why)| why.starts_with("imported"))
            .map(|(p, _)| p)
            .collect();
        assert_eq!(
            ts,
            [
                "packages/core/helpers/index.ts",
                "packages/core/src/context.ts"
            ]
        );
        let syms = corpus["src/black/linegen.py"].symbols();
        let py = imported("src/black/linegen.py", &syms, &corpus);
        let want = [
            ("src/black/mode.py", "black.mode"),
            ("src/black/nodes.py", ".nodes"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(p, s)| (p.to_string(), s.to_string()))
            .collect();
        assert_eq!(py, want);
    }

    #[test]
    fn co_changed_files_tie_by_shared_commits_and_a_file_changed_in_most_commits_ties_none() {
        // src/a.rs changed 4 times, always with src/b.rs, once with src/c.rs;
        // src/main.rs changed in every commit; tests/a.rs with every a.rs.
        let mut log = String::new();
        for i in 0..10 {
            let mut files = vec!["src/main.rs"];
            if i < 4 {
                files.extend(["src/a.rs", "src/b.rs", "tests/a.rs"]);
            }
            if i == 0 {
                files.push("src/c.rs");
            }
            log.push_str(&format!("\x1ec{i}\x1fm{i}\x1f\n\n{}\n", files.join("\n")));
        }
        let history = RepoHistory::parse("h", &log, "");
        let files: Vec<(&str, &str)> = [
            "src/a.rs",
            "src/b.rs",
            "src/c.rs",
            "src/main.rs",
            "tests/a.rs",
        ]
        .iter()
        .map(|p| (*p, "fn f() {}\n"))
        .collect();
        let corpus = corpus_of(&files);
        let highs = [("src/a.rs".to_string(), 1.0, false)];
        let found: Vec<(String, f64, String)> = linked(
            &highs,
            &corpus,
            Some(&history),
            Among::AllBut(&HashSet::new()),
            &|| false,
        )
        .into_iter()
        .map(|l| (l.path, l.strength, l.link.to_string()))
        .collect();
        assert_eq!(
            found,
            [(
                "src/b.rs".to_string(),
                0.8,
                "changes with high file src/a.rs in 4 commits".to_string()
            )]
        );
        assert!(linked(
            &highs,
            &corpus,
            None,
            Among::AllBut(&HashSet::new()),
            &|| false
        )
        .is_empty());
    }

    #[test]
    fn examples_docs_and_benchmarks_are_aside_and_source_is_not() {
        assert!(is_aside_path("crates/grep/examples/simplegrep.rs"));
        assert!(is_aside_path("docs/conf.py"));
        assert!(!is_aside_path("src/examples.rs"));
        assert!(!is_aside_path("crates/ignore/src/types.rs"));
    }
}
