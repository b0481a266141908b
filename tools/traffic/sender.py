"""Send a numbered burst of RoCEv2 packets to a group from inside a host namespace."""

import random
import time

import netns
import roce


V2_ETHERTYPE = b"\x88\xb5"


def v2_hosts(bits, entropy):
    """A version 2 header naming the bit indices in HOST sections (models/header/README.md, 2.1 and 2.2): what a
    sender that writes its own header puts in front of an IPv4 packet to its group, for a per-packet subset."""
    bits = sorted(set(bits))
    if not bits or len(bits) > 124:
        raise ValueError("1 to 124 receivers in HOST sections, not %d" % len(bits))
    out = bytearray([0x28, 0x80, (entropy >> 8) & 0xFF, entropy & 0xFF])
    for i in range(0, len(bits), 31):
        chunk = bits[i:i + 31]
        out.append(0x20 | len(chunk))
        for b in chunk:
            out += bytes([(b >> 8) & 0xFF, b & 0xFF])
    out.append(0)
    return bytes(out)


def send(ns, iface, group, count, qpn, psn_start=None, opcode="ud", gap_us=200,
         payload_size=64, src_ip=None, src_mac=None, v2_header=None):
    """Send `count` packets with PSNs psn_start, psn_start+1, ... (24-bit, wrapping).

    src_mac, if given, replaces the interface's address as the Ethernet source (a BITMAP sender
    stamps its receiver subset there). v2_header, if given, goes between the Ethernet header and the IPv4
    packet (EtherType 0x88B5): a header the sender writes itself.

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
            frame = roce.build(src_mac, src_ip, group, qpn, psn, opcode, payload)
            if v2_header is not None:
                frame = frame[:12] + V2_ETHERTYPE + v2_header + frame[14:]
            frames.append(frame)
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
