package org.mcast4ai.impl.store;

import org.mcast4ai.api.P2mpGroupEvent;
import org.onosproject.store.StoreDelegate;

/** Receives the group store's notifications (the manager re-posts them and starts work on its groups). */
public interface P2mpGroupStoreDelegate extends StoreDelegate<P2mpGroupEvent> {
}
