package org.mcast4ai.impl.flow;

import com.google.common.hash.Hasher;
import com.google.common.hash.Hashing;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.IndexTableId;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.criteria.Criterion;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The flow id {@code DefaultFlowRule.Builder.fromApp} gives a rule, computed the same way (the application id
 * in the top 16 bits; below it murmur3_32 over the device, the text of each criterion, the priority and the
 * table) with the text of each criterion kept. A fabric's static BITMAP tables repeat a few hundred criteria
 * over thousands of rules, and formatting them (every MAC address byte by byte) again for each rule was most
 * of the cost of deriving the tables after a failure. The ids are exactly fromApp's, so rules already on the
 * switches keep theirs.
 */
public final class AppFlowIds {
    private static final int MAX_TEXTS = 65_536;
    private static final Map<Criterion, String> TEXTS = new ConcurrentHashMap<>();

    private AppFlowIds() {
    }

    /**
     * @param app      owning application
     * @param device   device
     * @param selector the rule's match
     * @param priority priority
     * @param table    table id
     * @return the cookie {@code fromApp(app)} would give the rule
     */
    public static long of(ApplicationId app, DeviceId device, TrafficSelector selector, int priority, int table) {
        Hasher h = Hashing.murmur3_32().newHasher().putUnencodedChars(device.toString());
        for (Criterion c : selector.criteria()) {
            h.putUnencodedChars(text(c));
        }
        int hash = h.putInt(priority).putUnencodedChars(IndexTableId.of(table).toString()).hash().asInt();
        return (long) app.id() << 48 | (hash & 0xffffffffL);
    }

    private static String text(Criterion c) {
        String t = TEXTS.get(c);
        if (t == null) {
            if (TEXTS.size() >= MAX_TEXTS) {
                TEXTS.clear();
            }
            t = c.toString();
            TEXTS.put(c, t);
        }
        return t;
    }
}
