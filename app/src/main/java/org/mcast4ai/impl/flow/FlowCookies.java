package org.mcast4ai.impl.flow;

import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;

/**
 * Flow ids (OpenFlow cookies) for rules built per group. ONOS keys stored flow entries by device and flow
 * id, so a rule's id must follow from what identifies it (device, table, priority and match): the same
 * match always gets the same id on every instance, and a replacement or a removal finds the rule it acts
 * on. {@code fromApp} derives the id from the text of the selector, formatting every address with
 * {@code String.format} for every rule built, which was most of the cost of programming a group; these ids
 * mix the numbers directly. The application id sits in the top 16 bits, as {@code fromApp} puts it (ONOS
 * reads a rule's application from there), and a 48-bit hash below.
 */
public final class FlowCookies {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private FlowCookies() {
    }

    /**
     * @param app      owning application
     * @param device   device
     * @param table    table id
     * @param priority priority
     * @param match    the values of the rule's match, in a fixed order per kind of rule
     * @return the cookie
     */
    public static long of(ApplicationId app, DeviceId device, int table, int priority, long... match) {
        // String.hashCode is specified, so the device's part is the same on every instance and JVM
        long h = device.toString().hashCode();
        h = h * GOLDEN + ((long) priority << 8 | table);
        for (long v : match) {
            h = h * GOLDEN + v;
            h ^= h >>> 31;
        }
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 32;
        return ((long) app.id() & 0xffffL) << 48 | (h & 0xffff_ffff_ffffL);
    }
}
