#!/usr/bin/env python3
"""Sender-side encoder of mcast4ai BITMAP subsets.

Given a group's bit map (the JSON of `GET /onos/mcast4ai/groups/{id}/bitmap`, or `mcast4ai-bitmap <id> -j`)
and some of its receivers, prints the Ethernet source address to send with so that exactly those receivers
get a copy: the OR of their bits, encoded as `EthSrcBitmap.stamp` does (receiver bits 0..39 in address
bits 0..39, bits 40..45 in address bits 42..47, address bits 40/41 fixed to unicast + locally administered).
No switch is written: the source leaf passes any stamp that stays within the group's bits.

    subset_stamp.py bitmap.json 00:00:00:00:02:01/None 10.0.3.1
    curl -s .../groups/7/bitmap | subset_stamp.py - HOST...      (no host: the whole group)

A receiver is named as the bit map lists it (as the group request names it: an IP or a host id), or by any
prefix of that name before "/".
"""

import json
import sys

CAPACITY = 46
FIXED_VALUE = 0x02 << 40


def spread(bits):
    """Receiver bits (bit i = receiver bit i) to the 48-bit address value without the fixed bits."""
    if bits < 0 or bits >> CAPACITY:
        raise ValueError("receiver bits beyond %d: 0x%x" % (CAPACITY - 1, bits))
    return (bits & ((1 << 40) - 1)) | ((bits >> 40) << 42)


def stamp(bits):
    """The source MAC (lower-case, colon separated) carrying a receiver set."""
    value = FIXED_VALUE | spread(bits)
    return ":".join("%02x" % ((value >> s) & 0xFF) for s in range(40, -1, -8))


def receiver_bits(bitmap):
    """host -> bit from the bit map JSON; refuses anything but the eth_src carrier."""
    if bitmap.get("carrier") != "eth_src":
        raise ValueError("unsupported carrier %r (this encoder knows eth_src)" % bitmap.get("carrier"))
    return {r["host"]: int(r["bit"]) for r in bitmap["receivers"]}


def subset_bits(bitmap, hosts):
    """OR of the named receivers' bits; all receivers when hosts is empty."""
    table = receiver_bits(bitmap)
    if not hosts:
        return int(bitmap["groupBits"], 16)
    bits = 0
    for h in hosts:
        matches = [k for k in table if k == h or k.split("/")[0].lower() == h.lower()]
        if len(matches) != 1:
            raise ValueError("%s is not a receiver of group %s (receivers: %s)"
                             % (h, bitmap.get("groupId"), ", ".join(table)))
        bits |= 1 << table[matches[0]]
    return bits


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        if argv[1] == "-":
            text = sys.stdin.read()
        else:
            with open(argv[1]) as f:
                text = f.read()
        print(stamp(subset_bits(json.loads(text), argv[2:])))
    except (OSError, ValueError, KeyError) as e:
        print("subset_stamp: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
