//! The top-level `id` of a JSON-RPC message that cannot be parsed whole: a
//! line over [`super::transport::MAX_LINE_BYTES`] (read and dropped a piece at
//! a time) or one nested deeper than serde_json reads. The text is scanned
//! once, in pieces, tracking strings, escapes and depth; only the value of the
//! first top-level `"id"` member is kept, and read with serde_json. A 16 MiB
//! line costs one pass, not a copy, and its id is found wherever it stands:
//! the TypeScript MCP SDK writes `id` after `params`, so a prefix would miss it.

use serde_json::Value;

/// Longest `id` text kept (a longer one is not recovered).
const MAX_ID_BYTES: usize = 1024;

/// Where the scan is in the top-level object.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Before the first `{`.
    #[default]
    Before,
    /// Inside the top-level object.
    Inside,
    /// After it closed, or the text is no JSON object: nothing more to learn.
    Over,
}

/// A scan of one message's text, fed in pieces with [`IdScan::feed`].
#[derive(Debug, Default)]
pub(crate) struct IdScan {
    place: Place,
    depth: usize,
    max_depth: usize,
    bytes: usize,
    in_string: bool,
    escaped: bool,
    /// At depth 1: the next string is a member's key.
    expect_key: bool,
    /// The key being read at depth 1 (its first bytes; `key_len` counts all).
    key: Option<Vec<u8>>,
    key_len: usize,
    /// The member just named is `id`, its value not yet started.
    id_key: bool,
    /// The `id` value being read, then read.
    value: Option<Vec<u8>>,
    id: Option<Vec<u8>>,
    /// A top-level `method` member was seen: the message is a request or a
    /// notification, not a response (which is never answered).
    has_method: bool,
}

impl IdScan {
    /// Scans the next piece of the text.
    pub(crate) fn feed(&mut self, text: &[u8]) {
        self.bytes += text.len();
        let mut i = 0;
        while i < text.len() && self.place != Place::Over {
            if self.in_string {
                // Most of a long message is string: jump to its next `"` or `\`.
                let run = if self.escaped {
                    0
                } else {
                    memchr::memchr2(b'"', b'\\', &text[i..]).unwrap_or(text.len() - i)
                };
                self.keep(&text[i..i + run]);
                i += run;
                if let Some(&b) = text.get(i) {
                    self.string_byte(b);
                    i += 1;
                }
                continue;
            }
            self.structural_byte(text[i]);
            i += 1;
        }
    }

    /// A byte inside a string: an escape, the closing quote, or text.
    fn string_byte(&mut self, b: u8) {
        if self.escaped {
            self.escaped = false;
        } else if b == b'\\' {
            self.escaped = true;
        } else if b == b'"' {
            self.in_string = false;
            if let Some(key) = self.key.take() {
                let named = |name: &[u8]| self.key_len == name.len() && key == name;
                self.id_key = named(b"id") && self.id.is_none() && self.value.is_none();
                self.has_method |= named(b"method");
                return;
            }
        }
        self.keep(&[b]);
    }

    /// A byte outside strings.
    fn structural_byte(&mut self, b: u8) {
        if self.place == Place::Before {
            match b {
                b'{' => {
                    self.place = Place::Inside;
                    self.open();
                    self.expect_key = true;
                }
                // Whitespace, or a byte-order mark, before the object.
                b' ' | b'\t' | b'\r' | b'\n' | 0xEF | 0xBB | 0xBF => {}
                _ => self.place = Place::Over,
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.expect_key = false;
                    self.key = Some(Vec::new());
                    self.key_len = 0;
                    return;
                }
            }
            b'{' | b'[' => self.open(),
            b'}' | b']' => {
                if self.depth == 1 {
                    self.end_value();
                    self.depth = 0;
                    self.place = Place::Over;
                    return;
                }
                self.depth -= 1;
            }
            b',' if self.depth == 1 => {
                self.end_value();
                self.expect_key = true;
                return;
            }
            b':' if self.depth == 1 && self.id_key => {
                self.id_key = false;
                self.value = Some(Vec::new());
                return;
            }
            _ => {}
        }
        self.keep(&[b]);
    }

    fn open(&mut self) {
        self.depth += 1;
        self.max_depth = self.max_depth.max(self.depth);
    }

    /// Adds `bytes` to the key or the `id` value being read, if one is.
    fn keep(&mut self, bytes: &[u8]) {
        if let Some(key) = &mut self.key {
            self.key_len += bytes.len();
            if key.len() < 8 {
                key.extend_from_slice(&bytes[..bytes.len().min(8)]);
            }
        } else if let Some(value) = &mut self.value {
            if value.len() + bytes.len() > MAX_ID_BYTES {
                // Too long to be an id worth echoing: not recovered.
                self.value = None;
                self.id = Some(Vec::new());
            } else {
                value.extend_from_slice(bytes);
            }
        }
    }

    fn end_value(&mut self) {
        if let Some(value) = self.value.take() {
            self.id = Some(value);
        }
    }

    /// Bytes scanned so far.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Deepest nesting of arrays and objects seen (the top-level object is 1).
    pub(crate) fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// The text of the first top-level `id` member's value, trimmed, if the
    /// text is an object that has one and the message is a request (it has
    /// a `method`): a response is never answered.
    pub(crate) fn id_text(&self) -> Option<&str> {
        let id = self.id.as_deref()?;
        if !self.has_method {
            return None;
        }
        std::str::from_utf8(id)
            .ok()
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }

    /// [`IdScan::id_text`] read as JSON: an id to answer, as
    /// `transport::request_id` takes it (a number or a string; any other
    /// value is answered with a null id).
    pub(crate) fn id(&self) -> Option<Value> {
        let text = self.id_text()?;
        Some(match serde_json::from_str::<Value>(text) {
            Ok(v @ (Value::Number(_) | Value::String(_))) => v,
            _ => Value::Null,
        })
    }
}

/// The scan of one whole text.
pub(crate) fn scan(text: &[u8]) -> IdScan {
    let mut s = IdScan::default();
    s.feed(text);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The scan of `text` fed in pieces of `n` bytes.
    fn in_pieces(text: &[u8], n: usize) -> IdScan {
        let mut s = IdScan::default();
        for piece in text.chunks(n) {
            s.feed(piece);
        }
        s
    }

    #[test]
    fn the_top_level_id_is_found_before_or_after_the_params_in_any_pieces() {
        let first = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"id":1,"task":"a \"id\": 9 }"}}}"#;
        let last = br#" {"method":"tools/call","params":{"id":"no","x":[{"id":2}],"t":"\\\"id\":3"},"jsonrpc":"2.0","id" : "req-1" } trailing"#;
        for n in [1, 2, 3, 5, 1000] {
            assert_eq!(in_pieces(first, n).id(), Some(json!(7)), "pieces of {n}");
            let s = in_pieces(last, n);
            assert_eq!(s.id(), Some(json!("req-1")), "pieces of {n}");
            assert_eq!(s.id_text(), Some(r#""req-1""#));
        }
    }

    #[test]
    fn an_id_is_read_only_from_a_request_object() {
        // A notification, a response, text that is no object, a key that
        // merely starts with `id`.
        for text in [
            &br#"{"jsonrpc":"2.0","method":"notifications/x"}"#[..],
            br#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            br#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#,
            br#"hello {"id":3,"method":"ping"}"#,
            br#"{"idx":3,"method":"ping"}"#,
        ] {
            assert_eq!(scan(text).id(), None, "{}", String::from_utf8_lossy(text));
        }
        // A null or object id is answered with a null id; a huge one keeps its text.
        assert_eq!(
            scan(br#"{"id":null,"method":"ping"}"#).id(),
            Some(Value::Null)
        );
        assert_eq!(
            scan(br#"{"id":{"a":1},"method":"ping"}"#).id(),
            Some(Value::Null)
        );
        let s = scan(br#"{"id":18446744073709551616,"method":"ping"}"#);
        assert_eq!(s.id_text(), Some("18446744073709551616"));
    }

    #[test]
    fn depth_counts_every_open_array_and_object() {
        let deep = format!(
            r#"{{"id":1,"method":"m","a":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let s = scan(deep.as_bytes());
        assert_eq!(s.max_depth(), 201);
        assert_eq!(s.id(), Some(json!(1)));
        assert_eq!(s.bytes(), deep.len());
        assert_eq!(scan(br#"{"a":"[[[[","b":{}}"#).max_depth(), 2);
    }

    #[test]
    fn an_overlong_id_is_not_recovered() {
        let text = format!(r#"{{"id":"{}","method":"m"}}"#, "x".repeat(MAX_ID_BYTES));
        assert_eq!(scan(text.as_bytes()).id(), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Whatever the bytes (JSON-like ones most often), the scan never
        /// panics and finds the same id and depth in pieces as whole.
        #[test]
        fn pieces_or_whole_give_the_same_scan(
            text in proptest::collection::vec(proptest::sample::select(b"{}[]\",:\\ id method 7x\xff".to_vec()), 0..300),
            n in 1usize..17,
        ) {
            let whole = scan(&text);
            let pieces = in_pieces(&text, n);
            proptest::prop_assert_eq!(whole.id_text(), pieces.id_text());
            proptest::prop_assert_eq!(whole.max_depth(), pieces.max_depth());
            proptest::prop_assert_eq!(whole.bytes(), text.len());
        }
    }
}
