#!/usr/bin/env python3
"""Where the gold edit's lines are in ctxloop's answer: shown, a handle, or missed.

    python3 bench/edit_lines.py CTXLOOP TASKS.jsonl MIRRORS TREES OUT.jsonl [FILTER] [THREADS]

For each git-history task of TASKS.jsonl (rows with `commit`, as in
dev-multilang), runs `CTXLOOP retrieve --format json` on the task's tree
(`TREES/owner+name/BASE_COMMIT`, as `ctxloop bench --trees` extracts them:
run the bench once first) and sorts each changed line of the gold files
(`git diff -U0 base commit`, old side; a pure insertion counts as the line
it follows, as the bench counts them) into:

- `shown`: inside a snippet whose text the answer shows;
- `handle`: inside a range the answer left out for the token budget
  (`dropped`);
- `unchosen`: in a returned file, but in no snippet chosen for it;
- `notret`: in a gold file the answer does not return.

Writes one JSON line per task (gold file, rank, tier, lines, each line's
class, the shown and left-out ranges) to OUT.jsonl and prints the mean per
task of each class, in % (the `shown` share is the bench's edit recall,
give or take the bench's budget accounting). Several binaries, one output
each, compare a change before and after on the same trees without a full
bench run (2 threads: about 2.5 min for dev-multilang's 500 tasks).
"""
import concurrent.futures as cf
import json
import re
import subprocess
import sys
from collections import Counter


def diff_lines(git_dir, base, commit, path):
    d = subprocess.run(['git', '--git-dir', git_dir, 'diff', '-U0', base, commit, '--', path],
                       capture_output=True, text=True).stdout
    lines = set()
    for a, b in re.findall(r'^@@ -(\d+)(?:,(\d+))? \+', d, re.M):
        a, b = int(a), 1 if b == '' else int(b)
        lines.update([max(a, 1)] if b == 0 else range(a, a + b))
    return sorted(lines)


def one(binary, mirrors, trees, t):
    owner, name = t['repo'].split('/')
    tree = f"{trees}/{owner}+{name}/{t['base_commit']}"
    git_dir = f"{mirrors}/{owner}+{name}/repo"
    out = subprocess.run([binary, 'retrieve', '--root', tree, '--format', 'json', '--',
                          t['problem_statement']], capture_output=True, text=True)
    try:
        answer = json.loads(out.stdout)
    except ValueError:
        return {'id': t['instance_id'], 'error': out.stderr[-500:]}
    files = answer['files']
    paths = [f['path'] for f in files]
    left_out = {}
    for h in answer.get('dropped', []):
        path, _, rng = h.rpartition(':')
        a, _, b = rng.partition('-')
        left_out.setdefault(path, []).append((int(a), int(b or a)))
    res = {'id': t['instance_id'], 'language': t.get('language'), 'gold': []}
    for g in t['gold_files']:
        lines = diff_lines(git_dir, t['base_commit'], t['commit'], g)
        rank = paths.index(g) + 1 if g in paths else None
        shown = [(s['start_line'], s['end_line']) for s in files[rank - 1]['snippets']
                 if s.get('text')] if rank else []
        hand = left_out.get(g, [])
        cls = {}
        for x in lines:
            if any(a <= x <= b for a, b in shown):
                cls[x] = 'shown'
            elif any(a <= x <= b for a, b in hand):
                cls[x] = 'handle'
            else:
                cls[x] = 'unchosen' if rank else 'notret'
        res['gold'].append({'file': g, 'rank': rank,
                            'tier': files[rank - 1]['tier'] if rank else None,
                            'lines': lines, 'class': cls, 'shown': shown, 'left_out': hand})
    return res


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    binary, task_file, mirrors, trees, out_path = sys.argv[1:6]
    flt = sys.argv[6] if len(sys.argv) > 6 else ''
    threads = int(sys.argv[7]) if len(sys.argv) > 7 else 2
    tasks = [json.loads(l) for l in open(task_file) if l.strip()]
    tasks = [t for t in tasks if 'commit' in t and flt in t['instance_id']]
    total, n = Counter(), 0
    with cf.ThreadPoolExecutor(threads) as ex, open(out_path, 'w') as out:
        for res in ex.map(lambda t: one(binary, mirrors, trees, t), tasks):
            out.write(json.dumps(res) + '\n')
            if 'error' in res:
                print(f"{res['id']}: no answer: {res['error']}", file=sys.stderr)
                continue
            k = sum(len(g['lines']) for g in res['gold'])
            if not k:
                continue
            n += 1
            for g in res['gold']:
                for c in g['class'].values():
                    total[c] += 1 / k
    print(f"{n} tasks with an edit; mean per task, %:",
          {c: round(total[c] / max(n, 1) * 100, 2) for c in ('shown', 'handle', 'unchosen', 'notret')})


if __name__ == '__main__':
    main()
