package org.mcast4ai.lab;

import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.core.IdGenerator;
import org.onosproject.core.Version;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * CoreService of the lab: registers application names with stable small ids and hands out id
 * generators backed by local counters.
 */
public class LabCoreService extends CoreServiceAdapter {

    private final Map<String, ApplicationId> apps = new ConcurrentHashMap<>();
    private final Map<String, IdGenerator> generators = new ConcurrentHashMap<>();
    private final AtomicInteger nextAppId = new AtomicInteger(100);

    @Override
    public Version version() {
        return Version.version("2.7.0");
    }

    @Override
    public Set<ApplicationId> getAppIds() {
        return Set.copyOf(apps.values());
    }

    @Override
    public ApplicationId getAppId(Short id) {
        return apps.values().stream().filter(a -> a.id() == id).findFirst().orElse(null);
    }

    @Override
    public ApplicationId getAppId(String name) {
        return apps.get(name);
    }

    @Override
    public ApplicationId registerApplication(String name) {
        return apps.computeIfAbsent(name, n -> new DefaultApplicationId(nextAppId.getAndIncrement(), n));
    }

    @Override
    public ApplicationId registerApplication(String name, Runnable preDeactivate) {
        return registerApplication(name);
    }

    @Override
    public IdGenerator getIdGenerator(String topic) {
        return generators.computeIfAbsent(topic, t -> {
            AtomicLong counter = new AtomicLong(1);
            return counter::getAndIncrement;
        });
    }
}
