#!/usr/bin/env python3
"""Mine held-out localization tasks from a repository's history.

    bench/mine.py OWNER/NAME GITDIR EXTS N LANGUAGE [--years Y] [--no-test] [--need EXT] >> tasks.jsonl

The way ../shared/bench/dev-multilang.jsonl was built, for repositories the dev
sets do not hold: walk the first-parent, non-merge commits of HEAD within
Y years (default 2) of HEAD's date, newest first; keep a commit that touched a
test and modified (status M, so each exists in the parent) 1-3 non-test source
files with an extension in EXTS (comma-separated, e.g. `kt` or `vue,ts,js`),
added or deleted none of them, and whose subject is no release, bump, docs,
CI, lint, format, merge, revert or changelog commit, by a non-bot author. The
message is the task (leading `[tag]` and `scope:`/`fix(scope):` prefixes and a
trailing `(#123)` removed), its parent the tree, the modified source files
the gold files, `commit` the commit (for edit recall). The first N are printed
as JSONL with `mentions_gold_file` (the text names a gold file's path, basename
or stem as a word). `--no-test` drops the test condition (front-end projects
rarely commit tests); `--need EXT` keeps commits where a gold file has EXT.

Tests are recognised by directory (test, tests, spec, specs, testing, fixtures,
testdata, Gradle's `commonTest`-style source sets, Swift's `FooTests` targets)
and name (`FooTest`, `FooTests`, `FooSpec`, `foo_test`, `test_foo`); sources
under docs, examples, samples, demos, benchmarks, scripts, vendor or buildSrc
are left out. GITDIR is a bare clone with full history (the `fetch` tool's).
Held-out tasks measure what generalizes: do not tune on them.
"""
import argparse
import json
import re
import subprocess
import sys

ASIDE = {"doc", "docs", "documentation", "example", "examples", "sample", "samples", "demo",
         "demos", "benchmark", "benchmarks", "bench", "scripts", "vendor", "vendored",
         "thirdparty", "third_party", "buildsrc"}
TEST_DIRS = {"test", "tests", "spec", "specs", "testing", "fixtures", "testdata", "test_data",
             "integration_test"}
SKIP_SUBJECT = re.compile(r"(?i)(release|bump|prepare|update (dependency|version)|version |"
                          r"docs?[:(]|chore|ci[:(]|lint|format|merge|revert|changelog)")


def is_test(path):
    segs = path.split("/")
    for s in segs[:-1]:
        if (s.lower() in TEST_DIRS
                or re.fullmatch(r"[a-z][A-Za-z0-9]*[a-z0-9](Test|Tests)", s)
                or re.fullmatch(r"[A-Z][A-Za-z0-9]*[a-z0-9]Tests", s)):
            return True
    stem = segs[-1].rsplit(".", 1)[0]
    return (bool(re.search(r"[a-z0-9](Test|Tests|Spec)$", stem))
            or stem.endswith("_test") or stem.startswith("test_"))


def task_text(message):
    text = re.sub(r"^\s*(\[[^\]]*\]\s*)+", "", message)
    text = re.sub(r"^[\w./-]+(\([^)]*\))?!?:\s*", "", text)
    lines = text.splitlines() or [""]
    lines[0] = re.sub(r"\s*\(#\d+\)\s*$", "", lines[0])
    return "\n".join(lines).strip()


def mentions(text, gold):
    for g in gold:
        base = g.rsplit("/", 1)[-1]
        stem = base.rsplit(".", 1)[0]
        if g in text or base in text or re.search(r"\b%s\b" % re.escape(stem), text):
            return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo")
    ap.add_argument("gitdir")
    ap.add_argument("exts")
    ap.add_argument("n", type=int)
    ap.add_argument("language")
    ap.add_argument("--years", type=float, default=2)
    ap.add_argument("--no-test", action="store_true")
    ap.add_argument("--need")
    a = ap.parse_args()
    exts = a.exts.split(",")

    def git(*args):
        return subprocess.run(["git", "--git-dir", a.gitdir, *args], capture_output=True,
                              text=True, check=True).stdout

    def is_source(path):
        return (path.rsplit(".", 1)[-1] in exts
                and not any(s.lower() in ASIDE for s in path.split("/")[:-1]))

    head_time = int(git("log", "-1", "--format=%ct", "HEAD").strip())
    since = head_time - int(a.years * 365 * 86400)
    log = git("log", "--first-parent", "--no-merges", f"--since={since}",
              "--format=%x1e%H%x00%P%x00%an%x00%B%x00", "--name-status", "HEAD")
    found = 0
    for rec in log.split("\x1e")[1:]:
        parts = rec.split("\x00")
        if len(parts) < 5:
            continue
        sha, parents, author, message, files = parts[0], parts[1].split(), parts[2], parts[3].strip(), parts[4]
        subject = message.splitlines()[0] if message else ""
        if len(parents) != 1 or "bot" in author.lower() or SKIP_SUBJECT.match(subject):
            continue
        changes = [line.split("\t") for line in files.strip().splitlines() if line.strip()]
        tests = [c for c in changes if is_test(c[-1])]
        sources = [c for c in changes if is_source(c[-1]) and not is_test(c[-1])]
        if (not tests and not a.no_test) or not 1 <= len(sources) <= 3:
            continue
        if any(c[0] != "M" for c in sources):
            continue
        if a.need and not any(c[-1].endswith("." + a.need) for c in sources):
            continue
        text = task_text(message)
        if len(text) < 15:
            continue
        gold = [c[-1] for c in sources]
        print(json.dumps({
            "instance_id": f"{a.repo.replace('/', '__')}-{sha[:12]}",
            "repo": a.repo,
            "language": a.language,
            "base_commit": parents[0],
            "commit": sha,
            "problem_statement": text,
            "gold_files": gold,
            "mentions_gold_file": mentions(text, gold),
        }))
        found += 1
        if found >= a.n:
            break
    print(f"{a.repo}: {found} tasks", file=sys.stderr)


if __name__ == "__main__":
    main()
