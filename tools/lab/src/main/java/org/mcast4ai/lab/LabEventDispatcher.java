package org.mcast4ai.lab;

import org.onosproject.event.DefaultEventSinkRegistry;
import org.onosproject.event.Event;
import org.onosproject.event.EventDeliveryService;
import org.onosproject.event.EventSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.onlab.util.Tools.groupedThreads;

/**
 * EventDeliveryService of the lab: like ONOS's core dispatcher, events posted by managers are
 * delivered to their sink (and so to the listeners) one at a time on a dispatch thread.
 */
public class LabEventDispatcher extends DefaultEventSinkRegistry implements EventDeliveryService, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LabEventDispatcher.class);

    private final ExecutorService dispatcher =
            Executors.newSingleThreadExecutor(groupedThreads("mcast4ai-lab", "events-%d"));
    private volatile long limit = 2000;

    @Override
    @SuppressWarnings("unchecked")
    public void post(Event event) {
        dispatcher.execute(() -> {
            EventSink<Event> sink = getSink((Class<Event>) event.getClass());
            if (sink == null) {
                log.warn("no sink for event {}", event);
                return;
            }
            try {
                sink.process(event);
            } catch (RuntimeException e) {
                log.warn("sink failed on {}", event, e);
            }
        });
    }

    @Override
    public void setDispatchTimeLimit(long millis) {
        limit = millis;
    }

    @Override
    public long getDispatchTimeLimit() {
        return limit;
    }

    @Override
    public void close() {
        dispatcher.shutdown();
        try {
            dispatcher.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
