package org.mcast4ai.lab;

import org.onlab.osgi.ServiceDirectory;
import org.onlab.osgi.ServiceNotFoundException;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lab's service registry: service interface to implementation. It is also the
 * {@link ServiceDirectory} the REST resources look services up in.
 */
public class ServiceRegistry implements ServiceDirectory {

    private final Map<Class<?>, Object> services = new ConcurrentHashMap<>();

    /**
     * Registers an implementation of a service.
     *
     * @param type    service interface
     * @param service implementation
     * @param <T>     service type
     * @return this registry
     * @throws IllegalStateException if the service is registered already
     */
    public <T> ServiceRegistry register(Class<T> type, T service) {
        registerUnchecked(type, service);
        return this;
    }

    /**
     * Registers an implementation under a type known only at run time.
     *
     * @param type    service interface
     * @param service implementation, an instance of type
     * @throws IllegalArgumentException if the service is not an instance of the type
     * @throws IllegalStateException if the service is registered already
     */
    public void registerUnchecked(Class<?> type, Object service) {
        if (!type.isInstance(service)) {
            throw new IllegalArgumentException(service.getClass().getName() + " is not a " + type.getName());
        }
        Object old = services.putIfAbsent(type, service);
        if (old != null && old != service) {
            throw new IllegalStateException(type.getName() + " is provided twice: by "
                    + old.getClass().getName() + " and " + service.getClass().getName());
        }
    }

    /**
     * Removes a service registration.
     *
     * @param type service interface
     */
    public void unregister(Class<?> type) {
        services.remove(type);
    }

    /**
     * Finds a service.
     *
     * @param type service interface
     * @param <T>  service type
     * @return the service, if registered
     */
    public <T> Optional<T> find(Class<T> type) {
        return Optional.ofNullable(type.cast(services.get(type)));
    }

    @Override
    public <T> T get(Class<T> serviceClass) {
        return find(serviceClass).orElseThrow(() -> new ServiceNotFoundException(
                "no " + serviceClass.getName() + " in the lab"));
    }
}
