package org.mcast4ai.impl.lifecycle;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The installer's threads: a group's work always runs on the same lane (chosen by group id), in order, so a
 * group never has two reconciles or batches at once, while different groups compile and program on
 * several cores. Fabric-wide work (topology changes, take-over after a restart) runs on lane 0 and hands
 * each group to its lane.
 */
public final class GroupLanes {
    private final Executor[] lanes;

    /**
     * @param lanes one executor per lane, each running its tasks one at a time in order
     */
    public GroupLanes(Executor... lanes) {
        if (lanes.length == 0) {
            throw new IllegalArgumentException("at least one lane");
        }
        this.lanes = lanes.clone();
    }

    /** @return how many lanes there are */
    public int size() {
        return lanes.length;
    }

    /**
     * @param group group id
     * @return the lane index of the group
     */
    public int laneOf(long group) {
        // group ids are sequential: spread them with a multiplicative hash
        long h = group * 0x9E3779B97F4A7C15L;
        return (int) Long.remainderUnsigned(h >>> 16, lanes.length);
    }

    /**
     * Runs a group's task on its lane.
     *
     * @param group group id
     * @param task  the task
     * @return false if the lane no longer takes work (the manager stopped)
     */
    public boolean execute(long group, Runnable task) {
        return submit(lanes[laneOf(group)], task);
    }

    /**
     * Runs fabric-wide work on lane 0.
     *
     * @param task the task
     * @return false if the lane no longer takes work (the manager stopped)
     */
    public boolean fabric(Runnable task) {
        return submit(lanes[0], task);
    }

    /** @return lane 0, for components that take an executor for fabric-wide work */
    public Executor fabricExecutor() {
        return lanes[0];
    }

    private static boolean submit(Executor e, Runnable task) {
        try {
            e.execute(task);
            return true;
        } catch (RejectedExecutionException x) {
            return false;
        }
    }
}
