package org.mcast4ai.lab;

import org.osgi.service.component.ComponentContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Hosts Declarative Services components outside OSGi, the way SCR would: it reads each component's
 * descriptor ({@link ComponentDescriptor}), creates the object, injects its references from the
 * {@link ServiceRegistry} (fields, walking superclasses, or bind methods), calls its activate method
 * with a {@link ComponentContext} carrying the component's default properties, and registers it as
 * the services it provides. Components are activated as soon as their mandatory references are
 * satisfied, so the order they are given in does not matter; a mandatory reference nobody
 * provides fails the start loudly. {@link #close()} deactivates in reverse order.
 */
public class ComponentHost implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ComponentHost.class);

    private final ServiceRegistry registry;
    private final ClassLoader loader;
    private final Map<String, Map<String, Object>> overrides;
    private final List<Active> active = new ArrayList<>();

    private static final class Active {
        final ComponentDescriptor descriptor;
        final Object instance;
        final List<Class<?>> registered;
        final java.util.Set<String> lateBound = new java.util.HashSet<>();

        Active(ComponentDescriptor descriptor, Object instance, List<Class<?>> registered) {
            this.descriptor = descriptor;
            this.instance = instance;
            this.registered = registered;
        }
    }

    /**
     * Creates a host over a registry.
     *
     * @param registry service registry to inject from and register into
     */
    public ComponentHost(ServiceRegistry registry) {
        this.registry = registry;
        this.loader = ComponentHost.class.getClassLoader();
        this.overrides = new LinkedHashMap<>();
    }

    /**
     * Sets a component property for activation, over the default its descriptor declares (as
     * {@code cfg set} or a config file would on ONOS).
     *
     * @param componentClass component implementation class name
     * @param name           property name
     * @param value          value
     * @return this host
     */
    public ComponentHost configure(String componentClass, String name, Object value) {
        overrides.computeIfAbsent(componentClass, c -> new LinkedHashMap<>()).put(name, value);
        return this;
    }

    /**
     * Activates components, each as soon as its mandatory references can be satisfied.
     *
     * @param componentClasses component class names
     * @throws IllegalStateException if a component cannot be created, activated, or has a
     *                               mandatory reference no one provides
     */
    public void activate(List<String> componentClasses) {
        Map<String, ComponentDescriptor> pending = new LinkedHashMap<>();
        for (String c : componentClasses) {
            pending.put(c, ComponentDescriptor.load(c, loader));
        }
        boolean progress = true;
        while (!pending.isEmpty() && progress) {
            progress = false;
            for (ComponentDescriptor d : new ArrayList<>(pending.values())) {
                if (missing(d).isEmpty()) {
                    activate(d);
                    pending.remove(d.implementation());
                    progress = true;
                }
            }
        }
        if (!pending.isEmpty()) {
            String why = pending.values().stream()
                    .map(d -> d.name() + " needs " + missing(d).stream()
                            .map(r -> r.name() + " (" + r.iface() + ")").collect(Collectors.joining(", ")))
                    .collect(Collectors.joining("; "));
            throw new IllegalStateException("unsatisfied mandatory references: " + why);
        }
    }

    /**
     * Returns the activated instance of a component class.
     *
     * @param type component class
     * @param <T>  component type
     * @return the instance, if active
     */
    public <T> Optional<T> component(Class<T> type) {
        return active.stream().map(a -> a.instance).filter(type::isInstance).map(type::cast).findFirst();
    }

    private List<ComponentDescriptor.Reference> missing(ComponentDescriptor d) {
        return d.references().stream()
                .filter(r -> r.mandatory() && registry.find(load(r.iface())).isEmpty())
                .collect(Collectors.toList());
    }

    private Class<?> load(String name) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("class " + name + " is not on the lab class path", e);
        }
    }

    private void activate(ComponentDescriptor d) {
        Class<?> type = load(d.implementation());
        Object instance;
        try {
            var ctor = type.getDeclaredConstructor();
            ctor.setAccessible(true);
            instance = ctor.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create component " + d.name() + ": " + e, e);
        }
        for (ComponentDescriptor.Reference r : d.references()) {
            inject(d, instance, r);
        }
        if (d.activate() != null) {
            invoke(d, instance, d.activate(), true);
        }
        List<Class<?>> registered = new ArrayList<>();
        for (String s : d.provides()) {
            Class<?> iface = load(s);
            registry.registerUnchecked(iface, instance);
            registered.add(iface);
        }
        active.add(new Active(d, instance, registered));
        log.info("activated {}", d.name());
        // SCR binds a dynamic optional reference when its service comes later: components activated earlier get
        // what this one provides (the group manager and the P4 fabric refer to each other, optionally)
        for (Active a : active) {
            if (a.instance == instance) {
                continue;
            }
            for (ComponentDescriptor.Reference r : a.descriptor.references()) {
                if (!r.mandatory() && d.provides().contains(r.iface()) && a.lateBound.add(r.name())) {
                    inject(a.descriptor, a.instance, r);
                }
            }
        }
    }

    private void inject(ComponentDescriptor d, Object instance, ComponentDescriptor.Reference r) {
        Class<?> iface = load(r.iface());
        Optional<?> service = registry.find(iface);
        if (service.isEmpty()) {
            if (r.mandatory()) {
                throw new IllegalStateException(d.name() + ": mandatory reference " + r.name()
                        + " (" + r.iface() + ") is not provided in the lab");
            }
            return;
        }
        try {
            if (r.field() != null) {
                Field f = field(instance.getClass(), r.field());
                f.setAccessible(true);
                Object value = service.get();
                if (r.multiple() && Collection.class.isAssignableFrom(f.getType())) {
                    value = new ArrayList<>(List.of(value));
                }
                f.set(instance, value);
            } else if (r.bind() != null) {
                Method m = method(instance.getClass(), r.bind(), iface);
                m.setAccessible(true);
                m.invoke(instance, service.get());
            } else {
                throw new IllegalStateException(d.name() + ": reference " + r.name() + " has neither field nor bind");
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(d.name() + ": cannot inject " + r.name() + ": " + e, e);
        }
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredField(name);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(name + " in " + type.getName() + " or its superclasses");
    }

    private static Method method(Class<?> type, String name, Class<?> param) throws NoSuchMethodException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && m.getParameterCount() == 1
                        && m.getParameterTypes()[0].isAssignableFrom(param)) {
                    return m;
                }
            }
        }
        throw new NoSuchMethodException(name + "(" + param.getName() + ") in " + type.getName());
    }

    private void invoke(ComponentDescriptor d, Object instance, String name, boolean failLoudly) {
        Method m = null;
        for (Class<?> c = instance.getClass(); c != null && m == null; c = c.getSuperclass()) {
            for (Method candidate : c.getDeclaredMethods()) {
                if (candidate.getName().equals(name)) {
                    m = candidate;
                    break;
                }
            }
        }
        if (m == null) {
            throw new IllegalStateException(d.name() + ": no method " + name);
        }
        Object[] args = new Object[m.getParameterCount()];
        Class<?>[] types = m.getParameterTypes();
        for (int i = 0; i < args.length; i++) {
            if (types[i] == ComponentContext.class) {
                args[i] = context(d, overrides.getOrDefault(d.implementation(), Map.of()));
            } else if (types[i] == Map.class) {
                args[i] = new LinkedHashMap<>(d.properties());
            } else if (types[i] == int.class || types[i] == Integer.class) {
                args[i] = 0; // deactivation reason
            }
        }
        try {
            m.setAccessible(true);
            m.invoke(instance, args);
        } catch (InvocationTargetException e) {
            if (failLoudly) {
                throw new IllegalStateException(d.name() + "." + name + " failed: " + e.getCause(), e.getCause());
            }
            log.warn("{}.{} failed", d.name(), name, e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(d.name() + ": cannot call " + name, e);
        }
    }

    private static ComponentContext context(ComponentDescriptor d, Map<String, Object> overrides) {
        Dictionary<String, Object> props = new Hashtable<>(d.properties());
        overrides.forEach(props::put);
        return (ComponentContext) Proxy.newProxyInstance(ComponentContext.class.getClassLoader(),
                new Class<?>[]{ComponentContext.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "getProperties":
                            return props;
                        case "toString":
                            return "lab context of " + d.name();
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "equals":
                            return proxy == args[0];
                        default:
                            return null;
                    }
                });
    }

    /**
     * Deactivates every component in reverse activation order and withdraws its services.
     */
    @Override
    public void close() {
        for (int i = active.size() - 1; i >= 0; i--) {
            Active a = active.get(i);
            a.registered.forEach(registry::unregister);
            if (a.descriptor.deactivate() != null) {
                invoke(a.descriptor, a.instance, a.descriptor.deactivate(), false);
            }
        }
        active.clear();
    }
}
