#!/usr/bin/env python3
"""Check a question set (bench/dev-questions.jsonl) against the repositories.

For every row: the fields are present, every gold file exists at
`base_commit`, `gold_lines` names only gold files, and every range is
1-based, ordered and inside the file. Prints counts per repository and kind.

    bench/check-questions.py [--repos /work/.mirror] [--repo owner/name=GITDIR ...] [FILE]

Git directories are found like `ctxloop bench --repos` finds them
(`DIR/owner+name/repo`, `DIR/owner+name`, ...); `--repo` overrides one.
Exits 1 and names each problem when a row is wrong.
"""
import argparse
import collections
import json
import os
import subprocess
import sys

FIELDS = ["instance_id", "repo", "base_commit", "problem_statement", "gold_files",
          "gold_lines", "kind", "mentions_gold_file", "sets"]


def git_dir(repos, explicit, repo):
    if repo in explicit:
        return explicit[repo]
    owner, name = repo.split("/")
    flat = f"{owner}+{name}"
    for c in [f"{flat}/repo", flat, f"{flat}.git", f"{owner}/{name}", f"{owner}/{name}.git",
              f"{name}/repo", name, f"{name}.git"]:
        p = os.path.join(repos or "", c)
        if os.path.isfile(os.path.join(p, "HEAD")) and os.path.isdir(os.path.join(p, "objects")):
            return p
        if os.path.isdir(os.path.join(p, ".git", "objects")):
            return os.path.join(p, ".git")
    return None


def line_count(gd, commit, path):
    out = subprocess.run(["git", "--git-dir", gd, "show", f"{commit}:{path}"],
                         capture_output=True)
    if out.returncode != 0:
        return None
    return len(out.stdout.decode("utf-8", "replace").splitlines())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?", default=os.path.join(os.path.dirname(__file__),
                                                            "dev-questions.jsonl"))
    ap.add_argument("--repos", default="/work/.mirror")
    ap.add_argument("--repo", action="append", default=[], metavar="OWNER/NAME=GITDIR")
    a = ap.parse_args()
    explicit = dict(s.split("=", 1) for s in a.repo)
    problems = []
    by_repo, by_kind = collections.Counter(), collections.Counter()
    mentions = 0
    ids = set()
    with open(a.file) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    for r in rows:
        tag = r.get("instance_id", "?")
        missing = [k for k in FIELDS if k not in r]
        if missing:
            problems.append(f"{tag}: missing {', '.join(missing)}")
            continue
        if tag in ids:
            problems.append(f"{tag}: duplicate instance_id")
        ids.add(tag)
        gd = git_dir(a.repos, explicit, r["repo"])
        if gd is None:
            problems.append(f"{tag}: no git directory for {r['repo']} (pass --repo)")
            continue
        for g in r["gold_files"]:
            if g not in r["gold_lines"]:
                problems.append(f"{tag}: gold file {g} has no gold_lines")
        for path, ranges in r["gold_lines"].items():
            if path not in r["gold_files"]:
                problems.append(f"{tag}: gold_lines names {path}, not a gold file")
            n = line_count(gd, r["base_commit"], path)
            if n is None:
                problems.append(f"{tag}: {path} does not exist at {r['base_commit']}")
                continue
            for s, e in ranges:
                if not (1 <= s <= e <= n):
                    problems.append(f"{tag}: {path} range {s}-{e} outside 1-{n}")
        by_repo[r["repo"]] += 1
        by_kind[r["kind"]] += 1
        mentions += bool(r["mentions_gold_file"])
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(rows)} questions, {mentions} mention a gold file")
    for k, v in sorted(by_repo.items()):
        print(f"  {k}: {v}")
    for k, v in sorted(by_kind.items()):
        print(f"  kind {k}: {v}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
