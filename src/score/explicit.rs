//! The explicit pass: paths and modules the task names, and the paths a
//! cycle focuses on.

use super::stage::{Pass, ScoreContext};
use super::{Candidate, Evidence, Focus, Named, Scored, Weights};
use crate::query::TaskQuery;
use rustc_hash::{FxBuildHasher, FxHasher};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};

/// The pass asks whether the call must stop once per this many names it
/// resolves, the first time after this many (as the query counts
/// identifiers): a call past its deadline still gets the files its first
/// names name (20,000 names took under 1 ms on sympy), and a pasted log of
/// more names than that stops with the call.
const STOP_EVERY: usize = 1024;

/// Paths and dotted modules written in the task, and paths a cycle focuses
/// on. Once `stop` returns true (asked every [`STOP_EVERY`] names) the
/// task's remaining paths and modules are not resolved: the pass scores
/// those resolved so far.
pub(super) fn explicit_pass(
    cands: &[Candidate],
    q: &TaskQuery,
    focus: &Focus,
    w: &Weights,
    scored: &mut Vec<Scored>,
    stop: &dyn Fn() -> bool,
) {
    let best = scored.first().map_or(1.0, |s| s.raw).max(1.0);
    let refs = References::resolve(cands, q, stop);
    let mut by_idx: HashMap<usize, usize> =
        scored.iter().enumerate().map(|(i, s)| (s.idx, i)).collect();
    for (idx, c) in cands.iter().enumerate() {
        if !c.allowed {
            continue;
        }
        let (mut add, mut evidence, named) = refs.evidence(idx, q, w.explicit * best);
        let floor = focus_evidence(c.rel, focus, best, &mut add, &mut evidence);
        if add > 0.0 || floor {
            let pos = *by_idx.entry(idx).or_insert_with(|| {
                scored.push(Scored::new(idx));
                scored.len() - 1
            });
            scored[pos].raw += add;
            scored[pos].evidence.extend(evidence);
            if named.is_some() {
                scored[pos].named = named;
            }
        }
    }
}

/// The task's paths and modules resolved against the tree: how many files
/// each fits, and the least ambiguous of each that fits a file.
struct References<'q> {
    /// The task's paths resolved, as [`Files::fitting_tail`] cut them.
    paths: Vec<&'q str>,
    /// How many files each of `paths` fits (at least 1).
    path_fits: Vec<usize>,
    /// How many files each of the task's modules resolved fits (at least 1).
    module_fits: Vec<usize>,
    /// File index → the path (index into `paths`) that fits it with the
    /// fewest files, the first of equals.
    path_of: HashMap<usize, usize>,
    /// File index → the module (index into the task's) that fits it with
    /// the fewest files, the first of equals.
    module_of: HashMap<usize, usize>,
}

impl<'q> References<'q> {
    /// Resolves the task's paths, then its modules, until `stop` returns
    /// true (asked every [`STOP_EVERY`] names).
    fn resolve(cands: &[Candidate], q: &'q TaskQuery, stop: &dyn Fn() -> bool) -> References<'q> {
        let files = Files::new(cands, !q.paths.is_empty(), !q.modules.is_empty());
        let (mut names, mut stopped) = (0usize, false);
        let mut go_on = || {
            if !stopped {
                names += 1;
                stopped = names.is_multiple_of(STOP_EVERY) && stop();
            }
            !stopped
        };
        // How many files each named path or module fits: `__init__.py`,
        // `index.rst` or `conf.py` from the reporter's own project fits every
        // file of that name, and names none of them.
        let (paths, mut path_fits): (Vec<&str>, Vec<usize>) = q
            .paths
            .iter()
            .take_while(|_| go_on())
            .map(|p| {
                let tail = files.fitting_tail(p);
                (tail, files.fitting_path(tail).count().max(1))
            })
            .unzip();
        // Paths written on the reporter's machine (cut to a tail) are most often
        // the frames of one stack trace: the way to the error, where one or two
        // frames are the code to change. The trace is one reference, shared by
        // every file its frames name, as a generic name is shared by the files
        // it fits; one such path alone (a GitHub link) keeps its full weight.
        let cut: Vec<bool> = paths
            .iter()
            .zip(&q.paths)
            .map(|(t, p)| t.len() < p.len())
            .collect();
        let frames: HashSet<usize> = (0..paths.len())
            .filter(|&i| cut[i])
            .flat_map(|i| files.fitting_path(paths[i]))
            .collect();
        let frames = frames.len().max(1);
        for (fit, _) in path_fits.iter_mut().zip(&cut).filter(|(_, &c)| c) {
            *fit = (*fit).max(frames);
        }
        let module_fits: Vec<usize> = q
            .modules
            .iter()
            .take_while(|_| go_on())
            .map(|m| files.fitting_module(m).count().max(1))
            .collect();
        // The least ambiguous reference that fits each file.
        let least = |of: &mut HashMap<usize, usize>, file: usize, i: usize, fits: &[usize]| {
            let at = of.entry(file).or_insert(i);
            if fits[i] < fits[*at] {
                *at = i;
            }
        };
        let mut path_of = HashMap::new();
        for (i, p) in paths.iter().enumerate() {
            for file in files.fitting_path(p) {
                least(&mut path_of, file, i, &path_fits);
            }
        }
        let mut module_of = HashMap::new();
        for (i, m) in q.modules[..module_fits.len()].iter().enumerate() {
            for file in files.fitting_module(m) {
                least(&mut module_of, file, i, &module_fits);
            }
        }
        References {
            paths,
            path_fits,
            module_fits,
            path_of,
            module_of,
        }
    }

    /// What the task's paths and modules give the file `idx`: the raw score
    /// to add (`full` is the explicit weight times the best raw score), its
    /// evidence, and the reference when it names this file alone (high tier).
    fn evidence(
        &self,
        idx: usize,
        q: &TaskQuery,
        full: f64,
    ) -> (f64, Vec<Evidence>, Option<Named>) {
        let (reference, fits, share) = if let Some(&i) = self.path_of.get(&idx) {
            (
                Named::File(self.paths[i].to_string()),
                self.path_fits[i],
                1.0,
            )
        } else if let Some(&i) = self.module_of.get(&idx) {
            (
                Named::Module(q.modules[i].clone()),
                self.module_fits[i],
                0.8,
            )
        } else {
            return (0.0, Vec::new(), None);
        };
        reference_evidence(reference, fits, share, full)
    }
}

/// What a reference that fits `fits` files gives each of them, at `share`
/// of `full` (a path 1, a module 0.8): (raw score to add, evidence, the
/// reference when it names this file alone, the high tier).
fn reference_evidence(
    reference: Named,
    fits: usize,
    share: f64,
    full: f64,
) -> (f64, Vec<Evidence>, Option<Named>) {
    if fits == 1 {
        let evidence = vec![Evidence::Named(reference.clone())];
        (full * share, evidence, Some(reference))
    } else {
        // One of several files the reference fits: evidence shared
        // among them, and no "named" (high tier) for any.
        let evidence = vec![Evidence::NamedAmong {
            named: reference,
            fits,
        }];
        (full * share / fits as f64, evidence, None)
    }
}

/// The files by what a named path or module must share with a file to fit
/// it: a path its file name (see `ends_with_path`), a module the last
/// segment of its module stem compared as `ends_with_module` does (see
/// `module_key`). Each name is compared with the files that may fit it,
/// not with every file: a pasted log of 20,000 dotted names took 3.9 s on
/// sympy's 2,000 files, and 2,000 took 2.4 s on the Linux kernel, each past
/// the call's deadline (probe 32).
struct Files<'c, 'a> {
    cands: &'c [Candidate<'a>],
    /// (hash of the file name, file index), sorted.
    by_name: Vec<(u64, usize)>,
    /// (`module_key` of the module stem, file index), sorted.
    by_module: Vec<(u64, usize)>,
}

impl<'c, 'a> Files<'c, 'a> {
    /// Indexes `cands` by file name (for `paths`) and by module key (for
    /// `modules`): only what the task's references will look up. Sorted
    /// lists, not maps of lists: one allocation each (a map of the Linux
    /// kernel's 78,000 files took 30 ms, as long as comparing a few names
    /// with every file).
    fn new(cands: &'c [Candidate<'a>], paths: bool, modules: bool) -> Self {
        let index = |key: &dyn Fn(&str) -> Option<u64>| {
            let mut index: Vec<(u64, usize)> = cands
                .iter()
                .enumerate()
                .filter_map(|(i, c)| Some((key(c.rel)?, i)))
                .collect();
            index.sort_unstable();
            index
        };
        Files {
            cands,
            by_name: if paths {
                index(&|rel| Some(name_key(rel)))
            } else {
                Vec::new()
            },
            by_module: if modules {
                index(&|rel| module_stem(rel).map(module_key))
            } else {
                Vec::new()
            },
        }
    }

    /// The files whose path ends with `p` (`ends_with_path`).
    fn fitting_path<'s>(&'s self, p: &'s str) -> impl Iterator<Item = usize> + 's {
        keyed(&self.by_name, name_key(p)).filter(move |&i| ends_with_path(self.cands[i].rel, p))
    }

    /// The files the module `m` names (`is_module_file`): those whose
    /// module stem ends as `m` or its parent does.
    fn fitting_module<'s>(&'s self, m: &'s str) -> impl Iterator<Item = usize> + 's {
        let key = module_key(m);
        let parent = m
            .rsplit_once('/')
            .map(|(p, _)| module_key(p))
            .filter(|&k| k != key);
        [Some(key), parent]
            .into_iter()
            .flatten()
            .flat_map(|k| keyed(&self.by_module, k))
            .filter(move |&i| is_module_file(self.cands[i].rel, m))
    }

    /// The part of the written path `p` that names files of this tree: `p`
    /// itself when a file's path ends with it (or when it is one segment),
    /// else its longest tail of two or more segments that a file's path ends
    /// with. A stack trace or a build log writes the path on the reporter's
    /// machine: `/home/me/.cargo/registry/src/index.crates.io-…/tokio-1.38.0/src/runtime/blocking/pool.rs`
    /// is the tree's `tokio/src/runtime/blocking/pool.rs`, and
    /// `/app/node_modules/axios/lib/core/Axios.js` its `lib/core/Axios.js`.
    /// Two segments at least: a directory and a file name pin a file, where a
    /// bare file name from the reporter's own project (`/home/me/app/utils.py`)
    /// may name any file of that name.
    fn fitting_tail<'p>(&self, p: &'p str) -> &'p str {
        if !p.contains('/') {
            return p;
        }
        // A file fits the tails of `p` shorter than the longest it fits:
        // the longest any file fits starts at the least start.
        let start = keyed(&self.by_name, name_key(p))
            .filter_map(|i| fitting_start(self.cands[i].rel, p))
            .min();
        match start {
            Some(s) if p[s..].contains('/') => &p[s..],
            _ => p,
        }
    }
}

/// Where in `p` the longest of `p` and its tails after a `/` that `rel`
/// ends with (`ends_with_path`) starts. Compares the bytes `rel` and `p`
/// end with once: linear in the shorter, however many segments `p` has.
fn fitting_start(rel: &str, p: &str) -> Option<usize> {
    let common = rel
        .bytes()
        .rev()
        .zip(p.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (p.len() - common..p.len())
        .filter(|&s| s == 0 || p.as_bytes()[s - 1] == b'/')
        .find(|&s| ends_with_path(rel, &p[s..]))
}

/// The files of a sorted (key, file) `index` whose key is `key`.
fn keyed(index: &[(u64, usize)], key: u64) -> impl Iterator<Item = usize> + '_ {
    let from = index.partition_point(|&(k, _)| k < key);
    index[from..]
        .iter()
        .take_while(move |&&(k, _)| k == key)
        .map(|&(_, i)| i)
}

/// The file name of the path `p` hashed: a file's path ends with `p` only
/// when their keys are equal.
fn name_key(p: &str) -> u64 {
    FxBuildHasher.hash_one(file_name(p))
}

/// The last segment of the `/`-separated path `p`.
fn file_name(p: &str) -> &str {
    p.rsplit_once('/').map_or(p, |(_, name)| name)
}

/// Adds the cycle's focus boosts that hit `rel` (a `dir/` key hits every
/// file under it) to `add` and `evidence`; true when `rel` has a floor.
fn focus_evidence(
    rel: &str,
    focus: &Focus,
    best: f64,
    add: &mut f64,
    evidence: &mut Vec<Evidence>,
) -> bool {
    for (key, boost, why) in &focus.boosts {
        let hit = if key.ends_with('/') {
            rel.starts_with(key.as_str())
        } else {
            rel == key
        };
        if hit {
            *add += boost * best;
            evidence.push(Evidence::Focus(why.clone()));
        }
    }
    let floor = focus.floors.iter().find(|(p, _, _)| p == rel);
    if let Some((_, _, why)) = floor {
        evidence.push(Evidence::Focus(why.clone()));
    }
    floor.is_some()
}

fn ends_with_path(rel: &str, p: &str) -> bool {
    rel == p || (rel.ends_with(p) && rel.as_bytes()[rel.len() - p.len() - 1] == b'/')
}

/// `pkg/mod` names `pkg/mod.py`, `pkg/mod/__init__.py`, `pkg/mod.rs`, `pkg/mod/mod.rs`;
/// and `pkg/mod/Name` (an attribute) names `pkg/mod.py`. Letter case, `_`
/// and `-` are not compared: a module is named in its language's case and
/// its file in the file system's (`Phoenix.VerifiedRoutes` is
/// `lib/phoenix/verified_routes.ex`, `RuboCop::Cop::Style::RedundantSelf`
/// `lib/rubocop/cop/style/redundant_self.rb`).
fn is_module_file(rel: &str, m: &str) -> bool {
    let Some(stem) = module_stem(rel) else {
        return false;
    };
    let parent = m.rsplit_once('/').map(|(p, _)| p);
    // At least two segments must match so `self.assertEqual` does not name `self.py`.
    let matches = |target: &str| target.contains('/') && ends_with_module(stem, target);
    matches(m) || parent.is_some_and(matches)
}

/// The module path the file `rel` is: without its extension, and a
/// package's `__init__` or `mod` file as its directory (`pkg/sub` for
/// `pkg/sub/__init__.py`). None without an extension.
fn module_stem(rel: &str) -> Option<&str> {
    let (stem, _ext) = rel.rsplit_once('.')?;
    Some(
        stem.strip_suffix("/__init__")
            .or_else(|| stem.strip_suffix("/mod"))
            .unwrap_or(stem),
    )
}

/// The last segment of the module path `m` as [`ends_with_module`] compares
/// it (without letter case, `_` and `-`), hashed: a module stem ends with
/// a module path only when their keys are equal.
fn module_key(m: &str) -> u64 {
    let mut h = FxHasher::default();
    for b in file_name(m).bytes().filter(|b| *b != b'_' && *b != b'-') {
        h.write_u8(b.to_ascii_lowercase());
    }
    h.finish()
}

/// Whether the path `stem` ends with the module path `m` at a `/`, compared
/// without letter case, `_` and `-`.
fn ends_with_module(stem: &str, m: &str) -> bool {
    let key = |b: &u8| (*b != b'_' && *b != b'-').then(|| b.to_ascii_lowercase());
    let mut s = stem.as_bytes().iter().rev().filter_map(key);
    let whole = m
        .as_bytes()
        .iter()
        .rev()
        .filter_map(key)
        .all(|b| s.next() == Some(b));
    whole && matches!(s.next(), None | Some(b'/'))
}

/// The explicit pass: see `explicit_pass`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Explicit;

impl Pass for Explicit {
    fn name(&self) -> &str {
        "explicit"
    }

    fn run(&self, ctx: &mut ScoreContext, scored: &mut Vec<Scored>) {
        explicit_pass(
            ctx.cands,
            ctx.query,
            ctx.focus,
            ctx.weights,
            scored,
            ctx.stop,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_name_their_files() {
        assert!(is_module_file("sympy/core/expr.py", "sympy/core/expr"));
        assert!(is_module_file("sympy/core/expr.py", "core/expr/Expr"));
        assert!(is_module_file("pkg/sub/__init__.py", "pkg/sub"));
        assert!(!is_module_file("self.py", "self/assertEqual"));
        assert!(!is_module_file("a/expr.py", "b/expr"));
    }

    #[test]
    fn a_module_names_its_file_in_the_file_systems_case_and_spelling() {
        let cases = [
            (
                "lib/phoenix/verified_routes.ex",
                "Phoenix/VerifiedRoutes/sigil_p",
            ),
            (
                "lib/rubocop/cop/style/redundant_self.rb",
                "RuboCop/Cop/Style/RedundantSelf",
            ),
            ("src/Illuminate/Support/Str.php", "Illuminate/Support/Str"),
            ("include/simdjson/dom/parser.h", "simdjson/dom/parser"),
        ];
        for (rel, m) in cases {
            assert!(is_module_file(rel, m), "{m} names {rel}");
        }
        // Still whole segments: `live_view/diff` is not `view/diff`, and
        // the spelling rule does not join segments.
        assert!(!is_module_file(
            "lib/phoenix_live_view/diff.ex",
            "View/Diff"
        ));
        assert!(!is_module_file(
            "lib/phoenix/live/view.ex",
            "PhoenixLive/View"
        ));
        assert!(!is_module_file(
            "lib/phoenix/live_view.ex",
            "Phoenix/Live/View"
        ));
    }

    fn scored_for(task: &str, rels: &[&str]) -> Vec<Scored> {
        scored_until(&TaskQuery::new(task, &[]), rels, &|| false)
    }

    /// The pass over the files `rels` for the query `q`, stopped when
    /// `stop` says so.
    fn scored_until<R: AsRef<str>>(
        q: &TaskQuery,
        rels: &[R],
        stop: &dyn Fn() -> bool,
    ) -> Vec<Scored> {
        let docs: Vec<std::sync::Arc<crate::corpus::Doc>> = rels
            .iter()
            .map(|r| std::sync::Arc::new(crate::corpus::Doc::for_test(r.as_ref(), "x = 1\n")))
            .collect();
        let cands = super::super::test_candidates(rels, &docs);
        let mut scored = Vec::new();
        explicit_pass(
            &cands,
            q,
            &Focus::default(),
            &Weights::default(),
            &mut scored,
            stop,
        );
        scored
    }

    /// What a user sees of a scored file: which, how much, why, and whether named.
    fn seen(scored: &[Scored]) -> Vec<(usize, f64, Vec<Evidence>, Option<Named>)> {
        scored
            .iter()
            .map(|s| (s.idx, s.raw, s.evidence.clone(), s.named.clone()))
            .collect()
    }

    #[test]
    fn a_generic_basename_names_no_file_when_many_files_share_it() {
        // The reporter's own `__init__.py` fits every package of the tree.
        let rels = [
            "pkg/__init__.py",
            "pkg/core/__init__.py",
            "pkg/io/__init__.py",
            "pkg/io/reader.py",
        ];
        let s = scored_for(
            "my project's __init__.py imports pkg and io/reader.py fails",
            &rels,
        );
        let reader = s.iter().find(|s| s.idx == 3).expect("reader named");
        assert_eq!(reader.named, Some(Named::File("io/reader.py".into())));
        for s in s.iter().filter(|s| s.idx < 3) {
            assert_eq!(s.named, None, "{}", rels[s.idx]);
            assert!(s.raw < reader.raw);
        }
    }

    #[test]
    fn a_path_written_on_the_reporters_machine_names_the_tree_file_by_its_tail() {
        let rels = [
            "tokio/src/runtime/blocking/pool.rs",
            "tokio/src/runtime/pool.rs",
            "tokio/src/lib.rs",
            "app/utils.py",
        ];
        let s = scored_for(
            "thread 'main' panicked at /home/me/.cargo/registry/src/tokio-1.38.0/\
             src/runtime/blocking/pool.rs:245:9, called from /home/me/proj/utils.py",
            &rels,
        );
        let pool = s.iter().find(|s| s.idx == 0).expect("pool.rs named");
        assert_eq!(
            pool.named,
            Some(Named::File("src/runtime/blocking/pool.rs".into()))
        );
        // Another file of that name, and a file whose name alone matches
        // the reporter's own path, are not named.
        assert!(s.iter().all(|s| s.idx == 0 || s.named.is_none()), "{s:?}");
        assert!(!s.iter().any(|s| s.idx == 3));
    }

    #[test]
    fn the_frames_of_a_stack_trace_share_one_reference() {
        let rels = [
            "pkg/simplify/simplify.py",
            "pkg/simplify/trigsimp.py",
            "pkg/simplify/fu.py",
            "pkg/core/expr.py",
        ];
        let trace = "Traceback (most recent call last):\n\
             File \"/home/e/se/pkg/simplify/simplify.py\", line 587, in simplify\n\
             File \"/home/e/se/pkg/simplify/trigsimp.py\", line 508, in trigsimp\n\
             File \"/home/e/se/pkg/simplify/fu.py\", line 566, in TR6\n";
        let s = scored_for(trace, &rels);
        assert_eq!(s.len(), 3, "{s:?}");
        assert!(s.iter().all(|s| s.named.is_none()), "{s:?}");
        // A file the task names alone weighs three times what a frame does.
        let alone = scored_for("see pkg/simplify/fu.py", &rels);
        let fu = |s: &[Scored]| s.iter().find(|s| s.idx == 2).map(|s| s.raw);
        assert!(
            fu(&alone).unwrap() > 2.9 * fu(&s).unwrap(),
            "{s:?} {alone:?}"
        );
    }

    #[test]
    fn thousands_of_unmatched_names_end_when_the_call_must_stop() {
        // A pasted log: 20,000 dotted names no file fits, and one that
        // names `pkg/sub3/mod7.py`, first or after the first few thousand.
        let rels: Vec<String> = (0..300)
            .map(|i| format!("pkg/sub{}/mod{}.py", i / 10, i % 10))
            .collect();
        let log = |named_at: usize| {
            let mut names: Vec<String> = (0..20_000)
                .map(|i| format!("sympy.n{i}.efgh.ijkl"))
                .collect();
            names.insert(named_at, "pkg.sub3.mod7".to_string());
            TaskQuery::new(&names.join(" "), &[])
        };
        let alone = seen(&scored_until(
            &TaskQuery::new("pkg.sub3.mod7", &[]),
            &rels,
            &|| false,
        ));
        assert_eq!(alone.len(), 1);
        assert_eq!(alone[0].3, Some(Named::Module("pkg/sub3/mod7".into())));
        let (first, later) = (log(0), log(5_000));
        assert!(first.modules.len() > 20_000 && later.modules.len() > 20_000);
        // Never stopped, the names no file fits change nothing.
        assert_eq!(seen(&scored_until(&first, &rels, &|| false)), alone);
        assert_eq!(seen(&scored_until(&later, &rels, &|| false)), alone);
        // Past the deadline or cancelled: the pass asks once and ends,
        // scoring the names resolved before it asked as it would have.
        let asked = std::cell::Cell::new(0);
        let stop = || {
            asked.set(asked.get() + 1);
            true
        };
        assert_eq!(seen(&scored_until(&first, &rels, &stop)), alone);
        assert_eq!(asked.get(), 1);
        asked.set(0);
        assert!(scored_until(&later, &rels, &stop).is_empty());
        assert_eq!(asked.get(), 1);
    }

    /// Segments of the generated trees, paths and modules: cases, `_` and
    /// `-` spellings of one name, package files, a directory with a dot.
    const SEGMENTS: &[&str] = &[
        "a", "b", "A_b", "a-b", "ab", "core", "Core", "__init__", "mod", "x.y", "home", "",
    ];
    const FILE_NAMES: &[&str] = &[
        "a.py",
        "ab.py",
        "a_b.rs",
        "A-B.ex",
        "__init__.py",
        "mod.rs",
        "core.py",
        "Core.rb",
        "b.py",
        "x",
        "a.b.py",
    ];

    fn joined(segs: &[usize], last: &str) -> String {
        let mut p: Vec<&str> = segs.iter().map(|&i| SEGMENTS[i]).collect();
        p.push(last);
        p.join("/")
    }

    /// A name the task writes: `of` a file of the tree (`Some(i)`: its path
    /// less `drop` leading segments, after `prefix`), else made of `prefix`
    /// and `last` alone.
    fn written(
        rels: &[String],
        of: Option<usize>,
        drop: usize,
        prefix: &[usize],
        last: &str,
    ) -> String {
        let Some(i) = of else {
            return joined(prefix, last);
        };
        let rel = &rels[i % rels.len()];
        let segs: Vec<&str> = rel.split('/').collect();
        joined(prefix, &segs[drop.min(segs.len() - 1)..].join("/"))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
        /// The files indexed by name give each file the score, evidence and
        /// "named" that comparing every name with every file gave.
        #[test]
        fn indexed_names_score_files_as_comparing_every_name_with_every_file(
            files in proptest::collection::vec(
                (proptest::collection::vec(0..SEGMENTS.len() - 1, 0..4), 0..FILE_NAMES.len(), 0..4u8),
                1..40,
            ),
            paths in proptest::collection::vec(
                (
                    proptest::option::weighted(0.7, 0..100usize),
                    0..4usize,
                    proptest::collection::vec(0..SEGMENTS.len(), 0..3),
                    0..FILE_NAMES.len(),
                ),
                0..10,
            ),
            modules in proptest::collection::vec(
                (
                    proptest::option::weighted(0.7, 0..100usize),
                    0..4usize,
                    proptest::collection::vec(0..SEGMENTS.len(), 0..3),
                    0..4u8,
                ),
                0..10,
            ),
        ) {
            let rels: Vec<String> = files.iter().map(|(s, f, _)| joined(s, FILE_NAMES[*f])).collect();
            let docs: Vec<std::sync::Arc<crate::corpus::Doc>> = rels
                .iter()
                .map(|r| std::sync::Arc::new(crate::corpus::Doc::for_test(r, "x = 1\n")))
                .collect();
            let cands: Vec<Candidate> = rels
                .iter()
                .zip(&docs)
                .zip(&files)
                .map(|((rel, doc), (_, _, allowed))| Candidate { rel, doc, allowed: *allowed > 0 })
                .collect();
            let mut q = TaskQuery::default();
            q.paths = paths
                .iter()
                .map(|(of, drop, prefix, last)| written(&rels, *of, *drop, prefix, FILE_NAMES[*last]))
                .collect();
            // Modules: a file's path without its extension, in another
            // case, or with an attribute after it; or made up.
            q.modules = modules
                .iter()
                .map(|(of, drop, prefix, how)| {
                    let m = written(&rels, *of, *drop, prefix, "b");
                    let m = m.rsplit_once('.').map_or(m.as_str(), |(stem, _)| stem);
                    match how {
                        0 => m.to_string(),
                        1 => m.to_ascii_uppercase(),
                        2 => format!("{m}/Attr"),
                        _ => m.replace('_', ""),
                    }
                })
                .collect();
            // A file already scored by earlier passes.
            let mut before = Scored::new(rels.len() - 1);
            before.raw = 2.5;
            let (w, focus) = (Weights::default(), Focus::default());
            let mut indexed = vec![before.clone()];
            explicit_pass(&cands, &q, &focus, &w, &mut indexed, &|| false);
            let mut compared = vec![before];
            reference::explicit_pass(&cands, &q, &focus, &w, &mut compared);
            proptest::prop_assert_eq!(seen(&indexed), seen(&compared), "{:?} {:?}", rels, q);
        }
    }

    /// The pass as it was before the files were indexed (probe 32): each
    /// name compared with every file. The indexed pass must score as it.
    mod reference {
        use super::super::super::{Candidate, Evidence, Focus, Named, Scored, Weights};
        use super::super::{ends_with_module, ends_with_path, focus_evidence, reference_evidence};
        use crate::query::TaskQuery;
        use std::collections::HashMap;

        pub(super) fn explicit_pass(
            cands: &[Candidate],
            q: &TaskQuery,
            focus: &Focus,
            w: &Weights,
            scored: &mut Vec<Scored>,
        ) {
            let best = scored.first().map_or(1.0, |s| s.raw).max(1.0);
            let paths: Vec<&str> = q.paths.iter().map(|p| fitting_tail(cands, p)).collect();
            // How many files each named path or module fits: `__init__.py`,
            // `index.rst` or `conf.py` from the reporter's own project fits every
            // file of that name, and names none of them.
            let fits =
                |hit: &dyn Fn(&str) -> bool| cands.iter().filter(|c| hit(c.rel)).count().max(1);
            let mut path_fits: Vec<usize> = paths
                .iter()
                .map(|p| fits(&|rel| ends_with_path(rel, p)))
                .collect();
            // Paths written on the reporter's machine (cut to a tail) are most often
            // the frames of one stack trace: the way to the error, where one or two
            // frames are the code to change. The trace is one reference, shared by
            // every file its frames name, as a generic name is shared by the files
            // it fits; one such path alone (a GitHub link) keeps its full weight.
            let cut: Vec<bool> = paths
                .iter()
                .zip(&q.paths)
                .map(|(t, p)| t.len() < p.len())
                .collect();
            let frames =
                fits(&|rel| (0..paths.len()).any(|i| cut[i] && ends_with_path(rel, paths[i])));
            for (fit, _) in path_fits.iter_mut().zip(&cut).filter(|(_, &c)| c) {
                *fit = (*fit).max(frames);
            }
            let module_fits: Vec<usize> = q
                .modules
                .iter()
                .map(|m| fits(&|rel| is_module_file(rel, m)))
                .collect();
            let mut by_idx: HashMap<usize, usize> =
                scored.iter().enumerate().map(|(i, s)| (s.idx, i)).collect();
            for (idx, c) in cands.iter().enumerate() {
                if !c.allowed {
                    continue;
                }
                let (mut add, mut evidence, named) = named_evidence(
                    c.rel,
                    q,
                    &paths,
                    &path_fits,
                    &module_fits,
                    w.explicit * best,
                );
                let floor = focus_evidence(c.rel, focus, best, &mut add, &mut evidence);
                if add > 0.0 || floor {
                    let pos = *by_idx.entry(idx).or_insert_with(|| {
                        scored.push(Scored::new(idx));
                        scored.len() - 1
                    });
                    scored[pos].raw += add;
                    scored[pos].evidence.extend(evidence);
                    if named.is_some() {
                        scored[pos].named = named;
                    }
                }
            }
        }

        /// What the task's paths and modules give the file `rel`: the raw score to
        /// add (`full` is the explicit weight times the best raw score), its
        /// evidence, and the reference when it names this file alone (high tier).
        /// `paths`: the task's paths as [`fitting_tail`] cut them;
        /// `path_fits`/`module_fits`: how many files each path or module fits.
        fn named_evidence(
            rel: &str,
            q: &TaskQuery,
            paths: &[&str],
            path_fits: &[usize],
            module_fits: &[usize],
            full: f64,
        ) -> (f64, Vec<Evidence>, Option<Named>) {
            // The least ambiguous reference that fits this file.
            let path = (0..paths.len())
                .filter(|&i| ends_with_path(rel, paths[i]))
                .min_by_key(|&i| path_fits[i]);
            let module = (0..q.modules.len())
                .filter(|&i| is_module_file(rel, &q.modules[i]))
                .min_by_key(|&i| module_fits[i]);
            let (reference, fits, share) = if let Some(i) = path {
                (Named::File(paths[i].to_string()), path_fits[i], 1.0)
            } else if let Some(i) = module {
                (Named::Module(q.modules[i].clone()), module_fits[i], 0.8)
            } else {
                return (0.0, Vec::new(), None);
            };
            reference_evidence(reference, fits, share, full)
        }

        fn fitting_tail<'a>(cands: &[Candidate], p: &'a str) -> &'a str {
            let fits_some = |tail: &str| cands.iter().any(|c| ends_with_path(c.rel, tail));
            if !p.contains('/') || fits_some(p) {
                return p;
            }
            // Tails from the longest (the first segment dropped) to two segments.
            p.match_indices('/')
                .map(|(i, _)| &p[i + 1..])
                .find(|tail| tail.contains('/') && fits_some(tail))
                .unwrap_or(p)
        }

        fn is_module_file(rel: &str, m: &str) -> bool {
            let Some((stem, _ext)) = rel.rsplit_once('.') else {
                return false;
            };
            let stem = stem
                .strip_suffix("/__init__")
                .or_else(|| stem.strip_suffix("/mod"))
                .unwrap_or(stem);
            let parent = m.rsplit_once('/').map(|(p, _)| p);
            // At least two segments must match so `self.assertEqual` does not name `self.py`.
            let matches = |target: &str| target.contains('/') && ends_with_module(stem, target);
            matches(m) || parent.is_some_and(matches)
        }
    }
}
