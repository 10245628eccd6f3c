//! Exact counts of a few terms over many documents, memoised per file version.

use super::doc::MAX_MEMO_TERMS;
use super::Doc;
use crate::query::TermSet;
use rayon::prelude::*;
use std::collections::HashMap;

/// Counts of `terms` (lowercase index terms, with their [`term_hash`]es) in
/// each of `docs`: row `i` of the result holds doc `i`'s counts, in the order
/// of `terms`. Equal to what tokenizing each file would give. Files whose
/// counts are known (memo or full counts) are not scanned; the others get one
/// [`TermSet::count`] scan for the terms they miss, memoised. Runs on all cores.
///
/// [`term_hash`]: crate::query::term_hash
pub fn term_counts(docs: &[&Doc], terms: &[(u64, &str)]) -> Vec<Vec<u32>> {
    if terms.is_empty() {
        return vec![Vec::new(); docs.len()];
    }
    // Distinct, non-empty terms are scanned for; `slot` maps each asked term to one.
    let mut uniq: Vec<(u64, &str)> = Vec::new();
    let mut slot_of: HashMap<u64, usize> = HashMap::new();
    let slot: Vec<Option<usize>> = terms
        .iter()
        .map(|&(h, t)| {
            if t.is_empty() {
                return None;
            }
            Some(*slot_of.entry(h).or_insert_with(|| {
                uniq.push((h, t));
                uniq.len() - 1
            }))
        })
        .collect();
    let pick = |c: &[u32]| -> Vec<u32> { slot.iter().map(|s| s.map_or(0, |i| c[i])).collect() };
    let t = std::time::Instant::now();
    // Only the terms some file has no count for are scanned for: a later
    // cycle adds a few terms to ones counted when the files were read.
    let unknown = docs.par_iter().map(|d| d.unknown(&uniq)).reduce(
        || vec![false; uniq.len()],
        |a, b| a.iter().zip(&b).map(|(x, y)| *x || *y).collect(),
    );
    let idx: Vec<usize> = (0..uniq.len()).filter(|&i| unknown[i]).collect();
    let scan = Scan {
        set: TermSet::new(&idx.iter().map(|&i| uniq[i]).collect::<Vec<_>>()),
        idx,
    };
    let out = docs
        .par_iter()
        .map(|doc| pick(&doc.counts(&uniq, &scan)))
        .collect();
    tracing::debug!(
        terms = uniq.len(),
        docs = docs.len(),
        ms = t.elapsed().as_millis() as u64,
        "term counts"
    );
    out
}

/// A scan for some of a list of terms: `set` counts `terms[idx[k]]` in slot `k`.
struct Scan {
    set: TermSet,
    idx: Vec<usize>,
}

impl Doc {
    /// Which of `terms` have no known count in this file (neither full counts
    /// nor memo).
    fn unknown(&self, terms: &[(u64, &str)]) -> Vec<bool> {
        if self.terms.get().is_some() {
            return vec![false; terms.len()];
        }
        let memo = self.memo.lock().expect("term memo poisoned");
        terms
            .iter()
            .map(|&(h, _)| memo_get(&memo, h).is_none())
            .collect()
    }

    /// Exact counts of `terms` (distinct): full counts if the file was
    /// tokenized, else the memo and, for the rest, one scan of the text (with
    /// `scan` when it covers them), memoised.
    fn counts(&self, terms: &[(u64, &str)], scan: &Scan) -> Vec<u32> {
        if let Some(full) = self.terms.get() {
            return terms
                .iter()
                .map(|(h, _)| {
                    full.binary_search_by_key(h, |&(t, _)| t)
                        .map_or(0, |i| full[i].1)
                })
                .collect();
        }
        let mut out = vec![0u32; terms.len()];
        let mut missing = Vec::new();
        {
            let memo = self.memo.lock().expect("term memo poisoned");
            for (i, &(h, _)) in terms.iter().enumerate() {
                match memo_get(&memo, h) {
                    Some(n) => out[i] = n,
                    None => missing.push(i),
                }
            }
        }
        // Terms the filter rules out occur 0 times: no need to read the text.
        let (absent, missing): (Vec<usize>, Vec<usize>) = missing
            .into_iter()
            .partition(|&i| !self.may_hold(terms[i].0));
        if missing.is_empty() {
            if !absent.is_empty() {
                let mut memo = self.memo.lock().expect("term memo poisoned");
                memo.extend(absent.iter().map(|&i| (terms[i].0, 0)));
                memo.sort_unstable_by_key(|&(h, _)| h);
                memo.dedup_by_key(|&mut (h, _)| h);
            }
            return out;
        }
        self.scanned();
        let in_scan = |i: &usize| scan.idx.binary_search(i).is_ok();
        let scanned: Vec<(usize, u32)> = if missing.iter().all(in_scan) {
            scan.idx
                .iter()
                .copied()
                .zip(self.with_text(|t| scan.set.count(t)))
                .collect()
        } else {
            let sub: Vec<(u64, &str)> = missing.iter().map(|&i| terms[i]).collect();
            missing
                .iter()
                .copied()
                .zip(self.with_text(|t| TermSet::new(&sub).count(t)))
                .collect()
        };
        let mut memo = self.memo.lock().expect("term memo poisoned");
        for (i, n) in scanned {
            out[i] = n;
            memo.push((terms[i].0, n));
        }
        memo.extend(absent.iter().map(|&i| (terms[i].0, 0)));
        // Sorted again, one entry per term (another thread may have added
        // the same terms meanwhile; its counts are the same).
        memo.sort_unstable_by_key(|&(h, _)| h);
        memo.dedup_by_key(|&mut (h, _)| h);
        if memo.len() > MAX_MEMO_TERMS {
            // A file asked about this often is hot: keep its full counts instead.
            memo.clear();
            memo.shrink_to_fit();
            drop(memo);
            self.terms();
        }
        out
    }
}

/// The memoised count of a term, by binary search of the sorted memo.
pub(super) fn memo_get(memo: &[(u64, u32)], hash: u64) -> Option<u32> {
    memo.binary_search_by_key(&hash, |&(h, _)| h)
        .ok()
        .map(|i| memo[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::filter::TermFilter;
    use crate::corpus::holders_many;
    use crate::query::for_each_term_hash;
    use crate::query::term_hash;

    fn full_counts(text: &str) -> std::collections::HashMap<u64, u32> {
        let mut m = std::collections::HashMap::new();
        for_each_term_hash(text, |h| *m.entry(h).or_insert(0) += 1);
        m
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// The scan-based counts agree exactly with full tokenization, whatever
        /// the text (control bytes included: case folding maps 0x14 onto `4`
        /// and 0x7f onto a folded `_`).
        #[test]
        fn scanned_counts_equal_full_tokenization(
            text in "[a-zA-Z0-9_ .()\\n:é\u{14}\u{7f}-]{0,200}",
            picks in proptest::collection::vec(0usize..64, 1..8),
        ) {
            let full = full_counts(&text);
            let doc = Doc::for_test("x.py", &text);
            let mut words: Vec<String> = Vec::new();
            crate::query::for_each_term(&text, |t| words.push(t.to_string()));
            words.push("absent_term".into());
            let mut wanted: Vec<String> = picks.iter().map(|&i| words[i % words.len()].clone()).collect();
            wanted.sort();
            wanted.dedup();
            let terms: Vec<(u64, &str)> = wanted.iter().map(|w| (term_hash(w), w.as_str())).collect();
            let counts = term_counts(&[&doc], &terms);
            for ((h, t), n) in terms.iter().zip(&counts[0]) {
                let expect = full.get(h).copied().unwrap_or(0);
                proptest::prop_assert_eq!(*n, expect, "term {}", t);
                let held = !holders_many(&[&doc], &[*t], 1)[0].is_empty();
                proptest::prop_assert_eq!(held, expect > 0);
                proptest::prop_assert_eq!(doc.tf(*h), expect);
            }
            // A large tree's filter: no false negatives, the same counts.
            let (filter, built) = TermFilter::build(&text, &terms);
            proptest::prop_assert!(full.keys().all(|&h| filter.may_hold(h)));
            proptest::prop_assert_eq!(&built, &counts[0]);
        }
    }
}
