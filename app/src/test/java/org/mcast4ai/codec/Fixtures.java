package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.Endpoint;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.api.ReplicationMode;
import org.junit.jupiter.api.function.Executable;

import java.io.IOException;
import java.io.UncheckedIOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Shared values and helpers of the codec tests. */
final class Fixtures {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Fixtures() {
    }

    static ObjectNode json(String text) {
        try {
            return (ObjectNode) MAPPER.readTree(text.replace('\'', '"'));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static P2mpGroupRequest request() {
        return P2mpGroupRequest.builder()
                .key(GroupKey.of("tenant-a", "allgather-0"))
                .jobId("slurm-42")
                .source(Endpoint.of("00:00:00:00:00:01/None", 17))
                .addReceiver(Endpoint.of("10.0.0.2"))
                .addReceiver(Endpoint.of("10.0.0.3", 18))
                .mode(ReplicationMode.TREE)
                .reliability(Reliability.NONE)
                .priority(41000)
                .build();
    }

    /** Asserts that the call is refused as INVALID with a message containing every fragment. */
    static void assertInvalid(Executable call, String... fragments) {
        GroupException e = assertThrows(GroupException.class, call);
        assertEquals(GroupException.Kind.INVALID, e.kind(), e.getMessage());
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), "message '" + e.getMessage() + "' should mention '" + f + "'");
        }
    }
}
