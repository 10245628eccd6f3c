//! The explicit pass: paths and modules the task names, and the paths a
//! cycle focuses on.

use super::stage::{Pass, ScoreContext};
use super::{Candidate, Evidence, Focus, Named, Scored, Weights};
use crate::query::TaskQuery;
use std::collections::HashMap;

/// Paths and dotted modules written in the task, and paths a cycle focuses on.
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
    let fits = |hit: &dyn Fn(&str) -> bool| cands.iter().filter(|c| hit(c.rel)).count().max(1);
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
    let frames = fits(&|rel| (0..paths.len()).any(|i| cut[i] && ends_with_path(rel, paths[i])));
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
        explicit_pass(ctx.cands, ctx.query, ctx.focus, ctx.weights, scored);
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
        let docs: Vec<std::sync::Arc<crate::corpus::Doc>> = rels
            .iter()
            .map(|r| std::sync::Arc::new(crate::corpus::Doc::for_test(r, "x = 1\n")))
            .collect();
        let cands = super::super::test_candidates(rels, &docs);
        let mut scored = Vec::new();
        let q = TaskQuery::new(task, &[]);
        explicit_pass(
            &cands,
            &q,
            &Focus::default(),
            &Weights::default(),
            &mut scored,
        );
        scored
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
}
