#!/usr/bin/env python3
"""Compare two `ctxloop bench --json` runs of one task file, per language group.

    python3 bench/compare.py BEFORE.json AFTER.json

Prints, for each language group, the `mentions_gold_file: false` stratum and
all tasks: Acc@1/5/10 (all gold files in the top k), MRR (first gold file)
and edit recall (mean per-task share of the gold edit inside the snippets, %)
of the engine before and after, beside the source-only BM25 row (from AFTER,
or from BEFORE when AFTER ran with --no-bm25: BM25 does not depend on the
engine). Then how many tasks kept the same top 10 and covered edit lines,
and the gold ranks and covered lines of those that did not.
"""
import json, sys
from collections import defaultdict
def load(p):
    d = json.load(open(p)); return {t['instance_id']: t for t in d['tasks']}, d
def sysname(runs, want):
    for k in runs:
        if k == want: return k
    return None
def met(tasks, sysk):
    n=0; a={1:0,3:0,5:0,10:0}; mrr=0; er=[]
    for t in tasks:
        r = t['gold_ranks'].get(sysk)
        if r is None: continue
        n+=1
        ranks=list(r.values())
        for k in a:
            if all(x is not None and x<=k for x in ranks): a[k]+=1
        fr=[x for x in ranks if x is not None]
        mrr += 1/min(fr) if fr else 0
        ans=t['runs'][sysk].get('answer')
        if ans and ans.get('edit_lines'):
            er.append(ans['edit_covered']/ans['edit_lines'])
    if not n: return None
    return dict(n=n, a1=100*a[1]/n, a3=100*a[3]/n, a5=100*a[5]/n, a10=100*a[10]/n, mrr=mrr/n, er=100*sum(er)/len(er) if er else float('nan'))
old, od = load(sys.argv[1]); new, nd = load(sys.argv[2])
eng = 'ctxloop/3c'
ex = next(iter(new.values()))
systems = list(ex['gold_ranks'].keys())
src = next((s for s in systems if 'src' in s), None)
osrc = next((s for s in next(iter(old.values()))['gold_ranks'] if 'src' in s), None)
groups = defaultdict(list)
for i,t in new.items(): groups[t['language']].append(i)
groups['ALL'] = list(new)
groups['no-mention'] = [i for i,t in new.items() if t.get('mentions_gold_file') is False]
fmt = lambda m: f"{m['a1']:5.1f} {m['a5']:5.1f} {m['a10']:5.1f} {m['mrr']:.3f} {m['er']:5.1f}".replace("  nan", "    -") if m else "-"
print(f"{'group':12} {'n':>4} | old A1 A5 A10 MRR EditR | new A1 A5 A10 MRR EditR | {src} A1 A5 A10 MRR")
for g, ids in sorted(groups.items()):
    mo = met([old[i] for i in ids if i in old], eng); mn = met([new[i] for i in ids], eng)
    mb = met([new[i] for i in ids], src) if src else (met([old[i] for i in ids if i in old], osrc) if osrc else None)
    print(f"{g:12} {len(ids):4} | {fmt(mo)} | {fmt(mn)} | {fmt(mb) if mb else '-'}")
same=0; diff=[]
for i,t in new.items():
    if i not in old: continue
    a=old[i]['runs'][eng]['top'][:10]; b=t['runs'][eng]['top'][:10]
    ea=(old[i]['runs'][eng].get('answer') or {}).get('edit_covered'); eb=(t['runs'][eng].get('answer') or {}).get('edit_covered')
    if a==b and ea==eb: same+=1
    else: diff.append((i, old[i]['gold_ranks'][eng], t['gold_ranks'][eng], ea, eb))
print(f"identical top10+edit_covered: {same}/{len(new)}")
for d in diff: print("  ", *d)
