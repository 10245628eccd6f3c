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
    let mut by_idx: HashMap<usize, usize> =
        scored.iter().enumerate().map(|(i, s)| (s.idx, i)).collect();
    for (idx, c) in cands.iter().enumerate() {
        if !c.allowed {
            continue;
        }
        let mut add = 0.0;
        let mut evidence = Vec::new();
        let mut named = None;
        if let Some(p) = q.paths.iter().find(|p| ends_with_path(c.rel, p)) {
            add += w.explicit * best;
            named = Some(Named::File(p.clone()));
        } else if let Some(m) = q.modules.iter().find(|m| is_module_file(c.rel, m)) {
            add += w.explicit * best * 0.8;
            named = Some(Named::Module(m.clone()));
        }
        if let Some(n) = &named {
            evidence.push(Evidence::Named(n.clone()));
        }
        for (key, boost, why) in &focus.boosts {
            let hit = if key.ends_with('/') {
                c.rel.starts_with(key.as_str())
            } else {
                c.rel == key
            };
            if hit {
                add += boost * best;
                evidence.push(Evidence::Focus(why.clone()));
            }
        }
        let floor = focus.floors.iter().find(|(p, _, _)| p == c.rel);
        if let Some((_, _, why)) = floor {
            evidence.push(Evidence::Focus(why.clone()));
        }
        if add > 0.0 || floor.is_some() {
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

fn ends_with_path(rel: &str, p: &str) -> bool {
    rel == p || (rel.ends_with(p) && rel.as_bytes()[rel.len() - p.len() - 1] == b'/')
}

/// `pkg/mod` names `pkg/mod.py`, `pkg/mod/__init__.py`, `pkg/mod.rs`, `pkg/mod/mod.rs`;
/// and `pkg/mod/Name` (an attribute) names `pkg/mod.py`.
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
    let matches = |target: &str| target.contains('/') && ends_with_path(stem, target);
    matches(m) || parent.is_some_and(matches)
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
}
