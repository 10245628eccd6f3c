//! The neighbour pass: relevance flows along definition/use edges from the
//! best few files.

use super::stage::{Pass, ScoreContext};
use super::{Candidate, Evidence, Scored, Weights};
use crate::corpus::{holders_many, Doc};
use crate::lang::{is_test_path, DefKind, RefKind, Symbols};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Files a name's rarity is counted in, at most (see `neighbour_pass`): on
/// the Linux kernel (78k files) counting in all of them took 0.86 s for 92
/// names, in every 10th 0.09 s (2026-11-29).
const RARITY_SAMPLE: usize = 8192;

/// Relevance flows from the best few files to parsed files that use their
/// definitions or define what they use, through names held by few files;
/// what a file receives is scaled by the prior the priors pass applied to
/// it (`Scored::prior`), like the rest of its evidence.
pub(super) fn neighbour_pass(
    cands: &[Candidate],
    w: &Weights,
    scored: &mut [Scored],
    parsed: &HashMap<usize, Arc<Symbols>>,
    n: f64,
) {
    scored.sort_by(|a, b| b.raw.total_cmp(&a.raw).then(a.idx.cmp(&b.idx)));
    let max_holders = (n as usize / 50).max(3);
    let sources = sources(scored, parsed, w);
    let mut links = links(parsed, &sources);
    let tests = test_mentions(cands, scored, parsed, w, &sources);
    links.extend(tests.values().flatten().copied());
    let rarity = rarity(cands, links, max_holders);
    let rare = |name: &str| rarity.get(name).copied().unwrap_or(false);
    for s in scored.iter_mut() {
        let syms = parsed.get(&s.idx);
        let mentions = tests.get(&s.idx);
        if syms.is_none() && mentions.is_none() {
            continue;
        }
        let mut best: Option<(f64, Evidence)> = None;
        for (src, raw, defs, uses) in &sources {
            if *src == s.idx {
                continue;
            }
            let mut used: Vec<&str> = match syms {
                Some(syms) => syms
                    .references
                    .iter()
                    .map(|r| r.name.as_str())
                    .filter(|n| defs.contains(n))
                    .collect(),
                None => mentions
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|n| defs.contains(n))
                    .collect(),
            };
            used.sort_unstable();
            used.dedup();
            used.retain(|n| rare(n));
            let provides = syms.map_or(0, |syms| {
                syms.definitions
                    .iter()
                    .filter(|d| uses.contains(d.name.as_str()) && rare(&d.name))
                    .count()
            });
            let strength =
                (used.len() as f64 / 2.0)
                    .min(1.0)
                    .max(if provides > 0 { 0.5 } else { 0.0 });
            // The file's prior scales what flows to it as it scaled its own
            // evidence: a bundle of the project's code (axios's
            // `dist/node/axios.cjs`) or a test uses every name of the source
            // it repeats or tests, and took the full boost on top of its
            // scaled score (2nd on axios-7004707c4180, above
            // `lib/adapters/http.js`, the file the fix changed).
            let boost = w.neighbour * raw * strength * s.prior;
            if boost > best.as_ref().map_or(0.0, |b| b.0) {
                let src_path = cands[*src].rel;
                let why = Evidence::Neighbour {
                    from: src_path.to_string(),
                    uses: used.iter().map(|u| u.to_string()).collect(),
                };
                best = Some((boost, why));
            }
        }
        if let Some((boost, why)) = best {
            s.raw += boost;
            s.neighbour = true;
            s.evidence.push(why);
        }
    }
}

/// The neighbour pass (skipped when the call is in a hurry): see
/// `neighbour_pass`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Neighbours;

impl Pass for Neighbours {
    fn name(&self) -> &str {
        "neighbours"
    }

    fn run(&self, ctx: &mut ScoreContext, scored: &mut Vec<Scored>) {
        if ctx.must_hurry() {
            return;
        }
        neighbour_pass(ctx.cands, ctx.weights, scored, &ctx.parsed, ctx.stats.n);
    }
}

/// A file relevance flows from: (index, raw score, names it defines, names it uses).
type Source<'a> = (usize, f64, HashSet<&'a str>, HashSet<&'a str>);

/// The best `neighbour_sources` parsed files, with the names that link to them.
fn sources<'a>(
    scored: &[Scored],
    parsed: &'a HashMap<usize, Arc<Symbols>>,
    w: &Weights,
) -> Vec<Source<'a>> {
    scored
        .iter()
        .take(w.neighbour_sources)
        .filter_map(|s| {
            let syms = parsed.get(&s.idx)?;
            let defs = syms
                .definitions
                .iter()
                .filter(|d| d.kind != DefKind::Impl && d.name.len() >= 3)
                .map(|d| d.name.as_str())
                .collect();
            let uses = syms
                .references
                .iter()
                .filter(|r| r.kind != RefKind::Method && r.name.len() >= 3)
                .map(|r| r.name.as_str())
                .collect();
            Some((s.idx, s.raw, defs, uses))
        })
        .collect()
}

/// The test files among the first `parse_cap` scored files, which the
/// definition pass does not parse (see `files_to_parse`), with the names
/// the sources define that each one's text holds as a word (case aside;
/// [`holders_many`], the search the rarity of links uses):
/// a test names what it tests, so a name of a source in a test's text is
/// read as a use without parsing the test. This keeps the tests of the best
/// files linked to them ("uses `is_expired` from auth/token.py").
fn test_mentions<'a>(
    cands: &[Candidate],
    scored: &[Scored],
    parsed: &HashMap<usize, Arc<Symbols>>,
    w: &Weights,
    sources: &[Source<'a>],
) -> HashMap<usize, Vec<&'a str>> {
    let tests: Vec<usize> = scored
        .iter()
        .take(w.parse_cap)
        .map(|s| s.idx)
        .filter(|&i| {
            !parsed.contains_key(&i)
                && cands[i].doc.language.is_some()
                && is_test_path(cands[i].rel)
        })
        .collect();
    if tests.is_empty() {
        return HashMap::new();
    }
    let mut names: Vec<&'a str> = sources
        .iter()
        .flat_map(|(_, _, defs, _)| defs.iter().copied())
        .collect();
    names.sort_unstable();
    names.dedup();
    let docs: Vec<&Doc> = tests.iter().map(|&i| &**cands[i].doc).collect();
    let mut held: HashMap<usize, Vec<&'a str>> = HashMap::new();
    for (name, holders) in names.iter().zip(holders_many(&docs, &names, docs.len())) {
        for h in holders {
            held.entry(tests[h]).or_default().push(name);
        }
    }
    held
}

/// Names that link a parsed file to a source: it uses what the source
/// defines, or defines what the source uses.
fn links<'a>(parsed: &'a HashMap<usize, Arc<Symbols>>, sources: &[Source<'a>]) -> HashSet<&'a str> {
    let mut links: HashSet<&str> = HashSet::new();
    for (idx, syms) in parsed {
        for (src, _, defs, uses) in sources {
            if src == idx {
                continue;
            }
            links.extend(
                syms.references
                    .iter()
                    .map(|r| r.name.as_str())
                    .filter(|n| defs.contains(n)),
            );
            links.extend(
                syms.definitions
                    .iter()
                    .map(|d| d.name.as_str())
                    .filter(|n| uses.contains(n)),
            );
        }
    }
    links
}

/// Whether each of `links` is rare: held by at most `max_holders` files
/// (one scan of the corpus for these names only).
fn rarity<'a>(
    cands: &[Candidate],
    links: HashSet<&'a str>,
    max_holders: usize,
) -> HashMap<&'a str, bool> {
    let docs: Vec<&Doc> = cands.iter().map(|c| &**c.doc).collect();
    let mut links: Vec<&str> = links.into_iter().collect();
    links.sort_unstable();
    // On a large tree the share of files holding a name is estimated from
    // every `stride`-th file (the threshold is a share, n/50, so a sample
    // of RARITY_SAMPLE files decides it well); smaller trees are counted
    // exactly.
    // Sampling is used only when the threshold stays large in the sample
    // (at least 8 holders), else a name held by a few files would pass as
    // rare whenever the sample missed them.
    let stride = docs.len().div_ceil(RARITY_SAMPLE).max(1);
    let stride = if max_holders / stride >= 8 { stride } else { 1 };
    let sample: Vec<&Doc> = docs.iter().step_by(stride).copied().collect();
    let cap = max_holders / stride;
    let held = holders_many(&sample, &links, cap + 1);
    links
        .into_iter()
        .zip(held)
        .map(|(n, h)| (n, h.len() <= cap))
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::score::test_score;

    #[test]
    fn what_flows_to_a_bundle_or_an_example_is_scaled_by_its_prior() {
        // The same text at two paths: the project's source and a copy under
        // `examples/` (docs prior). Both use the two names the best file
        // defines, so relevance flows to both; the example's share is scaled
        // by its prior like its own words, so its score is the prior times
        // the source's, not the source's boost added to a scaled score.
        let user = "import { buildAddressEntry, flushOnFinish } from './http';\n\
                    function proxy(socket) {\n  buildAddressEntry(socket);\n  \
                    flushOnFinish(socket);\n}\n";
        let files = [
            (
                "lib/http.js",
                "export function buildAddressEntry(socket) { return socket.address; }\n\
                 export function flushOnFinish(socket) { socket.flush(); }\n\
                 // proxy socket address\n",
            ),
            ("lib/proxy.js", user),
            ("examples/proxy.js", user),
            ("lib/other.js", "function unrelated() { return 1; }\n"),
        ];
        let scored = test_score(&files, "proxy socket address is lost");
        let of = |rel: &str| {
            scored
                .iter()
                .find(|s| files[s.idx].0 == rel)
                .unwrap_or_else(|| panic!("{rel} not scored: {scored:?}"))
        };
        let (source, example) = (of("lib/proxy.js"), of("examples/proxy.js"));
        assert!(source.neighbour && example.neighbour, "{scored:?}");
        let prior = crate::score::Weights::default().aside_prior;
        assert!(
            (example.raw - prior * source.raw).abs() < 1e-9,
            "example {} vs source {} x {prior}",
            example.raw,
            source.raw
        );
    }
}
