//! BM25's collection statistics.

/// Document frequency of each of `terms` terms, from a [`term_counts`] matrix.
pub(super) fn doc_freqs(tf: &[Vec<u32>], terms: usize) -> Vec<u32> {
    let mut df = vec![0u32; terms];
    for row in tf {
        for (d, &n) in df.iter_mut().zip(row) {
            *d += u32::from(n > 0);
        }
    }
    df
}
