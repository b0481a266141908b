package org.mcast4ai.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** mcast4ai-add-receivers, mcast4ai-remove-receivers, mcast4ai-withdraw, mcast4ai-recompile. */
class GroupChangeCommandsTest extends CommandTestBase {

    private static ReceiversAddCommand add(String id, String... receivers) {
        ReceiversAddCommand c = new ReceiversAddCommand();
        c.id = id;
        c.receivers = List.of(receivers);
        return c;
    }

    private static ReceiversRemoveCommand remove(String id, String... receivers) {
        ReceiversRemoveCommand c = new ReceiversRemoveCommand();
        c.id = id;
        c.receivers = List.of(receivers);
        return c;
    }

    private static GroupWithdrawCommand withdraw(String id, boolean purge) {
        GroupWithdrawCommand c = new GroupWithdrawCommand();
        c.id = id;
        c.purge = purge;
        return c;
    }

    @Test
    void addsReceivers() throws Exception {
        create("t1", "a", "10.0.0.2");
        Output o = run(add("1", "10.0.0.3", "10.0.0.4#7"));
        assertEquals("Group 1 now has 3 receivers, state INSTALLED\n", o.out);
        assertEquals(Set.of(Endpoint.of("10.0.0.2"), Endpoint.of("10.0.0.3"), Endpoint.of("10.0.0.4", 7)),
                stored(1).request().receivers());
        assertEquals(4, run(add("1", "10.0.0.5"), true).json().get("receivers").size());
    }

    @Test
    void refusedAddChangesNothing() throws Exception {
        create("t1", "a", "10.0.0.2");
        P2mpGroup before = stored(1);
        assertEquals("Group 1 now has 1 receivers, state INSTALLED\n", run(add("1", "10.0.0.2")).out,
                "a member added again: a success that changes nothing");
        assertOneErrorLine(run(add("1", "10.0.0.3", "10.0.0.99")), "unknown host 10.0.0.99");
        assertOneErrorLine(run(add("9", "10.0.0.3")), "no group 9");
        assertEquals(before, stored(1));
    }

    @Test
    void removesReceiversAHostWithoutQpnMatchesAnyQpn() throws Exception {
        create("t1", "a", "10.0.0.2", "10.0.0.3#18", "10.0.0.4");
        JsonNode n = run(remove("1", "10.0.0.3"), true).json();
        assertEquals(2, n.get("receivers").size());
        assertEquals(Set.of(Endpoint.of("10.0.0.2"), Endpoint.of("10.0.0.4")), stored(1).request().receivers());
        assertEquals("Group 1 now has 1 receivers, state INSTALLED\n", run(remove("1", "10.0.0.4")).out);
    }

    @Test
    void refusedRemoveChangesNothing() throws Exception {
        create("t1", "a", "10.0.0.2", "10.0.0.3");
        P2mpGroup before = stored(1);
        assertOneErrorLine(run(remove("1", "10.0.0.2", "10.0.0.3")), "withdraw the group instead");
        assertEquals("Group 1 now has 2 receivers, state INSTALLED\n", run(remove("1", "10.0.0.7")).out,
                "a receiver that is not there: a success that changes nothing");
        assertEquals(before, stored(1));
    }

    @Test
    void withdrawKeepsTheRecordPurgeRemovesIt() throws Exception {
        create("t1", "a", "10.0.0.2");
        assertEquals("Group 1 is WITHDRAWN\n", run(withdraw("1", false)).out);
        assertEquals(GroupState.WITHDRAWN, stored(1).state());
        JsonNode n = run(withdraw("1", true), true).json();
        assertTrue(n.get("purged").asBoolean());
        assertEquals("WITHDRAWN", n.get("group").get("state").asText());
        assertFalse(groups.getGroup(P2mpGroupId.of(1)).isPresent());
    }

    @Test
    void purgeWithdrawsALiveGroupFirst() throws Exception {
        create("t1", "a", "10.0.0.2");
        assertEquals("Group 1 withdrawn and purged\n", run(withdraw("1", true)).out);
        assertEquals(0, groups.groupCount());
        assertOneErrorLine(run(withdraw("1", false)), "no group 1");
    }

    @Test
    void purgeOfAGroupStillWithdrawingAsksToRepeat() throws Exception {
        create("t1", "a", "10.0.0.2");
        hosted.flows().autoAck(false);
        assertEquals("Group 1 is WITHDRAWING; purge it again once it is WITHDRAWN\n", run(withdraw("1", true)).out);
        assertEquals(1, groups.groupCount());
        hosted.flows().ackAll();
        assertEquals("Group 1 withdrawn and purged\n", run(withdraw("1", true)).out);
        assertEquals(0, groups.groupCount());
    }

    @Test
    void recompilesALiveGroupOnly() throws Exception {
        create("t1", "a", "10.0.0.2");
        int before = stored(1).history().size();
        GroupRecompileCommand c = new GroupRecompileCommand();
        c.id = "1";
        assertEquals("Group 1 re-compiled, state INSTALLED\n", run(c).out);
        assertTrue(stored(1).history().size() > before);
        groups.withdraw(P2mpGroupId.of(1));
        assertOneErrorLine(run(c), "WITHDRAWN");
    }
}
