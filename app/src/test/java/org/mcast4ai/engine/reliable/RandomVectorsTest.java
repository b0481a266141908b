package org.mcast4ai.engine.reliable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code models/reliable/ack-aggregation-random.json} holds the specification's answers to long random cases
 * (70 and 40 receivers, joins, leaves, stalls), for the datapaths to replay. This test keeps the file equal to
 * what the specification answers; {@code -Dmcast4ai.writeVectors=true} rewrites it after a change of the rules.
 */
class RandomVectorsTest {
    static final Path FILE = Path.of("..", "models", "reliable", "ack-aggregation-random.json");

    static ObjectNode cases() {
        ObjectMapper m = new ObjectMapper();
        ObjectNode root = m.createObjectNode();
        root.put("version", 1);
        root.put("about", "Long random cases answered by org.mcast4ai.engine.reliable.AckAggregator (the format of "
                + "ack-aggregation.json); written by RandomVectorsTest with -Dmcast4ai.writeVectors=true.");
        root.putArray("cases")
                .add(RandomVectors.generate(20261201L, 70, 1200, true))
                .add(RandomVectors.generate(20261202L, 40, 600, false));
        return root;
    }

    @Test
    void theFileHoldsTheSpecificationsAnswers() throws IOException {
        ObjectMapper m = new ObjectMapper();
        JsonNode now = m.readTree(m.writeValueAsString(cases()));
        if (Boolean.getBoolean("mcast4ai.writeVectors")) {
            Files.writeString(FILE, m.writeValueAsString(now) + "\n");
        }
        JsonNode stored = m.readTree(Files.readString(FILE));
        assertEquals(now, stored, "the random vectors are stale: rerun with -Dmcast4ai.writeVectors=true");
    }
}
