//! A per-file Bloom filter of index terms, for large trees.

use crate::query::for_each_term_hash_split_once;
use rustc_hash::FxHashMap;

/// A Bloom filter of the distinct index terms of a file (by [`term_hash`]):
/// [`TermFilter::may_hold`] is true for every term the file holds, and for
/// under 0.06 % of the others (16 to 32 bits and 8 probes a term). It lets a
/// scan for terms skip the files that cannot hold them, so a text that was
/// not kept is read again only when it may matter: on the Linux kernel, each
/// later whole-tree scan (gap holders, link holders, a new keyword's counts)
/// re-read some 55,000 files without it.
///
/// The rate is per term, and a scan looks for many at once: a file is read
/// again when it may hold any of them. With 10 bits and 5 probes a term
/// (about 1 % each), the lift's search for 248 rare names on the kernel read
/// 24,685 of 55,543 files again (1.4 s); with 16 and 8, 3,998 (0.5 s), for
/// 30-50 MB more peak memory (2026-12-06, `RUST_LOG=ctxloop=debug`).
///
/// [`term_hash`]: crate::query::term_hash
#[derive(Debug)]
pub(super) struct TermFilter {
    /// A power of two of 64-bit words.
    bits: Box<[u64]>,
}

/// Probes per term of a [`TermFilter`].
const FILTER_PROBES: u64 = 8;
/// Slots of the table of recent term hashes in [`TermFilter::build`].
const RECENT: usize = 1024;
/// Bits per distinct term of a [`TermFilter`] (before rounding up to a power of two words).
const FILTER_BITS_PER_TERM: usize = 16;

impl TermFilter {
    /// The filter of `text`'s terms, and the exact counts of `wanted` in it
    /// (what [`TermSet::count`] gives), from one tokenization.
    ///
    /// No sort: every term's hash goes into a filter sized for all the
    /// text's terms (repeats included, so never too small), the distinct
    /// terms are estimated from the share of bits set, and the filter is
    /// folded down to [`FILTER_BITS_PER_TERM`] bits a distinct term (see
    /// [`TermFilter::fold`]). Sorting the hashes to count distinct terms was
    /// a tenth of a cold call's CPU on the Linux kernel.
    ///
    /// [`TermSet::count`]: crate::query::TermSet::count
    pub(super) fn build(text: &str, wanted: &[(u64, &str)]) -> (TermFilter, Vec<u32>) {
        // Each distinct wanted hash → its slot in `found`.
        let mut slot_of: FxHashMap<u64, usize> = FxHashMap::default();
        for &(h, _) in wanted {
            let next = slot_of.len();
            slot_of.entry(h).or_insert(next);
        }
        let mut found = vec![0u32; slot_of.len()];
        // Most of a file's terms repeat one seen shortly before (`struct`,
        // `return`, the names of the function at hand): a direct-mapped
        // table of recent hashes drops those repeats before they are kept
        // (a hash of 0, the table's empty value, is always kept).
        let mut hashes: Vec<u64> = Vec::with_capacity(text.len() / 32);
        let mut recent = [0u64; RECENT];
        // A repeated identifier's parts are split once (their bits are set
        // then), unless one of them is wanted and must be counted each time.
        for_each_term_hash_split_once(text, |h| {
            let wanted = slot_of.get(&h).copied();
            if let Some(i) = wanted {
                found[i] += 1;
            }
            let slot = &mut recent[(h >> 54) as usize % RECENT];
            if *slot != h || h == 0 {
                *slot = h;
                hashes.push(h);
            }
            wanted.is_some()
        });
        let words = TermFilter::words_for(hashes.len());
        let mut bits = vec![0u64; words];
        for &h in &hashes {
            for (w, b) in TermFilter::probes(h, words) {
                bits[w] |= b;
            }
        }
        let counts = wanted
            .iter()
            .map(|&(h, t)| {
                if t.is_empty() {
                    return 0;
                }
                slot_of.get(&h).map_or(0, |&i| found[i])
            })
            .collect();
        let set: u64 = bits.iter().map(|w| u64::from(w.count_ones())).sum();
        let distinct = TermFilter::distinct_estimate(set, words * 64);
        let target = TermFilter::words_for(distinct);
        (
            TermFilter {
                bits: TermFilter::fold(bits, target).into_boxed_slice(),
            },
            counts,
        )
    }

    /// The filter of a file whose distinct terms are known (`terms`, (hash,
    /// count) each once: a term index from the persistent cache): sized for
    /// them as [`TermFilter::build`] sizes its estimate, without tokenizing.
    pub(super) fn from_terms(terms: &[(u64, u32)]) -> TermFilter {
        let words = TermFilter::words_for(terms.len());
        let mut bits = vec![0u64; words];
        for &(h, _) in terms {
            for (w, b) in TermFilter::probes(h, words) {
                bits[w] |= b;
            }
        }
        TermFilter {
            bits: bits.into_boxed_slice(),
        }
    }

    /// Words of a filter for `terms` distinct terms: [`FILTER_BITS_PER_TERM`]
    /// bits each, rounded up to a power of two words.
    fn words_for(terms: usize) -> usize {
        (terms * FILTER_BITS_PER_TERM)
            .div_ceil(64)
            .max(1)
            .next_power_of_two()
    }

    /// The number of distinct terms a filter of `m` bits with `set` of them
    /// set holds, estimated: n = -(m / k) ln(1 - set / m), k the probes
    /// (Swamidass and Baldi, "Mathematical correction for fingerprint
    /// similarity measures", 2007). Rounded up.
    fn distinct_estimate(set: u64, m: usize) -> usize {
        if set == 0 {
            return 0;
        }
        let m = m as f64;
        let fill = (set as f64 / m).min(1.0 - 1.0 / m);
        (-(m / FILTER_PROBES as f64) * (1.0 - fill).ln()).ceil() as usize
    }

    /// The filter of `target` words (a power of two, at most `bits.len()`)
    /// holding what `bits` holds: a probe's bit is its position masked to the
    /// filter's size, so halving the size ORs the upper half onto the lower,
    /// and the result is the filter built at that size.
    fn fold(mut bits: Vec<u64>, target: usize) -> Vec<u64> {
        let mut len = bits.len();
        while len > target {
            let half = len / 2;
            for i in 0..half {
                bits[i] |= bits[i + half];
            }
            len = half;
        }
        bits.truncate(len);
        bits.shrink_to_fit();
        bits
    }

    /// The (word, bit mask) of each probe of `hash` in a filter of `words`
    /// words (a power of two): double hashing of the mixed hash's halves.
    fn probes(hash: u64, words: usize) -> impl Iterator<Item = (usize, u64)> {
        // splitmix64's finaliser: term hashes of similar terms are close.
        let mut z = hash.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let (h1, h2) = (z & 0xFFFF_FFFF, (z >> 32) | 1);
        let mask = (words * 64 - 1) as u64;
        (0..FILTER_PROBES).map(move |i| {
            let bit = h1.wrapping_add(i.wrapping_mul(h2)) & mask;
            ((bit / 64) as usize, 1u64 << (bit % 64))
        })
    }

    /// False when the file certainly lacks the term `hash`.
    pub(super) fn may_hold(&self, hash: u64) -> bool {
        TermFilter::probes(hash, self.bits.len()).all(|(w, b)| self.bits[w] & b != 0)
    }

    /// Heap bytes of the filter.
    pub(super) fn heap_bytes(&self) -> usize {
        self.bits.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::term_hash;

    /// A text of `n` distinct words (`w0` … `wN`), each written `times`
    /// times, in an order that keeps repeats far apart.
    fn words(n: usize, times: usize) -> String {
        let mut s = String::new();
        for _ in 0..times {
            for i in 0..n {
                s.push_str(&format!("w{i} "));
            }
        }
        s
    }

    #[test]
    fn repeats_do_not_grow_the_filter_and_false_positives_stay_rare() {
        // 3,200 distinct terms, each 30 times (96,000 terms in all): the
        // filter is sized for the distinct ones, as if each came once.
        let (once, _) = TermFilter::build(&words(3200, 1), &[]);
        let (many, _) = TermFilter::build(&words(3200, 30), &[]);
        assert_eq!(many.heap_bytes(), once.heap_bytes());
        assert_eq!(many.heap_bytes(), TermFilter::words_for(3200) * 8);
        for i in 0..3200 {
            assert!(many.may_hold(term_hash(&format!("w{i}"))), "w{i} lost");
        }
        let absent = (0..10_000)
            .filter(|i| many.may_hold(term_hash(&format!("absent{i}"))))
            .count();
        // 20 bits a term (3,200 × 16 rounded up to 1,024 words), 8 probes:
        // about 0.01 %; 0.3 % allows noise. (10 bits a term, 512 words, and
        // 5 probes let about 0.9 % through.)
        assert!(absent < 30, "{absent} of 10,000 absent terms pass");
    }

    #[test]
    fn counts_are_exact_for_repeated_and_empty_wanted_terms() {
        let text = "alpha beta alpha gammaDelta alpha\nbeta";
        let wanted = [
            (term_hash("alpha"), "alpha"),
            (term_hash("beta"), "beta"),
            (term_hash("alpha"), "alpha"),
            (term_hash("delta"), "delta"),
            (term_hash("zeta"), "zeta"),
            (term_hash(""), ""),
        ];
        let (filter, counts) = TermFilter::build(text, &wanted);
        assert_eq!(counts, vec![3, 2, 3, 1, 0, 0]);
        assert!(filter.may_hold(term_hash("gammadelta")));
        assert!(filter.may_hold(term_hash("gamma")));
    }

    #[test]
    fn folding_gives_the_filter_built_at_the_smaller_size() {
        let hashes: Vec<u64> = (0..500).map(|i| term_hash(&format!("t{i}"))).collect();
        let build = |words: usize| {
            let mut bits = vec![0u64; words];
            for &h in &hashes {
                for (w, b) in TermFilter::probes(h, words) {
                    bits[w] |= b;
                }
            }
            bits
        };
        assert_eq!(TermFilter::fold(build(1024), 128), build(128));
    }

    #[test]
    fn an_empty_text_has_a_one_word_filter() {
        let (filter, counts) = TermFilter::build("", &[(term_hash("x"), "x")]);
        assert_eq!(filter.heap_bytes(), 8);
        assert_eq!(counts, vec![0]);
    }
}
