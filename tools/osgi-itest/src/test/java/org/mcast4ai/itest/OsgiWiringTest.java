package org.mcast4ai.itest;

import org.apache.felix.framework.FrameworkFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.launch.Framework;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Installs the app's bundles into a real Apache Felix framework with Felix SCR (Declarative Services), the
 * real onos-api 2.7.0 bundle and the bundles it imports, the Karaf 4.2.9 shell and onos-cli, and checks
 * what unit tests cannot: every Import-Package resolves against what ONOS 2.7 exports, every DS component
 * of the app gets its references and activates, and the service works through the registry.
 * <p>
 * ONOS's own services are test implementations registered by a fixture bundle built here from
 * {@code org.mcast4ai.itest.fixture}; the checks that need the app's classes run inside that bundle
 * ({@code WiringProbe}), called through {@link Function} because the test's class loader sees other copies.
 */
class OsgiWiringTest {

    private static final String PROBE = "org.mcast4ai.itest.fixture.WiringProbe";
    private static final String APP_BUNDLES = "org.mcast4ai.mcast4ai-";

    private static Framework framework;
    private static final Map<Bundle, String> START_FAILURES = new LinkedHashMap<>();
    private static final List<Bundle> INSTALLED = new ArrayList<>();
    private static Function<String, String> probe;
    private static Object components;

    @BeforeAll
    static void startFramework() throws Exception {
        Path bundles = Paths.get(required("mcast4ai.bundles"));
        Map<String, String> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, required("mcast4ai.felix.cache"));
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        // Kryo and objenesis reach into sun.misc/sun.reflect as they do under Karaf.
        config.put(Constants.FRAMEWORK_BOOTDELEGATION, "sun.*,com.sun.*");
        config.put(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, "sun.misc");
        config.put("felix.log.level", "1");
        // The Karaf shell bundle must not grab the test's console or open ports.
        config.put("karaf.startLocalConsole", "false");
        config.put("karaf.startRemoteShell", "false");
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");

        framework = new FrameworkFactory().newFramework(config);
        framework.start();

        List<Path> jars = new ArrayList<>(jars(bundles.resolve("runtime")));
        List<Path> app = jars(bundles.resolve("app"));
        assertFalse(app.isEmpty(), "no app bundles in " + bundles.resolve("app"));
        jars.addAll(app);
        for (Path jar : jars) {
            try (InputStream in = Files.newInputStream(jar)) {
                INSTALLED.add(framework.getBundleContext().installBundle(jar.toUri().toString(), in));
            }
        }
        INSTALLED.add(install("onos-api-tests", apiTestsFragment(bundles.resolve("support/onos-api-tests.jar"))));
        Bundle fixture = install("fixture", fixtureBundle(Paths.get(required("mcast4ai.fixture.classes"))));
        INSTALLED.add(fixture);

        for (Bundle b : INSTALLED) {
            if (b.getHeaders().get(Constants.FRAGMENT_HOST) != null) {
                continue;
            }
            try {
                b.start();
            } catch (BundleException e) {
                START_FAILURES.put(b, withCauses(e));
            }
        }
        if (fixture.getState() == Bundle.ACTIVE) {
            @SuppressWarnings("unchecked")
            Function<String, String> p = (Function<String, String>) fixture.loadClass(PROBE)
                    .getDeclaredConstructor().newInstance();
            probe = p;
        }
    }

    @AfterAll
    static void stopFramework() throws Exception {
        if (framework != null) {
            framework.stop();
            framework.waitForStop(10_000);
        }
    }

    @Test
    void everyBundleResolvesAndStarts() {
        String failures = START_FAILURES.entrySet().stream()
                .map(e -> e.getKey().getSymbolicName() + ": " + e.getValue())
                .collect(Collectors.joining("\n"));
        assertTrue(START_FAILURES.isEmpty(), "bundles that did not start:\n" + failures);
        for (Bundle b : INSTALLED) {
            boolean fragment = b.getHeaders().get(Constants.FRAGMENT_HOST) != null;
            assertEquals(fragment ? Bundle.RESOLVED : Bundle.ACTIVE, b.getState(), b.getSymbolicName());
        }
        long ours = INSTALLED.stream().filter(b -> b.getSymbolicName().startsWith(APP_BUNDLES)).count();
        assertTrue(ours > 0, "the app's bundles were installed");
    }

    @Test
    void everyComponentOfTheAppIsActive() {
        System.out.println(probe("components"));
    }

    @Test
    void groupsAreSubmittedThroughTheAdminService() {
        probe("components");
        System.out.println(probe("submit"));
    }

    @Test
    void cliCommandsAreRegisteredWithTheKarafShell() {
        System.out.println(probe("commands"));
    }

    @Test
    void guiRegistersTheGroupsView() {
        probe("components");
        System.out.println(probe("gui"));
    }

    @Test
    void restApiAnswersThroughJersey() {
        probe("components");
        System.out.println(probe("rest"));
    }

    /**
     * Web bundles: the servlet and the JAX-RS application named in web.xml load from the bundle, and so does
     * every resource class with its methods' signatures, which is what Jersey does when ONOS serves it.
     */
    @Test
    void webBundlesLoadTheirJaxRsApplicationAndResources() throws Exception {
        List<Bundle> webBundles = INSTALLED.stream()
                .filter(b -> b.getSymbolicName().startsWith(APP_BUNDLES))
                .filter(b -> b.getHeaders().get("Web-ContextPath") != null)
                .collect(Collectors.toList());
        for (Bundle web : webBundles) {
            assertEquals(Bundle.ACTIVE, web.getState(), web.getSymbolicName());
            String xml = new String(web.getEntry("WEB-INF/web.xml").openStream().readAllBytes(),
                    java.nio.charset.StandardCharsets.UTF_8);
            List<String> names = new ArrayList<>();
            java.util.regex.Matcher m = java.util.regex.Pattern
                    .compile("<(servlet-class|param-value)>\\s*([\\w.$]+)\\s*</").matcher(xml);
            while (m.find()) {
                names.add(m.group(2));
            }
            assertFalse(names.isEmpty(), web.getSymbolicName() + ": web.xml names no servlet");
            List<String> loaded = new ArrayList<>();
            for (String name : names) {
                Class<?> c = web.loadClass(name);
                loaded.add(name);
                if (isJaxRsApplication(c)) {
                    Object app = c.getDeclaredConstructor().newInstance();
                    @SuppressWarnings("unchecked")
                    java.util.Set<Class<?>> classes =
                            (java.util.Set<Class<?>>) c.getMethod("getClasses").invoke(app);
                    assertFalse(classes.isEmpty(), name + " registers no resource");
                    for (Class<?> r : classes) {
                        // Reflecting on members loads their parameter and return types, as Jersey does.
                        int members = r.getDeclaredMethods().length + r.getDeclaredConstructors().length;
                        loaded.add(r.getSimpleName() + "(" + members + ")");
                    }
                }
            }
            System.out.println(web.getSymbolicName() + " " + web.getHeaders().get("Web-ContextPath")
                    + " loads " + loaded);
        }
    }

    private static boolean isJaxRsApplication(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            if ("javax.ws.rs.core.Application".equals(k.getName())) {
                return true;
            }
        }
        return false;
    }

    private static String probe(String check) {
        if ("components".equals(check)) {
            // Waits up to 20 s when something is wrong: run it once, share the outcome.
            if (components == null) {
                try {
                    components = runProbe(check);
                } catch (AssertionError e) {
                    components = e;
                }
            }
            if (components instanceof AssertionError) {
                throw (AssertionError) components;
            }
            return (String) components;
        }
        return runProbe(check);
    }

    private static String runProbe(String check) {
        if (probe == null) {
            fail("the fixture bundle did not start; see everyBundleResolvesAndStarts: "
                    + START_FAILURES.keySet());
        }
        return probe.apply(check);
    }

    private static String withCauses(Throwable e) {
        StringBuilder sb = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
            sb.append("\n    caused by ").append(c);
        }
        return sb.toString();
    }

    private static Bundle install(String name, byte[] jar) throws BundleException {
        return framework.getBundleContext().installBundle("itest:" + name, new ByteArrayInputStream(jar));
    }

    /** onos-api's test jar (adapters, TestStorageService) as a fragment of onos-api: same packages. */
    private static byte[] apiTestsFragment(Path testsJar) throws IOException {
        Manifest mf = manifest("org.onosproject.onos-api-tests", "2.7.0");
        mf.getMainAttributes().putValue(Constants.FRAGMENT_HOST, "org.onosproject.onos-api");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarInputStream in = new JarInputStream(Files.newInputStream(testsJar));
             JarOutputStream jar = new JarOutputStream(out, mf)) {
            for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
                if (!e.isDirectory() && e.getName().endsWith(".class")) {
                    jar.putNextEntry(new JarEntry(e.getName()));
                    in.transferTo(jar);
                    jar.closeEntry();
                }
            }
        }
        return out.toByteArray();
    }

    /** The fixture classes as a bundle that imports whatever it uses, from whoever exports it. */
    private static byte[] fixtureBundle(Path testClasses) throws IOException {
        Manifest mf = manifest("org.mcast4ai.itest.fixture", "1.0.0");
        mf.getMainAttributes().putValue(Constants.BUNDLE_ACTIVATOR, "org.mcast4ai.itest.fixture.FixtureActivator");
        mf.getMainAttributes().putValue(Constants.IMPORT_PACKAGE, "org.osgi.framework");
        mf.getMainAttributes().putValue(Constants.DYNAMICIMPORT_PACKAGE, "*");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(out, mf)) {
            // the fixture, and the app's shared ONOS service doubles it registers (unpacked here by Maven)
            for (String pkg : List.of("org/mcast4ai/itest/fixture", "org/mcast4ai/testing")) {
                try (Stream<Path> files = Files.walk(testClasses.resolve(pkg))) {
                    for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                        jar.putNextEntry(new JarEntry(testClasses.relativize(f).toString().replace('\\', '/')));
                        jar.write(Files.readAllBytes(f));
                        jar.closeEntry();
                    }
                }
            }
        }
        return out.toByteArray();
    }

    private static Manifest manifest(String symbolicName, String version) {
        Manifest mf = new Manifest();
        Attributes a = mf.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        a.putValue(Constants.BUNDLE_SYMBOLICNAME, symbolicName);
        a.putValue(Constants.BUNDLE_VERSION, version);
        return mf;
    }

    private static List<Path> jars(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".jar")).sorted().collect(Collectors.toList());
        }
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null) {
            throw new IllegalStateException("run through Maven: system property " + property + " is not set");
        }
        return value;
    }
}
