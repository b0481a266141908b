package org.mcast4ai.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lab's one switch-programming thread: work runs in submission order (a group added before the flow that
 * uses it reaches the switch first), and consecutive {@link Joinable} work of one runner is handed to it
 * together, so that N flow batches queued while a bundle was out cost one {@code ovs-ofctl} per switch and
 * stage instead of N; work queued while joined work runs may join it between its stages ({@link #takeMore}), as
 * ONOS runs batches side by side instead of one after another.
 */
public final class SwitchQueue implements Executor {
    private static final Logger log = LoggerFactory.getLogger(SwitchQueue.class);
    private final int maxJoined;

    /** Work that may run together with the consecutive work of the same runner. */
    public interface Joinable extends Runnable {
        /** @return who runs it together with its neighbours */
        Runner runner();
    }

    /** Runs joined work. */
    public interface Runner {
        /** @param work consecutive work, in submission order */
        void runTogether(List<Joinable> work);
    }

    private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
    private final Thread worker;
    private volatile boolean stopped;

    /**
     * @param name      the worker thread's name
     * @param maxJoined at most this much consecutive work runs together (1: each batch on its own)
     */
    public SwitchQueue(String name, int maxJoined) {
        this.maxJoined = Math.max(1, maxJoined);
        worker = new Thread(this::loop, name);
        worker.setDaemon(true);
        worker.start();
    }

    @Override
    public void execute(Runnable task) {
        if (stopped) {
            throw new RejectedExecutionException("the lab's switch queue is stopped");
        }
        queue.add(task);
    }

    private void loop() {
        while (!stopped || !queue.isEmpty()) {
            Runnable task;
            try {
                task = queue.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (task == null) {
                continue;
            }
            try {
                if (task instanceof Joinable) {
                    Joinable first = (Joinable) task;
                    List<Joinable> run = new ArrayList<>();
                    run.add(first);
                    // only this thread takes from the queue: the head seen is the head taken
                    while (run.size() < maxJoined && queue.peek() instanceof Joinable
                            && ((Joinable) queue.peek()).runner() == first.runner()) {
                        run.add((Joinable) queue.poll());
                    }
                    first.runner().runTogether(run);
                } else {
                    task.run();
                }
            } catch (RuntimeException e) {
                log.warn("lab switch work failed", e);
            }
        }
    }

    /**
     * Called by the worker while it runs joined work, between two of its stages: takes the consecutive work of the
     * same runner now at the head of the queue, in order, up to {@code maxJoined} in all, stopping at the first
     * piece {@code accept} refuses (nothing queued behind it may overtake it).
     *
     * @param runner  the runner of the work in progress
     * @param running how much work it runs already
     * @param accept  whether a piece may join now
     * @return the pieces taken
     */
    public List<Joinable> takeMore(Runner runner, int running, Predicate<Joinable> accept) {
        List<Joinable> more = new ArrayList<>();
        if (Thread.currentThread() != worker) {
            return more;
        }
        while (running + more.size() < maxJoined && queue.peek() instanceof Joinable
                && ((Joinable) queue.peek()).runner() == runner && accept.test((Joinable) queue.peek())) {
            more.add((Joinable) queue.poll());
        }
        return more;
    }

    /**
     * Stops taking work and waits for what is queued.
     *
     * @param timeoutMs how long to wait
     */
    public void shutdown(long timeoutMs) {
        stopped = true;
        try {
            worker.join(timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
