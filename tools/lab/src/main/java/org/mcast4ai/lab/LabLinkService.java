package org.mcast4ai.lab;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.onosproject.event.ListenerRegistry;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DefaultLink;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Link;
import org.onosproject.net.PortNumber;
import org.onosproject.net.link.LinkEvent;
import org.onosproject.net.link.LinkListener;
import org.onosproject.net.link.LinkServiceAdapter;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * LinkService over the lab fabric: every fabric link whose two patch ends exist, in both directions, ACTIVE and
 * DIRECT. A link that goes (a patch port or a bridge deleted) raises LINK_REMOVED for each direction, one that
 * comes back LINK_ADDED, as ONOS's link provider does on port status and LLDP.
 */
public class LabLinkService extends LinkServiceAdapter {

    private final LabTopology topology;
    private final Map<LabFabric.Link, List<Link>> directions;
    private final ListenerRegistry<LinkEvent, LinkListener> listeners = new ListenerRegistry<>();

    /**
     * Creates the link service of a fabric that is all present and stays so.
     *
     * @param fabric lab fabric
     */
    public LabLinkService(LabFabric fabric) {
        this(LabTopology.full(fabric));
    }

    /**
     * Creates the link service of a lab topology.
     *
     * @param topology what exists
     */
    public LabLinkService(LabTopology topology) {
        this.topology = topology;
        ImmutableMap.Builder<LabFabric.Link, List<Link>> b = ImmutableMap.builder();
        for (LabFabric.Link l : topology.fabric().links()) {
            ConnectPoint a = new ConnectPoint(DeviceId.deviceId(l.a()), PortNumber.portNumber(l.aPort()));
            ConnectPoint z = new ConnectPoint(DeviceId.deviceId(l.b()), PortNumber.portNumber(l.bPort()));
            b.put(l, ImmutableList.of(link(a, z), link(z, a)));
        }
        directions = b.build();
        topology.addObserver(this::changed);
    }

    private static Link link(ConnectPoint src, ConnectPoint dst) {
        return DefaultLink.builder().providerId(LabDeviceService.PID).src(src).dst(dst)
                .type(Link.Type.DIRECT).state(Link.State.ACTIVE).build();
    }

    private void changed(LabTopology.State before, LabTopology.State after) {
        directions.forEach((l, both) -> {
            boolean was = before.links().contains(l);
            boolean is = after.links().contains(l);
            if (was != is) {
                both.forEach(d -> listeners.process(new LinkEvent(is ? LinkEvent.Type.LINK_ADDED
                        : LinkEvent.Type.LINK_REMOVED, d)));
            }
        });
    }

    private Set<Link> select(Predicate<Link> p) {
        Set<LabFabric.Link> up = topology.state().links();
        ImmutableSet.Builder<Link> out = ImmutableSet.builder();
        directions.forEach((l, both) -> {
            if (up.contains(l)) {
                both.stream().filter(p).forEach(out::add);
            }
        });
        return out.build();
    }

    @Override
    public int getLinkCount() {
        return 2 * topology.state().links().size();
    }

    @Override
    public Iterable<Link> getLinks() {
        return select(l -> true);
    }

    @Override
    public Iterable<Link> getActiveLinks() {
        return getLinks();
    }

    @Override
    public Set<Link> getDeviceLinks(DeviceId deviceId) {
        return select(l -> l.src().deviceId().equals(deviceId) || l.dst().deviceId().equals(deviceId));
    }

    @Override
    public Set<Link> getDeviceEgressLinks(DeviceId deviceId) {
        return select(l -> l.src().deviceId().equals(deviceId));
    }

    @Override
    public Set<Link> getDeviceIngressLinks(DeviceId deviceId) {
        return select(l -> l.dst().deviceId().equals(deviceId));
    }

    @Override
    public Set<Link> getLinks(ConnectPoint connectPoint) {
        return select(l -> l.src().equals(connectPoint) || l.dst().equals(connectPoint));
    }

    @Override
    public Set<Link> getEgressLinks(ConnectPoint connectPoint) {
        return select(l -> l.src().equals(connectPoint));
    }

    @Override
    public Set<Link> getIngressLinks(ConnectPoint connectPoint) {
        return select(l -> l.dst().equals(connectPoint));
    }

    @Override
    public Link getLink(ConnectPoint src, ConnectPoint dst) {
        return select(l -> l.src().equals(src) && Objects.equals(l.dst(), dst)).stream().findFirst().orElse(null);
    }

    @Override
    public void addListener(LinkListener listener) {
        listeners.addListener(listener);
    }

    @Override
    public void removeListener(LinkListener listener) {
        listeners.removeListener(listener);
    }
}
