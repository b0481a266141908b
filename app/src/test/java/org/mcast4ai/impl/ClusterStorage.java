package org.mcast4ai.impl;

import org.onosproject.store.service.AtomicCounter;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.ConsistentMapBuilder;
import org.onosproject.store.service.TestConsistentMap;
import org.onosproject.store.service.TestStorageService;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;

/** Primitives shared by name, as every member of an ONOS cluster sees the same map. */
public final class ClusterStorage extends TestStorageService {
    public final Map<String, Object> primitives = new HashMap<>();
    public Runnable beforeNextWrite;

    @Override
    @SuppressWarnings("unchecked")
    public <K, V> ConsistentMapBuilder<K, V> consistentMapBuilder() {
        return new TestConsistentMap.Builder<K, V>() {
            @Override
            public ConsistentMap<K, V> build() {
                ConsistentMap<K, V> map = (ConsistentMap<K, V>) primitives.computeIfAbsent(name(),
                        n -> super.build());
                return (ConsistentMap<K, V>) Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[]{ConsistentMap.class}, (proxy, method, args) -> {
                            if (method.getName().equals("putIfAbsent") && beforeNextWrite != null) {
                                Runnable r = beforeNextWrite;
                                beforeNextWrite = null;
                                r.run();
                            }
                            return method.invoke(map, args);
                        });
            }
        };
    }

    @Override
    public AtomicCounter getAtomicCounter(String name) {
        return (AtomicCounter) primitives.computeIfAbsent("counter:" + name, n -> super.getAtomicCounter(name));
    }
}

