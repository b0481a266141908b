"""Writes a distribute_lab.py result into docs/distribute.md (the table between its `<!-- compare:begin -->` and
`<!-- compare:end -->` lines) and docs/distribute.png, so that the figures in the docs come from one run.

    distribute_docs.py RESULTS.json [--doc docs/distribute.md] [--png docs/distribute.png]
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
TOOLS = ["mcast4ai", "uftp", "udpcast", "unicast"]


def cell(r):
    if r is None:
        return "-"
    s = "%.2f" % r["seconds"]
    if r["verified"] != r["receivers"]:
        s += " (%d of %d)" % (r["verified"], r["receivers"])
    return s


def table(d):
    runs = d["runs"]
    by = {(r["tool"], r["receivers"], r["loss_pct"]): r for r in runs}
    losses = sorted({r["loss_pct"] for r in runs})
    sizes = sorted({r["receivers"] for r in runs})
    out = ["| loss | N | mcast4ai-distribute s | uftp s | udpcast s | unicast s | uftp / mcast4ai | "
           "sender bytes / file: mcast4ai / uftp | repair symbols ahead + repairs (unicast) | "
           "CPU s per GB: sender / receiver | switch drops: mcast4ai / uftp |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for loss in losses:
        for n in sizes:
            m, u = by.get(("mcast4ai", n, loss)), by.get(("uftp", n, loss))
            if m is None:
                continue
            ratio = "%.2fx" % (u["seconds"] / m["seconds"]) if u and m["seconds"] else "-"
            bytes_ = "%.3f / %s" % (m["sender_ratio"], "%.3f" % u["sender_ratio"] if u else "-")
            repairs = "%s + %s (%s)" % (m.get("fec"), m.get("repairs"), m.get("unicast_repairs"))
            cpu = "%s / %s" % (m.get("sender_cpu_s_per_gb"), m.get("receiver_cpu_s_per_gb"))
            drops = "%s / %s" % (m.get("switch_drops", "-"), u.get("switch_drops", "-") if u else "-")
            out.append("| %d %% | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                loss, n, cell(m), cell(u), cell(by.get(("udpcast", n, loss))), cell(by.get(("unicast", n, loss))),
                ratio, bytes_, repairs, cpu, drops))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--doc", default=os.path.join(REPO, "docs", "distribute.md"))
    ap.add_argument("--png", default=os.path.join(REPO, "docs", "distribute.png"))
    a = ap.parse_args()
    with open(a.results) as f:
        d = json.load(f)
    with open(a.doc) as f:
        text = f.read()
    begin, end = "<!-- compare:begin -->", "<!-- compare:end -->"
    if begin not in text or end not in text:
        sys.exit("distribute_docs: %s has no %s ... %s lines" % (a.doc, begin, end))
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(a.doc, "w") as f:
        f.write(head + begin + "\n" + table(d) + "\n" + end + tail)
    # Debian's python3 has python3-matplotlib
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    subprocess.run([py, os.path.join(HERE, "distribute_plot.py"), a.results, a.png], check=True)
    print("distribute_docs: %s and %s from %s (%d runs)" % (a.doc, a.png, a.results, len(d["runs"])))


if __name__ == "__main__":
    main()
