package org.mcast4ai.impl.store;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.concurrent.ConcurrentHashMap;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.GroupKey;
import org.mcast4ai.api.P2mpGroup;
import org.mcast4ai.api.P2mpGroupEvent;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.P2mpGroupRequest;
import org.mcast4ai.api.Reliability;
import org.mcast4ai.api.VirtualPeer;
import org.mcast4ai.api.StateChange;
import org.mcast4ai.impl.program.Programmed;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onosproject.store.AbstractStore;
import org.onosproject.store.service.AtomicCounter;
import org.onosproject.store.service.AtomicCounterMap;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.MapEvent;
import org.onosproject.store.service.MapEventListener;
import org.onosproject.store.service.Serializer;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.concurrent.ThreadLocalRandom;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Group store on ONOS distributed primitives: a consistent map of immutable group values, a consistent map
 * from key to id (so a key is taken atomically across the cluster), a consistent map from address to id
 * (so an address is allocated atomically), a consistent map of what each group has on the switches and an
 * atomic id counter.
 */
@Component(immediate = true, service = P2mpGroupStore.class)
public class DistributedP2mpGroupStore extends AbstractStore<P2mpGroupEvent, P2mpGroupStoreDelegate>
        implements P2mpGroupStore {

    private static final int MAX_UPDATE_ATTEMPTS = 64;

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    private ConsistentMap<Long, P2mpGroup> groups;
    private ConsistentMap<String, Long> keys;
    private ConsistentMap<IpAddress, Long> addresses;
    private ConsistentMap<Long, Programmed> programmed;
    private ConsistentMap<String, StaticTables> staticTables;
    private final java.util.List<Runnable> staticListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final MapEventListener<String, StaticTables> staticTablesListener =
            e -> staticListeners.forEach(Runnable::run);
    private ConsistentMap<String, Integer> bitPositions;
    // index -> the position that holds it: an index is claimed here first, so two instances allocating
    // different new positions at once can never both take it
    private ConsistentMap<Integer, String> bitIndexOwners;
    private AtomicCounter ids;
    private AtomicCounterMap<String> tenants;
    private final MapEventListener<Long, P2mpGroup> groupListener = new InternalGroupListener();

    /** Opens the distributed primitives. */
    @Activate
    public void activate() {
        Serializer serializer = MapSerializer.get();
        groups = storageService.<Long, P2mpGroup>consistentMapBuilder()
                .withName("mcast4ai-groups").withSerializer(serializer).build();
        keys = storageService.<String, Long>consistentMapBuilder()
                .withName("mcast4ai-group-keys").withSerializer(serializer).build();
        addresses = storageService.<IpAddress, Long>consistentMapBuilder()
                .withName("mcast4ai-group-addresses").withSerializer(serializer).build();
        programmed = storageService.<Long, Programmed>consistentMapBuilder()
                .withName("mcast4ai-programmed").withSerializer(serializer).build();
        staticTables = storageService.<String, StaticTables>consistentMapBuilder()
                .withName("mcast4ai-static-tables").withSerializer(serializer).build();
        staticTables.addListener(staticTablesListener);
        bitPositions = storageService.<String, Integer>consistentMapBuilder()
                .withName("mcast4ai-bit-positions").withSerializer(serializer).build();
        bitIndexOwners = storageService.<Integer, String>consistentMapBuilder()
                .withName("mcast4ai-bit-index-owners").withSerializer(serializer).build();
        ids = storageService.getAtomicCounter("mcast4ai-group-ids");
        tenants = storageService.<String>atomicCounterMapBuilder().withName("mcast4ai-tenant-group-counts")
                .withSerializer(serializer).build();
        groups.addListener(groupListener);
        log.info("Started");
    }

    /** Stops listening to the maps. */
    @Deactivate
    public void deactivate() {
        if (groups != null) {
            groups.removeListener(groupListener);
        }
        if (staticTables != null) {
            staticTables.removeListener(staticTablesListener);
        }
        log.info("Stopped");
    }

    private static String keyOf(GroupKey key) {
        return key.tenant() + "/" + key.name();
    }

    @Override
    public P2mpGroup create(P2mpGroupRequest request, IpPrefix pool, IpPrefix peerPool, long timeMillis) {
        long id = ids.incrementAndGet();
        String key = keyOf(request.key());
        Versioned<Long> holder = keys.putIfAbsent(key, id);
        if (holder != null) {
            throw GroupException.keyTaken(request.key(), Versioned.valueOrNull(groups.get(holder.value())));
        }
        IpAddress address;
        try {
            address = allocate(pool, id);
        } catch (GroupException e) {
            keys.remove(key, Long.valueOf(id)); // the value overload, not remove(key, version)
            throw e;
        }
        VirtualPeer peer = null;
        if (request.reliability() == Reliability.ACK_AGGREGATION) {
            try {
                peer = allocatePeer(request, peerPool, id);
            } catch (GroupException e) {
                addresses.remove(address, Long.valueOf(id));
                keys.remove(key, Long.valueOf(id));
                throw e;
            }
        }
        P2mpGroup group = P2mpGroup.submitted(P2mpGroupId.of(id), request, address, timeMillis, peer);
        tenants.incrementAndGet(request.key().tenant());
        groups.put(id, group);
        return group;
    }

    private IpAddress allocate(IpPrefix pool, long hint) {
        if (!pool.isIp4()) {
            throw GroupException.invalid("the group address pool must be an IPv4 prefix; got " + pool);
        }
        // the network and broadcast addresses of the pool are never handed out (a /31 or /32 has neither)
        int base = pool.address().getIp4Address().toInt();
        long total = 1L << (Ip4Address.BIT_LENGTH - pool.prefixLength());
        long first = total > 2 ? 1 : 0;
        long size = total > 2 ? total - 2 : total;
        // the map's size is one cheap call; only a pool that may be full is counted address by address
        boolean mayBeFull = addresses.size() >= size
                && addresses.keySet().stream().filter(pool::contains).count() >= size;
        if (!mayBeFull) {
            for (long i = 0; i < size; i++) {
                IpAddress candidate = Ip4Address.valueOf(base + (int) (first + (hint - 1 + i) % size));
                if (addresses.putIfAbsent(candidate, hint) == null) {
                    return candidate;
                }
            }
        }
        throw GroupException.limit("the group address pool " + pool + " is exhausted (" + size
                + " addresses in use); purge withdrawn groups or configure a larger addressPool");
    }

    /*
     * The virtual peer's address comes from its own pool, through the same address map (so it is taken atomically
     * and freed with the group); its low six bits are the group's index at the sender's aggregation point, so
     * they differ from those of every other live ACK_AGGREGATION group of the same source.
     */
    private VirtualPeer allocatePeer(P2mpGroupRequest request, IpPrefix peerPool, long hint) {
        if (peerPool == null || !peerPool.isIp4()) {
            throw GroupException.invalid("the virtual peer pool must be an IPv4 prefix; got " + peerPool);
        }
        Set<Integer> taken = new HashSet<>();
        for (Versioned<P2mpGroup> v : groups.values()) {
            P2mpGroup g = v.value();
            if (g.state().isLive() && g.request().source().host().equals(request.source().host())) {
                g.peer().ifPresent(p -> taken.add(p.index()));
            }
        }
        if (taken.size() >= VirtualPeer.MAX_GROUPS_PER_SOURCE) {
            throw GroupException.limit("source " + request.source().host() + " already sends "
                    + VirtualPeer.MAX_GROUPS_PER_SOURCE + " ACK_AGGREGATION groups (what one aggregation point holds)");
        }
        int base = peerPool.address().getIp4Address().toInt();
        long total = 1L << (Ip4Address.BIT_LENGTH - peerPool.prefixLength());
        long first = total > 2 ? 1 : 0;
        long size = total > 2 ? total - 2 : total;
        for (long i = 0; i < size; i++) {
            int a = base + (int) (first + (hint - 1 + i) % size);
            if (taken.contains(a & (VirtualPeer.MAX_GROUPS_PER_SOURCE - 1))) {
                continue;
            }
            IpAddress candidate = Ip4Address.valueOf(a);
            if (addresses.putIfAbsent(candidate, hint) == null) {
                return VirtualPeer.of(candidate, ThreadLocalRandom.current().nextInt(1 << 24),
                        request.receivers());
            }
        }
        throw GroupException.limit("the virtual peer pool " + peerPool + " has no address left for source "
                + request.source().host() + "; purge withdrawn groups or configure a larger virtualPeerPool");
    }

    @Override
    public Optional<P2mpGroup> get(P2mpGroupId id) {
        return Optional.ofNullable(Versioned.valueOrNull(groups.get(id.value())));
    }

    @Override
    public Optional<P2mpGroup> get(GroupKey key) {
        Long id = Versioned.valueOrNull(keys.get(keyOf(key)));
        return id == null ? Optional.empty() : get(P2mpGroupId.of(id));
    }

    @Override
    public Collection<P2mpGroup> getAll() {
        return groups.values().stream().map(Versioned::value).collect(ImmutableList.toImmutableList());
    }

    @Override
    public P2mpGroup update(P2mpGroupId id, UnaryOperator<P2mpGroup> change) {
        for (int attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
            Versioned<P2mpGroup> current = groups.get(id.value());
            if (current == null) {
                throw GroupException.notFound(id);
            }
            P2mpGroup next = change.apply(current.value());
            if (next == current.value()) {
                return next;
            }
            if (groups.replace(id.value(), current.version(), next)) {
                return next;
            }
        }
        throw GroupException.conflict("group " + id + " is being changed concurrently; try again");
    }

    @Override
    public Optional<P2mpGroup> remove(P2mpGroupId id) {
        Versioned<P2mpGroup> removed = groups.get(id.value());
        if (removed == null || !groups.remove(id.value(), removed.version())) {
            return Optional.empty();
        }
        P2mpGroup group = removed.value();
        keys.remove(keyOf(group.key()), Long.valueOf(id.value()));
        tenants.decrementAndGet(group.key().tenant());
        addresses.remove(group.address(), Long.valueOf(id.value()));
        group.peer().ifPresent(p -> addresses.remove(p.address(), Long.valueOf(id.value())));
        setProgrammed(id, Programmed.empty());
        return Optional.of(group);
    }

    @Override
    public Programmed programmed(P2mpGroupId id) {
        Programmed p = Versioned.valueOrNull(programmed.get(id.value()));
        return p == null ? Programmed.empty() : p;
    }

    @Override
    public void setProgrammed(P2mpGroupId id, Programmed record) {
        if (!record.isEmpty()) {
            programmed.put(id.value(), record);
        } else if (programmed.containsKey(id.value())) {
            programmed.remove(id.value());
        }
    }

    @Override
    public Map<P2mpGroupId, Programmed> programmedAll() {
        ImmutableMap.Builder<P2mpGroupId, Programmed> b = ImmutableMap.builder();
        for (Map.Entry<Long, Versioned<Programmed>> e : programmed.entrySet()) {
            b.put(P2mpGroupId.of(e.getKey()), e.getValue().value());
        }
        return b.build();
    }

    private static final String BITMAP_TABLES = "bitmap";

    @Override
    public StaticTables staticTables() {
        return Versioned.valueOrNull(staticTables.get(BITMAP_TABLES));
    }

    @Override
    public void setStaticTables(StaticTables tables) {
        staticTables.put(BITMAP_TABLES, tables);
    }

    @Override
    public void addStaticTablesListener(Runnable listener) {
        staticListeners.add(listener);
    }

    @Override
    public void removeStaticTablesListener(Runnable listener) {
        staticListeners.remove(listener);
    }

    @Override
    public int tenantGroupCount(String tenant) {
        return (int) tenants.get(tenant);
    }

    @Override
    public Map<String, Integer> bitPositions(Collection<String> positions) {
        // a position keeps its index for good: once every asked position is known here, the map is not read
        // again (a k=16 fat tree has 1,024 positions, asked on every topology change)
        if (knownPositions.keySet().containsAll(positions)) {
            return Collections.unmodifiableMap(knownPositions);
        }
        Map<String, Integer> known = new HashMap<>();
        bitPositions.entrySet().forEach(e -> known.put(e.getKey(), e.getValue().value()));
        // new positions in a fixed order, each taking the lowest index no position holds. The index is claimed
        // first (owners map), then the position takes it; if another instance assigned the position meanwhile,
        // its index wins and ours is given back
        for (String key : new TreeSet<>(positions)) {
            Set<Integer> used = new HashSet<>(known.values());
            while (!known.containsKey(key)) {
                int next = 0;
                while (used.contains(next)) {
                    next++;
                }
                Versioned<String> owner = bitIndexOwners.putIfAbsent(next, key);
                if (owner != null && !owner.value().equals(key)) {
                    used.add(next);
                    continue;
                }
                Versioned<Integer> won = bitPositions.putIfAbsent(key, next);
                if (won == null) {
                    known.put(key, next);
                } else {
                    if (won.value() != next) {
                        bitIndexOwners.remove(next, key);
                    }
                    known.put(key, won.value());
                }
            }
        }
        knownPositions.putAll(known);
        return known;
    }

    private final Map<String, Integer> knownPositions = new ConcurrentHashMap<>();

    private static StateChange lastChange(P2mpGroup g) {
        return g.history().get(g.history().size() - 1);
    }

    /** Turns map events into group events for the delegate. */
    private class InternalGroupListener implements MapEventListener<Long, P2mpGroup> {
        @Override
        public void event(MapEvent<Long, P2mpGroup> event) {
            P2mpGroup now = Versioned.valueOrNull(event.newValue());
            P2mpGroup before = Versioned.valueOrNull(event.oldValue());
            if (now == null && before == null) {
                return;
            }
            switch (event.type()) {
                case INSERT:
                    notifyDelegate(new P2mpGroupEvent(P2mpGroupEvent.Type.GROUP_ADDED, now));
                    break;
                case UPDATE:
                    boolean requestChanged = before == null || !before.request().equals(now.request());
                    boolean stateChanged = before != null && !lastChange(before).equals(lastChange(now));
                    notifyDelegate(new P2mpGroupEvent(!requestChanged && stateChanged
                            ? P2mpGroupEvent.Type.GROUP_STATE_CHANGED : P2mpGroupEvent.Type.GROUP_UPDATED, now));
                    break;
                case REMOVE:
                    notifyDelegate(new P2mpGroupEvent(P2mpGroupEvent.Type.GROUP_REMOVED, before));
                    break;
                default:
                    log.warn("Unexpected map event {}", event.type());
            }
        }
    }
}
