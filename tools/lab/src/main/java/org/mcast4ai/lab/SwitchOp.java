package org.mcast4ai.lab;

import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.group.GroupDescription;

/**
 * One write of a bundle the lab sends to a bridge: a flow rule or group added, modified or deleted, or the flows of
 * one cookie deleted. Both ways of reaching a switch translate it: {@link #line()} for {@code ovs-ofctl},
 * {@link OpenFlowTranslator} for the lab's own OpenFlow connection.
 */
public final class SwitchOp {

    /** What the write does. */
    public enum Kind {
        /** add a flow rule. */
        ADD_FLOW,
        /** new actions for a flow rule's match (modify strict). */
        MODIFY_FLOW,
        /** delete a flow rule: same table, priority, match and cookie (delete strict). */
        DELETE_FLOW,
        /** delete every flow with one cookie. */
        DELETE_COOKIE,
        /** add a group. */
        ADD_GROUP,
        /** new buckets for a group. */
        MODIFY_GROUP,
        /** delete a group. */
        DELETE_GROUP
    }

    private final Kind kind;
    private final FlowRule rule;
    private final long cookie;
    private final int groupId;
    private final GroupDescription group;

    private SwitchOp(Kind kind, FlowRule rule, long cookie, int groupId, GroupDescription group) {
        this.kind = kind;
        this.rule = rule;
        this.cookie = cookie;
        this.groupId = groupId;
        this.group = group;
    }

    /**
     * Returns the write of a flow rule.
     *
     * @param kind ADD_FLOW, MODIFY_FLOW or DELETE_FLOW
     * @param rule the rule
     * @return the write
     */
    public static SwitchOp flow(Kind kind, FlowRule rule) {
        if (kind != Kind.ADD_FLOW && kind != Kind.MODIFY_FLOW && kind != Kind.DELETE_FLOW) {
            throw new IllegalArgumentException(kind + " is not a flow rule write");
        }
        return new SwitchOp(kind, rule, rule.id().value(), 0, null);
    }

    /**
     * Returns the deletion of every flow with a cookie, in every table.
     *
     * @param cookie the cookie (ONOS's flow id)
     * @return the write
     */
    public static SwitchOp deleteCookie(long cookie) {
        return new SwitchOp(Kind.DELETE_COOKIE, null, cookie, 0, null);
    }

    /**
     * Returns the write of a group.
     *
     * @param kind    ADD_GROUP, MODIFY_GROUP or DELETE_GROUP
     * @param groupId OpenFlow group id
     * @param group   its description; null for DELETE_GROUP
     * @return the write
     */
    public static SwitchOp group(Kind kind, int groupId, GroupDescription group) {
        if (kind != Kind.ADD_GROUP && kind != Kind.MODIFY_GROUP && kind != Kind.DELETE_GROUP
                || (group == null) != (kind == Kind.DELETE_GROUP)) {
            throw new IllegalArgumentException(kind + " is not a group write with" + (group == null ? "out" : "")
                    + " a description");
        }
        return new SwitchOp(kind, null, 0, groupId, group);
    }

    /** @return what the write does */
    public Kind kind() {
        return kind;
    }

    /** @return the flow rule, or null for a cookie or group write */
    public FlowRule rule() {
        return rule;
    }

    /** @return the cookie of a flow write */
    public long cookie() {
        return cookie;
    }

    /** @return the OpenFlow group id of a group write */
    public int groupId() {
        return groupId;
    }

    /** @return the group's description, or null */
    public GroupDescription groupDescription() {
        return group;
    }

    /** @return true for a group write (a bundle holds flow writes or group writes, not both) */
    public boolean isGroup() {
        return kind == Kind.ADD_GROUP || kind == Kind.MODIFY_GROUP || kind == Kind.DELETE_GROUP;
    }

    /**
     * Returns the write as a line of {@code ovs-ofctl add-flows} or {@code add-groups} input.
     *
     * @return e.g. {@code add table=0,priority=100,cookie=0x1,in_port=1,actions=output:2}
     * @throws UnmappedException if the rule or group uses something not mapped
     */
    public String line() throws UnmappedException {
        switch (kind) {
            case ADD_FLOW:
                return OfctlTranslator.addLine(rule);
            case MODIFY_FLOW:
                return OfctlTranslator.modifyLine(rule);
            case DELETE_FLOW:
                return OfctlTranslator.deleteLine(rule);
            case DELETE_COOKIE:
                return "delete cookie=0x" + Long.toHexString(cookie) + "/-1";
            case ADD_GROUP:
                return "add " + OfctlTranslator.group(groupId, group);
            case MODIFY_GROUP:
                return "modify " + OfctlTranslator.group(groupId, group);
            default:
                return "delete group_id=" + Integer.toUnsignedString(groupId);
        }
    }
}
