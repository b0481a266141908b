package org.mcast4ai.lab;

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

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * LinkService over the lab fabric: every fabric link in both directions, ACTIVE and DIRECT. A link
 * can be taken down and brought back to simulate failures ({@link #setLinkUp}).
 */
public class LabLinkService extends LinkServiceAdapter {

    private final Map<ConnectPoint, Link> bySrc = new ConcurrentHashMap<>();
    private final Map<ConnectPoint, Link> down = new ConcurrentHashMap<>();
    private final ListenerRegistry<LinkEvent, LinkListener> listeners = new ListenerRegistry<>();

    /**
     * Creates the link service of a fabric.
     *
     * @param fabric lab fabric
     */
    public LabLinkService(LabFabric fabric) {
        for (LabFabric.Link l : fabric.links()) {
            ConnectPoint a = new ConnectPoint(DeviceId.deviceId(l.a()), PortNumber.portNumber(l.aPort()));
            ConnectPoint b = new ConnectPoint(DeviceId.deviceId(l.b()), PortNumber.portNumber(l.bPort()));
            bySrc.put(a, link(a, b));
            bySrc.put(b, link(b, a));
        }
    }

    private static Link link(ConnectPoint src, ConnectPoint dst) {
        return DefaultLink.builder().providerId(LabDeviceService.PID).src(src).dst(dst)
                .type(Link.Type.DIRECT).state(Link.State.ACTIVE).build();
    }

    /**
     * Takes the link at a connect point (both directions) down or brings it back up, and notifies
     * the link listeners (LINK_REMOVED / LINK_ADDED), like ONOS does when a port goes down or up.
     *
     * @param end one end of the link
     * @param up  true to bring the link up, false to take it down
     * @throws IllegalArgumentException if there is no such link
     */
    public void setLinkUp(ConnectPoint end, boolean up) {
        Map<ConnectPoint, Link> from = up ? down : bySrc;
        Map<ConnectPoint, Link> to = up ? bySrc : down;
        Link forward = from.get(end);
        if (forward == null) {
            throw new IllegalArgumentException("no " + (up ? "down" : "up") + " link at " + end);
        }
        Link reverse = from.get(forward.dst());
        for (Link l : new Link[]{forward, reverse}) {
            if (l != null) {
                from.remove(l.src());
                to.put(l.src(), l);
                listeners.process(new LinkEvent(up ? LinkEvent.Type.LINK_ADDED : LinkEvent.Type.LINK_REMOVED, l));
            }
        }
    }

    private Set<Link> select(Predicate<Link> p) {
        return bySrc.values().stream().filter(p).collect(ImmutableSet.toImmutableSet());
    }

    @Override
    public int getLinkCount() {
        return bySrc.size();
    }

    @Override
    public Iterable<Link> getLinks() {
        return ImmutableSet.copyOf(bySrc.values());
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
        Link l = bySrc.get(src);
        return l != null && Objects.equals(l.dst(), dst) ? l : null;
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
