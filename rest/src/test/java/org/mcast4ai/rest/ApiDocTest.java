package org.mcast4ai.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.GroupBitmap;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.codec.Mcast4aiCodecs;
import org.onlab.packet.IpAddress;
import org.onosproject.codec.impl.CodecManager;
import org.onosproject.codec.impl.MockCodecContext;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The generated API doc lists every path, and the JSON schemas agree with what the codecs read and write. */
class ApiDocTest extends RestTestBase {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static JsonNode schema(String name) throws IOException {
        try (InputStream in = ApiDocTest.class.getResourceAsStream("/definitions/" + name + ".json")) {
            assertNotNull(in, "schema " + name + " is not on the class path");
            return MAPPER.readTree(in);
        }
    }

    private static Set<String> names(Iterator<String> it) {
        Set<String> s = new TreeSet<>();
        it.forEachRemaining(s::add);
        return s;
    }

    /** A JSON object built from the "example" of every property of a schema. */
    private static ObjectNode example(JsonNode schema) {
        ObjectNode o = MAPPER.createObjectNode();
        schema.get("properties").fields().forEachRemaining(f -> {
            JsonNode p = f.getValue();
            if (p.has("example")) {
                o.set(f.getKey(), p.get("example"));
            } else if ("object".equals(p.path("type").asText())) {
                o.set(f.getKey(), example(p));
            } else if ("array".equals(p.path("type").asText())) {
                o.putArray(f.getKey()).add(example(p.get("items")));
            }
        });
        return o;
    }

    private final MockCodecContext context = new MockCodecContext() {
        private final CodecManager ours = new CodecManager();
        {
            Mcast4aiCodecs.registerAll(ours);
        }

        @Override
        public <T> org.onosproject.codec.JsonCodec<T> codec(Class<T> c) {
            return ours.getCodec(c) != null ? ours.getCodec(c) : super.codec(c);
        }
    };

    @Test
    void swaggerListsEveryPathUnderTheWebContext() throws IOException {
        JsonNode doc = MAPPER.readTree(Files.readAllBytes(Path.of("target", "swagger.json")));
        assertEquals("/onos/mcast4ai", doc.get("basePath").asText());
        assertEquals(Set.of("/groups", "/groups/{id}", "/groups/{id}/receivers", "/groups/{id}/plan",
                "/groups/{id}/bitmap", "/groups/{id}/tree", "/groups/{id}/recompile", "/reconcile",
                "/aggregation", "/aggregation/{id}", "/p4-fabric"),
                names(doc.get("paths").fieldNames()));
        assertEquals(Set.of("get", "post"), names(doc.get("paths").get("/aggregation/{id}").fieldNames()));
        assertEquals(Set.of("get", "post"), names(doc.get("paths").get("/groups").fieldNames()));
        assertEquals(Set.of("post", "delete"), names(doc.get("paths").get("/groups/{id}/receivers").fieldNames()));
        assertTrue(doc.get("definitions").has("GroupRequest"), doc.get("definitions").toString());
        assertTrue(doc.get("definitions").has("Receivers"));
        assertTrue(doc.get("definitions").has("Bitmap"));
    }

    @Test
    void reconcileAnswersExactlyTheFieldsOfItsSchema() throws Exception {
        RestServer.Reply r = call("GET", "reconcile", null);
        assertEquals(200, r.status, r.toString());
        JsonNode schema = schema("Reconcile");
        assertEquals(names(schema.get("properties").fieldNames()), names(r.json().fieldNames()));
        assertEquals(names(schema.get("properties").fieldNames()), texts(schema.get("required")));
    }

    @Test
    void p4FabricAnswersExactlyTheFieldsOfItsSchema() throws Exception {
        RestServer.Reply r = call("GET", "p4-fabric", null);
        assertEquals(200, r.status, r.toString());
        JsonNode schema = schema("P4Fabric");
        assertEquals(names(schema.get("properties").fieldNames()), names(r.json().fieldNames()));
        assertEquals(names(schema.get("properties").fieldNames()), texts(schema.get("required")));
    }

    @Test
    void treeAnswersExactlyTheFieldsOfItsSchema() throws Exception {
        long id = createTree("tree", "10.0.0.3");
        RestServer.Reply r = call("GET", "groups/" + id + "/tree", null);
        assertEquals(200, r.status, r.toString());
        JsonNode schema = schema("Tree");
        assertEquals(names(schema.get("properties").fieldNames()), names(r.json().fieldNames()));
        assertEquals(names(schema.get("properties").fieldNames()), texts(schema.get("required")));
        for (String list : List.of("devices", "links", "paths")) {
            JsonNode item = schema.get("properties").get(list).get("items");
            assertEquals(names(item.get("properties").fieldNames()), names(r.json().get(list).get(0).fieldNames()),
                    list);
            assertEquals(names(item.get("properties").fieldNames()), texts(item.get("required")), list);
        }
    }

    @Test
    void bitmapSchemaListsExactlyTheEncodedFields() throws IOException {
        GroupBitmap bitmap = new GroupBitmap(P2mpGroupId.of(7), GroupBitmap.CARRIER_ETH_SRC,
                Map.of(org.mcast4ai.api.Endpoint.of("10.0.0.3", 18), 2), 0x4L, "02:00:00:00:00:04");
        ObjectNode encoded = context.codec(GroupBitmap.class).encode(bitmap, context);
        // a group on P4 switches: the version 2 headers instead of the Ethernet source stamp
        ObjectNode v2 = context.codec(GroupBitmap.class).encode(new GroupBitmap(P2mpGroupId.of(8),
                Map.of(org.mcast4ai.api.Endpoint.of("10.0.0.3", 18), 1031), List.of("2400c0de210004000a0f00")),
                context);
        JsonNode schema = schema("Bitmap");
        java.util.Set<String> either = new java.util.TreeSet<>(names(encoded.fieldNames()));
        either.addAll(names(v2.fieldNames()));
        java.util.Set<String> both = new java.util.TreeSet<>(names(encoded.fieldNames()));
        both.retainAll(names(v2.fieldNames()));
        assertEquals(names(schema.get("properties").fieldNames()), either);
        assertEquals(both, texts(schema.get("required")));
        JsonNode item = schema.get("properties").get("receivers").get("items");
        assertEquals(names(item.get("properties").fieldNames()), names(encoded.get("receivers").get(0).fieldNames()));
    }

    @Test
    void aggregationSchemasListExactlyTheCodecsFields() throws IOException {
        JsonNode reportSchema = schema("AggregationReport");
        ObjectNode posted = example(reportSchema);
        posted.remove("time"); // the controller's, on output only
        org.mcast4ai.api.AggregationReport report = org.mcast4ai.codec.AggregationReportCodec.decode(posted);
        assertEquals(names(reportSchema.get("properties").fieldNames()),
                names(org.mcast4ai.codec.AggregationReportCodec.encode(report).fieldNames()));
        P2mpGroupRequest request = P2mpGroupRequest.builder().key(org.mcast4ai.api.GroupKey.of("t1", "rc"))
                .source(org.mcast4ai.api.Endpoint.of("10.0.0.1", 51))
                .addReceiver(org.mcast4ai.api.Endpoint.of("10.0.0.2", 18))
                .reliability(org.mcast4ai.api.Reliability.ACK_AGGREGATION).build();
        P2mpGroup group = P2mpGroup.submitted(P2mpGroupId.of(7), request, IpAddress.valueOf("239.255.0.7"), 1,
                org.mcast4ai.api.VirtualPeer.of(IpAddress.valueOf("10.254.0.7"), 5, request.receivers()));
        org.mcast4ai.api.AggregationContext.Member m = new org.mcast4ai.api.AggregationContext.Member("10.0.0.2",
                IpAddress.valueOf("10.0.0.2"), org.onlab.packet.MacAddress.valueOf("02:00:00:00:00:02"), 18, 0,
                0x100000, org.onosproject.net.ConnectPoint.deviceConnectPoint("of:0000000000000001/2"), 5, true);
        ObjectNode encoded = org.mcast4ai.codec.AggregationContextCodec.encode(new org.mcast4ai.api.AggregationContext(
                group, m, List.of(m), List.of(), report));
        JsonNode schema = schema("Aggregation");
        assertEquals(names(schema.get("properties").fieldNames()), names(encoded.fieldNames()));
        assertEquals(names(schema.get("properties").get("receivers").get("items").get("properties").fieldNames()),
                names(encoded.get("receivers").get(0).fieldNames()));
        assertEquals(names(schema.get("properties").get("virtualPeer").get("properties").fieldNames()),
                names(encoded.get("virtualPeer").fieldNames()));
    }

    @Test
    void groupSchemaListsExactlyTheEncodedFields() throws IOException {
        P2mpGroupRequest request = context.codec(P2mpGroupRequest.class)
                .decode(example(schema("GroupRequest")), context);
        P2mpGroup group = P2mpGroup.submitted(P2mpGroupId.of(7), request, IpAddress.valueOf("239.255.0.7"), 1);
        ObjectNode encoded = context.codec(P2mpGroup.class).encode(group, context);
        JsonNode schema = schema("Group");
        assertEquals(names(schema.get("properties").fieldNames()), names(encoded.fieldNames()));
        assertEquals(names(schema.get("properties").fieldNames()), texts(schema.get("required")));
    }

    @Test
    void requestSchemaNamesExactlyTheFieldsTheCodecAccepts() throws IOException {
        JsonNode schema = schema("GroupRequest");
        P2mpGroupRequest request = context.codec(P2mpGroupRequest.class).decode(example(schema), context);
        ObjectNode encoded = context.codec(P2mpGroupRequest.class).encode(request, context);
        assertEquals(names(schema.get("properties").fieldNames()), names(encoded.fieldNames()));
    }

    @Test
    void schemaExamplesAreAcceptedByTheApi() throws Exception {
        RestServer.Reply created = call("POST", "groups", example(schema("GroupRequest")).toString());
        assertEquals(201, created.status, created.toString());
        long other = create("t9", "other", "j", "10.0.0.3");
        RestServer.Reply added = call("POST", "groups/" + other + "/receivers",
                example(schema("Receivers")).toString());
        assertEquals(200, added.status, added.toString());
        assertError(call("GET", "groups/99", null), 404);
        assertEquals(texts(schema("Error").get("required")), names(call("GET", "groups/99", null).json()
                .fieldNames()));
    }

    private static Set<String> texts(JsonNode array) {
        Set<String> s = new TreeSet<>();
        array.forEach(n -> s.add(n.asText()));
        return s;
    }
}
