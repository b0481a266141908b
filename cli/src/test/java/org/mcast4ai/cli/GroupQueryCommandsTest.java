package org.mcast4ai.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.P2mpGroupId;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** mcast4ai-groups, mcast4ai-group and the completers. */
class GroupQueryCommandsTest extends CommandTestBase {

    @Test
    void listsOneLinePerGroupWithFilters() throws Exception {
        create("t1", "a", "10.0.0.2");
        create("t1", "b", "10.0.0.3", "10.0.0.4");
        create("t2", "c", "10.0.0.5");
        groups.withdraw(P2mpGroupId.of(2));

        Output all = run(new GroupsListCommand());
        assertEquals(3, all.out.lines().count(), all.out);
        assertTrue(all.out.lines().findFirst().orElseThrow().startsWith(
                "id=1 key=t1/a job=- state=INSTALLED mode=TREE address=239.1.0.1 "
                        + "source=10.0.0.1 receivers=1"), all.out);

        GroupsListCommand byTenant = new GroupsListCommand();
        byTenant.tenant = "t1";
        assertEquals(2, run(byTenant).out.lines().count());

        GroupsListCommand byState = new GroupsListCommand();
        byState.state = "withdrawn";
        Output withdrawn = run(byState);
        assertEquals(1, withdrawn.out.lines().count());
        assertTrue(withdrawn.out.startsWith("id=2 "), withdrawn.out);
    }

    @Test
    void listJsonIsAnArrayOfGroups() throws Exception {
        create("t1", "a", "10.0.0.2");
        create("t2", "b", "10.0.0.3");
        JsonNode array = run(new GroupsListCommand(), true).json();
        assertEquals(2, array.size());
        assertEquals("t2", array.get(1).get("tenant").asText());
    }

    @Test
    void ownerNamesTheInstanceThatProgramsTheGroup() throws Exception {
        long id = create("t1", "a", "10.0.0.2");
        GroupOwnerCommand c = new GroupOwnerCommand();
        c.id = Long.toString(id);
        assertEquals("group " + id + ": owner instance-1 (this instance)\n", run(c).out);
        JsonNode n = run(c, true).json();
        assertEquals(id, n.get("group").asLong());
        assertEquals("instance-1", n.get("owner").asText());
        assertTrue(n.get("here").asBoolean());
        GroupOwnerCommand unknown = new GroupOwnerCommand();
        unknown.id = "9999";
        assertOneErrorLine(run(unknown), "no group 9999");
        GroupOwnerCommand bad = new GroupOwnerCommand();
        bad.id = "x";
        assertOneErrorLine(run(bad), "x");
    }

    @Test
    void treeShowsEachDeviceAndThePathToEachReceiver() throws Exception {
        long id = create("t1", "a", "10.0.0.3", "10.0.0.8");
        GroupTreeCommand c = new GroupTreeCommand();
        c.id = Long.toString(id);
        List<String> lines = run(c).out.lines().collect(java.util.stream.Collectors.toList());
        assertTrue(lines.get(0).startsWith("group " + id + " (TREE): OpenFlow rules"), lines.toString());
        assertTrue(lines.get(1).matches("  \\S+ INGRESS in=\\d+ out=[\\d,]+"), lines.toString());
        int paths = lines.indexOf("paths: 2 of 2 receivers");
        assertTrue(paths > 1, lines.toString());
        String ingress = lines.get(1).trim().split(" ")[0];
        assertTrue(lines.get(paths + 1).startsWith("  10.0.0.3: " + ingress + " > "), lines.toString());
        assertTrue(lines.get(paths + 2).startsWith("  10.0.0.8: " + ingress + " > "), lines.toString());
        JsonNode n = run(c, true).json();
        assertEquals(id, n.get("id").asLong());
        assertEquals(2, n.get("paths").size());
        assertEquals(lines.size() - 4, n.get("devices").size(), "one line per device");
        GroupTreeCommand unknown = new GroupTreeCommand();
        unknown.id = "9999";
        assertOneErrorLine(run(unknown), "no group 9999");
    }

    @Test
    void listRefusesAnUnknownState() throws Exception {
        GroupsListCommand c = new GroupsListCommand();
        c.state = "DONE";
        assertOneErrorLine(run(c), "state must be one of", "DONE");
    }

    @Test
    void showPrintsFieldsHistoryAndTree() throws Exception {
        create("t1", "a", "10.0.0.2", "10.0.0.3#18");
        GroupShowCommand c = new GroupShowCommand();
        c.id = "1";
        String out = run(c).out;
        List<String> lines = out.lines().collect(Collectors.toList());
        assertTrue(lines.contains("state=INSTALLED"), out);
        assertTrue(lines.contains("source: 10.0.0.1"), out);
        assertTrue(lines.contains("receivers (2): 10.0.0.2, 10.0.0.3#qpn=18"), out);
        assertTrue(lines.contains("history:"), out);
        assertTrue(out.contains(" SUBMITTED\n"), out);
        assertTrue(out.contains(" INSTALLED\n"), out);
        // source on leaf 1 (port 11), receivers on leaves 2 and 3 (ports 12 and 13), spine 2 between
        assertTrue(lines.contains("tree (4 devices, 3 links):"), out);
        assertTrue(lines.contains("  of:0000000000000201 in=11 out=[2]"), out);
        assertTrue(lines.contains("  of:0000000000000102 in=1 out=[2, 3]"), out);
        assertTrue(lines.contains("  link of:0000000000000201/2 -> of:0000000000000102/1"), out);
    }

    @Test
    void showOfAWithdrawnGroupSaysNothingIsInstalled() throws Exception {
        create("t1", "a", "10.0.0.2");
        groups.withdraw(P2mpGroupId.of(1));
        GroupShowCommand c = new GroupShowCommand();
        c.id = "1";
        String out = run(c).out;
        assertTrue(out.contains("WITHDRAWN removed the group's entries from its switches"), out);
        assertTrue(out.contains("tree: nothing installed"), out);
    }

    @Test
    void showJsonAddsThePlan() throws Exception {
        create("t1", "a", "10.0.0.2", "10.0.0.3");
        GroupShowCommand c = new GroupShowCommand();
        c.id = "1";
        JsonNode n = run(c, true).json();
        assertEquals(1, n.get("id").asLong());
        assertEquals("SUBMITTED", n.get("history").get(0).get("state").asText());
        assertEquals("of:0000000000000102", n.get("plan").get("devices").get(0).get("deviceId").asText());
        assertEquals(2, n.get("plan").get("devices").get(0).get("outPorts").size(), "the spine copies to two leaves");
    }

    @Test
    void showRefusesUnknownAndMalformedIds() throws Exception {
        GroupShowCommand c = new GroupShowCommand();
        c.id = "42";
        assertOneErrorLine(run(c), "no group 42");
        c.id = "x";
        assertOneErrorLine(run(c), "positive integer", "'x'");
    }

    @Test
    void completersOfferIdsAndStates() throws Exception {
        create("t1", "a", "10.0.0.2");
        create("t1", "b", "10.0.0.3");
        GroupIdCompleter ids = new GroupIdCompleter();
        ids.groupService = groups;
        assertEquals(List.of("1", "2"), ids.choices());
        assertTrue(new GroupStateCompleter().choices().contains("INSTALLED"));
        assertEquals(GroupState.values().length, new GroupStateCompleter().choices().size());
    }
}
