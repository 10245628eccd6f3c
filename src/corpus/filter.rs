//! A per-file Bloom filter of index terms, for large trees.

use crate::query::for_each_term_hash;

/// A Bloom filter of the distinct index terms of a file (by [`term_hash`]):
/// [`TermFilter::may_hold`] is true for every term the file holds, and for
/// about 2 % of the others (10 bits and 5 probes a term). It lets a scan
/// for terms skip the files that cannot hold them, so a text that was not
/// kept is read again only when it may matter: on the Linux kernel, each
/// later whole-tree scan (gap holders, link holders, a new keyword's counts)
/// re-read some 55,000 files without it.
///
/// [`term_hash`]: crate::query::term_hash
#[derive(Debug)]
pub(super) struct TermFilter {
    /// A power of two of 64-bit words.
    bits: Box<[u64]>,
}

/// Probes per term of a [`TermFilter`].
const FILTER_PROBES: u64 = 5;
/// Bits per distinct term of a [`TermFilter`] (before rounding up to a power of two words).
const FILTER_BITS_PER_TERM: usize = 10;

impl TermFilter {
    /// The filter of `text`'s terms, and the exact counts of `wanted` in it
    /// (what [`TermSet::count`] gives), from one tokenization.
    pub(super) fn build(text: &str, wanted: &[(u64, &str)]) -> (TermFilter, Vec<u32>) {
        let mut hashes: Vec<u64> = Vec::with_capacity(text.len() / 8);
        for_each_term_hash(text, |h| hashes.push(h));
        hashes.sort_unstable();
        let counts = wanted
            .iter()
            .map(|&(h, t)| {
                if t.is_empty() {
                    return 0;
                }
                let a = hashes.partition_point(|&x| x < h);
                let b = hashes.partition_point(|&x| x <= h);
                (b - a) as u32
            })
            .collect();
        hashes.dedup();
        let words = (hashes.len() * FILTER_BITS_PER_TERM)
            .div_ceil(64)
            .max(1)
            .next_power_of_two();
        let mut filter = TermFilter {
            bits: vec![0u64; words].into_boxed_slice(),
        };
        for &h in &hashes {
            for (w, b) in TermFilter::probes(h, words) {
                filter.bits[w] |= b;
            }
        }
        (filter, counts)
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
