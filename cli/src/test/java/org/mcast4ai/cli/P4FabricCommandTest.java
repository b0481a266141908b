package org.mcast4ai.cli;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.P4FabricStatus;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The P4 fabric command prints the loop's status, as text and as JSON, and the problem when there is one. */
class P4FabricCommandTest extends CommandTestBase {

    private Output show(P4FabricStatus status, boolean json) throws ReflectiveOperationException {
        P4FabricCommand c = new P4FabricCommand();
        c.p4Fabric = () -> status;
        return run(c, json);
    }

    @Test
    void printsTheSwitchesAndTheLastRun() throws Exception {
        P4FabricStatus s = new P4FabricStatus(true, List.of("device:leaf1", "device:spine1"), 12, 1_764_000_000_000L,
                3, 1, 0, null, List.of(), List.of(), "org.mcast4ai.p4.bmv2.k48");
        Output text = show(s, false);
        assertTrue(text.out.startsWith("switches=2 pipeconf=org.mcast4ai.p4.bmv2.k48 writer=true runs=12 "
                + "last=2025-11-24T"), text.out);
        assertTrue(text.out.contains("wrote rules=3 removed=1 groups=0"), text.out);
        assertTrue(text.out.contains("  device:leaf1") && text.out.contains("  device:spine1"), text.out);
        assertTrue(!text.out.contains("not programmed"), text.out);
        Output json = show(s, true);
        assertEquals(2, json.json().get("switches").size());
        assertTrue(json.json().get("problem").isNull());
        assertEquals(3, json.json().get("rulesWritten").asInt());
        assertEquals("org.mcast4ai.p4.bmv2.k48", json.json().get("pipeconf").asText());
    }

    @Test
    void marksTheSwitchesThatHaveNotAcknowledgedTheirState() throws Exception {
        P4FabricStatus s = new P4FabricStatus(true, List.of("device:leaf1", "device:leaf2"), 3, 1, 40, 0, 1, null,
                List.of("device:leaf2"));
        Output text = show(s, false);
        assertTrue(text.out.contains("  device:leaf2  static state not acknowledged yet"), text.out);
        assertTrue(!text.out.contains("device:leaf1  static"), text.out);
        assertEquals("device:leaf2", show(s, true).json().get("unacknowledged").get(0).asText());
    }

    @Test
    void marksASwitchThatIsBackAndNotUsedYet() throws Exception {
        P4FabricStatus s = new P4FabricStatus(true, List.of("device:leaf1", "device:spine1"), 3, 1, 6, 0, 1, null,
                List.of("device:spine1"), List.of("device:leaf2/device:spine2", "device:spine1"));
        Output text = show(s, false);
        assertTrue(text.out.contains("  link device:leaf2/device:spine2  back: the others forward through it once "
                + "its ends acknowledged"), text.out);
        assertTrue(text.out.contains("  device:spine1  static state not acknowledged yet  back: the others forward "
                + "through it once it acknowledged"), text.out);
        assertTrue(!text.out.contains("device:leaf1  "), text.out);
        assertEquals("device:spine1", show(s, true).json().get("joining").get(1).asText());
        assertEquals(0, show(new P4FabricStatus(true, List.of(), 1, 1, 0, 0, 0, null), true).json().get("joining")
                .size());
    }

    @Test
    void printsWhyTheSwitchesAreNotProgrammed() throws Exception {
        P4FabricStatus s = new P4FabricStatus(true, List.of("device:leaf1"), 1, 1, 0, 0, 0,
                "switch device:leaf1: 25 uplinks, the program holds 24");
        Output text = show(s, false);
        assertTrue(text.out.contains("not programmed: switch device:leaf1: 25 uplinks, the program holds 24"),
                text.out);
        assertEquals("switch device:leaf1: 25 uplinks, the program holds 24", show(s, true).json().get("problem")
                .asText());
    }
}
