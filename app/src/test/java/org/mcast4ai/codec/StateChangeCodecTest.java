package org.mcast4ai.codec;

import org.junit.jupiter.api.Test;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.StateChange;
import org.onosproject.codec.JsonCodec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mcast4ai.codec.Fixtures.assertInvalid;
import static org.mcast4ai.codec.Fixtures.json;

class StateChangeCodecTest {
    private final Mcast4aiCodecContext context = new Mcast4aiCodecContext();
    private final JsonCodec<StateChange> codec = context.codec(StateChange.class);

    @Test
    void encodesAllFields() {
        StateChange c = new StateChange(GroupState.FAILED, 1_700_000_000_123L, "of:0000000000000001 rejected");
        assertEquals(json("{'state':'FAILED','timeMillis':1700000000123,'reason':'of:0000000000000001 rejected'}"),
                codec.encode(c, context));
    }

    @Test
    void roundTrips() {
        StateChange c = new StateChange(GroupState.INSTALLED, 5L, "");
        assertEquals(c, codec.decode(codec.encode(c, context), context));
    }

    @Test
    void refusesUnknownStateAndMissingTime() {
        assertInvalid(() -> codec.decode(json("{'state':'DONE','timeMillis':1}"), context), "DONE", "INSTALLED");
        assertInvalid(() -> codec.decode(json("{'state':'INSTALLED'}"), context), "timeMillis");
    }
}
