package org.mcast4ai.agent;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One group's entry of the aggregator's {@code agg_groups} map as the kernel holds it (read through the map's BTF):
 * its configuration, its PSNs, its counters and its receivers by slot.
 */
final class Installed {
    /** One receiver slot in use. */
    static final class Slot {
        final int ip;
        final int qpn;
        final boolean stalled;
        // the extended PSN it last acknowledged
        final long acked;

        Slot(int ip, int qpn, boolean stalled, long acked) {
            this.ip = ip;
            this.qpn = qpn;
            this.stalled = stalled;
            this.acked = acked;
        }
    }

    // by the program's event numbers (5 is a stall, not a drop)
    static final String[] DROP_COUNTERS = {null, "dropNonMember", "dropBeyondSent", "dropNakRepeated",
        "dropCnpRate", null, "dropBadIcrc"};

    final boolean configured;
    final long token;
    final int vpIp;
    final int senderIp;
    final int senderQpn;
    final int groupIp;
    final long sentNext;
    final long ackOut;
    final Map<String, Long> counters = new LinkedHashMap<>();
    final Map<Integer, Slot> slots = new LinkedHashMap<>();

    private Installed(JsonNode v) {
        configured = v.path("configured").asInt() != 0;
        token = v.path("token").asLong();
        vpIp = be(v.path("vp_ip").asLong());
        senderIp = be(v.path("sender_ip").asLong());
        senderQpn = v.path("sender_qpn").asInt();
        groupIp = be(v.path("group_ip").asLong());
        sentNext = v.path("sent_next").asLong();
        ackOut = v.path("ack_out").asLong();
        JsonNode c = v.path("c");
        counters.put("acksIn", c.path("acks_in").asLong());
        counters.put("acksOut", c.path("acks_out").asLong());
        counters.put("reAcks", c.path("reacks").asLong());
        counters.put("naksIn", c.path("naks_in").asLong());
        counters.put("naksOut", c.path("naks_out").asLong());
        counters.put("cnpsIn", c.path("cnps_in").asLong());
        counters.put("cnpsOut", c.path("cnps_out").asLong());
        counters.put("stalls", c.path("stalls").asLong());
        counters.put("commonStalls", c.path("common_stalls").asLong());
        JsonNode drops = c.path("drops");
        for (int i = 1; i < DROP_COUNTERS.length; i++) {
            if (DROP_COUNTERS[i] == null) {
                continue;
            }
            counters.put(DROP_COUNTERS[i], drops.path(i).asLong());
        }
        int count = v.path("count").asInt();
        JsonNode rx = v.path("rx");
        for (int s = 0; s < count && s < rx.size(); s++) {
            JsonNode r = rx.get(s);
            if (r.path("used").asInt() != 0) {
                slots.put(s, new Slot(be(r.path("ip").asLong()), r.path("qpn").asInt(),
                        r.path("stalled").asInt() != 0, r.path("acked").asLong()));
            }
        }
    }

    /**
     * @param value the map entry's formatted value, or null
     * @return the entry, or null if there is none
     */
    static Installed of(JsonNode value) {
        return value == null || value.isMissingNode() ? null : new Installed(value);
    }

    // a __u32 that holds an address in network order is shown as the little-endian number of its bytes
    private static int be(long shown) {
        return Integer.reverseBytes((int) shown);
    }
}
