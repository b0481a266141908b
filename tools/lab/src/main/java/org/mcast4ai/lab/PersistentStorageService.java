package org.mcast4ai.lab;

import org.onosproject.store.service.AtomicCounter;
import org.onosproject.store.service.AtomicCounterMap;
import org.onosproject.store.service.AtomicCounterMapBuilder;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.ConsistentMapBuilder;
import org.onosproject.store.service.Serializer;
import org.onosproject.store.service.TestAtomicCounterMap;
import org.onosproject.store.service.TestConsistentMap;
import org.onosproject.store.service.TestStorageService;
import org.onosproject.store.service.Versioned;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The lab's stand-in for ONOS's distributed store when it must survive a restart of the lab runner: the
 * consistent maps, atomic counters and counter maps the components build are written to one file (with each
 * primitive's own serializer) a moment after they change and on {@link #close}, and filled from it when they
 * are built again. ONOS keeps its store across a restart of one instance the same way (its other members, or
 * its disk); a restart of the lab is then a restart, not a fresh install.
 */
public final class PersistentStorageService extends TestStorageService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PersistentStorageService.class);
    private static final int MAGIC = 0x4d344c53; // "M4LS"

    private final Path file;
    // what the file held when the lab started: kind + name -> entries (serialized key, serialized value)
    private final Map<String, List<byte[][]>> loaded;
    private final Map<String, java.util.function.Supplier<List<byte[][]>>> snapshots = new ConcurrentHashMap<>();
    private final ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "mcast4ai-lab-store");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean dirty;

    /**
     * @param file where the store lives (created on the first write)
     * @throws IOException if an existing file cannot be read
     */
    public PersistentStorageService(Path file) throws IOException {
        this.file = file;
        this.loaded = Files.exists(file) ? read(file) : new HashMap<>();
        flusher.scheduleWithFixedDelay(() -> {
            if (dirty) {
                flush();
            }
        }, 100, 100, TimeUnit.MILLISECONDS);
    }

    @Override
    public <K, V> ConsistentMapBuilder<K, V> consistentMapBuilder() {
        return new TestConsistentMap.Builder<K, V>() {
            @Override
            public ConsistentMap<K, V> build() {
                ConsistentMap<K, V> map = super.build();
                String key = "map:" + name();
                Serializer s = serializer();
                for (byte[][] e : loaded.getOrDefault(key, List.of())) {
                    map.put(s.decode(e[0]), s.decode(e[1]));
                }
                map.addListener(event -> dirty = true);
                snapshots.put(key, () -> {
                    List<byte[][]> out = new ArrayList<>();
                    for (Map.Entry<K, Versioned<V>> e : map.entrySet()) {
                        out.add(new byte[][]{s.encode(e.getKey()), s.encode(e.getValue().value())});
                    }
                    return out;
                });
                return map;
            }
        };
    }

    @Override
    public AtomicCounter getAtomicCounter(String name) {
        AtomicCounter counter = super.getAtomicCounter(name);
        String key = "counter:" + name;
        for (byte[][] e : loaded.getOrDefault(key, List.of())) {
            counter.set(java.nio.ByteBuffer.wrap(e[1]).getLong());
        }
        snapshots.put(key, () -> {
            List<byte[][]> one = new ArrayList<>();
            one.add(new byte[][]{new byte[0], java.nio.ByteBuffer.allocate(Long.BYTES).putLong(counter.get()).array()});
            return one;
        });
        AtomicCounter watched = (AtomicCounter) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[]{AtomicCounter.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("get")) {
                        dirty = true;
                    }
                    return method.invoke(counter, args);
                });
        return watched;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <K> AtomicCounterMapBuilder<K> atomicCounterMapBuilder() {
        return new TestAtomicCounterMap.Builder<K>() {
            @Override
            public AtomicCounterMap<K> build() {
                AtomicCounterMap<K> map = super.build();
                String key = "counters:" + name();
                Serializer s = serializer();
                Set<K> keys = ConcurrentHashMap.newKeySet();
                for (byte[][] e : loaded.getOrDefault(key, List.of())) {
                    K k = s.decode(e[0]);
                    map.put(k, java.nio.ByteBuffer.wrap(e[1]).getLong());
                    keys.add(k);
                }
                snapshots.put(key, () -> {
                    List<byte[][]> out = new ArrayList<>();
                    for (K k : keys) {
                        out.add(new byte[][]{s.encode(k),
                                java.nio.ByteBuffer.allocate(Long.BYTES).putLong(map.get(k)).array()});
                    }
                    return out;
                });
                return (AtomicCounterMap<K>) Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[]{AtomicCounterMap.class}, (proxy, method, args) -> {
                            if (args != null && args.length > 0 && !method.getName().equals("get")) {
                                keys.add((K) args[0]);
                                dirty = true;
                            } else if (method.getName().equals("clear")) {
                                keys.clear();
                                dirty = true;
                            }
                            return method.invoke(map, args);
                        });
            }
        };
    }

    /** Writes everything now (atomically: a temporary file renamed over the old one). */
    public synchronized void flush() {
        dirty = false;
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(MAGIC);
                out.writeInt(snapshots.size());
                for (Map.Entry<String, java.util.function.Supplier<List<byte[][]>>> e : snapshots.entrySet()) {
                    List<byte[][]> entries = e.getValue().get();
                    out.writeUTF(e.getKey());
                    out.writeInt(entries.size());
                    for (byte[][] kv : entries) {
                        out.writeInt(kv[0].length);
                        out.write(kv[0]);
                        out.writeInt(kv[1].length);
                        out.write(kv[1]);
                    }
                }
            }
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.write(tmp, bytes.toByteArray());
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            dirty = true;
            log.warn("writing the lab store to {} failed: {}", file, e.toString());
        }
    }

    private static Map<String, List<byte[][]>> read(Path file) throws IOException {
        Map<String, List<byte[][]>> out = new HashMap<>();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(Files.readAllBytes(file)))) {
            if (in.readInt() != MAGIC) {
                throw new IOException(file + " is not a lab store");
            }
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                String key = in.readUTF();
                int count = in.readInt();
                List<byte[][]> entries = new ArrayList<>(count);
                for (int j = 0; j < count; j++) {
                    byte[] k = new byte[in.readInt()];
                    in.readFully(k);
                    byte[] v = new byte[in.readInt()];
                    in.readFully(v);
                    entries.add(new byte[][]{k, v});
                }
                out.put(key, entries);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return out;
    }

    /** Writes what is left and stops the writer. */
    @Override
    public void close() {
        flusher.shutdownNow();
        flush();
    }
}
