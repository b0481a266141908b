package org.mcast4ai.lab;

import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.group.GroupBucket;
import org.onosproject.net.group.GroupDescription;

/**
 * The checks both switch paths ({@link OfctlTranslator}, {@link OpenFlowTranslator}) apply before encoding,
 * kept in one place so the two cannot drift apart on what the lab refuses.
 */
final class MappingRules {

    private MappingRules() {
    }

    /**
     * Refuses a group the mapping does not cover: a type other than ALL, INDIRECT or SELECT, an INDIRECT group
     * without exactly one bucket, a watched bucket, or a bucket with more than plain actions.
     *
     * @param groupId OpenFlow group id
     * @param desc    the group
     * @throws UnmappedException naming the group and what is not mapped
     */
    static void checkGroup(int groupId, GroupDescription desc) throws UnmappedException {
        String where = " (group 0x" + Integer.toHexString(groupId) + " on " + desc.deviceId() + ")";
        switch (desc.type()) {
            case ALL:
            case INDIRECT:
            case SELECT:
                break;
            default:
                throw new UnmappedException("group type " + desc.type() + " is not mapped" + where);
        }
        if (desc.type() == GroupDescription.Type.INDIRECT && desc.buckets().buckets().size() != 1) {
            throw new UnmappedException("an INDIRECT group needs exactly one bucket" + where);
        }
        for (GroupBucket b : desc.buckets().buckets()) {
            if (b.watchPort() != null || b.watchGroup() != null) {
                throw new UnmappedException("bucket watch port/group is not mapped" + where);
            }
            TrafficTreatment t = b.treatment();
            if (!t.deferred().isEmpty() || t.tableTransition() != null || t.writeMetadata() != null
                    || t.clearedDeferred()) {
                throw new UnmappedException("a bucket takes actions only, not " + t + where);
            }
        }
    }

    /**
     * Names a rule in an error, or "group bucket" for actions inside a group.
     *
     * @param rule the rule, or null inside a group
     * @return device, table and rule id
     */
    static String describe(FlowRule rule) {
        return rule == null ? "group bucket"
                : rule.deviceId() + " table " + rule.tableId() + " id 0x" + Long.toHexString(rule.id().value());
    }
}
