package org.mcast4ai.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.client.ClientException;
import org.mcast4ai.client.Mcast4aiClient;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The aggregation role: the eBPF ACK aggregator on the sender's interface, kept in step with the controller for
 * the ACK_AGGREGATION groups this host sends. Each period it compares what the controller wants (the groups'
 * contexts) with what the kernel holds (the program's map) and programs the difference through control frames:
 * configure a group, join and leave receivers, run the stall check; it frees groups that are gone, and reports
 * every group's counters, stalled receivers and join PSNs. The state lives in pinned maps: a restarted agent finds
 * its groups configured (their tokens in the map) and carries on without touching their PSNs.
 */
public final class Aggregator {
    /** The aggregator's settings. */
    public static final class Settings {
        String iface;
        /** Where the program runs: {@code IF:DIRECTION[@NETNS]}; empty: both directions of the interface. */
        java.util.List<String> attach = new java.util.ArrayList<>();
        String source;
        String agent;
        Path object = Path.of("ebpf/target/ack_agg.o");
        Path pin = Path.of("/sys/fs/bpf/mcast4ai");
        long stallNs = 1_000_000_000L;
        long cnpIntervalNs = 50_000L;
        long nakHoldoffNs = 10_000_000L;
        long reportEveryMs = 500;
    }

    private static final int MAX_GROUPS = 64;
    private static final int SLOTS = 1024;
    private static final int MAX_TICKS = 64;
    private static final int FULL_SCAN_EVERY = 50;

    private final Settings s;
    private final Mcast4aiClient client;
    private final Bpftool bpf;
    private final Consumer<String> log;
    private final ObjectMapper json = new ObjectMapper();
    private final SecureRandom random = new SecureRandom();
    private final Path prog;
    private final Path groupsMap;
    private final Set<Integer> held = new TreeSet<>();
    // the aggregated ACKs control runs produce go to the sender from here
    private final FrameOut toSender;
    private long controlAcks;
    private final Map<Long, Map<String, Integer>> joined = new HashMap<>();
    private final Map<Long, String> lastReport = new HashMap<>();
    private final Map<Long, Long> lastReportAt = new HashMap<>();
    private int valueSize;
    private long rounds;

    /**
     * @param settings what to aggregate where
     * @param client   the controller
     * @param bpf      the kernel's tools
     * @param log      where to say what it does
     */
    public Aggregator(Settings settings, Mcast4aiClient client, Bpftool bpf, Consumer<String> log) {
        this.s = settings;
        this.client = client;
        this.bpf = bpf;
        this.log = log;
        Path dir = settings.pin.resolve("agg-" + settings.iface);
        this.prog = dir.resolve("prog");
        this.groupsMap = dir.resolve("maps").resolve("agg_groups");
        this.toSender = new FrameOut(settings.iface);
    }

    /**
     * Loads the program unless it is pinned, attaches it to both directions of the interface, and learns which
     * groups the map holds (a restart keeps them).
     *
     * @throws IOException if the kernel refuses
     */
    public void start() throws IOException {
        boolean loaded = bpf.loadPinned(s.object, prog, prog.getParent().resolve("maps"));
        java.util.List<String> where = s.attach.isEmpty()
                ? java.util.List.of(s.iface + ":ingress", s.iface + ":egress") : s.attach;
        for (String w : where) {
            int colon = w.indexOf(':');
            int at = w.indexOf('@');
            if (colon <= 0) {
                throw new IllegalArgumentException("--attach takes IF:ingress|egress[@NETNS]; got " + w);
            }
            String dir = w.substring(colon + 1, at < 0 ? w.length() : at);
            if (!dir.equals("ingress") && !dir.equals("egress")) {
                throw new IllegalArgumentException("--attach: direction must be ingress or egress; got " + w);
            }
            bpf.attach(w.substring(0, colon), dir, at < 0 ? null : w.substring(at + 1), prog, "ack_agg", 10);
        }
        valueSize = sizeOf();
        scan();
        log.accept((loaded ? "loaded" : "found") + " the aggregator on " + s.iface + " (" + prog + "); groups held: "
                + held);
    }

    private int sizeOf() throws IOException {
        Bpftool.Result r = bpf.exec(java.util.List.of("bpftool", "-j", "map", "show", "pinned", groupsMap.toString()));
        return json.readTree(r.out).path("bytes_value").asInt();
    }

    private void scan() throws IOException {
        held.clear();
        for (int i = 0; i < MAX_GROUPS; i++) {
            Installed g = Installed.of(bpf.lookup(groupsMap, key(i)));
            if (g != null && g.configured) {
                held.add(i);
            }
        }
    }

    /**
     * One round: what the controller wants against what the kernel holds.
     *
     * @throws ClientException if the controller cannot be asked (the kernel state is left as it is)
     * @throws IOException     if a kernel tool fails
     */
    public void round() throws ClientException, IOException {
        if (++rounds % FULL_SCAN_EVERY == 0) {
            scan();
        }
        Map<Integer, JsonNode> wanted = new LinkedHashMap<>();
        for (JsonNode c : client.aggregations(s.source)) {
            int index = c.path("virtualPeer").path("index").asInt();
            JsonNode other = wanted.putIfAbsent(index, c);
            if (other != null) {
                log.accept("groups " + other.path("groupId") + " and " + c.path("groupId") + " share index " + index
                        + "; serving " + other.path("groupId"));
            }
        }
        for (Map.Entry<Integer, JsonNode> e : wanted.entrySet()) {
            serve(e.getKey(), e.getValue());
        }
        for (Integer index : new TreeSet<>(held)) {
            if (!wanted.containsKey(index)) {
                free(index);
            }
        }
    }

    private void serve(int index, JsonNode c) throws IOException {
        long id = c.path("groupId").asLong();
        JsonNode vp = c.path("virtualPeer");
        JsonNode sender = c.path("sender");
        int vpIp = ip(vp.path("ip").asText());
        int senderIp = ip(sender.path("ip").asText());
        int senderQpn = sender.path("qpn").asInt();
        int groupIp = ip(c.path("groupAddress").asText());
        Installed g = Installed.of(bpf.lookup(groupsMap, key(index)));
        if (g == null) {
            throw new Bpftool.Failure("no entry " + index + " in " + groupsMap);
        }
        if (!g.configured || g.vpIp != vpIp || g.senderIp != senderIp || g.senderQpn != senderQpn
                || g.groupIp != groupIp) {
            if (g.configured) {
                free(index); // another group's leftovers, or this group's sender changed: start clean
            }
            long token = random.nextLong() & Long.MAX_VALUE;
            bpf.run(prog, new ControlFrame(ControlFrame.CONFIG, index, token)
                    .member(vpIp, 0, vp.path("startPsn").asInt())
                    .config(true, senderIp, senderQpn, mac(sender.path("mac").asText()), mac(vp.path("mac").asText()),
                            s.stallNs, s.cnpIntervalNs, s.nakHoldoffNs, groupIp).bytes());
            g = Installed.of(bpf.lookup(groupsMap, key(index)));
            if (g == null || !g.configured || g.vpIp != vpIp) {
                throw new Bpftool.Failure("the aggregator refused group " + id + "'s configuration (index " + index
                        + ")");
            }
            held.add(index);
            joined.remove(id);
            log.accept("group " + id + ": configured at index " + index + ", virtual peer " + vp.path("ip").asText()
                    + ", first PSN " + vp.path("startPsn").asInt());
        }
        held.add(index);
        Map<Integer, JsonNode> want = new HashMap<>();
        for (JsonNode r : c.path("receivers")) {
            want.put(r.path("peerQpn").asInt() & (SLOTS - 1), r);
        }
        Map<String, Integer> joins = joined.computeIfAbsent(id, k -> new HashMap<>());
        boolean changed = false;
        for (Map.Entry<Integer, Installed.Slot> e : g.slots.entrySet()) {
            JsonNode r = want.get(e.getKey());
            // a receiver in the map that the controller does not know joined, and that this run did not join (an
            // earlier run's report was lost), joins again: its PSN is only known once reported
            boolean known = r != null && (r.path("joined").asBoolean() || joins.containsKey(r.path("host").asText()));
            if (r == null || !known || ip(r.path("ip").asText()) != e.getValue().ip
                    || r.path("peerQpn").asInt() != e.getValue().qpn) {
                control(id, new ControlFrame(ControlFrame.LEAVE, index, g.token)
                        .member(e.getValue().ip, e.getValue().qpn, 0).bytes());
                changed = true;
            }
        }
        if (changed) {
            g = Installed.of(bpf.lookup(groupsMap, key(index)));
        }
        Map<Integer, String> evicting = new HashMap<>();
        for (Map.Entry<Integer, Installed.Slot> e : g.slots.entrySet()) {
            JsonNode r = want.get(e.getKey());
            // the controller lost the receiver's path: the others need not wait the stall timeout for it (the
            // program keeps the last active receiver whatever it is told)
            if (r != null && r.path("unreachable").asBoolean() && !e.getValue().stalled) {
                control(id, new ControlFrame(ControlFrame.EVICT, index, g.token)
                        .member(e.getValue().ip, e.getValue().qpn, 0).bytes());
                evicting.put(e.getKey(), r.path("host").asText());
            }
        }
        if (!evicting.isEmpty()) {
            g = Installed.of(bpf.lookup(groupsMap, key(index)));
            // said once, for those the program took (it refuses the last active receiver, every run)
            for (Map.Entry<Integer, String> e : evicting.entrySet()) {
                Installed.Slot now = g.slots.get(e.getKey());
                if (now != null && now.stalled) {
                    log.accept("group " + id + ": " + e.getValue() + " unreachable, no longer waited for");
                }
            }
        }
        int next = (int) (g.sentNext & 0xFFFFFF);
        changed = false;
        for (Map.Entry<Integer, JsonNode> e : want.entrySet()) {
            if (!g.slots.containsKey(e.getKey())) {
                JsonNode r = e.getValue();
                bpf.run(prog, new ControlFrame(ControlFrame.JOIN, index, g.token)
                        .member(ip(r.path("ip").asText()), r.path("peerQpn").asInt(), next).bytes());
                joins.put(r.path("host").asText(), next);
                changed = true;
            }
        }
        for (int t = 0; t < MAX_TICKS; t++) {
            if (control(id, new ControlFrame(ControlFrame.TICK, index, g.token).bytes()) != ControlFrame.AGAIN) {
                break;
            }
        }
        g = Installed.of(bpf.lookup(groupsMap, key(index)));
        report(id, c, g, joins);
    }

    /**
     * Runs a control frame (leave, evict, stall check). When it moves the group's minimum the program writes the
     * aggregated ACK into the run's frame and passes it (TC_ACT_OK): it goes to the sender now, not when the
     * sender's retransmission draws a receiver's next ACK.
     */
    private int control(long id, byte[] frame) throws IOException {
        Bpftool.Run r = bpf.runWithOutput(prog, frame);
        byte[] out = r.out;
        if (r.retval == 0 && out.length >= 14 && out[12] == 0x08 && out[13] == 0x00) {
            toSender.send(out);
            controlAcks++;
            log.accept("group " + id + ": sent the sender the ACK a control run produced (" + controlAcks
                    + " so far)");
        }
        return r.retval;
    }

    private void report(long id, JsonNode c, Installed g, Map<String, Integer> joins) {
        ObjectNode r = json.createObjectNode().put("agent", s.agent);
        ObjectNode counters = r.putObject("counters");
        g.counters.forEach(counters::put);
        Set<String> stalled = new TreeSet<>();
        ObjectNode joinPsn = r.putObject("joinPsn");
        // each joined receiver's last acknowledged PSN: how far it lags the sender, per receiver
        ObjectNode receiverAcked = json.createObjectNode();
        Map<Integer, String> bySlot = new HashMap<>();
        for (JsonNode m : c.path("receivers")) {
            int slot = m.path("peerQpn").asInt() & (SLOTS - 1);
            String h = m.path("host").asText();
            bySlot.put(slot, h);
            Installed.Slot in = g.slots.get(slot);
            if (in != null && in.qpn == m.path("peerQpn").asInt()) {
                // joined here: at the PSN of this run's JOIN, or (an earlier run's) the one the controller holds
                joinPsn.put(h, joins.getOrDefault(h, m.path("joinPsn").asInt()));
                receiverAcked.put(h, in.acked & 0xFFFFFF);
            }
        }
        g.slots.forEach((slot, st) -> {
            if (st.stalled && bySlot.containsKey(slot)) {
                stalled.add(bySlot.get(slot));
            }
        });
        stalled.forEach(r.putArray("stalled")::add);
        r.put("sentNext", g.sentNext & 0xFFFFFF).put("acked", g.ackOut & 0xFFFFFF);
        r.set("receiverAcked", receiverAcked);
        String text = r.toString();
        long now = System.currentTimeMillis();
        if (text.equals(lastReport.get(id)) && now - lastReportAt.getOrDefault(id, 0L) < s.reportEveryMs) {
            return;
        }
        try {
            client.reportAggregation(id, r);
            lastReport.put(id, text);
            lastReportAt.put(id, now);
        } catch (ClientException e) {
            log.accept("group " + id + ": report refused: " + e.getMessage());
        }
    }

    private void free(int index) throws IOException {
        if (valueSize == 0) {
            valueSize = sizeOf();
        }
        bpf.update(groupsMap, key(index), new byte[valueSize]);
        held.remove(index);
        log.accept("freed index " + index);
    }

    private static byte[] key(int index) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(index).array();
    }

    static int ip(String text) throws IOException {
        byte[] a = InetAddress.getByName(text).getAddress();
        if (a.length != 4) {
            throw new Bpftool.Failure("not an IPv4 address: " + text);
        }
        return ByteBuffer.wrap(a).getInt();
    }

    static byte[] mac(String text) {
        String[] p = text.split(":");
        byte[] b = new byte[6];
        for (int i = 0; i < 6; i++) {
            b[i] = (byte) Integer.parseInt(p[i], 16);
        }
        return b;
    }
}
