//! `ctxloop --version` names the commit the binary was built from, and
//! `ctxloop --help` ends with examples a new user can paste.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_ctxloop");

fn stdout_of(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(out.status.success(), "ctxloop {args:?} failed: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let v = stdout_of(&["--version"]);
    let expected_prefix = format!("ctxloop {} (commit ", env!("CARGO_PKG_VERSION"));
    let commit = v
        .trim()
        .strip_prefix(&expected_prefix)
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("--version printed {v:?}"));
    // Built from a git checkout (as here and in CI): the short hash of HEAD.
    let head = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    match head {
        Ok(o) if o.status.success() => {
            assert_eq!(commit, String::from_utf8(o.stdout).unwrap().trim())
        }
        _ => assert!(
            commit == "unknown" || commit.chars().all(|c| c.is_ascii_hexdigit()),
            "{commit:?}"
        ),
    }
}

#[test]
fn help_ends_with_two_examples() {
    let help = stdout_of(&["--help"]);
    let examples = help
        .split("Examples:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no Examples section at the end of --help:\n{help}"));
    let lines: Vec<&str> = examples.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 2, "{examples}");
    assert!(
        lines[0].trim().starts_with("ctxloop retrieve "),
        "{examples}"
    );
    assert!(lines[1].contains("ctxloop serve --root ."), "{examples}");
}
