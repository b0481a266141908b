package org.mcast4ai.lab;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which switch entries were written since a moment: lets an audit read the switches off the programming queue and
 * compare later, leaving out the entries a batch wrote meanwhile (the read may predate them) instead of
 * "repairing" them from a stale read.
 *
 * @param <K> an entry's key (device and id)
 */
final class WriteMarks<K> {
    private final AtomicLong clock = new AtomicLong();
    private final Map<K, Long> written = new ConcurrentHashMap<>();

    /** @return the moment now, to pass to {@link #writtenSince} */
    long now() {
        return clock.get();
    }

    /** @param key an entry that is being written (added, changed or removed), successfully or not */
    void wrote(K key) {
        written.put(key, clock.incrementAndGet());
    }

    /**
     * @param key  an entry
     * @param mark a moment from {@link #now}
     * @return whether it was written after that moment
     */
    boolean writtenSince(K key, long mark) {
        Long at = written.get(key);
        return at != null && at > mark;
    }

    /** @param mark a moment before which no comparison will ask again: older writes are forgotten */
    void forgetUpTo(long mark) {
        written.values().removeIf(at -> at <= mark);
    }
}
