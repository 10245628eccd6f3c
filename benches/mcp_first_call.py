#!/usr/bin/env python3
"""Times `retrieve` over MCP stdio on a sympy tree: the first call WAIT s after the server
starts, three warm calls, a warm call of another task, three calls each after appending a
comment to sympy/simplify/trigsimp.py (the script puts the file's bytes and its access and
modification times back afterwards, also on error), and two warm calls again. It writes into
ROOT: point it at a copy of a shared tree, not at the tree itself.
Prints one JSON line of milliseconds (and each call's first file).

    python3 benches/mcp_first_call.py target/release/ctxloop /tmp/sympy 3 [--no-prefetch]

SERVER_LOG=FILE keeps the server's stderr (with RUST_LOG=ctxloop=debug, per-phase times)."""
import json, subprocess, sys, time, os
bin_, root, wait = sys.argv[1], sys.argv[2], float(sys.argv[3])
extra = sys.argv[4:]
TASK = "trigsimp(sin(x)**2 + cos(x)**2) is not simplified to 1 when x is real"
TASK2 = "where is the LaTeX printer for Integral implemented"
p = subprocess.Popen([bin_, "serve", "--root", root, *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(os.environ.get("SERVER_LOG", "/dev/null"), "w"), text=True, bufsize=1)
nid = [0]
def req(method, params):
    nid[0] += 1
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": nid[0], "method": method, "params": params}) + "\n"); p.stdin.flush()
    while True:
        v = json.loads(p.stdout.readline())
        if v.get("id") == nid[0]:
            return v
def retrieve(task):
    t = time.perf_counter()
    v = req("tools/call", {"name": "retrieve", "arguments": {"task": task}})
    ms = (time.perf_counter() - t) * 1000
    files = v["result"]["structuredContent"]["files"]
    return ms, files[0]["path"] if files else None
t0 = time.perf_counter()
req("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})
init_ms = (time.perf_counter() - t0) * 1000
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"); p.stdin.flush()
time.sleep(max(0, wait - (time.perf_counter() - t0)))
res = {"initialize_ms": round(init_ms, 1)}
res["first"] = retrieve(TASK)
res["warm"] = [retrieve(TASK)[0] for _ in range(3)]
res["warm_other_task"] = retrieve(TASK2)
touched = os.path.join(root, "sympy/simplify/trigsimp.py")
with open(touched, "rb") as f:
    original = f.read()
times = os.stat(touched)
touch_ms = []
try:
    for i in range(3):
        with open(touched, "a") as f:
            f.write(f"\n# edit {time.time()}\n")
        touch_ms.append(retrieve(TASK)[0])
finally:
    with open(touched, "wb") as f:
        f.write(original)
    os.utime(touched, ns=(times.st_atime_ns, times.st_mtime_ns))
res["after_touch"] = touch_ms
res["warm_again"] = [retrieve(TASK)[0] for _ in range(2)]
p.stdin.close(); p.wait()
print(json.dumps({k: (round(v, 1) if isinstance(v, float) else [round(x, 1) if isinstance(x, float) else x for x in v] if isinstance(v, (list, tuple)) else v) for k, v in res.items()}))
