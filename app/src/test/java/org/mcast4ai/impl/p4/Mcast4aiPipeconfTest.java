package org.mcast4ai.impl.p4;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.mcast4ai.testing.FakePipeconfService;
import org.onosproject.net.behaviour.Pipeliner;
import org.onosproject.net.pi.model.PiActionModel;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiPipelineInterpreter;
import org.onosproject.net.pi.model.PiTableModel;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pipeconf as the bundle carries it: its artifacts are on the class path, its BMv2 JSON and its P4Info come
 * from the same build of the program (same tables and actions), its CPU port is the program's, and the loader
 * registers it once and takes it away again.
 */
class Mcast4aiPipeconfTest {

    @Test
    void theBundledArtifactsAreOneBuildOfTheProgram() throws Exception {
        assertEquals(Mcast4aiPipeconf.ID, Mcast4aiPipeconf.build().id());
        for (Mcast4aiPipeconf.Build b : Mcast4aiPipeconf.Build.values()) {
            PiPipeconf p = Mcast4aiPipeconf.build(b);
            assertEquals(b.id(), p.id());
            oneBuild(p);
            boundsOf(b, p);
        }
    }

    // the P4Info's widths are the build's bounds: the leaf sets, the slot and leaf masks, the uplinks' reach sets
    private static void boundsOf(Mcast4aiPipeconf.Build b, PiPipeconf p) {
        Map<String, Integer> widths = new HashMap<>();
        int reach = 0;
        for (PiTableModel t : p.pipelineModel().tables()) {
            for (PiActionModel a : t.actions()) {
                for (var param : a.params()) {
                    widths.merge(param.id().id(), param.bitWidth(), Math::max);
                }
                if (a.id().id().equals(P4FabricPlanner.SET_UPLINKS)) {
                    reach = (int) a.params().stream().filter(x -> x.id().id().matches("r\\d+")).count();
                }
            }
        }
        assertEquals(b.leafSet(), widths.get("leaves"), b + ": LEAF_SET");
        assertEquals(8 * b.slotBytes(), widths.get("slot_mask"), b + ": SLOT_BYTES");
        assertEquals(8 * b.leafBytes(), widths.get("leaf_mask"), b + ": LEAF_BYTES");
        assertEquals(b.uplinks(), reach, b + ": UPLINKS");
    }

    private static void oneBuild(PiPipeconf p) throws Exception {
        for (PiPipeconf.ExtensionType t : Set.of(PiPipeconf.ExtensionType.P4_INFO_TEXT,
                PiPipeconf.ExtensionType.BMV2_JSON, PiPipeconf.ExtensionType.CPU_PORT_TXT)) {
            assertTrue(p.extension(t).isPresent(), "extension " + t);
        }
        assertTrue(p.hasBehaviour(PiPipelineInterpreter.class));
        assertTrue(p.hasBehaviour(Pipeliner.class));
        JsonNode json;
        try (InputStream in = p.extension(PiPipeconf.ExtensionType.BMV2_JSON).orElseThrow()) {
            json = new ObjectMapper().readTree(in);
        }
        Set<String> jsonTables = new HashSet<>();
        json.get("pipelines").forEach(pl -> pl.get("tables").forEach(t -> jsonTables.add(t.get("name").asText())));
        Set<String> jsonActions = new HashSet<>();
        json.get("actions").forEach(a -> jsonActions.add(a.get("name").asText()));
        int tables = 0;
        for (PiTableModel t : p.pipelineModel().tables()) {
            assertTrue(jsonTables.contains(t.id().id()), "BMv2 JSON has P4Info's table " + t.id());
            for (PiActionModel a : t.actions()) {
                assertTrue(jsonActions.contains(a.id().id()), "BMv2 JSON has P4Info's action " + a.id());
            }
            tables++;
        }
        assertTrue(tables >= P4StaticProgrammer.TABLES.size());
        for (var t : P4StaticProgrammer.TABLES) {
            assertTrue(p.pipelineModel().table(t).isPresent(), "the program has the table the app writes: " + t);
        }
    }

    @Test
    void theCpuPortIsTheOneTheProgramIsCompiledWith() throws Exception {
        String src = Files.readString(Paths.get("..", "models", "p4", "mcast4ai.p4"), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("#define CPU_PORT (\\d+)").matcher(src);
        assertTrue(m.find(), "mcast4ai.p4 defines CPU_PORT");
        assertEquals(Mcast4aiPipeconf.CPU_PORT, Integer.parseInt(m.group(1)));
        try (InputStream in = Mcast4aiPipeconf.build().extension(PiPipeconf.ExtensionType.CPU_PORT_TXT)
                .orElseThrow()) {
            assertEquals(String.valueOf(Mcast4aiPipeconf.CPU_PORT),
                    new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim());
        }
    }

    @Test
    void theLoaderRegistersItOnceAndRemovesItOnDeactivate() {
        FakePipeconfService service = new FakePipeconfService();
        PipeconfLoader loader = new PipeconfLoader();
        loader.pipeconfService = service;
        loader.activate();
        assertTrue(loader.registered());
        for (Mcast4aiPipeconf.Build b : Mcast4aiPipeconf.Build.values()) {
            assertTrue(service.getPipeconf(b.id()).isPresent(), b.toString());
        }
        // a second activation (the app reinstalled) replaces it instead of failing on the duplicate id
        PipeconfLoader again = new PipeconfLoader();
        again.pipeconfService = service;
        again.activate();
        assertTrue(again.registered());
        again.deactivate();
        for (Mcast4aiPipeconf.Build b : Mcast4aiPipeconf.Build.values()) {
            assertFalse(service.getPipeconf(b.id()).isPresent(), b.toString());
        }
    }
}
