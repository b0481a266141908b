package org.mcast4ai.client;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the client reads addresses, endpoints and its command line (no controller needed). */
class ArgumentsTest {

    @Test
    void theControllerIsNamedAsOnosToolsNameIt() {
        assertEquals("http://10.1.1.1:8181/onos/mcast4ai/", Mcast4aiClient.baseUri("10.1.1.1").toString());
        assertEquals("http://onos1:9000/onos/mcast4ai/", Mcast4aiClient.baseUri("onos1:9000").toString());
        assertEquals("http://[fd00::1]:8181/onos/mcast4ai/", Mcast4aiClient.baseUri("fd00::1").toString());
        assertEquals("https://c.example/onos/mcast4ai/",
                Mcast4aiClient.baseUri("https://c.example/onos/mcast4ai").toString());
        assertThrows(IllegalArgumentException.class, () -> Mcast4aiClient.baseUri("http://"));
    }

    @Test
    void endpointsAreSplitOnCommasAndSpaceAndKeepTheirQpn() {
        assertEquals(List.of("10.0.0.2", "10.0.0.3#18", "02:00:00:00:01:01/None"),
                Endpoints.split(" 10.0.0.2,10.0.0.3#18\n02:00:00:00:01:01/None "));
        assertEquals("10.0.0.3", Endpoints.json(new com.fasterxml.jackson.databind.ObjectMapper(), "10.0.0.3#18")
                .get("host").asText());
        assertThrows(IllegalArgumentException.class,
                () -> Endpoints.json(new com.fasterxml.jackson.databind.ObjectMapper(), "10.0.0.3#x"));
        assertEquals("127.0.0.1", Endpoints.host("localhost"), "names resolve as the system resolves them");
        assertThrows(IllegalArgumentException.class, () -> Endpoints.host("no-such-node.invalid"));
    }

    private static int run(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        return Main.execute(args, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of("MCAST4AI_ONOS", "127.0.0.1:9"));
    }

    @Test
    void usageErrorsExitWithTwoBeforeAnyCall() {
        assertEquals(2, run());
        assertEquals(2, run("--bogus", "x", "list"));
        assertEquals(2, run("list", "--tenant", "a", "--tenant", "b"));
        assertEquals(2, run("list", "--frob", "1"));
        assertEquals(2, run("show", "+1"));
        assertEquals(2, run("wait", "3", "--timeout", "0"));
        assertEquals(2, run("create", "--tenant", "t", "--name", "n", "--source", "h", "--receivers", "a",
                "--receivers-file", "f"));
        assertEquals(2, run("withdraw", "--purge=yes", "3"));
        // a well-formed call gets as far as the network
        assertTrue(run("list") == 6);
    }
}
