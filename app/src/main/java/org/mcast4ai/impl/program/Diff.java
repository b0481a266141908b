package org.mcast4ai.impl.program;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The difference between a group's record and its desired entries, per kind and device: the moves to send,
 * and the entries left on devices that are not connected (a device that has gone is not asked to remove
 * anything: ONOS would fail the batch for it; they stay on record as uncertain and go when it returns).
 * Pure: reads nothing but its arguments.
 */
public final class Diff {
    private final ImmutableMap<String, List<Move>> moves;
    private final ImmutableList<DeviceEntry> left;

    private Diff(Map<String, List<Move>> moves, List<DeviceEntry> left) {
        this.moves = ImmutableMap.copyOf(moves);
        this.left = ImmutableList.copyOf(left);
    }

    /**
     * @param record    what the group has on the switches
     * @param target    what it should have
     * @param kinds     the kinds of entry to compare (others are left alone), or null for all
     * @param connected which devices are connected
     * @return the difference
     */
    public static Diff of(Programmed record, Collection<DeviceEntry> target, Set<String> kinds,
                          Predicate<DeviceId> connected) {
        // one slot per (kind, device), in order of first appearance: targets, then installed, then uncertain
        Map<Key, Slot> slots = new LinkedHashMap<>(capacity(target.size() + record.installed().size()
                + record.uncertain().size()));
        for (DeviceEntry e : target) {
            if (kinds == null || kinds.contains(e.kind())) {
                slots.computeIfAbsent(Key.of(e), k -> new Slot()).to = e;
            }
        }
        for (DeviceEntry e : record.installed()) {
            if (kinds == null || kinds.contains(e.kind())) {
                slots.computeIfAbsent(Key.of(e), k -> new Slot()).from = e;
            }
        }
        for (DeviceEntry e : record.uncertain()) {
            if (kinds == null || kinds.contains(e.kind())) {
                slots.computeIfAbsent(Key.of(e), k -> new Slot()).maybe(e);
            }
        }
        Map<String, List<Move>> moves = new LinkedHashMap<>(4);
        List<DeviceEntry> left = new ArrayList<>(0);
        for (Map.Entry<Key, Slot> x : slots.entrySet()) {
            Key k = x.getKey();
            Slot s = x.getValue();
            if (Objects.equals(s.from, s.to) && s.maybe.isEmpty()) {
                continue;
            }
            if (s.to == null && !connected.test(k.device)) {
                if (s.from != null) {
                    left.add(s.from);
                }
                continue;
            }
            moves.computeIfAbsent(k.kind, y -> new ArrayList<>(slots.size()))
                    .add(new Move(k.device, s.from, s.maybe, s.to));
        }
        return new Diff(moves, left);
    }

    // what one (kind, device) has and should have
    private static final class Slot {
        DeviceEntry from;
        Set<DeviceEntry> maybe = Set.of();
        DeviceEntry to;

        void maybe(DeviceEntry e) {
            if (maybe.isEmpty()) {
                maybe = new LinkedHashSet<>(4);
            }
            maybe.add(e);
        }
    }

    // a HashMap capacity that holds n entries without resizing
    static int capacity(int n) {
        return n < 3 ? 4 : (int) (n / 0.75f) + 1;
    }

    /** @return the moves to send, by kind */
    public Map<String, List<Move>> moves() {
        return moves;
    }

    /** @return installed entries on devices that are gone, which the group no longer needs */
    public List<DeviceEntry> left() {
        return left;
    }

    /** @return true if nothing is to be sent */
    public boolean nothingToSend() {
        return moves.isEmpty();
    }

    private int moveCount() {
        int n = 0;
        for (List<Move> l : moves.values()) {
            n += l.size();
        }
        return n;
    }

    /** @return how many devices the moves touch */
    public int deviceCount() {
        return moves.size() == 1 ? moves.values().iterator().next().size() : devices().size();
    }

    /** @return the devices the moves touch */
    public Set<DeviceId> devices() {
        Set<DeviceId> d = devices;
        if (d == null) {
            Set<DeviceId> out = new LinkedHashSet<>(capacity(moveCount()));
            moves.values().forEach(l -> l.forEach(m -> out.add(m.device())));
            d = java.util.Collections.unmodifiableSet(out);
            devices = d;
        }
        return d;
    }

    private volatile Set<DeviceId> devices;

    /**
     * What the record is while the moves are out: entries left on gone devices and every target become
     * uncertain (written before sending, so that a failure or a restart never loses track of them).
     *
     * @param record the record the diff was computed from
     * @return the record to write before sending
     */
    public Programmed sending(Programmed record) {
        Collection<DeviceEntry> installed = record.installed();
        if (!left.isEmpty()) {
            Set<DeviceEntry> kept = new LinkedHashSet<>(installed);
            kept.removeAll(left);
            installed = kept;
        }
        // a list: the record's set drops repeats, keeping the first
        List<DeviceEntry> uncertain = new ArrayList<>(record.uncertain().size() + left.size() + moveCount());
        uncertain.addAll(record.uncertain());
        uncertain.addAll(left);
        moves.values().forEach(l -> l.forEach(m -> {
            if (m.target() != null) {
                uncertain.add(m.target());
            }
        }));
        return new Programmed(installed, uncertain, record.links());
    }

    /**
     * What the record is once devices acknowledged: an acknowledging device holds its moves' targets and
     * nothing else of their kind; the others keep their installed and uncertain entries.
     *
     * @param record the record as written before sending
     * @param acked  devices that acknowledged, or null for every device of the moves
     * @param links  the links of the target tree, recorded if every device acknowledged
     * @return the new record
     */
    public Programmed acknowledged(Programmed record, Set<DeviceId> acked, List<ConnectPoint[]> links) {
        // the acknowledged (kind, device) pairs: by kind, since a group has one or two kinds
        Map<String, Set<DeviceId>> done = new HashMap<>(4);
        List<DeviceEntry> targets = new ArrayList<>();
        boolean all = true;
        for (Map.Entry<String, List<Move>> e : moves.entrySet()) {
            Set<DeviceId> devices = null;
            for (Move m : e.getValue()) {
                if (acked != null && !acked.contains(m.device())) {
                    all = false;
                    continue;
                }
                if (devices == null) {
                    devices = done.computeIfAbsent(e.getKey(), k -> new HashSet<>(capacity(e.getValue().size())));
                }
                devices.add(m.device());
                if (m.target() != null) {
                    targets.add(m.target());
                }
            }
        }
        if (all && record.installed().isEmpty() && record.uncertain().size() == targets.size()
                && record.uncertain().containsAll(targets)) {
            // a first install acknowledged whole: what was written ahead as uncertain is what is installed
            return new Programmed(record.uncertain(), List.of(), links);
        }
        List<DeviceEntry> installed = new ArrayList<>(record.installed().size() + targets.size());
        for (DeviceEntry x : record.installed()) {
            if (!done(done, x)) {
                installed.add(x);
            }
        }
        installed.addAll(targets);
        List<DeviceEntry> uncertain = new ArrayList<>(record.uncertain().size());
        for (DeviceEntry x : record.uncertain()) {
            if (!done(done, x)) {
                uncertain.add(x);
            }
        }
        return new Programmed(installed, uncertain, all ? links : record.links());
    }

    private static boolean done(Map<String, Set<DeviceId>> done, DeviceEntry e) {
        Set<DeviceId> devices = done.get(e.kind());
        return devices != null && devices.contains(e.device());
    }

    private static final class Key {
        final String kind;
        final DeviceId device;

        Key(String kind, DeviceId device) {
            this.kind = kind;
            this.device = device;
        }

        static Key of(DeviceEntry e) {
            return new Key(e.kind(), e.device());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).kind.equals(kind) && ((Key) o).device.equals(device);
        }

        @Override
        public int hashCode() {
            return kind.hashCode() * 31 + device.hashCode();
        }
    }
}
