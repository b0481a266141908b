package org.mcast4ai.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.client.Main;
import org.mcast4ai.impl.HostedManager;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scheduler client's command against the lab's REST server (its realm, the real REST application, the real
 * group manager over switches that acknowledge at once), over real HTTP.
 */
class ClientTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private HostedRest rest;
    private HostedManager hosted;
    private Map<String, String> env;

    /** What one run of the command printed and returned. */
    private static final class Run {
        final int status;
        final String out;
        final String err;

        Run(int status, String out, String err) {
            this.status = status;
            this.out = out;
            this.err = err;
        }

        JsonNode json() throws IOException {
            return MAPPER.readTree(out);
        }

        @Override
        public String toString() {
            return status + " out=" + out + " err=" + err;
        }
    }

    void start(String... config) throws Exception {
        rest = new HostedRest(8, config);
        hosted = rest.hosted;
        // as an operator's shell has it: the address in ONOS's variable, ONOS's default credentials
        env = Map.of("OCI", "127.0.0.1:" + rest.port);
    }

    @BeforeEach
    void setUp() throws Exception {
        start();
    }

    @AfterEach
    void tearDown() {
        if (rest != null) {
            rest.close();
        }
    }

    private Run run(Map<String, String> environment, String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int status = Main.execute(args, new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), environment);
        return new Run(status, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    private Run run(String... args) {
        return run(env, args);
    }

    private Run as(String user, String password, String... args) {
        Map<String, String> e = new java.util.HashMap<>(env);
        e.put("ONOS_WEB_USER", user);
        e.put("ONOS_WEB_PASS", password);
        return run(e, args);
    }

    @Test
    void aJobsGroupFromCreateToPurgeInOneLineEach() throws Exception {
        Run created = run("--json", "create", "--tenant", "t1", "--name", "job-42", "--job-id", "slurm-42",
                "--source", "10.0.0.1", "--receivers", "10.0.0.2,10.0.0.3#18", "--mode", "BITMAP", "--wait");
        assertEquals(0, created.status, created.toString());
        long id = created.json().get("id").asLong();
        assertEquals("INSTALLED", created.json().get("state").asText());

        Run shown = run("show", "--tenant", "t1", "--name", "job-42");
        assertEquals(0, shown.status, shown.toString());
        assertTrue(shown.out.startsWith(id + " t1/job-42 INSTALLED 239."), shown.out);
        Run bitmap = run("--json", "bitmap", Long.toString(id));
        assertEquals(0, bitmap.status, bitmap.toString());
        assertTrue(bitmap.json().has("stampMac"), bitmap.out);

        assertEquals(0, run("add", Long.toString(id), "10.0.0.4", "10.0.0.2").status);
        assertEquals(3, stored(id).request().receivers().size());
        assertEquals(0, run("remove", Long.toString(id), "10.0.0.4", "10.0.0.8").status, "absent: a success");
        assertEquals(2, stored(id).request().receivers().size());
        Run listed = run("--json", "list", "--job-id", "slurm-42");
        assertEquals(1, listed.json().get("groups").size(), listed.out);

        Run purged = run("withdraw", "--tenant", "t1", "--name", "job-42", "--purge");
        assertEquals(0, purged.status, purged.toString());
        assertEquals(id + " purged\n", purged.out);
        assertEquals(0, hosted.service().groupCount());
    }

    @Test
    void receiversComeFromAFileAndAReusedNameJoinsTheGroup(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("hosts");
        Files.writeString(file, "// the job's nodes\n10.0.0.2\n10.0.0.3, 10.0.0.4\n\n");
        Run first = run("--json", "create", "--tenant", "t1", "--name", "ckpt", "--source", "10.0.0.1",
                "--receivers-file", file.toString());
        assertEquals(0, first.status, first.toString());
        long id = first.json().get("id").asLong();
        assertEquals(3, stored(id).request().receivers().size());

        Run again = run("create", "--tenant", "t1", "--name", "ckpt", "--source", "10.0.0.1", "--receivers",
                "10.0.0.5");
        assertEquals(1, again.status, again.toString());
        assertTrue(again.err.contains("409") && again.err.contains("group " + id), again.err);
        Run reused = run("--json", "create", "--tenant", "t1", "--name", "ckpt", "--source", "10.0.0.1",
                "--receivers", "10.0.0.5", "--reuse", "--wait");
        assertEquals(0, reused.status, reused.toString());
        assertEquals(id, reused.json().get("id").asLong());
        assertEquals(4, stored(id).request().receivers().size());
    }

    @Test
    void refusalsAndFailuresHaveTheirExitStatus() throws Exception {
        assertEquals(2, run("create", "--tenant", "t1").status);
        assertEquals(2, run("show", "01").status, "ids are canonical decimal");
        assertEquals(2, run("frobnicate").status);
        Run unknownHost = run("create", "--tenant", "t1", "--name", "g", "--source", "10.0.0.1", "--receivers",
                "10.9.9.9");
        assertEquals(1, unknownHost.status, unknownHost.toString());
        assertTrue(unknownHost.err.contains("400"), unknownHost.err);
        Run missing = run("show", "777");
        assertEquals(1, missing.status);
        assertTrue(missing.err.contains("404 no group 777"), missing.err);
        Run wrong = as("onos", "sticks", "list");
        assertEquals(1, wrong.status);
        assertTrue(wrong.err.contains("401"), wrong.err);
        Run nowhere = run(Map.of("MCAST4AI_ONOS", "127.0.0.1:9"), "list");
        assertEquals(6, nowhere.status, nowhere.toString());
    }

    @Test
    void aTenantUserSeesOnlyItsTenant() throws Exception {
        Run mine = as("alice", "wonder", "--json", "create", "--tenant", "t1", "--name", "a", "--source",
                "10.0.0.1", "--receivers", "10.0.0.2");
        assertEquals(0, mine.status, mine.toString());
        long id = mine.json().get("id").asLong();
        Run theirs = as("bob", "builder", "show", Long.toString(id));
        assertEquals(1, theirs.status);
        assertTrue(theirs.err.contains("404"), theirs.err);
        Run steal = as("bob", "builder", "add", Long.toString(id), "10.0.0.6");
        assertEquals(1, steal.status);
        assertEquals(1, stored(id).request().receivers().size());
        Run create = as("bob", "builder", "create", "--tenant", "t1", "--name", "b", "--source", "10.0.0.1",
                "--receivers", "10.0.0.2");
        assertEquals(1, create.status);
        assertTrue(create.err.contains("403"), create.err);
    }

    @Test
    void waitEndsWithTheGroupsReasonOrATimeout() throws Exception {
        tearDown();
        start("installTimeoutMs", "300");
        hosted.flows().autoAck(false);
        Run failed = run("create", "--tenant", "t1", "--name", "g", "--source", "10.0.0.1", "--receivers",
                "10.0.0.2", "--mode", "TREE", "--wait", "--timeout", "10");
        assertEquals(3, failed.status, failed.toString());
        assertTrue(failed.err.contains("FAILED"), failed.err);

        tearDown();
        start();
        hosted.flows().autoAck(false);
        Run slow = run("create", "--tenant", "t1", "--name", "g", "--source", "10.0.0.1", "--receivers",
                "10.0.0.2", "--mode", "TREE", "--wait", "--timeout", "1");
        assertEquals(5, slow.status, slow.toString());
        assertTrue(slow.err.contains("still INSTALLING"), slow.err);
    }

    private org.mcast4ai.api.P2mpGroup stored(long id) {
        return hosted.service().getGroup(P2mpGroupId.of(id)).orElseThrow();
    }

}
