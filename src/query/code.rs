//! Where a task's text is code: which mentions of a word are names (`np.where(`,
//! `` `Session` ``, a line of a code block) and which are prose ("the session
//! expires", `git clone` in a shell line). A definition of a prose word is
//! weak evidence: every report says "variable", "context" or "usage".

/// Byte ranges of `text` that are code: backtick spans, fenced (```) and
/// indented (4 spaces or a tab) blocks, and interpreter lines (`>>> `,
/// `... `), except shell command lines (`$ git clone ...`, `make html`),
/// whose words name commands, not the project's code. Sorted, disjoint.
pub fn code_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut fenced = false;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let trimmed = body.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        let block = fenced
            || body.starts_with("    ")
            || body.starts_with('\t')
            || trimmed.starts_with(">>> ")
            || trimmed.starts_with("... ");
        if block {
            if !is_shell_line(trimmed) {
                spans.push((start, start + body.len()));
            }
            continue;
        }
        // Inline `code` spans of a prose line.
        let mut open: Option<usize> = None;
        for (i, b) in body.bytes().enumerate() {
            if b == b'`' {
                match open.take() {
                    Some(o) => {
                        if !is_shell_line(&body[o + 1..i]) {
                            spans.push((start + o + 1, start + i));
                        }
                    }
                    None => open = Some(i),
                }
            }
        }
    }
    spans
}

/// Commands whose lines are shell, not the project's code.
const SHELL_COMMANDS: &[&str] = &[
    "apt", "apt-get", "brew", "cargo", "cd", "conda", "cp", "curl", "docker", "git", "go",
    "gradle", "ls", "make", "mkdir", "mv", "mvn", "npm", "npx", "pip", "pip3", "pipenv", "pnpm",
    "poetry", "rm", "sudo", "tox", "wget", "yarn",
];

/// Whether a line (or inline span) is a shell command: it starts (after a
/// `$ ` or `% ` prompt) with a common command (`git clone`, `make html`).
fn is_shell_line(line: &str) -> bool {
    let line = line.trim_start();
    let line = line
        .strip_prefix("$ ")
        .or_else(|| line.strip_prefix("% "))
        .unwrap_or(line);
    let first = line.split_whitespace().next().unwrap_or("");
    SHELL_COMMANDS.contains(&first) && line.split_whitespace().nth(1).is_some()
}

/// Whether the identifier at `text[pos..pos + len]` is used as code: inside
/// a [`code_spans`] range, called (`where(`), or one part of a dotted or
/// path-like name (`np.where`, `a::b`, `obj->field`).
pub fn used_as_code(text: &str, spans: &[(usize, usize)], pos: usize, len: usize) -> bool {
    let in_span = match spans.binary_search_by(|&(s, _)| s.cmp(&pos)) {
        Ok(_) => true,
        Err(0) => false,
        Err(i) => pos < spans[i - 1].1,
    };
    in_span || is_called_or_member(text, pos, len)
}

/// Whether the identifier at `text[pos..pos + len]` is called (`where(`) or
/// is one part of a dotted or scoped name (`np.where`, `a::b`, `obj->field`).
pub fn is_called_or_member(text: &str, pos: usize, len: usize) -> bool {
    let b = text.as_bytes();
    let end = pos + len;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let after = b.get(end).copied();
    let called = after == Some(b'(');
    let before_dot = pos >= 2 && b[pos - 1] == b'.' && ident(b[pos - 2]);
    let after_dot = after == Some(b'.') && b.get(end + 1).copied().is_some_and(ident);
    let scoped = (pos >= 2 && (&b[pos - 2..pos] == b"::" || &b[pos - 2..pos] == b"->"))
        || b.get(end..end + 2).is_some_and(|s| s == b"::");
    called || before_dot || after_dot || scoped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_words(text: &str) -> Vec<&str> {
        let spans = code_spans(text);
        crate::query::identifiers(text)
            .filter(|(pos, id)| used_as_code(text, &spans, *pos, id.len()))
            .map(|(_, id)| id)
            .collect()
    }

    #[test]
    fn code_is_backticks_blocks_calls_and_dotted_names_but_not_shell() {
        let text = "The session expires when `Session.close` runs.\n\
                    Use np.where(x) and context here.\n\
                    ```\n$ git clone repo\nvariable = make_it()\n```\n\
                    Run `make html` then usage shows.\n";
        let words = code_words(text);
        for w in ["Session", "close", "np", "where", "variable", "make_it"] {
            assert!(words.contains(&w), "{w}: {words:?}");
        }
        for w in ["session", "context", "clone", "html", "usage", "git"] {
            assert!(!words.contains(&w), "{w}: {words:?}");
        }
    }
}
