package org.mcast4ai.impl.store;

import org.mcast4ai.impl.compile.BitmapReplication;
import java.util.Objects;

/**
 * The cluster's one record of the fabric-wide static BITMAP tables: which layout's tables (a fingerprint of
 * every static entry, the same on every instance for the same fabric), the generation (one more for every
 * layout the owner sends), and whether the switches acknowledged them. Written by the one instance that
 * programs them (the owner of work partition 0); read by every instance before it sends a stamp that hands
 * packets to them.
 */
public final class StaticTables {
    private final long generation;
    private final String fingerprint;
    private final boolean acknowledged;

    /**
     * @param generation   one more for every layout sent
     * @param fingerprint  the layout's static entries (see {@link BitmapReplication})
     * @param acknowledged true once every switch acknowledged them
     */
    public StaticTables(long generation, String fingerprint, boolean acknowledged) {
        this.generation = generation;
        this.fingerprint = Objects.requireNonNull(fingerprint);
        this.acknowledged = acknowledged;
    }

    /** @return the generation */
    public long generation() {
        return generation;
    }

    /** @return the fingerprint of the layout's static entries */
    public String fingerprint() {
        return fingerprint;
    }

    /** @return true once the switches acknowledged every static entry of the layout */
    public boolean acknowledged() {
        return acknowledged;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof StaticTables)) {
            return false;
        }
        StaticTables t = (StaticTables) o;
        return t.generation == generation && t.fingerprint.equals(fingerprint) && t.acknowledged == acknowledged;
    }

    @Override
    public int hashCode() {
        return Objects.hash(generation, fingerprint, acknowledged);
    }

    @Override
    public String toString() {
        return "StaticTables{generation=" + generation + ", " + fingerprint + (acknowledged ? ", acknowledged}"
                : ", sent}");
    }
}
