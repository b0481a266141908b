package org.mcast4ai.oar;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarInputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Opens the .oar this build produced (the path comes from the pom) and checks what ONOS reads from it:
 * app.xml, the features repository it names, and the bundle jars under m2/.
 */
class OarArchiveTest {

    private static final String GROUP = "org.mcast4ai";
    /** Every bundle of the application; a new bundle module is added here and in app.xml/features.xml. */
    private static final List<String> BUNDLES =
            List.of("mcast4ai-app", "mcast4ai-rest", "mcast4ai-cli", "mcast4ai-gui");

    private static ZipFile oar;
    private static String version;
    private static Element app;

    @BeforeAll
    static void openArchive() throws Exception {
        String path = System.getProperty("mcast4ai.oar");
        assertNotNull(path, "the pom passes the archive path in mcast4ai.oar");
        File file = new File(path);
        assertTrue(file.isFile(), "the app goal did not produce " + file);
        oar = new ZipFile(file);
        version = System.getProperty("mcast4ai.version");
        app = parse(read("app.xml")).getDocumentElement();
    }

    @Test
    void appXmlNamesTheAppAndItsRequirements() {
        assertEquals("app", app.getTagName());
        assertEquals("org.mcast4ai.app", app.getAttribute("name"));
        assertEquals(version, app.getAttribute("version"));
        assertFalse(app.getAttribute("title").isBlank(), "title");
        assertFalse(app.getAttribute("category").isBlank(), "category");
        List<String> required = Arrays.asList(app.getAttribute("apps").split(","));
        assertTrue(required.contains("org.onosproject.openflow"), "requires OpenFlow: " + required);
        assertEquals(System.getProperty("mcast4ai.app.requires"), app.getAttribute("apps"));
        assertEquals("mcast4ai", app.getAttribute("features"));
        assertFalse(read("app.xml").contains("${"), "every ${...} in app.xml is expanded");
    }

    @Test
    void appXmlPacksEveryBundle() {
        assertEquals(bundleUrls(), texts(app, "artifact"));
    }

    @Test
    void featuresXmlListsEveryBundleWithItsMavenUrl() throws Exception {
        String repo = app.getAttribute("featuresRepo");
        assertEquals("mvn:" + GROUP + "/mcast4ai/" + version + "/xml/features", repo);
        String featuresText = read(m2Path(repo));
        assertFalse(featuresText.contains("${"), "every ${...} in features.xml is expanded");
        Element features = parse(featuresText).getDocumentElement();

        NodeList list = features.getElementsByTagName("feature");
        Element feature = null;
        for (int i = 0; i < list.getLength(); i++) {
            Element e = (Element) list.item(i);
            if (e.getParentNode() == features && e.getAttribute("name").equals(app.getAttribute("features"))) {
                feature = e;
            }
        }
        assertNotNull(feature, "features.xml defines the feature app.xml names");
        assertEquals(version, feature.getAttribute("version"));
        assertEquals(bundleUrls(), texts(feature, "bundle"));
        assertTrue(texts(feature, "feature").contains("onos-api"), "the feature depends on onos-api");
    }

    @Test
    void featuresXmlIsValidForKaraf() throws Exception {
        String xml = read(m2Path(app.getAttribute("featuresRepo")));
        String ns = parse(xml).getDocumentElement().getNamespaceURI();
        String version = ns.substring(ns.lastIndexOf('/') + 2); // .../features/v1.2.0
        java.net.URL xsd = getClass().getResource("/org/apache/karaf/features/karaf-features-" + version + ".xsd");
        assertNotNull(xsd, "Karaf 4.2.9 knows the features namespace " + ns);
        javax.xml.validation.SchemaFactory.newInstance(javax.xml.XMLConstants.W3C_XML_SCHEMA_NS_URI)
                .newSchema(xsd).newValidator()
                .validate(new javax.xml.transform.stream.StreamSource(new java.io.StringReader(xml)));
    }

    @Test
    void everyListedBundleIsInTheArchiveAsAnOsgiBundle() throws Exception {
        for (String url : bundleUrls()) {
            String entry = m2Path(url);
            byte[] jar = oar.getInputStream(requireEntry(entry)).readAllBytes();
            try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
                Manifest mf = in.getManifest();
                assertNotNull(mf, entry + " has a manifest");
                String bsn = mf.getMainAttributes().getValue("Bundle-SymbolicName");
                String artifact = url.split("/")[1];
                assertEquals(GROUP + "." + artifact, bsn == null ? null : bsn.split(";")[0].trim(),
                        entry + " is the OSGi bundle of " + artifact);
            }
        }
    }

    private static Set<String> bundleUrls() {
        return BUNDLES.stream().map(a -> "mvn:" + GROUP + "/" + a + "/" + version)
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    /** Where ONOS finds an mvn: URL inside the archive (it copies m2/ into its Karaf system repository). */
    private static String m2Path(String mvnUrl) {
        String[] f = mvnUrl.substring("mvn:".length()).split("/");
        String type = f.length > 3 ? f[3] : "jar";
        String classifier = f.length > 4 ? "-" + f[4] : "";
        return "m2/" + f[0].replace('.', '/') + "/" + f[1] + "/" + f[2] + "/"
                + f[1] + "-" + f[2] + classifier + "." + type;
    }

    private static ZipEntry requireEntry(String name) {
        ZipEntry e = oar.getEntry(name);
        assertNotNull(e, "the archive holds " + name);
        return e;
    }

    private static String read(String name) {
        try (InputStream in = oar.getInputStream(requireEntry(name))) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError("cannot read " + name, e);
        }
    }

    private static Document parse(String xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(
                java.nio.charset.StandardCharsets.UTF_8)));
    }

    /** Text of the direct children of parent with the given tag, in document order. */
    private static Set<String> texts(Element parent, String tag) {
        List<String> out = new ArrayList<>();
        NodeList list = parent.getElementsByTagName(tag);
        for (int i = 0; i < list.getLength(); i++) {
            if (list.item(i).getParentNode() == parent) {
                out.add(list.item(i).getTextContent().trim());
            }
        }
        return new LinkedHashSet<>(out);
    }
}
