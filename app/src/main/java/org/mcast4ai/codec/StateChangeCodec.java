package org.mcast4ai.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupState;
import org.mcast4ai.api.StateChange;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

/** JSON form of a {@link StateChange}: {@code {"state": "INSTALLED", "timeMillis": 1700000000000, "reason": ""}}. */
public final class StateChangeCodec extends JsonCodec<StateChange> {
    static final String STATE = "state";
    static final String TIME = "timeMillis";
    static final String REASON = "reason";

    @Override
    public ObjectNode encode(StateChange change, CodecContext context) {
        return encode(change);
    }

    /**
     * Encodes without a context.
     *
     * @param change the state change
     * @return its JSON object
     */
    static ObjectNode encode(StateChange change) {
        return JsonNodeFactory.instance.objectNode()
                .put(STATE, change.state().name())
                .put(TIME, change.timeMillis())
                .put(REASON, change.reason());
    }

    @Override
    public StateChange decode(ObjectNode json, CodecContext context) {
        String what = "state change";
        ObjectNode obj = JsonFields.object(json, what, STATE, TIME, REASON);
        GroupState state = JsonFields.enumValue(GroupState.class, JsonFields.requiredText(obj, STATE, what), STATE);
        JsonNode time = obj.get(TIME);
        if (time == null || time.isNull()) {
            throw GroupException.invalid(what + " needs \"" + TIME + "\"");
        }
        return new StateChange(state, JsonFields.longValue(time, TIME, what),
                JsonFields.optionalText(obj, REASON, what, ""));
    }
}
