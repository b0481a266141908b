package org.mcast4ai.lab;

import org.onlab.packet.DeserializationException;
import org.onlab.packet.Ethernet;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions.OutputInstruction;
import org.onosproject.net.packet.DefaultInboundPacket;
import org.onosproject.net.packet.DefaultPacketContext;
import org.onosproject.net.packet.OutboundPacket;
import org.onosproject.net.packet.PacketProcessor;
import org.onosproject.net.packet.PacketProcessorEntry;
import org.onosproject.net.packet.PacketServiceAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * ONOS's packet service on the P4 lab, over the switches' CPU ports ({@code tools/lab/lib/cpu_ports.py}, one
 * process for all of them): a packet-out is sent to the switch's CPU port behind the packet_out header mcast4ai.p4
 * declares (the egress port, 9 bits, and 7 of padding: what ONOS's P4Runtime driver encodes through the pipeconf's
 * interpreter for an OUTPUT instruction), and a frame the switch sends its CPU port comes back to the processors,
 * highest priority first, as a packet-in from the port its packet_in header names. Only OUTPUT to a physical port
 * is taken, as the interpreter takes it.
 */
public final class Bmv2PacketService extends PacketServiceAdapter implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Bmv2PacketService.class);
    private final Process process;
    private final OutputStream toPorts;
    private final List<Entry> processors = new CopyOnWriteArrayList<>();
    private final Thread reader;

    private static final class Entry implements PacketProcessorEntry {
        final PacketProcessor processor;
        final int priority;

        Entry(PacketProcessor processor, int priority) {
            this.processor = processor;
            this.priority = priority;
        }

        @Override
        public PacketProcessor processor() {
            return processor;
        }

        @Override
        public int priority() {
            return priority;
        }

        @Override
        public long invocations() {
            return 0;
        }

        @Override
        public long totalNanos() {
            return 0;
        }

        @Override
        public long averageNanos() {
            return 0;
        }
    }

    /**
     * @param fabricFile the P4 fabric's description (each switch's CPU port end)
     * @throws IOException if the CPU ports cannot be opened
     */
    public Bmv2PacketService(Path fabricFile) throws IOException {
        Path helper = helper();
        process = new ProcessBuilder("python3", helper.toString(), "--fabric", fabricFile.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        toPorts = process.getOutputStream();
        reader = new Thread(this::readIn, "mcast4ai-lab-cpu-ports");
        reader.setDaemon(true);
        reader.start();
    }

    @Override
    public void addProcessor(PacketProcessor processor, int priority) {
        processors.add(new Entry(processor, priority));
        processors.sort(Comparator.comparingInt((Entry e) -> e.priority).reversed());
    }

    @Override
    public void removeProcessor(PacketProcessor processor) {
        processors.removeIf(e -> e.processor == processor);
    }

    @Override
    public List<PacketProcessorEntry> getProcessors() {
        return new ArrayList<>(processors);
    }

    @Override
    public void emit(OutboundPacket packet) {
        byte[] frame = new byte[packet.data().remaining()];
        packet.data().duplicate().get(frame);
        for (Instruction i : packet.treatment().allInstructions()) {
            if (i.type() != Instruction.Type.OUTPUT || ((OutputInstruction) i).port().isLogical()) {
                log.warn("packet-out to {} refused: the program's interpreter takes OUTPUT to a port only, not {}",
                        packet.sendThrough(), i);
                return;
            }
        }
        for (Instruction i : packet.treatment().allInstructions()) {
            long port = ((OutputInstruction) i).port().toLong();
            byte[] out = new byte[frame.length + 2];
            out[0] = (byte) (port >> 1);
            out[1] = (byte) ((port & 1) << 7);
            System.arraycopy(frame, 0, out, 2, frame.length);
            String line = packet.sendThrough() + " " + HexFormat.of().formatHex(out) + "\n";
            synchronized (toPorts) {
                try {
                    toPorts.write(line.getBytes(StandardCharsets.US_ASCII));
                    toPorts.flush();
                } catch (IOException e) {
                    log.warn("packet-out to {} not sent: {}", packet.sendThrough(), e.getMessage());
                }
            }
        }
    }

    private void readIn() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.US_ASCII))) {
            String line;
            while ((line = in.readLine()) != null) {
                int sp = line.indexOf(' ');
                if (sp < 0) {
                    continue;
                }
                try {
                    deliver(DeviceId.deviceId(line.substring(0, sp)), HexFormat.of().parseHex(line.substring(sp + 1)));
                } catch (RuntimeException e) {
                    log.warn("packet-in not delivered", e);
                }
            }
        } catch (IOException e) {
            log.debug("CPU ports closed: {}", e.getMessage());
        }
    }

    private void deliver(DeviceId device, byte[] withHeader) {
        if (withHeader.length < 2 + 14) {
            return;
        }
        long port = (withHeader[0] & 0xFF) << 1 | (withHeader[1] & 0xFF) >> 7;
        byte[] frame = new byte[withHeader.length - 2];
        System.arraycopy(withHeader, 2, frame, 0, frame.length);
        Ethernet eth;
        try {
            eth = Ethernet.deserializer().deserialize(frame, 0, frame.length);
        } catch (DeserializationException e) {
            return;
        }
        DefaultInboundPacket in = new DefaultInboundPacket(new ConnectPoint(device, PortNumber.portNumber(port)),
                eth, ByteBuffer.wrap(frame));
        DefaultPacketContext context = new DefaultPacketContext(System.currentTimeMillis(), in, null, false) {
            @Override
            public void send() {
                // the app sends its own frames by emit
            }
        };
        for (Entry e : processors) {
            e.processor.process(context);
        }
    }

    @Override
    public void close() {
        try {
            toPorts.close();
        } catch (IOException e) {
            // gone already
        }
        process.destroy();
    }

    // tools/lab/lib/cpu_ports.py beside the runner's classes (tools/lab/target/...)
    private static Path helper() throws IOException {
        try {
            Path at = Path.of(Bmv2PacketService.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            for (Path p = at; p != null; p = p.getParent()) {
                Path lib = p.resolve("lib").resolve("cpu_ports.py");
                if (p.getFileName() != null && p.getFileName().toString().equals("lab") && lib.toFile().exists()) {
                    return lib;
                }
            }
        } catch (java.net.URISyntaxException | SecurityException e) {
            // below
        }
        Path cwd = Path.of("tools", "lab", "lib", "cpu_ports.py");
        if (cwd.toFile().exists()) {
            return cwd;
        }
        throw new IOException("tools/lab/lib/cpu_ports.py not found beside the lab runner");
    }
}
