package org.mcast4ai.testing;

import org.mcast4ai.impl.P2mpGroupManager;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.core.DefaultApplicationId;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one core service double of the app's tests: as ONOS's, each application name gets its own id, and the same
 * id every time it registers again. The group manager's name gets 7, the id the tests' own rules are built with.
 */
public final class FakeCoreService extends CoreServiceAdapter {
    private final Map<String, ApplicationId> apps = new ConcurrentHashMap<>();

    @Override
    public ApplicationId registerApplication(String name) {
        return apps.computeIfAbsent(name, n -> new DefaultApplicationId(
                n.equals(P2mpGroupManager.APP_NAME) ? 7 : 100 + apps.size(), n));
    }

    @Override
    public ApplicationId getAppId(String name) {
        return apps.get(name);
    }
}
