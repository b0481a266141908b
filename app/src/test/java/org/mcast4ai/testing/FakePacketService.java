package org.mcast4ai.testing;

import org.onlab.packet.DeserializationException;
import org.onlab.packet.Ethernet;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.packet.DefaultInboundPacket;
import org.onosproject.net.packet.DefaultPacketContext;
import org.onosproject.net.packet.OutboundPacket;
import org.onosproject.net.packet.PacketProcessor;
import org.onosproject.net.packet.PacketServiceAdapter;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * ONOS's packet service for tests: keeps what was emitted, and delivers a frame as a packet-in to the processors,
 * highest priority first, until one blocks it.
 */
public final class FakePacketService extends PacketServiceAdapter {
    /** Every packet emitted, in order. */
    public final List<OutboundPacket> emitted = new CopyOnWriteArrayList<>();
    private final List<Map.Entry<Integer, PacketProcessor>> processors = new CopyOnWriteArrayList<>();

    @Override
    public void addProcessor(PacketProcessor processor, int priority) {
        processors.add(Map.entry(priority, processor));
        List<Map.Entry<Integer, PacketProcessor>> sorted = new ArrayList<>(processors);
        sorted.sort(Comparator.comparing((Map.Entry<Integer, PacketProcessor> e) -> e.getKey()).reversed());
        processors.clear();
        processors.addAll(sorted);
    }

    @Override
    public void removeProcessor(PacketProcessor processor) {
        processors.removeIf(e -> e.getValue() == processor);
    }

    @Override
    public void emit(OutboundPacket packet) {
        emitted.add(packet);
    }

    /**
     * @param from  where the frame came in
     * @param frame an Ethernet frame
     * @return true if a processor blocked it
     */
    public boolean receive(ConnectPoint from, byte[] frame) {
        Ethernet eth;
        try {
            eth = Ethernet.deserializer().deserialize(frame, 0, frame.length);
        } catch (DeserializationException e) {
            throw new IllegalArgumentException(e);
        }
        DefaultPacketContext context = new DefaultPacketContext(0, new DefaultInboundPacket(from, eth,
                ByteBuffer.wrap(frame)), null, false) {
            @Override
            public void send() {
            }
        };
        for (Map.Entry<Integer, PacketProcessor> e : processors) {
            e.getValue().process(context);
        }
        return context.isHandled();
    }
}
