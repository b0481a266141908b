package org.mcast4ai.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** mcast4ai-bitmap, and the bit map in mcast4ai-group. */
class GroupBitmapCommandTest extends CommandTestBase {

    private long createBitmap() throws ReflectiveOperationException {
        GroupCreateCommand c = new GroupCreateCommand();
        c.tenant = "t1";
        c.name = "b";
        c.source = "10.0.0.1";
        c.receivers = List.of("10.0.0.3", "10.0.0.8");
        c.mode = "BITMAP";
        return run(c, true).json().get("id").asLong();
    }

    @Test
    void printsReceiverBitsAndTheStamp() throws Exception {
        long id = createBitmap();
        GroupBitmapCommand c = new GroupBitmapCommand();
        c.id = Long.toString(id);
        List<String> lines = run(c).out.lines().collect(Collectors.toList());
        assertEquals(List.of("bitmap: carrier=eth_src groupBits=0x10400 stampMac=02:00:00:01:04:00",
                "  bit 10 10.0.0.3", "  bit 16 10.0.0.8"), lines);
    }

    @Test
    void jsonIsTheRestShape() throws Exception {
        long id = createBitmap();
        GroupBitmapCommand c = new GroupBitmapCommand();
        c.id = Long.toString(id);
        JsonNode n = run(c, true).json();
        assertEquals("0x10400", n.get("groupBits").asText());
        assertEquals(16, n.get("receivers").get(1).get("bit").asInt());
    }

    @Test
    void treeGroupIsOneErrorLine() throws Exception {
        long id = create("t1", "a", "10.0.0.2");
        GroupBitmapCommand c = new GroupBitmapCommand();
        c.id = Long.toString(id);
        assertOneErrorLine(run(c), "not BITMAP");
    }

    @Test
    void groupShowsTheBitMapOfABitmapGroupOnly() throws Exception {
        long id = createBitmap();
        GroupShowCommand c = new GroupShowCommand();
        c.id = Long.toString(id);
        String out = run(c).out;
        assertTrue(out.contains("bitmap: carrier=eth_src groupBits=0x10400 stampMac=02:00:00:01:04:00\n"), out);
        assertTrue(out.contains("  bit 16 10.0.0.8\n"), out);
        JsonNode json = run(c, true).json();
        assertEquals("02:00:00:01:04:00", json.get("bitmap").get("stampMac").asText());

        long tree = create("t1", "a", "10.0.0.2");
        GroupShowCommand t = new GroupShowCommand();
        t.id = Long.toString(tree);
        assertFalse(run(t).out.contains("bitmap"));
    }
}
