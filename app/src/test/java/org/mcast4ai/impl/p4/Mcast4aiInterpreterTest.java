package org.mcast4ai.impl.p4;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mcast4ai.testing.TestFabric;
import org.onlab.packet.Ethernet;
import org.onlab.packet.MacAddress;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.driver.Behaviour;
import org.onosproject.net.driver.Driver;
import org.onosproject.net.driver.DriverData;
import org.onosproject.net.driver.DriverHandler;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.packet.DefaultOutboundPacket;
import org.onosproject.net.packet.InboundPacket;
import org.onosproject.net.pi.model.PiPacketMetadataId;
import org.onosproject.net.pi.model.PiPacketMetadataModel;
import org.onosproject.net.pi.model.PiPacketOperationType;
import org.onosproject.net.pi.model.PiPipelineInterpreter.PiInterpreterException;
import org.onosproject.net.pi.model.PiPipelineModel;
import org.onosproject.net.pi.runtime.PiPacketMetadata;
import org.onosproject.net.pi.runtime.PiPacketOperation;
import org.onosproject.p4runtime.model.P4InfoParser;

import java.nio.ByteBuffer;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Packet-in and packet-out through the interpreter, with metadata checked against the program's P4Info (the
 * controller headers p4c declared) rather than against the interpreter's own constants.
 */
class Mcast4aiInterpreterTest {
    private static PiPipelineModel model;
    private final TestFabric fabric = TestFabric.leafSpine();
    private final Mcast4aiInterpreter interpreter = new Mcast4aiInterpreter();

    @BeforeAll
    static void parse() throws Exception {
        model = P4InfoParser.parse(Paths.get("..", "models", "p4", "mcast4ai.p4info.txt").toUri().toURL());
    }

    private static byte[] lldpLikeFrame() {
        Ethernet eth = new Ethernet();
        eth.setSourceMACAddress(MacAddress.valueOf("02:00:00:00:00:01"));
        eth.setDestinationMACAddress(MacAddress.valueOf("01:80:c2:00:00:0e"));
        eth.setEtherType((short) 0x88cc);
        eth.setPayload(new org.onlab.packet.Data(new byte[46]));
        return eth.serialize();
    }

    private static PiPacketMetadataModel metadata(PiPacketOperationType type, String name) {
        return model.packetOperationModel(type).orElseThrow().metadatas().stream()
                .filter(m -> m.id().id().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("P4Info has no " + type + " metadata " + name));
    }

    @Test
    void packetOutCarriesTheEgressPortTheProgramDeclares() throws Exception {
        PiPacketMetadataModel egress = metadata(PiPacketOperationType.PACKET_OUT,
                Mcast4aiInterpreter.EGRESS_PORT.id());
        byte[] frame = lldpLikeFrame();
        Collection<PiPacketOperation> ops = interpreter.mapOutboundPacket(new DefaultOutboundPacket(
                TestFabric.leaf(1), DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(300)).build(),
                ByteBuffer.wrap(frame)));
        assertEquals(1, ops.size());
        PiPacketOperation op = ops.iterator().next();
        assertEquals(PiPacketOperationType.PACKET_OUT, op.type());
        assertArrayEquals(frame, op.data().asArray());
        // every field of the program's packet_out header is set, each within its width
        Map<PiPacketMetadataId, PiPacketMetadata> set = new HashMap<>();
        op.metadatas().forEach(m -> set.put(m.id(), m));
        for (PiPacketMetadataModel f : model.packetOperationModel(PiPacketOperationType.PACKET_OUT).orElseThrow()
                .metadatas()) {
            PiPacketMetadata m = set.remove(f.id());
            assertTrue(m != null, "packet-out sets " + f.id());
            m.value().fit(f.bitWidth());
        }
        assertTrue(set.isEmpty(), "nothing the program does not declare: " + set);
        assertEquals(300, ByteBuffer.wrap(op.metadatas().stream().filter(m -> m.id().equals(egress.id()))
                .findFirst().orElseThrow().value().asArray()).getShort());
    }

    @Test
    void floodIsOnePacketOutPerPortOfTheDevice() throws Exception {
        interpreter.setHandler(handler(fabric.devices));
        Collection<PiPacketOperation> ops = interpreter.mapOutboundPacket(new DefaultOutboundPacket(
                TestFabric.leaf(2), DefaultTrafficTreatment.builder().setOutput(PortNumber.FLOOD).build(),
                ByteBuffer.wrap(lldpLikeFrame())));
        List<Integer> ports = new ArrayList<>();
        for (PiPacketOperation op : ops) {
            ports.add((int) ByteBuffer.wrap(op.metadatas().stream()
                    .filter(m -> m.id().equals(Mcast4aiInterpreter.EGRESS_PORT)).findFirst().orElseThrow()
                    .value().asArray()).getShort());
        }
        // leaf 2 of the 2x4 fabric: host ports 1 and 2, uplinks 3 and 4
        assertEquals(List.of(1, 2, 3, 4), ports);
    }

    @Test
    void whatTheProgramCannotDoIsRefusedWithTheReason() {
        DeviceId leaf = TestFabric.leaf(1);
        PiInterpreterException e = assertThrows(PiInterpreterException.class, () -> interpreter.mapOutboundPacket(
                new DefaultOutboundPacket(leaf, DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(512))
                        .build(), ByteBuffer.wrap(lldpLikeFrame()))));
        assertTrue(e.getMessage().contains("512"), e.getMessage());
        e = assertThrows(PiInterpreterException.class, () -> interpreter.mapOutboundPacket(
                new DefaultOutboundPacket(leaf, DefaultTrafficTreatment.builder().setEthDst(MacAddress.BROADCAST)
                        .setOutput(PortNumber.portNumber(1)).build(), ByteBuffer.wrap(lldpLikeFrame()))));
        assertTrue(e.getMessage().contains("output ports"), e.getMessage());
        assertThrows(PiInterpreterException.class, () -> interpreter.mapOutboundPacket(new DefaultOutboundPacket(
                leaf, DefaultTrafficTreatment.builder().setOutput(PortNumber.IN_PORT).build(),
                ByteBuffer.wrap(lldpLikeFrame()))));
        assertThrows(PiInterpreterException.class, () -> interpreter.mapTreatment(
                DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(1)).build(),
                org.onosproject.net.pi.model.PiTableId.of(P4FabricPlanner.OUT_PORT)));
    }

    @Test
    void packetInNamesItsIngressPortWhateverItsByteLength() throws Exception {
        PiPacketMetadataModel ingress = metadata(PiPacketOperationType.PACKET_IN,
                Mcast4aiInterpreter.INGRESS_PORT.id());
        assertEquals(Mcast4aiInterpreter.PORT_BITS, ingress.bitWidth());
        byte[] frame = lldpLikeFrame();
        for (byte[] value : List.of(new byte[]{7}, new byte[]{0, 7}, new byte[]{1, 7})) {
            PiPacketOperation in = PiPacketOperation.builder().withType(PiPacketOperationType.PACKET_IN)
                    .withData(ImmutableByteSequence.copyFrom(frame))
                    .withMetadata(PiPacketMetadata.builder().withId(ingress.id())
                            .withValue(ImmutableByteSequence.copyFrom(value)).build()).build();
            InboundPacket p = interpreter.mapInboundPacket(in, TestFabric.leaf(3));
            long port = value.length == 2 ? (value[0] << 8) | value[1] : value[0];
            assertEquals(new ConnectPoint(TestFabric.leaf(3), PortNumber.portNumber(port)), p.receivedFrom());
            assertEquals((short) 0x88cc, p.parsed().getEtherType());
            assertArrayEquals(frame, p.unparsed().array());
        }
        PiPacketOperation bare = PiPacketOperation.builder().withType(PiPacketOperationType.PACKET_IN)
                .withData(ImmutableByteSequence.copyFrom(frame)).build();
        assertThrows(PiInterpreterException.class, () -> interpreter.mapInboundPacket(bare, TestFabric.leaf(3)));
    }

    @Test
    void theControllerPortIsTheProgramsCpuPort() {
        assertEquals(Mcast4aiPipeconf.CPU_PORT, interpreter.mapLogicalPortNumber(PortNumber.CONTROLLER).orElseThrow());
        assertTrue(interpreter.mapLogicalPortNumber(PortNumber.FLOOD).isEmpty());
    }

    private static DriverHandler handler(DeviceService devices) {
        return new DriverHandler() {
            @Override
            public Driver driver() {
                throw new UnsupportedOperationException();
            }

            @Override
            public DriverData data() {
                throw new UnsupportedOperationException();
            }

            @Override
            public <T extends Behaviour> T behaviour(Class<T> behaviourClass) {
                throw new UnsupportedOperationException();
            }

            @Override
            public <T> T get(Class<T> serviceClass) {
                return serviceClass.cast(devices);
            }
        };
    }
}
