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
    within(spans, pos) || is_called_or_member(text, pos, len)
}

/// Whether the word at `pos` is capitalised inside a sentence ("the latex
/// printer for Integral"): a class name, not the first word of a sentence.
pub fn capitalised_mid_sentence(text: &str, pos: usize) -> bool {
    let b = text.as_bytes();
    if !b.get(pos).is_some_and(u8::is_ascii_uppercase) {
        return false;
    }
    let before = text[..pos].trim_end_matches([' ', '\t', '"', '\'', '(', '*', '_']);
    before.bytes().last().is_some_and(|c| {
        !matches!(
            c,
            b'.' | b'!' | b'?' | b':' | b'\n' | b'\r' | b'#' | b'-' | b'>'
        )
    })
}

/// Whether the identifier at `text[pos..pos + len]` is called (`where(`),
/// is one part of a dotted or scoped name (`np.where`, `a::b`, `obj->field`),
/// or is a keyword argument of a call (`modules` of
/// `lambdify(modules='mpmath')`, `prec` of `f(x, prec=64)`): a parameter
/// name, written as code even on a prose line.
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
    let keyword = after == Some(b'=')
        && b.get(end + 1) != Some(&b'=')
        && text[..pos]
            .trim_end_matches(' ')
            .bytes()
            .last()
            .is_some_and(|c| c == b'(' || c == b',');
    called || before_dot || after_dot || scoped || keyword
}

/// Whether the identifier at `text[pos..pos + len]` is a receiver: a
/// lowercase, non-final segment of a dotted chain (`os` and `path` of
/// `os.path.abspath()`, `np` of `np.where`, `x` of `self.x.y()`, `ctx` of
/// `ctx->field`). It names a module or a variable the code is reached
/// through, not a name whose definition the task asks for: a file that
/// happens to define a function `os` or a constant `path` is not the file
/// to change. A Capitalized receiver (`Path.resolve()`, a class) is a name,
/// and so is a file name (`wheel_installer.py`: the segment after the dot
/// is the last one and a file extension).
pub fn is_receiver(text: &str, pos: usize, len: usize) -> bool {
    let b = text.as_bytes();
    if !b.get(pos).is_some_and(u8::is_ascii_lowercase) {
        return false;
    }
    let ident = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_';
    let end = pos + len;
    let next = match b.get(end..end + 2) {
        Some([b'.', c]) if ident(c) => end + 1,
        Some(b"->") if b.get(end + 2).is_some_and(ident) => end + 2,
        _ => return false,
    };
    let seg_end = next + b[next..].iter().take_while(|c| ident(c)).count();
    let last = !matches!(b.get(seg_end..seg_end + 2), Some([b'.', c]) if ident(c));
    let called = b.get(seg_end) == Some(&b'(');
    let extension = super::is_path_extension(&text[next..seg_end]);
    !(last && !called && extension)
}

/// Whether the identifier at `text[pos..pos + len]` is a backtick span by
/// itself (`` `where` ``): written as a name, whatever the word.
pub fn backticked(text: &str, pos: usize, len: usize) -> bool {
    let b = text.as_bytes();
    pos >= 1 && b[pos - 1] == b'`' && b.get(pos + len) == Some(&b'`')
}

/// Byte ranges of `text` that are pasted listings: runs of three or more
/// lines that each look like a package list or version dump (`numpy 1.26.4`,
/// `requests==2.31.0`, `Python: 3.11.4`), a linter's messages
/// (`src/a.py:12:5: E501 line too long`) or a log (`2024-01-02 10:00:00
/// INFO ...`, `[WARN] ...`). Their words name the reporter's environment,
/// not the code to change. Sorted, disjoint.
pub fn listing_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut run: Option<(usize, usize, usize)> = None; // (start, end, lines)
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        if is_listing_line(line.trim()) {
            let r = run.get_or_insert((start, at, 0));
            r.1 = at;
            r.2 += 1;
        } else if let Some((s, e, n)) = run.take() {
            if n >= 3 {
                spans.push((s, e));
            }
        }
    }
    if let Some((s, e, n)) = run {
        if n >= 3 {
            spans.push((s, e));
        }
    }
    spans
}

/// Directories a package manager installs dependencies under: a path
/// through one is outside the project, whatever follows it.
const INSTALL_DIRS: [&str; 3] = ["site-packages/", "dist-packages/", "node_modules/"];

/// Byte spans (start, end), sorted, of the install-location prefixes of the
/// paths in `text`: from a path's start to the end of its last
/// `site-packages/`, `dist-packages/` or `node_modules/` segment
/// (`/usr/lib/python3.11/site-packages/` of a traceback frame's
/// `/usr/lib/python3.11/site-packages/flask/app.py`).
/// Their words (`usr`, `lib`, `site`, `packages`) are where the reporter's
/// machine keeps packages, not words of the task.
pub fn install_prefix_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut at = 0;
    for token in text.split_inclusive(|c: char| c.is_whitespace() || "\"'`(),".contains(c)) {
        let end = INSTALL_DIRS
            .iter()
            .filter_map(|d| token.rfind(d).map(|i| i + d.len()))
            .max();
        if let Some(end) = end {
            spans.push((at, at + end));
        }
        at += token.len();
    }
    spans
}

fn is_listing_line(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let version = |w: &str| {
        let w = w
            .trim_start_matches(['v', '('])
            .trim_end_matches([')', ',']);
        w.bytes().next().is_some_and(|b| b.is_ascii_digit())
            && w.contains('.')
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-+".contains(&b))
    };
    // `name 1.2.3`, `name: 1.2.3`, `name==1.2.3`, `name (1.2.3)`
    let package = match words.as_slice() {
        [one] => one
            .split_once("==")
            .is_some_and(|(n, v)| !n.is_empty() && version(v)),
        [_, v] | [_, v, _] => version(v),
        _ => false,
    };
    // `path:12:5: E501 ...` or `path:12: error ...`
    let linter = words.first().is_some_and(|w| {
        let mut parts = w.split(':');
        let file = parts.next().unwrap_or("");
        file.contains('.')
            && parts
                .next()
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    });
    let b = line.as_bytes();
    let dated =
        b.len() >= 10 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[7] == b'-';
    let first = words
        .first()
        .map_or("", |w| w.trim_matches(['[', ']', ':']));
    let level = matches!(
        first,
        "DEBUG" | "INFO" | "WARN" | "WARNING" | "ERROR" | "TRACE" | "CRITICAL"
    ) && words.len() > 1;
    package || linter || dated || level
}

/// Byte ranges of `text` that are an issue or pull-request template's
/// scaffolding, not the report: Markdown headings after the first line
/// (`### Goals :soccer:`, `## Steps to reproduce`, `#### Expected
/// Results`), lines that are one bold label (`**Describe the bug**`, also
/// after a bullet: a review bot's `* **New Features**`), checklist items
/// (`- [ ] I have added tests`, `- [x] ...`: the template's promises) and
/// HTML comments (`<!-- Please describe your change -->`, the template's
/// instructions), outside code blocks (where `# ...` is a comment). The
/// same words stand in every report of a project (an
/// Alamofire pull request's "Goals", "Implementation Details", "Testing
/// Details"; trpc's "I have added documentation related to the changes
/// made"), so they matched the docs that use them more than the code.
/// `code` is the text's [`code_spans`]. Sorted, disjoint.
pub fn template_spans(text: &str, code: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    let mut title_seen = false;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let t = line.trim();
        let indent = line.len() - line.trim_start().len();
        // A `# comment` in a code block or a pasted session is code.
        if t.is_empty() || within(code, start + indent) {
            continue;
        }
        if !title_seen {
            title_seen = true;
            continue;
        }
        let heading = indent <= 3
            && t.starts_with('#')
            && t.trim_start_matches('#').starts_with([' ', '\t'])
            && t.len() - t.trim_start_matches('#').len() <= 6;
        // The text after a bullet's marker (`* **New Features**`).
        let bullet = t
            .strip_prefix(['*', '-', '+'])
            .filter(|r| r.starts_with([' ', '\t']))
            .map(str::trim_start);
        let bare = bullet.unwrap_or(t);
        // `**Label**` or `**Label:**`, nothing else: at least `**x**`
        // without its colons (`**:::` is no label).
        let inner = bare.trim_end_matches(':');
        let label = inner.len() > 4
            && inner.starts_with("**")
            && inner.ends_with("**")
            && !inner[2..inner.len() - 2].contains("**");
        // A checklist item (`- [ ] I have added tests`, `- [x] ...`): a
        // template's promise, the same in every report of a project.
        let checklist = bullet.is_some_and(|b| {
            ["[ ]", "[x]", "[X]"].iter().any(|m| {
                b.strip_prefix(m)
                    .is_some_and(|r| r.starts_with([' ', '\t']))
            })
        });
        if heading || label || checklist {
            spans.push((start, at));
        }
    }
    let mut from = 0;
    while let Some(open) = text[from..].find("<!--").map(|i| from + i) {
        let end = text[open..]
            .find("-->")
            .map_or(text.len(), |i| open + i + 3);
        spans.push((open, end));
        from = end;
    }
    spans.sort_unstable();
    // Disjoint: a heading inside a comment joins it.
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match out.last_mut() {
            Some(last) if s < last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Whether `pos` lies in one of `spans` (sorted, disjoint).
pub fn within(spans: &[(usize, usize)], pos: usize) -> bool {
    match spans.binary_search_by(|&(s, _)| s.cmp(&pos)) {
        Ok(_) => true,
        Err(0) => false,
        Err(i) => pos < spans[i - 1].1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checklist_items_and_bulleted_labels_are_scaffolding_but_bullets_are_not() {
        // trpc's pull-request template and a review bot's summary.
        let text = "Fastify form-data type\n\n\
                    - [ ] I have added documentation related to the changes\n\
                    - [x] I have added or updated the tests\n\
                    * **New Features**\n\
                    * Added multipart support to the fastify adapter.\n\
                    - [link](x) is a bullet\n";
        let spans = template_spans(text, &code_spans(text));
        let covered = |needle: &str| within(&spans, text.find(needle).unwrap());
        assert!(covered("documentation") && covered("updated") && covered("New Features"));
        for kept in ["Fastify", "multipart", "link"] {
            assert!(!covered(kept), "{kept} is the report");
        }
    }

    #[test]
    fn a_line_of_stars_and_colons_is_no_label_and_no_panic() {
        // `t[2..t.trim_end_matches(':').len() - 2]` sliced 2..0 here.
        for line in ["**:::", "***::", "* **::", "****"] {
            let text = format!("Title\n{line}\nbody\n");
            let spans = template_spans(&text, &code_spans(&text));
            assert!(!within(&spans, text.find(line).unwrap()), "{line}");
        }
    }

    #[test]
    fn template_headings_labels_and_comments_are_scaffolding_but_the_title_is_not() {
        let text = "### Relax JSONResponseSerializer Sendable Requirement\n\n\
                    ### Goals :soccer:\nThis PR relaxes the `Sendable` requirement.\n\n\
                    **Describe the bug**\nIt crashes.\n<!-- Please describe\nyour change -->\n\
                    #hashtag is not a heading\n    ### indented code is not one either\n\
                    ```\n# Correct: the comment of a pasted script\nprint(e)\n```\n";
        let spans = template_spans(text, &code_spans(text));
        let covered = |needle: &str| {
            let pos = text.find(needle).unwrap();
            within(&spans, pos)
        };
        assert!(covered("Goals") && covered("Describe") && covered("Please") && covered("your"));
        for kept in [
            "Relax",
            "relaxes",
            "Sendable` requirement",
            "crashes",
            "hashtag",
            "indented",
            "Correct",
        ] {
            assert!(!covered(kept), "{kept} is the report");
        }
    }

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

    #[test]
    fn keyword_arguments_of_a_call_are_code_on_a_prose_line() {
        let text = "lambdify(modules='mpmath') doesn't wrap rationals, nor does \
                    nsolve(eqn, x0, prec=64); the modules are fine, a == b and x = 1 hold";
        let words = code_words(text);
        for w in ["modules", "prec", "lambdify", "nsolve"] {
            assert!(words.contains(&w), "{w}: {words:?}");
        }
        let at = text.rfind("modules").unwrap();
        assert!(!is_called_or_member(text, at, "modules".len()));
        for w in ["a", "x", "rationals"] {
            assert!(!words.contains(&w), "{w}: {words:?}");
        }
    }

    #[test]
    fn lowercase_non_final_segments_of_a_dotted_chain_are_receivers() {
        let text = "Use os.path.abspath() not Path.resolve(), np.where(m), \
                    self.x.y(), ctx->field and wheel_installer.py or mod.py.read()";
        let receivers: Vec<&str> = crate::query::identifiers(text)
            .filter(|(p, id)| is_receiver(text, *p, id.len()))
            .map(|(_, id)| id)
            .collect();
        assert_eq!(
            receivers,
            ["os", "path", "np", "self", "x", "ctx", "mod", "py"]
        );
    }

    #[test]
    fn a_capital_inside_a_sentence_is_a_name_but_not_at_its_start() {
        let text = "The latex printer for Integral fails. Session is lost\nTitle here";
        let at = |w: &str| text.find(w).unwrap();
        assert!(capitalised_mid_sentence(text, at("Integral")));
        assert!(!capitalised_mid_sentence(text, at("The")));
        assert!(!capitalised_mid_sentence(text, at("Session")));
        assert!(!capitalised_mid_sentence(text, at("Title")));
        assert!(!capitalised_mid_sentence(text, at("latex")));
    }

    #[test]
    fn package_lists_linter_output_and_logs_are_listings() {
        let text = "Plotting fails with hue\n\
                    Package    Version\n\
                    numpy      1.26.4\n\
                    pandas     2.1.0\n\
                    matplotlib 3.8.2\n\
                    then it says\n\
                    src/a.py:12:5: E501 line too long\n\
                    src/b.py:3:1: F401 unused import\n\
                    src/c.py:9:80: E501 line too long\n";
        let spans = listing_spans(text);
        let listed: Vec<&str> = crate::query::identifiers(text)
            .filter(|(p, _)| within(&spans, *p))
            .map(|(_, id)| id)
            .collect();
        for w in ["numpy", "pandas", "matplotlib", "unused", "long"] {
            assert!(listed.contains(&w), "{w}: {listed:?}");
        }
        for w in ["Plotting", "hue", "then", "says"] {
            assert!(!listed.contains(&w), "{w}: {listed:?}");
        }
    }
}
