package org.mcast4ai.impl.monitor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.mcast4ai.impl.fabric.FabricSnapshotFactory;
import com.google.common.collect.ImmutableSet;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.onosproject.net.DeviceId;
import org.onosproject.net.HostId;
import org.onosproject.net.Link;
import org.onosproject.net.LinkKey;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.host.HostEvent;
import org.onosproject.net.host.HostListener;
import org.onosproject.net.host.HostService;
import org.onosproject.net.link.LinkEvent;
import org.onosproject.net.link.LinkListener;
import org.onosproject.net.link.LinkService;

import java.util.Set;
import java.util.concurrent.Executor;

/**
 * Watches devices, links and hosts. Every relevant event makes the fabric snapshot stale; events that take
 * something away (link or device down, host moved or gone) re-compile only the groups the index says use
 * it, events that add something re-compile the groups that wait for the fabric (DEGRADED or unreachable).
 * Events are handed to the manager's executor at once, so ONOS's event threads never compute trees.
 */
public final class TopologyMonitor {
    private static final Logger log = LoggerFactory.getLogger(TopologyMonitor.class);

    /** Receives the groups a topology change affects. */
    public interface Handler {
        /**
         * @param groups      groups that use what changed
         * @param improvement true if something was added (groups waiting for the fabric should retry)
         * @param why         the change, for the state history
         */
        void affected(Set<Long> groups, boolean improvement, String why);

        /**
         * A switch is connected again: what the groups' records say it holds must be checked against it.
         *
         * @param device the switch
         */
        void deviceReturned(DeviceId device);
    }

    private final DeviceService deviceService;
    private final LinkService linkService;
    private final HostService hostService;
    private final FabricSnapshotFactory snapshots;
    private final GroupIndex index;
    private final Executor executor;
    private final Handler handler;

    private final DeviceListener deviceListener = new InternalDeviceListener();
    private final LinkListener linkListener = new InternalLinkListener();
    private final HostListener hostListener = new InternalHostListener();

    public TopologyMonitor(DeviceService deviceService, LinkService linkService, HostService hostService,
                           FabricSnapshotFactory snapshots, GroupIndex index, Executor executor, Handler handler) {
        this.deviceService = deviceService;
        this.linkService = linkService;
        this.hostService = hostService;
        this.snapshots = snapshots;
        this.index = index;
        this.executor = executor;
        this.handler = handler;
    }

    /** Starts listening. */
    public void start() {
        deviceService.addListener(deviceListener);
        linkService.addListener(linkListener);
        hostService.addListener(hostListener);
    }

    /** Stops listening. */
    public void stop() {
        deviceService.removeListener(deviceListener);
        linkService.removeListener(linkListener);
        hostService.removeListener(hostListener);
    }

    /** One change, resolved to groups when the burst it came in is handled. */
    private static final class Change {
        final Supplier<Set<Long>> groups;
        final boolean improvement;
        final String why;
        final DeviceId returned;
        // a host change: the groups naming the burst's hosts are looked up together
        final HostId host;

        Change(Supplier<Set<Long>> groups, boolean improvement, String why, DeviceId returned) {
            this(groups, improvement, why, returned, null);
        }

        Change(HostId host, boolean improvement, String why) {
            this(null, improvement, why, null, host);
        }

        private Change(Supplier<Set<Long>> groups, boolean improvement, String why, DeviceId returned,
                       HostId host) {
            this.groups = groups;
            this.improvement = improvement;
            this.why = why;
            this.returned = returned;
            this.host = host;
        }
    }

    private final Queue<Change> pending = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();

    // A switch that fails takes its links (and hosts) with it: ONOS raises dozens of events at once. They are
    // handled as one burst: the snapshot is rebuilt once and every affected group is reconciled once.
    private void submit(Change c) {
        pending.add(c);
        if (draining.compareAndSet(false, true)) {
            executor.execute(this::drain);
        }
    }

    private void drain() {
        draining.set(false);
        List<Change> burst = new ArrayList<>();
        for (Change c = pending.poll(); c != null; c = pending.poll()) {
            burst.add(c);
        }
        if (burst.isEmpty()) {
            return;
        }
        snapshots.invalidate();
        Set<Long> groups = new LinkedHashSet<>();
        Set<HostId> hosts = new LinkedHashSet<>();
        boolean improvement = false;
        for (Change c : burst) {
            if (c.host != null) {
                hosts.add(c.host);
            } else {
                groups.addAll(c.groups.get());
            }
            improvement |= c.improvement;
        }
        groups.addAll(index.byHosts(hosts));
        String why = burst.get(0).why + (burst.size() > 1 ? " (and " + (burst.size() - 1) + " more changes)" : "");
        log.debug("{}: {} group(s) affected", why, groups.size());
        // a returned switch is marked unsure before anything is recompiled onto it
        for (Change c : burst) {
            if (c.returned != null) {
                handler.deviceReturned(c.returned);
            }
        }
        handler.affected(groups, improvement, why);
    }

    private class InternalDeviceListener implements DeviceListener {
        @Override
        public boolean isRelevant(DeviceEvent event) {
            switch (event.type()) {
                case DEVICE_ADDED:
                case DEVICE_REMOVED:
                case DEVICE_AVAILABILITY_CHANGED:
                    return true;
                default:
                    return false;
            }
        }

        @Override
        public void event(DeviceEvent event) {
            DeviceId id = event.subject().id();
            boolean up = event.type() != DeviceEvent.Type.DEVICE_REMOVED && deviceService.isAvailable(id);
            submit(new Change(() -> up ? ImmutableSet.of() : index.byDevice(id), up,
                    "device " + id + (up ? " up" : " down"), up ? id : null));
        }
    }

    // a tree that crossed a link of a device that is gone has a branch on that device, so the device's own change
    // names the group: a failing switch takes its links with it by the dozen, each a search through its groups
    private boolean endGone(Link link) {
        return !deviceService.isAvailable(link.src().deviceId()) || !deviceService.isAvailable(link.dst().deviceId());
    }

    private class InternalLinkListener implements LinkListener {
        @Override
        public boolean isRelevant(LinkEvent event) {
            return event.type() == LinkEvent.Type.LINK_ADDED || event.type() == LinkEvent.Type.LINK_REMOVED
                    || event.type() == LinkEvent.Type.LINK_UPDATED;
        }

        @Override
        public void event(LinkEvent event) {
            Link link = event.subject();
            boolean up = event.type() != LinkEvent.Type.LINK_REMOVED && link.state() == Link.State.ACTIVE;
            submit(new Change(() -> up || endGone(link) ? ImmutableSet.of()
                    : index.byLink(LinkKey.linkKey(link)), up,
                    "link " + link.src() + "-" + link.dst() + (up ? " up" : " down"), null));
        }
    }

    private class InternalHostListener implements HostListener {
        @Override
        public boolean isRelevant(HostEvent event) {
            switch (event.type()) {
                case HOST_ADDED:
                case HOST_REMOVED:
                case HOST_MOVED:
                case HOST_UPDATED:
                    return true;
                default:
                    return false;
            }
        }

        @Override
        public void event(HostEvent event) {
            boolean added = event.type() == HostEvent.Type.HOST_ADDED || event.type() == HostEvent.Type.HOST_UPDATED;
            HostId id = event.subject().id();
            submit(new Change(id, added, "host " + id + " " + event.type().name().toLowerCase().substring(5)));
        }
    }
}
