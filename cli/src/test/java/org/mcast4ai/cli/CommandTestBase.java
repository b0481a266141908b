package org.mcast4ai.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.codec.Mcast4aiCodecs;
import org.mcast4ai.api.P2mpGroupAdminService;
import org.mcast4ai.impl.HostedManager;
import org.onosproject.cli.AbstractShellCommand;
import org.onosproject.codec.impl.CodecManager;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs commands against the real group manager (20 hosts {@code 10.0.0.1} ..., switches that acknowledge at
 * once) and the real codec manager, capturing their output.
 */
abstract class CommandTestBase {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    HostedManager hosted;
    P2mpGroupAdminService groups;
    CodecManager codecs;

    /** What a command printed. */
    static final class Output {
        final String out;
        final String err;

        Output(String out, String err) {
            this.out = out;
            this.err = err;
        }

        JsonNode json() {
            try {
                return MAPPER.readTree(out);
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + out, e);
            }
        }
    }

    @AfterEach
    void stopServices() {
        hosted.close();
    }

    @BeforeEach
    void setUpServices() {
        hosted = HostedManager.withHosts(20, "maxReceiversPerGroup", "8", "maxGroupsPerTenant", "3",
                "addressPool", "239.1.0.0/28");
        groups = hosted.service();
        codecs = new CodecManager();
        codecs.activate();
        Mcast4aiCodecs.registerAll(codecs);
    }

    /** Injects the services as Karaf would, sets -j if asked, runs the command and captures its output. */
    Output run(Mcast4aiCommand command, boolean json) throws ReflectiveOperationException {
        command.groupService = groups;
        command.codecService = codecs;
        Field j = AbstractShellCommand.class.getDeclaredField("json");
        j.setAccessible(true);
        j.setBoolean(command, json);
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            command.doExecute();
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        return new Output(o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    Output run(Mcast4aiCommand command) throws ReflectiveOperationException {
        return run(command, false);
    }

    /** Creates a TREE group through the create command and returns its id. */
    long create(String tenant, String name, String... receivers) throws ReflectiveOperationException {
        GroupCreateCommand c = new GroupCreateCommand();
        c.tenant = tenant;
        c.name = name;
        c.source = "10.0.0.1";
        c.receivers = List.of(receivers);
        c.mode = "TREE";
        return run(c, true).json().get("id").asLong();
    }

    P2mpGroup stored(long id) {
        return groups.getGroup(P2mpGroupId.of(id)).orElseThrow();
    }

    /** Asserts one error line with the fragments, nothing on standard output, and no stack trace. */
    static void assertOneErrorLine(Output o, String... fragments) {
        assertEquals("", o.out, "nothing on standard output");
        String line = o.err.strip();
        assertFalse(line.isEmpty(), "an error line");
        assertFalse(line.contains("\n"), "one line: " + o.err);
        assertTrue(line.startsWith("Error: "), line);
        assertFalse(line.contains("Exception"), line);
        for (String f : fragments) {
            assertTrue(line.contains(f), "'" + line + "' should mention '" + f + "'");
        }
    }
}
