package org.mcast4ai.agent;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Sends whole Ethernet frames out of one interface, toward the sender the aggregator sits beside: the aggregated
 * ACK a control run (a stall check, a leave, an eviction) produced. The JDK has no packet sockets, so a small
 * Python helper holds one (AF_PACKET) and takes the frames in hex, one a line; it is started on the first frame.
 */
final class FrameOut implements AutoCloseable {
    private static final String HELPER = "import socket,sys\n"
            + "s=socket.socket(socket.AF_PACKET,socket.SOCK_RAW)\n"
            + "s.bind((sys.argv[1],0))\n"
            + "for line in sys.stdin:\n"
            + "    line=line.strip()\n"
            + "    if line:\n"
            + "        s.send(bytes.fromhex(line))\n";

    private final String iface;
    private Process helper;
    private OutputStream in;

    FrameOut(String iface) {
        this.iface = iface;
    }

    /**
     * @param frame a whole Ethernet frame
     * @throws IOException if the helper cannot be started or has gone
     */
    synchronized void send(byte[] frame) throws IOException {
        if (helper == null || !helper.isAlive()) {
            helper = new ProcessBuilder(List.of("python3", "-u", "-c", HELPER, iface))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            in = helper.getOutputStream();
        }
        StringBuilder hex = new StringBuilder(frame.length * 2 + 1);
        for (byte b : frame) {
            hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        in.write(hex.append('\n').toString().getBytes(StandardCharsets.US_ASCII));
        in.flush();
    }

    @Override
    public synchronized void close() {
        if (helper != null) {
            helper.destroy();
            helper = null;
        }
    }
}
