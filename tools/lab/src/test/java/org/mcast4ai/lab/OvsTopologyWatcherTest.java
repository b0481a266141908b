package org.mcast4ai.lab;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertTrue;

class OvsTopologyWatcherTest {

    /** A change reported by the monitor is read at once, long before the next periodic read. */
    @Test
    void aReportedChangeIsReadAtOnce() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        CountDownLatch twoReads = new CountDownLatch(2);
        // the reader fails (null keeps the last observation), so only the number of reads is seen
        try (OvsTopologyWatcher w = new OvsTopologyWatcher(null, () -> {
            reads.incrementAndGet();
            twoReads.countDown();
            return null;
        }, 60_000)) {
            long t0 = System.nanoTime();
            w.watchChanges(List.of("sh", "-c", "echo first; sleep 0.3; echo second; sleep 30"));
            assertTrue(twoReads.await(5, TimeUnit.SECONDS), "two changes, two reads; got " + reads.get());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 5_000, "read on the monitor's lines, not on the 60 s period: " + ms + " ms");
        }
    }
}
