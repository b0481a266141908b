"""RoCEv2 packets for the lab: build with scapy, parse and check fast without it.

Frame: Ethernet(dst = IPv4 multicast MAC of the group, src = sender) / IPv4(dst = group) /
UDP(dport 4791) / BTH(opcode, dqpn, psn) [/ DETH for UD] / payload / ICRC.

scapy.contrib.roce computes the ICRC when a packet is built; `icrc()` below recomputes it
from raw bytes (the same masking rules, IBTA annex A17) so received copies can be checked
without dissecting each one in scapy. tools/traffic/test_roce.py checks the two agree.
"""

import ipaddress
import struct
import zlib

ROCE_PORT = 4791
OPCODES = {"rc": 0x04, "ud": 0x64}   # RC SEND only, UD SEND only (BTH + DETH)
DEFAULT_QKEY = 0x11111111
BTH_LEN = 12
DETH_LEN = 8
ICRC_LEN = 4


def multicast_mac(group):
    """01:00:5e + low 23 bits of the IPv4 group address."""
    a = int(ipaddress.IPv4Address(group))
    if not ipaddress.IPv4Address(group).is_multicast:
        raise ValueError("%s is not an IPv4 multicast address" % group)
    low = a & 0x7FFFFF
    return "01:00:5e:%02x:%02x:%02x" % (low >> 16, (low >> 8) & 0xFF, low & 0xFF)


def preload():
    """Import scapy now (about a second: it reads Wireshark's manufacturer table)."""
    import scapy.contrib.roce  # noqa: F401
    import scapy.layers.inet  # noqa: F401


def build(src_mac, src_ip, group, qpn, psn, opcode="ud", payload=b"", sport=49152, src_qp=1):
    """One RoCEv2 frame as bytes (scapy builds it and computes the ICRC)."""
    from scapy.layers.l2 import Ether
    from scapy.layers.inet import IP, UDP
    from scapy.packet import Raw
    from scapy.contrib.roce import BTH
    code = OPCODES[opcode] if isinstance(opcode, str) else opcode
    body = payload
    if code == OPCODES["ud"]:
        body = struct.pack("!IB", DEFAULT_QKEY, 0) + (src_qp & 0xFFFFFF).to_bytes(3, "big") + payload
    pkt = (Ether(dst=multicast_mac(group), src=src_mac)
           / IP(src=src_ip, dst=group, ttl=64, flags="DF")
           / UDP(sport=sport, dport=ROCE_PORT, chksum=0)
           / BTH(opcode=code, dqpn=qpn & 0xFFFFFF, psn=psn & 0xFFFFFF, ackreq=0)
           / Raw(body))
    return bytes(pkt)


def icrc(ip_packet):
    """ICRC of an IPv4 RoCEv2 packet given from the IP header to the end of the payload
    (ICRC excluded): CRC-32 over 8 bytes of ones + the packet with TOS, TTL, IP checksum,
    UDP checksum and the BTH reserved byte (FECN/BECN/resv6) set to ones; transmitted
    least significant byte first."""
    ihl = (ip_packet[0] & 0x0F) * 4
    b = bytearray(ip_packet)
    b[1] = 0xFF                      # TOS (DSCP/ECN)
    b[8] = 0xFF                      # TTL
    b[10:12] = b"\xff\xff"           # header checksum
    b[ihl + 6:ihl + 8] = b"\xff\xff"  # UDP checksum
    b[ihl + 8 + 4] = 0xFF            # BTH byte 4: FECN, BECN, reserved
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF)


class Parsed:
    """The fields of a received RoCEv2 frame the delivery check needs."""
    __slots__ = ("src_mac", "src_ip", "dst_ip", "opcode", "dqpn", "psn", "icrc_ok")

    def __init__(self, src_mac, src_ip, dst_ip, opcode, dqpn, psn, icrc_ok):
        self.src_mac, self.src_ip, self.dst_ip = src_mac, src_ip, dst_ip
        self.opcode, self.dqpn, self.psn, self.icrc_ok = opcode, dqpn, psn, icrc_ok


def parse(frame):
    """Parse an Ethernet frame; None unless it is IPv4/UDP to port 4791 with a whole BTH."""
    if len(frame) < 14 + 20 + 8 + BTH_LEN + ICRC_LEN:
        return None
    off = 12
    ethertype = struct.unpack_from("!H", frame, off)[0]
    while ethertype in (0x8100, 0x88A8):  # tolerate VLAN tags
        off += 4
        ethertype = struct.unpack_from("!H", frame, off)[0]
    if ethertype != 0x0800:
        return None
    ip0 = off + 2
    ihl = (frame[ip0] & 0x0F) * 4
    total = struct.unpack_from("!H", frame, ip0 + 2)[0]
    if frame[ip0] >> 4 != 4 or frame[ip0 + 9] != 17 or ip0 + total > len(frame):
        return None
    udp = ip0 + ihl
    if struct.unpack_from("!H", frame, udp + 2)[0] != ROCE_PORT:
        return None
    bth = udp + 8
    if ip0 + total < bth + BTH_LEN + ICRC_LEN:
        return None
    ip_bytes = frame[ip0:ip0 + total]
    ok = icrc(ip_bytes[:-ICRC_LEN]) == ip_bytes[-ICRC_LEN:]
    return Parsed(src_mac=":".join("%02x" % x for x in frame[6:12]),
                  src_ip=str(ipaddress.IPv4Address(frame[ip0 + 12:ip0 + 16])),
                  dst_ip=str(ipaddress.IPv4Address(frame[ip0 + 16:ip0 + 20])),
                  opcode=frame[bth],
                  dqpn=int.from_bytes(frame[bth + 5:bth + 8], "big"),
                  psn=int.from_bytes(frame[bth + 9:bth + 12], "big") & 0xFFFFFF,
                  icrc_ok=ok)


def scapy_check(frame):
    """Independent decode with scapy: (opcode, dqpn, psn, icrc_ok) or None if no BTH."""
    from scapy.layers.l2 import Ether
    from scapy.contrib.roce import BTH
    pkt = Ether(frame)
    if BTH not in pkt:
        return None
    bth = pkt[BTH]
    return bth.opcode, bth.dqpn, bth.psn, bth.compute_icrc(None) == struct.pack("!I", bth.icrc)
