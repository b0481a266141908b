package org.mcast4ai.impl.program;

import org.mcast4ai.api.GroupPlan;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.impl.fabric.FabricView;
import org.mcast4ai.impl.flow.FlowCookies;
import org.onlab.packet.Ethernet;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.TrafficTreatment;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import java.util.function.Predicate;

/**
 * Programs TREE-mode groups on OpenFlow switches: on every switch of a group's tree, one flow rule that
 * matches the group's packets ({@code ETH_TYPE=IPv4, IN_PORT, IPV4_DST=address/32}) and outputs a copy on
 * each out port of the branch (several OUTPUT instructions in the immediate treatment, which OpenFlow 1.3
 * switches execute as one apply-actions list).
 *
 * <p><b>Why one flow rule and not an ALL group plus a flow rule:</b> a flow rule alone replicates, and the
 * {@link FlowRuleService#apply(FlowRuleOperations)} path reports completion through the
 * {@link FlowRuleOperationsContext}: ONOS's {@code FlowRuleManager} calls {@code onSuccess} when every
 * device has completed its batch, and the OpenFlow provider completes a batch on the switch's barrier reply
 * (an error message for a flow-mod of the batch makes it fail, and {@code onError} lists the failed rules).
 * So a group is confirmed within a round trip to its switches. GroupService has no such callback: a group
 * becomes ADDED only on the next group statistics poll (seconds later), which would put that poll under
 * every group's setup latency. A flow rule per switch also halves the entries per switch and per change.
 *
 * <p>Updates are make-before-break: the batch first adds rules on switches new to the tree, then replaces
 * rules on switches whose branch changed (adding a rule with the same match and priority replaces it), and
 * only then removes rules the new tree no longer needs. FlowRuleManager runs the stages in order, each after
 * the previous one is acknowledged.
 *
 * <p>The staging (rules on switches new to the tree, then replacements, then removals) is
 * {@link FlowRuleProgrammer}'s: a rule's flow id is its match, so a branch with the same in port replaces
 * the old rule and one with another in port has the old rule removed last.
 *
 * <p>An ACK_AGGREGATION group has return routes on every switch of its tree, {@link #ackRoutes}: its receivers'
 * acknowledgements go back up the tree to the source's port, taken only from the ports the tree reaches them by,
 * and on a receiver's own port only with that receiver's MAC and IPv4 address as ONOS knows them: an ACK that
 * names a member from anywhere else (another host, another port) dies at the first switch, counted by that
 * switch's rule.
 */
public final class OpenFlowTreeProgrammer extends FlowRuleProgrammer {
    private static final int MAX_TREATMENTS = 4096;
    private static final int MAX_SELECTORS = 16384;
    // mark the cookies of the return routes' rules (ACK), of their drops on a receiver's port (ACD), of the
    // bound receiver (ACS) and of a switch's catch-all drop (ACG)
    private static final long ACK_ROUTE = 0x41434bL;
    private static final long ACK_DROP = 0x414344L;
    private static final long ACK_SOURCE = 0x414353L;
    private static final long ACK_GUARD = 0x414347L;

    /** What the return routes need to know of a switch port the tree reaches a receiver by. */
    public interface Edges {
        /**
         * @param port a switch port
         * @return true if it faces another switch (the fabric's own)
         */
        boolean fabric(ConnectPoint port);

        /**
         * @param port a switch port facing a host
         * @return the host's MAC and IPv4 address as ONOS knows them, or null if it knows none there
         */
        HostAddress host(ConnectPoint port);
    }

    /** A host's MAC and IPv4 address. */
    public static final class HostAddress {
        final MacAddress mac;
        final Ip4Address ip;

        /**
         * @param mac its MAC
         * @param ip  its IPv4 address
         */
        public HostAddress(MacAddress mac, Ip4Address ip) {
            this.mac = Objects.requireNonNull(mac);
            this.ip = Objects.requireNonNull(ip);
        }
    }

    // until the manager says otherwise, every port counts as the fabric's (the return routes then bind ports only)
    private volatile Edges edges = new Edges() {
        @Override
        public boolean fabric(ConnectPoint port) {
            return true;
        }

        @Override
        public HostAddress host(ConnectPoint port) {
            return null;
        }
    };

    // a new DefaultFlowRule.Builder builds an empty selector and treatment as its defaults, which cost a
    // twentieth of a 64-receiver churn cycle; each thread reuses one, and every rule sets all the fields it sets
    private static final ThreadLocal<FlowRule.Builder> BUILDERS = ThreadLocal.withInitial(DefaultFlowRule::builder);

    private final Map<Long, TrafficTreatment> treatments = new ConcurrentHashMap<>();
    private final Map<Long, TrafficSelector> selectors = new ConcurrentHashMap<>();
    private final ApplicationId appId;
    private final Predicate<DeviceId> connected;
    private volatile int tableId;

    public OpenFlowTreeProgrammer(FlowRuleService flowRuleService, ApplicationId appId, int tableId,
                                  Predicate<DeviceId> connected) {
        super(flowRuleService);
        this.appId = appId;
        this.tableId = tableId;
        this.connected = connected;
    }

    /** @param edges which ports face switches, and the host on each port that faces one */
    public void setEdges(Edges edges) {
        this.edges = Objects.requireNonNull(edges);
    }

    /** @param tableId flow table the group rules go into from now on */
    public void setTableId(int tableId) {
        this.tableId = tableId;
    }

    /**
     * The rule a group needs on one device.
     *
     * @param group  the group (address and priority)
     * @param device the device
     * @param branch the device's part of the plan
     * @return the flow rule
     */
    public FlowRule rule(P2mpGroup group, DeviceId device, GroupPlan.Branch branch) {
        return rule(group, device, branch.inPort(), treatment(branch.outPorts()));
    }

    /**
     * The treatment that copies to a set of ports. Treatments are immutable and the same port sets recur
     * across groups (a leaf's host ports, a spine's leaf ports), so sets of ports below 64 are shared, keyed by
     * their bit mask; the cache is bounded.
     */
    private TrafficTreatment treatment(Set<PortNumber> outPorts) {
        long mask = 0;
        for (PortNumber p : outPorts) {
            long n = p.toLong();
            if (n < 0 || n >= Long.SIZE) {
                return build(outPorts);
            }
            mask |= 1L << n;
        }
        return shared(treatments, MAX_TREATMENTS, mask, OpenFlowTreeProgrammer::treatmentOf);
    }

    // the treatment of a port mask: copies to each port set in it, in ascending order
    private static TrafficTreatment treatmentOf(long mask) {
        TrafficTreatment.Builder b = DefaultTrafficTreatment.builder();
        for (long m = mask; m != 0; m &= m - 1) {
            b.setOutput(FabricView.port(Long.numberOfTrailingZeros(m)));
        }
        return b.build();
    }

    // a bounded cache of immutable values built from their key: emptied when full, as they are cheap to build again
    private static <V> V shared(Map<Long, V> cache, int max, long key, LongFunction<V> build) {
        V v = cache.get(key);
        if (v == null) {
            v = build.apply(key);
            if (cache.size() >= max) {
                cache.clear();
            }
            cache.put(key, v);
        }
        return v;
    }

    private static TrafficTreatment build(Set<PortNumber> outPorts) {
        TrafficTreatment.Builder b = DefaultTrafficTreatment.builder();
        for (PortNumber out : outPorts) {
            b.setOutput(out);
        }
        return b.build();
    }

    /**
     * The rule that removes a group's entry from one device: a flow removal is matched on device, table,
     * priority, selector and cookie (OpenFlow DELETE_STRICT), never on the actions, so none are built.
     *
     * @param group  the group
     * @param device the device
     * @param inPort the in port of the entry
     * @return the flow rule to remove
     */
    public FlowRule removal(P2mpGroup group, DeviceId device, PortNumber inPort) {
        return rule(group, device, inPort, DefaultTrafficTreatment.emptyTreatment());
    }

    private FlowRule rule(P2mpGroup group, DeviceId device, PortNumber inPort, TrafficTreatment treatment) {
        int table = tableId;
        int priority = group.request().priority();
        return permanent(device, table, priority, selector(group.address(), inPort), treatment,
                cookie(appId, device, inPort, group.address(), priority, table));
    }

    /**
     * The match of a group's rule on a switch. Most switches of a tree take the group's packets in on the same
     * few port numbers (the uplinks), and building a selector costs more than the rest of the rule, so
     * selectors are shared by address and in port below 65536; the cache is bounded.
     */
    private TrafficSelector selector(IpAddress address, PortNumber inPort) {
        long port = inPort.toLong();
        if (port < 0 || port > 0xffff) {
            return buildSelector(address, inPort);
        }
        long key = (Integer.toUnsignedLong(address.getIp4Address().toInt()) << 16) | port;
        return shared(selectors, MAX_SELECTORS, key, OpenFlowTreeProgrammer::selectorOf);
    }

    // the selector of a cache key: a new group misses the cache on every switch, and building from the key
    // needs no lambda per rule
    private static TrafficSelector selectorOf(long key) {
        return buildSelector(Ip4Address.valueOf((int) (key >>> 16)), FabricView.port(key & 0xffff));
    }

    private static TrafficSelector buildSelector(IpAddress address, PortNumber inPort) {
        return DefaultTrafficSelector.builder()
                .matchEthType(Ethernet.TYPE_IPV4)
                .matchInPort(inPort)
                .matchIPDst(IpPrefix.valueOf(address, 32))
                .build();
    }

    private static FlowRule permanent(DeviceId device, int table, int priority, TrafficSelector selector,
                                      TrafficTreatment treatment, long cookie) {
        return BUILDERS.get().forDevice(device).withSelector(selector).withTreatment(treatment)
                .withPriority(priority).withCookie(cookie).makePermanent().forTable(table).build();
    }

    /**
     * The rule's cookie (its ONOS flow id), from device, table, priority, in port and group address: see
     * {@link FlowCookies}.
     *
     * @param app      application id
     * @param device   device
     * @param inPort   matched in port
     * @param address  group address
     * @param priority rule priority
     * @param table    table id
     * @return the cookie
     */
    public static long cookie(ApplicationId app, DeviceId device, PortNumber inPort, IpAddress address, int priority,
                              int table) {
        return FlowCookies.of(app, device, table, priority, inPort.toLong(), address.getIp4Address().toInt());
    }

    @Override
    public String kind() {
        return TreeBranch.KIND;
    }

    @Override
    public List<FlowRule> rules(P2mpGroup group, DeviceEntry entry) {
        TreeBranch b = (TreeBranch) entry;
        List<FlowRule> rules = Built.of(b, appId, group, tableId);
        if (rules != null) {
            return rules;
        }
        int table = tableId;
        FlowRule data = rule(group, b.device(), b.branch());
        rules = group.peer().isEmpty() ? List.of(data) : withAcks(data, group, b, true);
        if (table == tableId) {
            b.built(new Built(appId, group, table, rules));
        }
        return rules;
    }

    /**
     * The rules built when the entry was installed serve as its handles (ONOS removes by match, so their actions
     * do no harm); an entry read back from the store after a restart has none and gets handles without actions.
     */
    @Override
    protected List<FlowRule> handles(P2mpGroup group, DeviceEntry entry) {
        TreeBranch b = (TreeBranch) entry;
        List<FlowRule> rules = Built.of(b, appId, group, tableId);
        if (rules != null) {
            return rules;
        }
        FlowRule data = removal(group, b.device(), b.branch().inPort());
        return group.peer().isEmpty() ? List.of(data) : withAcks(data, group, b, false);
    }

    private List<FlowRule> withAcks(FlowRule data, P2mpGroup group, TreeBranch b, boolean actions) {
        List<FlowRule> all = new ArrayList<>();
        all.add(data);
        all.addAll(ackRoutes(group, b.device(), b.branch(), actions));
        return all;
    }

    /** An entry's rules with what they depend on besides the entry: the group's match fields and the table. */
    private static final class Built {
        private final ApplicationId app;
        private final IpAddress address;
        private final int priority;
        private final IpAddress peer;
        private final int table;
        private final List<FlowRule> rules;

        Built(ApplicationId app, P2mpGroup group, int table, List<FlowRule> rules) {
            this.app = app;
            this.address = group.address();
            this.priority = group.request().priority();
            this.peer = group.peer().map(p -> p.address()).orElse(null);
            this.table = table;
            this.rules = rules;
        }

        static List<FlowRule> of(TreeBranch b, ApplicationId app, P2mpGroup group, int table) {
            Object o = b.built();
            if (!(o instanceof Built)) {
                return null;
            }
            Built m = (Built) o;
            IpAddress peer = group.peer().map(p -> p.address()).orElse(null);
            return m.table == table && m.app.equals(app) && m.priority == group.request().priority()
                    && m.address.equals(group.address()) && Objects.equals(m.peer, peer) ? m.rules : null;
        }
    }

    /**
     * An ACK_AGGREGATION group's return routes on one switch of its tree: what its receivers send to the virtual
     * peer (ACKs, NAKs, CNPs) leaves by the port the group's packets arrive on, so it climbs the tree back to the
     * source's port, where the aggregation point is. Taken only from the ports the group's copies leave by: from a
     * port facing a switch whatever it carries, from a receiver's port only with the receiver's own MAC and IPv4
     * address (a lower rule drops and counts the rest on that port). A last rule below them drops and counts what
     * reaches the peer's address from any other port. Each match names its in port, so a reroute replaces a rule
     * in place where the port stays and removes it where it goes.
     *
     * @param group   an ACK_AGGREGATION group
     * @param device  a switch of its tree
     * @param branch  its part of the tree there
     * @param actions false for a removal (no actions built)
     * @return the rules
     */
    public List<FlowRule> ackRoutes(P2mpGroup group, DeviceId device, GroupPlan.Branch branch, boolean actions) {
        IpAddress peer = group.peer().orElseThrow().address();
        int vp = peer.getIp4Address().toInt();
        int table = tableId;
        int priority = group.request().priority();
        TrafficTreatment up = actions ? DefaultTrafficTreatment.builder().setOutput(branch.inPort()).build()
                : DefaultTrafficTreatment.emptyTreatment();
        TrafficTreatment drop = DefaultTrafficTreatment.emptyTreatment();
        List<FlowRule> out = new ArrayList<>();
        for (PortNumber child : branch.outPorts()) {
            ConnectPoint cp = new ConnectPoint(device, child);
            TrafficSelector from = toPeer(peer).matchInPort(child).build();
            if (edges.fabric(cp)) {
                out.add(permanent(device, table, priority, from, up,
                        FlowCookies.of(appId, device, table, priority, ACK_ROUTE, child.toLong(), vp)));
                continue;
            }
            out.add(permanent(device, table, priority - 1, from, drop,
                    FlowCookies.of(appId, device, table, priority - 1, ACK_DROP, child.toLong(), vp)));
            HostAddress h = edges.host(cp);
            if (h != null) {
                out.add(permanent(device, table, priority, toPeer(peer).matchInPort(child).matchEthSrc(h.mac)
                                .matchIPSrc(IpPrefix.valueOf(h.ip, 32)).build(), up,
                        FlowCookies.of(appId, device, table, priority, ACK_SOURCE, child.toLong(), vp,
                                h.mac.toLong(), h.ip.toInt())));
            }
        }
        out.add(permanent(device, table, priority - 2, toPeer(peer).build(), drop,
                FlowCookies.of(appId, device, table, priority - 2, ACK_GUARD, vp)));
        return out;
    }

    private static TrafficSelector.Builder toPeer(IpAddress peer) {
        return DefaultTrafficSelector.builder().matchEthType(Ethernet.TYPE_IPV4)
                .matchIPDst(IpPrefix.valueOf(peer, 32));
    }

    /**
     * @param device a device
     * @return true if it is connected (ONOS can program it)
     */
    public boolean connected(DeviceId device) {
        return connected.test(device);
    }
}
