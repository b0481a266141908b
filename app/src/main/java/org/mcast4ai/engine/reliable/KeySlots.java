package org.mcast4ai.engine.reliable;

import java.util.Arrays;

/**
 * Receiver key to slot, open addressing with linear probing: the lookup on every ACK allocates nothing.
 * Keys are non-negative ({@link AckAggregator#key}).
 */
final class KeySlots {
    private static final long EMPTY = -1;

    private long[] keys;
    private int[] slots;
    private int size;

    KeySlots(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
        keys = new long[capacity];
        slots = new int[capacity];
        Arrays.fill(keys, EMPTY);
    }

    private static int hash(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    int get(long key) {
        int mask = keys.length - 1;
        for (int i = hash(key) & mask; ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) {
                return slots[i];
            }
            if (k == EMPTY) {
                return -1;
            }
        }
    }

    void put(long key, int slot) {
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        for (int i = hash(key) & mask; ; i = (i + 1) & mask) {
            if (keys[i] == key) {
                slots[i] = slot;
                return;
            }
            if (keys[i] == EMPTY) {
                keys[i] = key;
                slots[i] = slot;
                size++;
                return;
            }
        }
    }

    void remove(long key) {
        int mask = keys.length - 1;
        int i = hash(key) & mask;
        while (keys[i] != key) {
            if (keys[i] == EMPTY) {
                return;
            }
            i = (i + 1) & mask;
        }
        // backward-shift deletion keeps every probe sequence unbroken without tombstones
        int hole = i;
        for (int j = (hole + 1) & mask; keys[j] != EMPTY; j = (j + 1) & mask) {
            int home = hash(keys[j]) & mask;
            if (((j - home) & mask) >= ((j - hole) & mask)) {
                keys[hole] = keys[j];
                slots[hole] = slots[j];
                hole = j;
            }
        }
        keys[hole] = EMPTY;
        size--;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldSlots = slots;
        keys = new long[oldKeys.length * 2];
        slots = new int[oldKeys.length * 2];
        Arrays.fill(keys, EMPTY);
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                put(oldKeys[i], oldSlots[i]);
            }
        }
    }
}
