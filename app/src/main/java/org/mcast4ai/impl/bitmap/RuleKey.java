package org.mcast4ai.impl.bitmap;

import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficSelector;

import java.util.Objects;

/**
 * What makes a rule the same entry on its switch (device, table, priority, match): a value, not the
 * selector's text, which formats every MAC address of a static table on each sync.
 */
final class RuleKey {
    private final DeviceId device;
    private final int table;
    private final int priority;
    private final TrafficSelector selector;
    private final int hash;

    RuleKey(FlowRule r) {
        this.device = r.deviceId();
        this.table = r.tableId();
        this.priority = r.priority();
        this.selector = r.selector();
        this.hash = Objects.hash(device, table, priority, selector);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RuleKey)) {
            return false;
        }
        RuleKey k = (RuleKey) o;
        return hash == k.hash && table == k.table && priority == k.priority && device.equals(k.device)
                && selector.equals(k.selector);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
