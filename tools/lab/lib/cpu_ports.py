"""The P4 lab's CPU ports, for the lab runner (ONOS's P4Runtime packet stream stands in here).

  cpu_ports.py --fabric FILE

Every switch of the P4 lab has its CPU port (255) on a veth whose other end is named in the fabric description
(`cpu`). This process holds a packet socket on each of those ends: a frame a switch sends its CPU port (its
packet_in header first) is written to stdout as one line `<deviceId> <hex>`, and a line `<deviceId> <hex>` read
from stdin (the packet_out header first) is sent to that switch's CPU port. Ends when stdin closes.
"""

import argparse
import json
import os
import select
import socket
import sys
import threading

ETH_P_ALL = 3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fabric", required=True)
    a = ap.parse_args()
    with open(a.fabric) as f:
        desc = json.load(f)
    socks = {}
    for sw in desc["switches"]:
        if not sw.get("cpu"):
            continue
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.bind((sw["cpu"], 0))
        socks[sw["deviceId"]] = s
    by_fd = {s.fileno(): d for d, s in socks.items()}
    out = sys.stdout
    lock = threading.Lock()

    def reader():
        while True:
            ready, _, _ = select.select(list(socks.values()), [], [], 1.0)
            for s in ready:
                try:
                    frame, addr = s.recvfrom(65535)
                except OSError:
                    continue
                if addr[2] == socket.PACKET_OUTGOING:
                    continue          # what we sent ourselves
                with lock:
                    out.write("%s %s\n" % (by_fd[s.fileno()], frame.hex()))
                    out.flush()

    threading.Thread(target=reader, daemon=True).start()
    print("cpu-ports: %d switches" % len(socks), file=sys.stderr, flush=True)
    for line in sys.stdin:
        parts = line.split()
        if len(parts) != 2 or parts[0] not in socks:
            print("cpu-ports: ignored %r" % line[:80], file=sys.stderr, flush=True)
            continue
        try:
            socks[parts[0]].send(bytes.fromhex(parts[1]))
        except (OSError, ValueError) as e:
            print("cpu-ports: %s: %s" % (parts[0], e), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
