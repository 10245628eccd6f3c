//! Reading a walked file's text: UTF-16 decoding, binary, too large and
//! minified files skipped, and a document built with the wanted terms' counts.

use super::doc::{cached_terms, Known};
use super::filter::TermFilter;
use super::{key, Doc, Key, Skip, MAX_FILE_BYTES};
use crate::cache::DiskCache;
use crate::query::TermSet;
use crate::safe_open::Beneath;
use crate::walk::Entry;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A file whose mean line length exceeds this many bytes is treated as minified
/// or generated (hand-written code averages 30–60 bytes a line).
const MINIFIED_MEAN_LINE: usize = 300;

/// Where the text of a document that was not kept is read again from.
#[derive(Debug)]
pub(super) struct Source {
    pub(super) abs: PathBuf,
    pub(super) rel: String,
    pub(super) key: Key,
}

/// Reads, indexes with the counts of `wanted`, and keeps the text when
/// `keep` (bytes of text this load may still keep) allows and, unless
/// `keep_all`, the file holds one of the wanted terms. A file holding none
/// of them can only matter to a later step through other terms; its text is
/// then read again from disk, checked to be the same version. The document
/// looks its symbols up in `disk` (the persistent cache), if any.
///
/// With `disk`, the file's whole term index comes from there (or, on a miss,
/// from tokenizing the text once, then stored): the document keeps it when
/// `keep_all` (later term counts and holder searches look it up, as after a
/// server's prefetch), else only the filter built from it and the wanted
/// terms' counts, as without the cache, so memory stays bounded on a tree
/// too large to keep every text.
pub(super) fn read_doc(
    entry: &Entry,
    beneath: Option<&Beneath>,
    (set, wanted): (&TermSet, &[(u64, &str)]),
    keep_all: bool,
    keep: &AtomicUsize,
    disk: &Option<Arc<DiskCache>>,
) -> Result<Arc<Doc>, Skip> {
    if entry.size > MAX_FILE_BYTES {
        return Err(Skip::TooLarge);
    }
    let text = read_text(&entry.abs, &entry.rel, entry.size, None, beneath)?;
    let memo = |counts: Vec<u32>| -> Vec<(u64, u32)> {
        wanted.iter().map(|&(h, _)| h).zip(counts).collect()
    };
    // `tokenized`: whether the text was tokenized or scanned for terms
    // here (not when the persistent cache had its index).
    let (known, filter, tokenized) = match disk.as_ref().map(|d| cached_terms(d, &text)) {
        // Every term known: `Doc::counts` and holder searches look them up.
        Some((terms, made)) if keep_all => (Known::Every(terms), None, made),
        // Above the text cap, what the file would have without the cache.
        Some((terms, made)) => {
            let count = |&(h, t): &(u64, &str)| {
                let found = terms.binary_search_by_key(&h, |&(k, _)| k).ok();
                found.filter(|_| !t.is_empty()).map_or(0, |i| terms[i].1)
            };
            let counts = wanted.iter().map(count).collect();
            let filter = TermFilter::from_terms(&terms);
            (Known::Some(memo(counts)), Some(filter), made)
        }
        None if keep_all => (Known::Some(memo(set.count(&text))), None, true),
        // On a tree too large to keep every text, the file is tokenized once
        // for its filter, and the wanted terms are counted from the same tokens.
        None => {
            let (filter, counts) = TermFilter::build(&text, wanted);
            (Known::Some(memo(counts)), Some(filter), true)
        }
    };
    let holds = keep_all || matches!(&known, Known::Some(m) if m.iter().any(|&(_, n)| n > 0));
    let kept = holds
        && keep
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(text.len())
            })
            .is_ok();
    let source = (!kept).then(|| Source {
        abs: entry.abs.clone(),
        rel: entry.rel.clone(),
        key: key(entry),
    });
    let doc = Doc::new(&entry.rel, text, known, source, filter, disk.clone());
    if tokenized {
        doc.scanned();
    }
    Ok(Arc::new(doc))
}

/// The text of the walked file `abs` (`rel` below the root), or why it is
/// not indexed. `size` is its size in bytes when walked: the buffer is
/// allocated for it, so a file is read in one `read` and a second that
/// finds its end. (Through `Take`, `read_to_end` has no size hint and
/// starts from 32 bytes, doubling: 754,563 reads for the Linux kernel's
/// 86,000 files, `strace -c`, 2026-12-06.) With `expect`, only that
/// version of the file is read (else [`Skip::Unreadable`]). `beneath`, the
/// walk's root opened once, opens it when `abs` is `rel` below that root.
pub(super) fn read_text(
    abs: &Path,
    rel: &str,
    size: u64,
    expect: Option<&Key>,
    beneath: Option<&Beneath>,
) -> Result<String, Skip> {
    // Never through a link below the root, even one swapped in after the walk.
    let below = |b: &&Beneath| {
        abs.strip_prefix(b.root())
            .is_ok_and(|r| r == Path::new(rel))
    };
    let file = match beneath.filter(below) {
        Some(b) => b.open_file(rel),
        None => crate::safe_open::open_walked(abs, rel),
    }
    .map_err(|_| Skip::Unreadable)?;
    if let Some(expect) = expect {
        let meta = file.metadata().map_err(|_| Skip::Unreadable)?;
        let now: Key = (
            meta.len(),
            meta.modified().ok(),
            crate::walk::ctime(&meta),
            crate::walk::file_id(&meta),
        );
        if now != *expect {
            return Err(Skip::Unreadable);
        }
    }
    // One byte more than the file, so the read that finds its end has room.
    let mut bytes = Vec::with_capacity(size.min(MAX_FILE_BYTES) as usize + 1);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| Skip::Unreadable)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Skip::TooLarge);
    }
    let bytes = decode(bytes)?;
    // Minified: mean line length (bytes / lines, lines = newlines + 1) above
    // MINIFIED_MEAN_LINE, i.e. fewer than len / (MINIFIED_MEAN_LINE + 1)
    // newlines. Counting stops once there are that many (SIMD memchr): a
    // second full pass over every file cost 0.2 s on the Linux kernel.
    let enough = bytes.len() / (MINIFIED_MEAN_LINE + 1);
    if bytes.len() > 4096 && memchr::memchr_iter(b'\n', &bytes).take(enough).count() < enough
        || rel.ends_with(".min.js")
        || rel.ends_with(".min.css")
    {
        return Err(Skip::Minified);
    }
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// A file's bytes as text to index: UTF-16 with a byte-order mark (FF FE
/// little-endian, FE FF big-endian; Windows editors write `.cs`, `.ps1` and
/// `.rc` files so) is decoded to UTF-8 without its mark (unpaired surrogates
/// and an odd last byte become U+FFFD); anything else is returned as it is,
/// to be decoded as UTF-8, lossily. Binary: a NUL in the first 8 KiB (of the
/// decoded text for UTF-16). Lines stay lines: UTF-16 `\n` and `\r\n` decode
/// to the same bytes as in UTF-8, so snippet line numbers are the file's.
fn decode(bytes: Vec<u8>) -> Result<Vec<u8>, Skip> {
    let big_endian = match bytes.get(..4) {
        // FF FE 00 00 is UTF-32's little-endian mark: not decoded (binary).
        Some([0xFF, 0xFE, 0, 0]) => None,
        _ => match bytes.get(..2) {
            Some([0xFF, 0xFE]) => Some(false),
            Some([0xFE, 0xFF]) => Some(true),
            _ => None,
        },
    };
    let bytes = match big_endian {
        // UTF-8's mark (EF BB BF, as some Windows editors write it) is no
        // text of line 1: dropped as UTF-16's is, so no snippet starts
        // with U+FEFF and the first line's name is found (probe P17).
        None if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) => {
            let mut bytes = bytes;
            bytes.drain(..3);
            bytes
        }
        None => bytes,
        Some(be) => {
            let body = &bytes[2..];
            let units = body.chunks_exact(2).map(|u| {
                let u = [u[0], u[1]];
                if be {
                    u16::from_be_bytes(u)
                } else {
                    u16::from_le_bytes(u)
                }
            });
            let mut text: String = char::decode_utf16(units)
                .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect();
            if body.len() % 2 == 1 {
                text.push(char::REPLACEMENT_CHARACTER);
            }
            text.into_bytes()
        }
    };
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return Err(Skip::Binary);
    }
    Ok(lone_cr_to_lf(bytes))
}

/// A file whose lines end in a lone CR (classic Mac OS, and some files
/// written by old Mac tools) and never in LF reads as one line: every
/// definition was "lines 1-1", a snippet was the whole file with `\r`
/// escapes, and a file over 4 KiB counted as minified (probe P17). Such a
/// file's CRs become LFs, byte for byte, so its line numbers are the ones
/// an editor shows and byte offsets are unchanged. A file holding any LF
/// keeps its CRs (CRLF, or a stray CR in a LF file, as grep and git count
/// lines). The search for a LF stops at the first: one early line end.
fn lone_cr_to_lf(mut bytes: Vec<u8>) -> Vec<u8> {
    if memchr::memchr(b'\n', &bytes).is_none() && memchr::memchr(b'\r', &bytes).is_some() {
        for b in bytes.iter_mut().filter(|b| **b == b'\r') {
            *b = b'\n';
        }
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Corpus;
    use crate::walk::walk;

    #[test]
    fn odd_files_are_skipped_by_kind() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("ok.py"), "def token_expiry():\n    pass\n").unwrap();
        std::fs::write(p.join("blob.bin"), b"ab\0cd").unwrap();
        std::fs::write(p.join("app.min.js"), "var a=1;").unwrap();
        std::fs::write(p.join("bundle.js"), "x".repeat(20_000)).unwrap();
        std::fs::write(p.join("big.txt"), vec![b'a'; MAX_FILE_BYTES as usize + 1]).unwrap();
        std::fs::write(p.join("latin1.py"), b"caf\xe9 = token_expiry\n").unwrap();
        let loaded = Corpus::default().load(walk(p), &[], &|| false);
        let kind = |name: &str| {
            loaded
                .iter()
                .find(|l| l.entry.rel == name)
                .unwrap()
                .doc
                .as_ref()
                .err()
                .copied()
        };
        assert_eq!(kind("ok.py"), None);
        assert_eq!(kind("blob.bin"), Some(Skip::Binary));
        assert_eq!(kind("app.min.js"), Some(Skip::Minified));
        assert_eq!(kind("bundle.js"), Some(Skip::Minified));
        assert_eq!(kind("big.txt"), Some(Skip::TooLarge));
        assert_eq!(kind("latin1.py"), None, "non-UTF-8 text is decoded lossily");
    }

    fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
        let mut out = if big_endian {
            vec![0xFE, 0xFF]
        } else {
            vec![0xFF, 0xFE]
        };
        for u in text.encode_utf16() {
            out.extend(if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            });
        }
        out
    }

    #[test]
    fn utf16_with_a_byte_order_mark_is_decoded() {
        let text = "# café\r\ndef frobnicate_widget():\r\n    return '✓'\n";
        for be in [false, true] {
            let got = decode(utf16(text, be)).unwrap();
            assert_eq!(String::from_utf8(got).unwrap(), text, "big endian: {be}");
        }
        // An unpaired surrogate and an odd last byte become U+FFFD.
        let mut bytes = vec![0xFF, 0xFE, b'a', 0, 0x00, 0xD8, b'b', 0, b'c'];
        assert_eq!(
            String::from_utf8(decode(bytes.clone()).unwrap()).unwrap(),
            "a\u{FFFD}b\u{FFFD}"
        );
        // Without a mark, or UTF-16 that decodes to NULs, it is binary.
        bytes[0] = b'x';
        assert_eq!(decode(bytes), Err(Skip::Binary));
        assert_eq!(decode(vec![0xFF, 0xFE, 0, 0, 1, 0]), Err(Skip::Binary));
        assert_eq!(decode(b"plain".to_vec()), Ok(b"plain".to_vec()));
    }

    #[test]
    fn utf8_loses_its_byte_order_mark_and_nothing_else() {
        let text = "def frobnicate_widget():\r\n    return '\u{feff}'\n";
        let mut marked = vec![0xEF, 0xBB, 0xBF];
        marked.extend_from_slice(text.as_bytes());
        assert_eq!(String::from_utf8(decode(marked).unwrap()).unwrap(), text);
        assert_eq!(decode(text.as_bytes().to_vec()).unwrap(), text.as_bytes());
    }

    #[test]
    fn a_file_with_lone_cr_line_ends_has_its_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        // Classic Mac line ends, in a file long enough to have counted as
        // minified when it was one line.
        let mut mac = String::from("def refresh_token_cronly():\r    return 1\r");
        for i in 0..300 {
            mac.push_str(&format!("def helper_{i}():\r    return {i}\r"));
        }
        assert!(mac.len() > 4096);
        std::fs::write(p.join("cronly.py"), &mac).unwrap();
        let crlf = "def token_expiry():\r\n    return '\r'\r\n";
        std::fs::write(p.join("crlf.py"), crlf).unwrap();
        let loaded = Corpus::default().load(walk(p), &[], &|| false);
        let text = |name: &str| {
            let l = loaded.iter().find(|l| l.entry.rel == name).unwrap();
            l.doc.as_ref().unwrap().text().to_string()
        };
        let got = text("cronly.py");
        assert_eq!(got.len(), mac.len(), "byte offsets are unchanged");
        let lines: Vec<&str> = got.lines().collect();
        assert_eq!(lines.len(), 602);
        assert_eq!(lines[0], "def refresh_token_cronly():");
        assert_eq!(lines[1], "    return 1");
        assert_eq!(lines[2], "def helper_0():");
        // CRLF and a stray CR in a file with LFs are left as they are.
        assert_eq!(text("crlf.py"), crlf);
    }
}
