package org.mcast4ai.impl.p4;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.P2mpGroupId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The controller's side of the source leaves' aggregators: a group starts once its switch holds its entries, and
 * again after the switch came back empty; receivers that change are left and joined without restarting the group;
 * ticks reach every started group; a report of stalled receivers becomes the group's report by name.
 */
class P4AggControlTest {
    private static final DeviceId LEAF = DeviceId.deviceId("device:leaf1");
    private final List<String> sent = new ArrayList<>();
    private final List<AggregationReport> reports = new ArrayList<>();
    private final P4AggControl control = new P4AggControl((d, p, f) -> sent.add(d + " " + decode(f)),
            (id, r) -> reports.add(r), () -> 42);

    private static P4AggPlanner.Point point(int index, Map<Integer, Long> keys) {
        Map<Integer, String> names = new java.util.HashMap<>();
        keys.keySet().forEach(s -> names.put(s, "r" + s));
        return new P4AggPlanner.Point(P2mpGroupId.of(9), LEAF, PortNumber.portNumber(1), index, 100, keys, Map.of(),
                names);
    }

    // op, group, slot, psn, key: what the program reads of a frame
    private static String decode(byte[] f) {
        assertEquals(P4AggFrames.LENGTH, f.length);
        ByteBuffer b = ByteBuffer.wrap(f);
        assertEquals(P4AggFrames.ETHER_TYPE, b.getShort(12) & 0xFFFF);
        String[] ops = {"?", "CONFIG", "JOIN", "LEAVE", "TICK", "EVICT", "STALLED", "JOIN_NOW"};
        return ops[f[14]] + " g" + b.getInt(18) + " s" + (f[15] & 0xFF) + " psn" + b.getInt(22) + " key"
                + Long.toHexString(b.getLong(26));
    }

    @Test
    void aGroupStartsOnceItsSwitchHoldsItsEntriesAndAgainAfterTheSwitchCameBack() {
        P4AggPlanner.Point p = point(5, Map.of(0, 0x0a000201100000L, 1, 0x0a000202100001L));
        assertTrue(control.sync(List.of(p), x -> false).isEmpty(), "not before the entries are acknowledged");
        assertTrue(sent.isEmpty());
        assertEquals(List.of(p), control.sync(List.of(p), x -> true));
        assertEquals(List.of("device:leaf1 CONFIG g5 s0 psn100 key9000064",
                "device:leaf1 JOIN g5 s0 psn100 keya000201100000", "device:leaf1 JOIN g5 s1 psn100 keya000202100001"),
                sent);
        assertEquals(Map.of("r0", 100, "r1", 100), reports.get(0).joinPsn(), "both joined, by name");
        sent.clear();
        assertTrue(control.sync(List.of(p), x -> true).isEmpty(), "started once");
        assertTrue(sent.isEmpty());
        control.forget(LEAF);
        assertEquals(List.of(p), control.sync(List.of(p), x -> true), "its registers came back empty");
        assertEquals(3, sent.size());
    }

    @Test
    void receiversThatChangeAreLeftAndJoinedWithoutRestartingTheGroup() {
        control.sync(List.of(point(5, Map.of(0, 1L, 1, 2L))), x -> true);
        sent.clear();
        control.sync(List.of(point(5, Map.of(1, 2L, 2, 3L))), x -> true);
        assertEquals(List.of("device:leaf1 LEAVE g5 s0 psn0 key0", "device:leaf1 JOIN_NOW g5 s2 psn0 key3"), sent,
                "the new one joins where the switch says: the next PSN the sender sends");
    }

    // the switch's answer to a JOIN_NOW, as a packet-in brings it
    private static byte[] joined(int group, int slot, int psn) {
        byte[] f = P4AggFrames.frame(P4AggFrames.JOINED, group, slot, psn, 0);
        return f;
    }

    @Test
    void aReceiverAddedToARunningGroupIsReportedJoinedOnlyAtThePsnTheSwitchPicked() {
        control.sync(List.of(point(5, Map.of(0, 1L))), x -> true);
        reports.clear();
        sent.clear();
        control.sync(List.of(point(5, Map.of(0, 1L, 1, 2L))), x -> true);
        assertEquals(Map.of("r0", 100), reports.get(reports.size() - 1).joinPsn(), "not joined before the switch says");
        control.tick();
        assertTrue(sent.contains("device:leaf1 JOIN_NOW g5 s1 psn0 key2"), "asked again while no answer came: " + sent);
        assertTrue(control.received(LEAF, joined(5, 1, 4711)));
        assertEquals(Map.of("r0", 100, "r1", 4711), reports.get(reports.size() - 1).joinPsn());
        sent.clear();
        control.tick();
        assertEquals(List.of("device:leaf1 TICK g5 s0 psn0 key0"), sent, "answered: not asked again");
        // the record now has its PSN: the next plan carries it and nothing is sent for it
        Map<Integer, String> names = Map.of(0, "r0", 1, "r1");
        P4AggPlanner.Point recorded = new P4AggPlanner.Point(P2mpGroupId.of(9), LEAF, PortNumber.portNumber(1), 5,
                100, Map.of(0, 1L, 1, 2L), Map.of(0, 100, 1, 4711), names);
        sent.clear();
        control.sync(List.of(recorded), x -> true);
        assertTrue(sent.isEmpty(), "nothing to send: " + sent);
        assertEquals(Map.of("r0", 100, "r1", 4711), reports.get(reports.size() - 1).joinPsn());
    }

    @Test
    void aGroupStartedAgainLeavesTheReceiversItsRecordStalledOutAndSaysSo() {
        Map<Integer, String> names = Map.of(0, "r0", 1, "r1", 2, "r2");
        P4AggPlanner.Point p = new P4AggPlanner.Point(P2mpGroupId.of(9), LEAF, PortNumber.portNumber(1), 5, 100,
                Map.of(0, 1L, 1, 2L, 2, 3L), Map.of(), names, List.of(), java.util.Set.of(1));
        control.sync(List.of(p), x -> true);
        assertEquals(List.of("device:leaf1 CONFIG g5 s0 psn100 key9000064", "device:leaf1 JOIN g5 s0 psn100 key1",
                "device:leaf1 JOIN g5 s2 psn100 key3"), sent, "the stalled one is not held to the minimum again");
        assertEquals(Set.of("r1"), reports.get(reports.size() - 1).stalled(), "still stalled out, as recorded");
        assertEquals(0x9000064L, p.configKey(), "the group and its first PSN: the switch keeps a running one");
    }

    @Test
    void aJoinedReportForNoReceiverWaitingChangesNothing() {
        control.sync(List.of(point(5, Map.of(0, 1L))), x -> true);
        reports.clear();
        assertTrue(control.received(LEAF, joined(5, 0, 999)), "consumed: it is an aggregator's");
        assertTrue(control.received(LEAF, joined(5, 7, 999)));
        assertTrue(reports.isEmpty(), "no receiver waited for it: " + reports);
    }

    @Test
    void aSwitchThatCameBackStartsTheGroupWithEveryReceiverAtItsRecordedPsn() {
        control.sync(List.of(point(5, Map.of(0, 1L))), x -> true);
        control.sync(List.of(point(5, Map.of(0, 1L, 1, 2L))), x -> true);
        control.forget(LEAF);
        sent.clear();
        reports.clear();
        control.sync(List.of(point(5, Map.of(0, 1L, 1, 2L))), x -> true);
        assertEquals(List.of("device:leaf1 CONFIG g5 s0 psn100 key9000064", "device:leaf1 JOIN g5 s0 psn100 key1",
                "device:leaf1 JOIN g5 s1 psn100 key2"), sent);
        control.tick();
        assertFalse(sent.stream().anyMatch(f -> f.contains("JOIN_NOW")), "no JOIN_NOW left over: " + sent);
        assertEquals(Map.of("r0", 100, "r1", 100), reports.get(reports.size() - 1).joinPsn());
    }

    @Test
    void ticksReachEveryStartedGroupAndStopWhenItGoes() {
        control.sync(List.of(point(5, Map.of(0, 1L)), point(6, Map.of(0, 1L))), x -> true);
        sent.clear();
        control.tick();
        assertEquals(Set.of("device:leaf1 TICK g5 s0 psn0 key0", "device:leaf1 TICK g6 s0 psn0 key0"),
                Set.copyOf(sent));
        sent.clear();
        control.sync(List.of(point(6, Map.of(0, 1L))), x -> true);
        control.tick();
        assertEquals(List.of("device:leaf1 TICK g6 s0 psn0 key0"), sent);
    }

    @Test
    void aReportOfStalledSlotsBecomesTheGroupsReportByName() {
        control.sync(List.of(point(5, Map.of(0, 1L, 1, 2L, 100, 3L))), x -> true);
        reports.clear();
        byte[] report = P4AggFrames.frame(6, 5, 0, 0, 0);
        report[34 + 15] = 0x02;         // slot 1
        report[34 + 3] = 0x10;          // slot 8 * (15 - 3) + 4 = 100
        assertTrue(control.received(LEAF, report));
        assertEquals(Set.of("r1", "r100"), reports.get(0).stalled());
        assertEquals(42, reports.get(0).timeMillis());
        assertFalse(control.received(LEAF, new byte[60]), "not a report: left for others");
        assertTrue(control.received(DeviceId.deviceId("device:leaf9"), report), "a report for nothing started");
        assertEquals(1, reports.size());
    }
}
