package org.mcast4ai.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.ReplicationMode;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GroupCreateCommandTest extends CommandTestBase {

    private static GroupCreateCommand command(String... receivers) {
        GroupCreateCommand c = new GroupCreateCommand();
        c.tenant = "t1";
        c.name = "g1";
        c.source = "10.0.0.1";
        c.receivers = List.of(receivers);
        return c;
    }

    @Test
    void createsWithOptionsAndQpns() throws Exception {
        GroupCreateCommand c = command("10.0.0.2", "10.0.0.3#18", "10.0.0.4#qpn=19");
        c.qpn = 17;
        c.mode = "tree";
        c.job = "slurm-42";
        c.priority = 41000;
        Output o = run(c);
        assertEquals("", o.err);
        assertTrue(o.out.startsWith("Created group 1 (t1/g1) address 239.1.0.1 state INSTALLED"), o.out);
        P2mpGroup g = stored(1);
        assertEquals(Endpoint.of("10.0.0.1", 17), g.request().source());
        assertEquals(Set.of(Endpoint.of("10.0.0.2"), Endpoint.of("10.0.0.3", 18), Endpoint.of("10.0.0.4", 19)),
                g.request().receivers());
        assertEquals(ReplicationMode.TREE, g.request().mode());
        assertEquals("slurm-42", g.request().jobId());
        assertEquals(41000, g.request().priority());
    }

    @Test
    void jsonOutputIsTheGroupCodec() throws Exception {
        JsonNode n = run(command("10.0.0.2"), true).json();
        assertEquals(1, n.get("id").asLong());
        assertEquals("t1", n.get("tenant").asText());
        // AUTO on a fabric whose static BITMAP tables are in place
        assertEquals("BITMAP", n.get("effectiveMode").asText());
        assertEquals("INSTALLED", n.get("state").asText());
        assertEquals(stored(1).version(), n.get("version").asLong());
    }

    @Test
    void refusalsPrintOneLineAndCreateNothing() throws Exception {
        assertOneErrorLine(run(command("10.0.0.99")), "unknown host 10.0.0.99");
        assertOneErrorLine(run(command("10.0.0.1")), "also listed as a receiver");
        assertOneErrorLine(run(command("10.0.0.2", "10.0.0.2")), "more than once");
        assertOneErrorLine(run(command("10.0.0.2#x")), "QPN");
        GroupCreateCommand badMode = command("10.0.0.2");
        badMode.mode = "star";
        assertOneErrorLine(run(badMode), "mode must be one of", "TREE");
        GroupCreateCommand badTenant = command("10.0.0.2");
        badTenant.tenant = "a b";
        assertOneErrorLine(run(badTenant), "tenant");
        assertEquals(0, groups.groupCount());
    }

    @Test
    void duplicateKeyIsRefusedAndTheFirstGroupKept() throws Exception {
        run(command("10.0.0.2"));
        P2mpGroup before = stored(1);
        assertOneErrorLine(run(command("10.0.0.3")), "already exists");
        assertEquals(before, stored(1));
        assertEquals(1, groups.groupCount());
    }
}
