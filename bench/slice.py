#!/usr/bin/env python3
"""Per-repository and per-kind tables from `ctxloop bench --json` output.

    bench/slice.py RESULT.json [TASKS.jsonl]

The bench reports by repository and language itself; `kind` (and any other
task field) is read from the task file (default bench/dev-questions.jsonl).
Per system and slice: tasks, Acc@1/3/5/10, MRR, and for engine rows edit
recall (mean share of gold lines inside returned snippets, over tasks with
gold lines) and mean tokens returned. Definitions as in ../shared/bench.
"""
import collections
import json
import os
import sys


def row(tasks, system, ks=(1, 3, 5, 10)):
    runs = [t["runs"][system] for t in tasks]
    ranks = [list(t["gold_ranks"][system].values()) for t in tasks]
    n = len(runs)
    acc = [100 * sum(bool(rk) and all(r is not None and r <= k for r in rk) for rk in ranks) / n
           for k in ks]
    mrr = sum(max([1 / r for r in rk if r], default=0) for rk in ranks) / n
    edits = [run["answer"]["edit_covered"] / run["answer"]["edit_lines"]
             for run in runs if run.get("answer") and run["answer"].get("edit_lines")]
    toks = [run["tokens"] for run in runs if run.get("tokens") is not None]
    er = f"{100 * sum(edits) / len(edits):5.1f}" if edits else "    -"
    tk = f"{sum(toks) / len(toks):6.0f}" if toks else "     -"
    return f"{n:3d} " + " ".join(f"{a:5.1f}" for a in acc) + f" {mrr:.3f} {er} {tk}"


def main():
    result = json.load(open(sys.argv[1]))
    tasks_file = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(__file__), "dev-questions.jsonl")
    meta = {t["instance_id"]: t for t in map(json.loads, open(tasks_file)) if t}
    systems = result["systems"]
    slices = collections.defaultdict(list)
    for t in result["tasks"]:
        m = meta.get(t["instance_id"], {})
        for key in ("all", f"repo {t['repo']}", f"kind {m.get('kind', '?')}",
                    f"mentions {m.get('mentions_gold_file')}"):
            slices[key].append(t)
    print(f"{'slice':36} {'system':16}   n  Acc1  Acc3  Acc5 Acc10   MRR  EditR  tokens")
    for key in sorted(slices, key=lambda k: (k != "all", k)):
        for s in systems:
            tasks = [t for t in slices[key] if s in t["runs"]]
            if tasks:
                print(f"{key:36} {s:16} {row(tasks, s)}")


if __name__ == "__main__":
    main()
