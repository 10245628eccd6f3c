//! Which documents hold a name: cached per chunk of documents, scanned in
//! waves so a name stops being looked for once it has its holders.

use super::Doc;
use crate::query::{term_hash, TermSet};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Holder lists already computed, by (fingerprint of a chunk of the
/// documents searched, term hash): the `max` asked for and the holders found
/// in the chunk (indices in it). A list shorter than its `max` is complete.
/// Later cycles of a call, and later calls, ask about mostly the same names;
/// an edited file is a new [`Doc`] with a new id, so its chunk's fingerprint
/// changes and nothing stale is served, while the other chunks' lists still
/// answer: editing one file costs a scan of its chunk, not of the tree.
type HolderCache = HashMap<(u64, u64), (usize, Arc<Vec<u32>>)>;
static HOLDERS: OnceLock<Mutex<HolderCache>> = OnceLock::new();
/// Entries kept in [`HOLDERS`] before it is emptied (each about 100 bytes:
/// some 25 MB at most).
const MAX_CACHED_HOLDER_LISTS: usize = if cfg!(test) { 8192 } else { 1 << 18 };
/// A holder search splits its documents into chunks of about this many
/// (at least), cut where a document's id hashes to a multiple of the chunk
/// size: content-defined, so adding, removing or editing a file changes the
/// one or two chunks around it and leaves the others' fingerprints as they
/// were. Larger lists get larger chunks (a power of two, about 256 chunks),
/// so the cache holds about 256 entries per name on any tree.
const MIN_HOLDER_CHUNK: usize = 128;
/// No chunk is longer than this many times its expected size.
const MAX_CHUNK_FACTOR: usize = 8;

/// The chunks of `docs` a holder search caches by: (range, fingerprint).
fn holder_chunks(docs: &[&Doc]) -> Vec<(std::ops::Range<usize>, u64)> {
    use std::hash::{Hash, Hasher};
    let size = (docs.len() / 256).max(MIN_HOLDER_CHUNK).next_power_of_two() as u64;
    let mut out = Vec::new();
    let mut start = 0;
    let mut h = rustc_hash::FxHasher::default();
    for (i, d) in docs.iter().enumerate() {
        d.id.hash(&mut h);
        // splitmix64's finaliser: ids are sequential, their hashes are not.
        let mut z = d.id.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let end = i + 1;
        if z % size == 0 || end - start >= size as usize * MAX_CHUNK_FACTOR || end == docs.len() {
            (end - start).hash(&mut h);
            out.push((start..end, h.finish()));
            start = end;
            h = rustc_hash::FxHasher::default();
        }
    }
    out
}

/// For each of `names` (index terms: identifiers or their parts, any case),
/// the indices of the first `max` of `docs` (in order) that hold it, exactly.
/// Names not answered before for the same chunk of documents (see
/// [`holder_chunks`]) are looked up in one pass over the texts of the chunks
/// that miss them (a [`TermSet`] scan per file, on all cores), in groups of
/// at most 128 names, the most the SIMD prefilter of the scan takes.
pub fn holders_many(docs: &[&Doc], names: &[&str], max: usize) -> Vec<Vec<usize>> {
    if names.is_empty() || max == 0 {
        return vec![Vec::new(); names.len()];
    }
    let chunks = holder_chunks(docs);
    let (uniq, slot_of) = distinct_names(names);
    let cache = HOLDERS.get_or_init(Default::default);
    let (mut lists, todo) = cached_holders(cache, &chunks, &uniq, max);
    let t0 = std::time::Instant::now();
    let mut fresh: Vec<(usize, usize, Arc<Vec<u32>>)> = Vec::new();
    let mut scanned_docs = 0;
    let work = ScanWork::default();
    // Chunks are scanned in order, in waves that double in length; a name
    // with `max` holders in the chunks before a wave is not looked for in
    // it (later chunks cannot change its answer): a common name is settled
    // in the first wave, only rare names are looked for in the whole tree.
    let mut wave = 0..0;
    while wave.end < chunks.len() {
        wave = wave.end..(wave.end + (wave.end - wave.start).max(4) * 2).min(chunks.len());
        let settled = settled_before(&lists, wave.start, max);
        // Chunks missing the same names are scanned together.
        let mut by_names: HashMap<Vec<usize>, Vec<usize>> = HashMap::new();
        for c in wave.clone() {
            let names: Vec<usize> = todo[c].iter().copied().filter(|&u| !settled[u]).collect();
            if !names.is_empty() {
                by_names.entry(names).or_default().push(c);
            }
        }
        for (group_names, group_chunks) in &by_names {
            let in_group: Vec<usize> = group_chunks
                .iter()
                .flat_map(|&c| chunks[c].0.clone())
                .collect();
            scanned_docs += in_group.len();
            for part in group_names.chunks(128) {
                let terms: Vec<(u64, &str)> = part.iter().map(|&u| uniq[u]).collect();
                let held = names_held(docs, &in_group, &terms, &work);
                // `in_group` holds the chunks' documents chunk after chunk.
                let mut rows = held.iter();
                for &c in group_chunks {
                    let range = &chunks[c].0;
                    let mut found: Vec<Vec<u32>> = vec![Vec::new(); part.len()];
                    for (local, row) in rows.by_ref().take(range.len()).enumerate() {
                        for &k in row {
                            let list = &mut found[usize::from(k)];
                            if list.len() < max {
                                list.push(local as u32);
                            }
                        }
                    }
                    for (k, list) in found.into_iter().enumerate() {
                        let list = Arc::new(list);
                        lists[part[k]][c] = Some(list.clone());
                        fresh.push((c, part[k], list));
                    }
                }
            }
        }
    }
    if !fresh.is_empty() {
        tracing::debug!(
            names = uniq.len(),
            lists = fresh.len(),
            docs = scanned_docs,
            scanned = work.scanned.into_inner(),
            read_again = work.read_again.into_inner(),
            of = docs.len(),
            ms = t0.elapsed().as_millis() as u64,
            "holders"
        );
        remember(cache, &chunks, &uniq, max, fresh);
    }
    names
        .iter()
        .map(|t| {
            let Some(&u) = slot_of.get(&term_hash(t)).filter(|_| !t.is_empty()) else {
                return Vec::new();
            };
            joined_holders(&chunks, &lists[u], max)
        })
        .collect()
}

/// Per name (a row of `lists`, one entry per chunk), whether the chunks
/// before `end` already hold `max` of its holders, so that later chunks
/// cannot change its answer. A chunk not yet answered settles nothing.
fn settled_before(lists: &[Vec<Option<Arc<Vec<u32>>>>], end: usize, max: usize) -> Vec<bool> {
    lists
        .iter()
        .map(|l| {
            let mut have = 0;
            for list in l[..end].iter() {
                let Some(list) = list else { return false };
                have += list.len();
                if have >= max {
                    return true;
                }
            }
            false
        })
        .collect()
}

/// Stores the `fresh` (chunk, name, holders) lists in the holder cache,
/// emptied first when they would take it over [`MAX_CACHED_HOLDER_LISTS`].
fn remember(
    cache: &Mutex<HolderCache>,
    chunks: &[(std::ops::Range<usize>, u64)],
    uniq: &[(u64, &str)],
    max: usize,
    fresh: Vec<(usize, usize, Arc<Vec<u32>>)>,
) {
    let mut cache = cache.lock().expect("holder cache poisoned");
    if cache.len() + fresh.len() > MAX_CACHED_HOLDER_LISTS {
        cache.clear();
    }
    for (c, u, list) in fresh {
        cache.insert((chunks[c].1, uniq[u].0), (max, list));
    }
}

/// The distinct non-empty `names`, by hash, and each hash's slot in them.
fn distinct_names<'n>(names: &[&'n str]) -> (Vec<(u64, &'n str)>, HashMap<u64, usize>) {
    let mut uniq: Vec<(u64, &str)> = Vec::new();
    let mut slot_of: HashMap<u64, usize> = HashMap::new();
    for &t in names.iter().filter(|t| !t.is_empty()) {
        let h = term_hash(t);
        slot_of.entry(h).or_insert_with(|| {
            uniq.push((h, t));
            uniq.len() - 1
        });
    }
    (uniq, slot_of)
}

/// What the cache knows: `lists[name][chunk]`, the chunk's holders of each
/// of `uniq` (`None` where unknown), and the names each chunk must be
/// scanned for. A name is looked up chunk after chunk until `max` holders
/// are known: later chunks cannot change its answer.
#[allow(clippy::type_complexity)]
fn cached_holders(
    cache: &Mutex<HolderCache>,
    chunks: &[(std::ops::Range<usize>, u64)],
    uniq: &[(u64, &str)],
    max: usize,
) -> (Vec<Vec<Option<Arc<Vec<u32>>>>>, Vec<Vec<usize>>) {
    let mut lists: Vec<Vec<Option<Arc<Vec<u32>>>>> = vec![vec![None; chunks.len()]; uniq.len()];
    let mut todo: Vec<Vec<usize>> = vec![Vec::new(); chunks.len()];
    let cache = cache.lock().expect("holder cache poisoned");
    for (u, &(h, _)) in uniq.iter().enumerate() {
        let mut have = 0;
        for (c, (_, fp)) in chunks.iter().enumerate() {
            if have >= max {
                break;
            }
            match cache
                .get(&(*fp, h))
                .filter(|(m, list)| *m >= max || list.len() < *m)
            {
                Some((_, list)) => {
                    have += list.len();
                    lists[u][c] = Some(list.clone());
                }
                None => todo[c].push(u),
            }
        }
    }
    (lists, todo)
}

/// What a holder search's scans cost, for its debug line: texts scanned,
/// and of those, texts read again from disk (not kept at load).
#[derive(Default)]
struct ScanWork {
    scanned: AtomicUsize,
    read_again: AtomicUsize,
}

/// A row per document of `in_group` (indices into `docs`): which of `terms`
/// (at most 128) it holds, on all cores. A document tokenized whole
/// (prefetched, or hot) is looked up, not scanned.
fn names_held(
    docs: &[&Doc],
    in_group: &[usize],
    terms: &[(u64, &str)],
    work: &ScanWork,
) -> Vec<Vec<u8>> {
    let set = TermSet::new(terms);
    in_group
        .par_iter()
        .map(|&i| match docs[i].terms.get() {
            Some(full) => terms
                .iter()
                .enumerate()
                .filter(|(_, (h, _))| full.binary_search_by_key(h, |&(t, _)| t).is_ok())
                .map(|(k, _)| k as u8)
                .collect(),
            None if !terms.iter().any(|&(h, _)| docs[i].may_hold(h)) => Vec::new(),
            None => {
                docs[i].scanned();
                work.scanned.fetch_add(1, Ordering::Relaxed);
                if docs[i].text.get().is_none() {
                    work.read_again.fetch_add(1, Ordering::Relaxed);
                }
                docs[i]
                    .with_text(|t| set.count(t))
                    .iter()
                    .enumerate()
                    .filter(|(_, &n)| n > 0)
                    .map(|(k, _)| k as u8)
                    .collect()
            }
        })
        .collect()
}

/// One name's holders over all chunks, in order, as indices into the
/// documents: the first `max`.
fn joined_holders(
    chunks: &[(std::ops::Range<usize>, u64)],
    lists: &[Option<Arc<Vec<u32>>>],
    max: usize,
) -> Vec<usize> {
    let mut out = Vec::new();
    for (list, (range, _)) in lists.iter().zip(chunks) {
        let Some(list) = list else { break };
        out.extend(list.iter().map(|&i| range.start + i as usize));
        if out.len() >= max {
            break;
        }
    }
    out.truncate(max);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::term_counts;
    use crate::corpus::Corpus;
    use crate::query::term_hash;
    use crate::walk::walk;

    #[test]
    fn holders_and_rarity_are_exact() {
        let texts = [
            "def token_expiry(): pass",
            "x = token_expiry()",
            "TokenExpiry = 1",
            "nothing here",
        ];
        let docs: Vec<Doc> = texts.iter().map(|t| Doc::for_test("a.py", t)).collect();
        let refs: Vec<&Doc> = docs.iter().collect();
        // `TokenExpiry` splits into `token` and `expiry`, not `token_expiry`.
        let got = holders_many(&refs, &["token_expiry", "expiry", "missing", "EXPIRY"], 10);
        assert_eq!(got[0], [0, 1]);
        assert_eq!(
            got[1],
            [0, 1, 2],
            "a part of an identifier is a term of its own"
        );
        assert!(got[2].is_empty());
        assert_eq!(got[3], got[1], "names are matched without regard to case");
        assert_eq!(
            holders_many(&refs, &["expiry"], 1)[0],
            [0],
            "at most `max` holders, in order"
        );
    }

    #[test]
    fn chunked_holder_lists_stay_exact_as_files_change() {
        let text = |i: usize| match i % 7 {
            0 => format!("alpha_{} = kappa\n", i % 3),
            1 => "kappa = 1\n".to_string(),
            _ => format!("other_{i} = 2\n"),
        };
        let mut docs: Vec<Arc<Doc>> = (0..3000)
            .map(|i| Arc::new(Doc::for_test("a.py", &text(i))))
            .collect();
        assert!(holder_chunks(&docs.iter().map(|d| &**d).collect::<Vec<_>>()).len() > 4);
        let names = ["kappa", "alpha_1", "zzz_nowhere", "other_2999"];
        let brute = |docs: &[&Doc], name: &str, max: usize| -> Vec<usize> {
            (0..docs.len())
                .filter(|&i| docs[i].tf(term_hash(name)) > 0)
                .take(max)
                .collect()
        };
        let mut seed = 7u64;
        for round in 0..6 {
            let refs: Vec<&Doc> = docs.iter().map(|d| &**d).collect();
            for max in [1, 5, 10_000] {
                let got = holders_many(&refs, &names, max);
                for (name, got) in names.iter().zip(got) {
                    assert_eq!(
                        got,
                        brute(&refs, name, max),
                        "round {round}, {name}, max {max}"
                    );
                }
            }
            // Edit one file, add one, remove one.
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let i = (seed >> 33) as usize % docs.len();
            docs[i] = Arc::new(Doc::for_test("a.py", "kappa alpha_1 = 3\n"));
            docs.insert(
                (i * 7) % docs.len(),
                Arc::new(Doc::for_test("b.py", "alpha_1\n")),
            );
            docs.remove((i * 13) % docs.len());
        }
    }

    #[test]
    fn a_full_holder_cache_is_emptied_without_losing_answers() {
        let docs = [Doc::for_test("a.py", "alpha = beta\n")];
        let refs: Vec<&Doc> = docs.iter().collect();
        assert_eq!(holders_many(&refs, &["alpha"], 3)[0], [0]);
        // `alpha` is answered from the cache while the many new names make it
        // overflow and be emptied.
        let many: Vec<String> = (0..MAX_CACHED_HOLDER_LISTS)
            .map(|i| format!("n{i}"))
            .collect();
        let mut names: Vec<&str> = vec!["alpha"];
        names.extend(many.iter().map(String::as_str));
        names.push("beta");
        let got = holders_many(&refs, &names, 3);
        assert_eq!(got[0], [0]);
        assert!(got[1].is_empty());
        assert_eq!(got[names.len() - 1], [0]);
    }

    #[test]
    fn scans_read_again_only_files_that_may_hold_the_terms() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        let n = 2000;
        for i in 0..n {
            let extra = if i == n - 7 { "rare_name()\n" } else { "" };
            std::fs::write(
                p.join(format!("f{i:04}.py")),
                format!("common = {i}\n{extra}"),
            )
            .unwrap();
        }
        // No text is kept (as for most files on the Linux kernel).
        let corpus = Corpus {
            keep_text_bytes: 16,
            ..Corpus::default()
        };
        let loaded = corpus.load(walk(p), &[(term_hash("zzz"), "zzz")], &|| false);
        let docs: Vec<Arc<Doc>> = loaded.iter().map(|l| l.doc.clone().unwrap()).collect();
        let docs: Vec<&Doc> = docs.iter().map(|d| &**d).collect();
        let rereads = || -> usize { docs.iter().map(|d| d.rereads.load(Ordering::Relaxed)).sum() };
        assert!(docs.iter().all(|d| d.text.get().is_none()));
        // A new term's counts: exact, and only the files its filter lets
        // through are read again (a few by chance), not all 2,000.
        let counts = term_counts(&docs, &[(term_hash("rare"), "rare")]);
        let holders: Vec<usize> = (0..n).filter(|&i| counts[i][0] > 0).collect();
        assert_eq!(holders.len(), 1);
        assert_eq!(docs[holders[0]].text(), "common = 1993\nrare_name()\n");
        assert!(rereads() < n / 10, "{} files read again", rereads());
        // The first holders of a name every file holds are found without
        // reading the whole tree; a rare one's are still exact.
        let before = rereads();
        let held = holders_many(&docs, &["common", "rare_name"], 3);
        assert_eq!(held, [vec![0, 1, 2], holders.clone()]);
        assert!(
            rereads() - before < n * 3 / 4,
            "{} files read again",
            rereads() - before
        );
    }
}
