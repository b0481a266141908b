package org.mcast4ai.engine;

import java.util.Arrays;

/**
 * An int-valued mark per dense index that is cleared in O(1) by bumping an epoch, so that scratch state
 * can be reused across tree computations without refilling arrays.
 */
final class Marks {
    private int[] stamp = new int[0];
    private int[] value = new int[0];
    private int epoch;

    /**
     * Clears all marks and makes room for indices {@code 0..capacity-1}.
     *
     * @param capacity number of indices needed
     */
    void reset(int capacity) {
        if (stamp.length < capacity) {
            stamp = new int[capacity];
            value = new int[capacity];
            epoch = 0;
        }
        epoch++;
        if (epoch == Integer.MAX_VALUE) {
            Arrays.fill(stamp, 0);
            epoch = 1;
        }
    }

    boolean has(int i) {
        return stamp[i] == epoch;
    }

    // value of a marked index; meaningless unless has(i)
    int get(int i) {
        return value[i];
    }

    void clear(int i) {
        stamp[i] = epoch - 1;
    }

    void set(int i, int v) {
        stamp[i] = epoch;
        value[i] = v;
    }
}
