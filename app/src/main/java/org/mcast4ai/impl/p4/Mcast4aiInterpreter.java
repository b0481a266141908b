package org.mcast4ai.impl.p4;

import org.onlab.packet.DeserializationException;
import org.onlab.packet.Ethernet;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.driver.AbstractHandlerBehaviour;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions.OutputInstruction;
import org.onosproject.net.packet.DefaultInboundPacket;
import org.onosproject.net.packet.InboundPacket;
import org.onosproject.net.packet.OutboundPacket;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.model.PiPacketMetadataId;
import org.onosproject.net.pi.model.PiPacketOperationType;
import org.onosproject.net.pi.model.PiPipelineInterpreter;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiPacketMetadata;
import org.onosproject.net.pi.runtime.PiPacketOperation;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The interpreter of {@code models/p4/mcast4ai.p4}: ONOS's packet service on a P4 switch. A packet-out becomes a
 * P4Runtime PacketOut whose {@code egress_port} metadata names the port and whose {@code pad} is zero (FLOOD: one
 * per port of the device, the way ONOS's own pipeconfs emulate it); a PacketIn's {@code ingress_port} metadata
 * becomes the connect point.
 * That is all link discovery (LLDP, BDDP) and host learning (ARP, NDP) need. The app writes PI table entries
 * and PI actions only, so ONOS criteria and treatments are never mapped.
 */
public class Mcast4aiInterpreter extends AbstractHandlerBehaviour implements PiPipelineInterpreter {
    /** The packet_out header's field naming the port the frame leaves by. */
    public static final PiPacketMetadataId EGRESS_PORT = PiPacketMetadataId.of("egress_port");
    /** The packet_in header's field naming the port the frame arrived on. */
    public static final PiPacketMetadataId INGRESS_PORT = PiPacketMetadataId.of("ingress_port");
    /** The packet_out header's padding: P4Info lists it as metadata, and a P4Runtime agent may want it set. */
    public static final PiPacketMetadataId PAD = PiPacketMetadataId.of("pad");
    /** v1model's port width, the width of both port fields. */
    public static final int PORT_BITS = 9;
    /** The padding's width. */
    public static final int PAD_BITS = 7;
    private static final ImmutableByteSequence ZERO_PAD = ImmutableByteSequence.ofZeros(1);

    @Override
    public Optional<PiMatchFieldId> mapCriterionType(Criterion.Type type) {
        return Optional.empty();
    }

    @Override
    public Optional<PiTableId> mapFlowRuleTableId(int flowRuleTableId) {
        return Optional.empty();
    }

    @Override
    public PiAction mapTreatment(TrafficTreatment treatment, PiTableId piTableId) throws PiInterpreterException {
        throw new PiInterpreterException("mcast4ai.p4 takes PI actions only; no ONOS treatment maps to table "
                + piTableId);
    }

    @Override
    public Optional<Integer> mapLogicalPortNumber(PortNumber port) {
        return PortNumber.CONTROLLER.equals(port) ? Optional.of(Mcast4aiPipeconf.CPU_PORT) : Optional.empty();
    }

    @Override
    public Collection<PiPacketOperation> mapOutboundPacket(OutboundPacket packet) throws PiInterpreterException {
        TrafficTreatment treatment = packet.treatment();
        List<PiPacketOperation> out = new ArrayList<>();
        for (Instruction i : treatment.allInstructions()) {
            if (i.type() != Instruction.Type.OUTPUT) {
                throw new PiInterpreterException("a packet-out may only name output ports, not " + i);
            }
            PortNumber port = ((OutputInstruction) i).port();
            if (PortNumber.FLOOD.equals(port)) {
                DeviceService devices = handler().get(DeviceService.class);
                for (Port p : devices.getPorts(packet.sendThrough())) {
                    if (!p.number().isLogical() && p.isEnabled()) {
                        out.add(packetOut(packet.data(), p.number().toLong()));
                    }
                }
            } else if (port.isLogical()) {
                throw new PiInterpreterException("a packet-out cannot leave by logical port " + port);
            } else {
                out.add(packetOut(packet.data(), port.toLong()));
            }
        }
        return out;
    }

    private static PiPacketOperation packetOut(ByteBuffer data, long port) throws PiInterpreterException {
        ImmutableByteSequence value;
        try {
            value = ImmutableByteSequence.copyFrom(port).fit(PORT_BITS);
        } catch (ImmutableByteSequence.ByteSequenceTrimException e) {
            throw new PiInterpreterException("port " + port + " does not fit the program's " + PORT_BITS
                    + "-bit port");
        }
        return PiPacketOperation.builder().withType(PiPacketOperationType.PACKET_OUT)
                .withData(ImmutableByteSequence.copyFrom(data.duplicate()))
                .withMetadata(PiPacketMetadata.builder().withId(EGRESS_PORT).withValue(value).build())
                .withMetadata(PiPacketMetadata.builder().withId(PAD).withValue(ZERO_PAD).build())
                .build();
    }

    @Override
    public InboundPacket mapInboundPacket(PiPacketOperation packetIn, DeviceId deviceId)
            throws PiInterpreterException {
        PiPacketMetadata port = packetIn.metadatas().stream().filter(m -> m.id().equals(INGRESS_PORT))
                .findFirst().orElseThrow(() -> new PiInterpreterException("packet-in from " + deviceId
                        + " without " + INGRESS_PORT));
        // the agent may send the value in as few bytes as it needs (P4Runtime's canonical form) or padded
        long number = 0;
        for (byte b : port.value().asArray()) {
            number = number << 8 | (b & 0xFF);
        }
        byte[] frame = packetIn.data().asArray();
        Ethernet eth;
        try {
            eth = Ethernet.deserializer().deserialize(frame, 0, frame.length);
        } catch (DeserializationException e) {
            throw new PiInterpreterException("packet-in from " + deviceId + " is not an Ethernet frame: "
                    + e.getMessage());
        }
        return new DefaultInboundPacket(new ConnectPoint(deviceId, PortNumber.portNumber(number)), eth,
                ByteBuffer.wrap(frame));
    }
}
