package org.mcast4ai.lab;

import org.projectfloodlight.openflow.protocol.OFErrorMsg;
import org.projectfloodlight.openflow.protocol.OFFlowStatsEntry;
import org.projectfloodlight.openflow.protocol.OFFlowStatsReply;
import org.projectfloodlight.openflow.protocol.OFGroupDescStatsEntry;
import org.projectfloodlight.openflow.protocol.OFGroupDescStatsReply;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import static org.mcast4ai.lab.OpenFlowTranslator.OF;

/**
 * The lab's switch access over OpenFlow 1.4 connections it holds to every bridge, as ONOS's OpenFlow provider holds
 * its switch connections: a bundle is a few messages on an open socket instead of an {@code ovs-ofctl} process
 * (tens of milliseconds to start, connect and negotiate each time). Answers {@link #bundle} and the reads
 * {@code dump-flows BRIDGE} and {@code dump-groups BRIDGE} (one line per entry, {@code cookie=0x..} and
 * {@code group_id=N} written as {@code ovs-ofctl} writes them); any other command runs {@code ovs-ofctl}.
 */
public final class OvsOpenFlow implements Ofctl {

    private final Path rundir;
    private final Ofctl fallback = Ofctl.process();
    private final Map<String, OvsConnection> connections = new ConcurrentHashMap<>();
    private volatile FlowRemoved removed = (bridge, cookie, reason) -> { };

    /** Connects to the bridges in {@code $OVS_RUNDIR}, else {@code /var/run/openvswitch}. */
    public OvsOpenFlow() {
        this(Path.of(System.getenv().getOrDefault("OVS_RUNDIR", "/var/run/openvswitch")));
    }

    /**
     * Connects to the bridges whose management sockets are in a directory.
     *
     * @param rundir Open vSwitch's run directory
     */
    public OvsOpenFlow(Path rundir) {
        this.rundir = rundir;
    }

    @Override
    public Result bundle(String bridge, List<SwitchOp> ops) {
        if (ops.isEmpty()) {
            return new Result(0, "", "");
        }
        try {
            OvsConnection c = connection(bridge);
            List<OFMessage> messages = new ArrayList<>(ops.size());
            if (!Ofctl.oneKind(ops)) {
                return new Result(-1, "", Ofctl.MIXED);
            }
            for (SwitchOp op : ops) {
                messages.add(OpenFlowTranslator.message(op, c.xid()));
            }
            String refused = c.bundle(messages);
            return refused == null ? new Result(0, "", "") : new Result(1, "", refused);
        } catch (UnmappedException e) {
            return new Result(-1, "", e.getMessage());
        } catch (IOException e) {
            return new Result(-1, "", e.getMessage());
        }
    }

    @Override
    public void onFlowRemoved(FlowRemoved listener) {
        this.removed = listener;
    }

    @Override
    public Result run(List<String> args, String stdin) {
        if (args.size() == 2 && ("dump-flows".equals(args.get(0)) || "dump-groups".equals(args.get(0)))) {
            try {
                return "dump-flows".equals(args.get(0)) ? dumpFlows(args.get(1)) : dumpGroups(args.get(1));
            } catch (IOException e) {
                return new Result(-1, "", e.getMessage());
            }
        }
        return fallback.run(args, stdin);
    }

    private Result dumpFlows(String bridge) throws IOException {
        OvsConnection c = connection(bridge);
        return dump(c.request(OF.buildFlowStatsRequest().setXid(c.xid()).setTableId(TableId.ALL)
                .setOutPort(OFPort.ANY).setOutGroup(OFGroup.ANY).setCookie(U64.ZERO).setCookieMask(U64.ZERO)
                .setMatch(OF.buildMatch().build()).build()), (m, out) -> {
                    for (OFFlowStatsEntry e : ((OFFlowStatsReply) m).getEntries()) {
                        out.append(" cookie=0x").append(Long.toHexString(e.getCookie().getValue()))
                                .append(", table=").append(e.getTableId().getValue())
                                .append(", priority=").append(e.getPriority()).append('\n');
                    }
                });
    }

    private Result dumpGroups(String bridge) throws IOException {
        OvsConnection c = connection(bridge);
        return dump(c.request(OF.buildGroupDescStatsRequest().setXid(c.xid()).build()), (m, out) -> {
            for (OFGroupDescStatsEntry e : ((OFGroupDescStatsReply) m).getEntries()) {
                out.append(" group_id=").append(Integer.toUnsignedString(e.getGroup().getGroupNumber()))
                        .append(",type=").append(e.getGroupType().toString().toLowerCase(Locale.ROOT))
                        .append(",buckets=").append(e.getBuckets().size()).append('\n');
            }
        });
    }

    // the parts of a multipart reply as ovs-ofctl's lines, or the switch's error
    private static Result dump(List<OFMessage> replies, BiConsumer<OFMessage, StringBuilder> lines) {
        StringBuilder out = new StringBuilder();
        for (OFMessage m : replies) {
            if (m instanceof OFErrorMsg) {
                return new Result(1, "", OvsConnection.describe(m));
            }
            lines.accept(m, out);
        }
        return new Result(0, out.toString(), "");
    }

    // a bridge deleted and created again gets a new socket: a failed connection is replaced at the next use
    private OvsConnection connection(String bridge) throws IOException {
        OvsConnection c = connections.get(bridge);
        if (c != null && c.isOpen()) {
            return c;
        }
        synchronized (this) {
            c = connections.get(bridge);
            if (c == null || !c.isOpen()) {
                try {
                    c = OvsConnection.open(bridge, rundir, (b, cookie, reason) -> removed.removed(b, cookie, reason));
                } catch (IOException e) {
                    throw new IOException("cannot connect to " + bridge + ": " + e.getMessage(), e);
                }
                connections.put(bridge, c);
            }
            return c;
        }
    }

    /** Closes every connection. */
    public void close() {
        connections.values().forEach(OvsConnection::close);
        connections.clear();
    }
}
