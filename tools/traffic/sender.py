"""Send a numbered burst of RoCEv2 packets to a group from inside a host namespace."""

import random
import time

import netns
import roce


def send(ns, iface, group, count, qpn, psn_start=None, opcode="ud", gap_us=200,
         payload_size=64, src_ip=None, src_mac=None):
    """Send `count` packets with PSNs psn_start, psn_start+1, ... (24-bit, wrapping).

    src_mac, if given, replaces the interface's address as the Ethernet source (a BITMAP sender
    stamps its receiver subset there).

    Returns a dict describing what was sent (the PSN list included).
    """
    if count < 1 or count > 1 << 23:
        raise ValueError("count must be in 1..%d" % (1 << 23))
    if psn_start is None:
        psn_start = random.randrange(1 << 24)
    sock = netns.packet_socket(ns, iface, rcvbuf=1 << 16)
    try:
        if src_mac is None:
            src_mac = netns.iface_mac(sock, iface)
        if src_ip is None:
            src_ip = netns.iface_ipv4(ns, iface)
        psns = [(psn_start + i) & 0xFFFFFF for i in range(count)]
        frames = []
        for i, psn in enumerate(psns):
            payload = ("mcast4ai psn=%d seq=%d " % (psn, i)).encode()
            payload = (payload * (payload_size // len(payload) + 1))[:payload_size]
            frames.append(roce.build(src_mac, src_ip, group, qpn, psn, opcode, payload))
        t0 = time.monotonic()
        for frame in frames:
            sock.send(frame)
            if gap_us:
                time.sleep(gap_us / 1e6)
        elapsed = time.monotonic() - t0
    finally:
        sock.close()
    return {"ns": ns, "iface": iface, "srcMac": src_mac, "srcIp": src_ip, "group": group,
            "qpn": qpn, "opcode": roce.OPCODES.get(opcode, opcode), "sent": count,
            "psnStart": psn_start, "psns": psns, "seconds": round(elapsed, 4)}
