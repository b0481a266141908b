package org.mcast4ai.api;

import org.onosproject.event.EventListener;

/** Receives group events. */
public interface P2mpGroupListener extends EventListener<P2mpGroupEvent> {
}
