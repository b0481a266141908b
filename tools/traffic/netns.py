"""Raw packet sockets inside named network namespaces, from one process.

A socket stays in the namespace it was created in, so the process enters a namespace
(setns on this thread), opens an AF_PACKET socket bound to the interface and comes back.
One process can then send from the source namespace and capture in every host namespace
without forking `ip netns exec` or tcpdump per host.
"""

import ctypes
import fcntl
import os
import socket
import struct

CLONE_NEWNET = 0x40000000
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SIOCGIFHWADDR = 0x8927
SIOCGIFADDR = 0x8915
SO_RCVBUFFORCE = 33

_libc = ctypes.CDLL(None, use_errno=True)


class NetNs:
    """Context manager: this thread runs in network namespace `name` (a name under /run/netns)."""

    def __init__(self, name):
        self.name = name
        self._home = None

    def __enter__(self):
        path = "/run/netns/" + self.name
        if not os.path.exists(path):
            raise LookupError("network namespace %s does not exist (is the lab up?)" % self.name)
        self._home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        fd = os.open(path, os.O_RDONLY)
        try:
            if _libc.setns(fd, CLONE_NEWNET) != 0:
                err = ctypes.get_errno()
                raise OSError(err, "setns(%s): %s" % (self.name, os.strerror(err)))
        finally:
            os.close(fd)
        return self

    def __exit__(self, *exc):
        if _libc.setns(self._home, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns back to the original namespace")
        os.close(self._home)


def packet_socket(ns, iface, rcvbuf=16 << 20):
    """An AF_PACKET raw socket bound to `iface` inside namespace `ns` (None: current one)."""
    def make():
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        try:
            s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf)
        except OSError:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.bind((iface, ETH_P_ALL))
        return s
    if ns is None:
        return make()
    with NetNs(ns):
        return make()


def iface_mac(sock, iface):
    """MAC address of `iface`, asked through a socket in its namespace."""
    info = fcntl.ioctl(sock.fileno(), SIOCGIFHWADDR, struct.pack("256s", iface.encode()[:15]))
    return ":".join("%02x" % b for b in info[18:24])


def iface_ipv4(ns, iface):
    """First IPv4 address of `iface` in namespace `ns`."""
    def ask():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            info = fcntl.ioctl(s.fileno(), SIOCGIFADDR, struct.pack("256s", iface.encode()[:15]))
            return socket.inet_ntoa(info[20:24])
        finally:
            s.close()
    if ns is None:
        return ask()
    with NetNs(ns):
        return ask()
