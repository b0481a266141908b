package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.Test;
import org.mcast4ai.api.Endpoint;
import org.onosproject.codec.JsonCodec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.mcast4ai.codec.Fixtures.assertInvalid;
import static org.mcast4ai.codec.Fixtures.json;

class EndpointCodecTest {
    private final Mcast4aiCodecContext context = new Mcast4aiCodecContext();
    private final JsonCodec<Endpoint> codec = context.codec(Endpoint.class);

    @Test
    void encodesHostAndQpnOnlyWhenPresent() {
        assertEquals(json("{'host':'10.0.0.2','qpn':17}"), codec.encode(Endpoint.of("10.0.0.2", 17), context));
        ObjectNode plain = codec.encode(Endpoint.of("10.0.0.2"), context);
        assertEquals(json("{'host':'10.0.0.2'}"), plain);
        assertFalse(plain.has("qpn"));
    }

    @Test
    void roundTrips() {
        for (Endpoint e : new Endpoint[] {Endpoint.of("aa:bb:cc:dd:ee:ff"), Endpoint.of("h/None", 2),
                Endpoint.of("10.0.0.9", Endpoint.MAX_QPN)}) {
            assertEquals(e, codec.decode(codec.encode(e, context), context));
        }
    }

    @Test
    void acceptsPlainHostString() {
        assertEquals(Endpoint.of("10.0.0.5"), EndpointCodec.decodeNode(TextNode.valueOf("10.0.0.5"), "receiver"));
    }

    @Test
    void refusesMalformedEndpoints() {
        assertInvalid(() -> codec.decode(json("{'qpn':1}"), context), "needs \"host\"");
        assertInvalid(() -> codec.decode(json("{'host':'h','qpn':'17'}"), context), "\"qpn\"", "integer");
        assertInvalid(() -> codec.decode(json("{'host':'h','qpn':16777216}"), context), "qpn must be between");
        assertInvalid(() -> codec.decode(json("{'host':'h','qp':1}"), context), "unknown field \"qp\"");
        assertInvalid(() -> codec.decode(json("{'host':7}"), context), "\"host\"", "string");
        assertInvalid(() -> EndpointCodec.decodeNode(json("{'a':[1]}").get("a"), "receivers[0]"), "receivers[0]");
        assertInvalid(() -> EndpointCodec.decodeNode(TextNode.valueOf("  "), "source"), "needs a host");
    }
}
