"""Plots a distribute_lab.py result: completion time and sender bytes / file size against N, one line per tool,
one column per loss rate.    distribute_plot.py RESULTS.json OUT.png   (Debian: python3-matplotlib)"""

import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TOOLS = [("mcast4ai", "mcast4ai-distribute", "o-"), ("uftp", "uftp", "s--"), ("udpcast", "udpcast", "^--"),
         ("unicast", "unicast (HTTP fan-out)", "x:")]


def main():
    d = json.load(open(sys.argv[1]))
    runs = d["runs"]
    losses = sorted({r["loss_pct"] for r in runs})
    fig, axes = plt.subplots(2, len(losses), figsize=(4.2 * len(losses), 7), squeeze=False)
    for c, loss in enumerate(losses):
        for key, label, style in TOOLS:
            # a run that did not deliver to every receiver has no completion time: left out (the table names it)
            rows = sorted((r for r in runs if r["tool"] == key and r["loss_pct"] == loss
                           and r["verified"] == r["receivers"]), key=lambda r: r["receivers"])
            if not rows:
                continue
            n = [r["receivers"] for r in rows]
            axes[0][c].plot(n, [r["seconds"] for r in rows], style, label=label)
            axes[1][c].plot(n, [r["sender_ratio"] for r in rows], style, label=label)
        lossy = "every receiver's link" if d["lossy"] < 0 else "%d receivers' links" % d["lossy"]
        axes[0][c].set_title("%d %% loss on %s" % (loss, lossy) if loss else "no loss")
        axes[0][c].set_ylabel("completion, s (last receiver verified)")
        axes[1][c].set_ylabel("sender bytes / file size")
        axes[1][c].set_yscale("log")
        for ax in (axes[0][c], axes[1][c]):
            ax.set_xlabel("receivers")
            ax.set_xscale("log", base=2)
            ax.set_xticks(sorted({r["receivers"] for r in runs}))
            ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
            ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.suptitle("%d MB file on the Open vSwitch lab, multicast tools at %d Mbit/s" % (d["file_mb"], d["rate_mbit"]))
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=90)


if __name__ == "__main__":
    main()
