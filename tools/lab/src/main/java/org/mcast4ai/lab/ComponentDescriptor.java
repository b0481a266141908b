package org.mcast4ai.lab;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Declarative Services component description, read from the {@code OSGI-INF/NAME.xml} file that
 * the bundle plugin generates from {@code @Component}, {@code @Reference}, {@code @Activate} (those
 * annotations are not visible to reflection at run time, so the lab reads what OSGi's SCR reads).
 */
public final class ComponentDescriptor {

    /** One {@code <reference>}: a service the component needs. */
    public static final class Reference {
        private final String name;
        private final String iface;
        private final String field;
        private final String bind;
        private final boolean mandatory;
        private final boolean multiple;

        Reference(String name, String iface, String field, String bind, String cardinality) {
            this.name = name;
            this.iface = iface;
            this.field = field;
            this.bind = bind;
            this.mandatory = cardinality.startsWith("1");
            this.multiple = cardinality.endsWith("n");
        }

        /**
         * Returns the reference name.
         *
         * @return name
         */
        public String name() {
            return name;
        }

        /**
         * Returns the service interface.
         *
         * @return interface class name
         */
        public String iface() {
            return iface;
        }

        /**
         * Returns the field to inject, or null if a bind method is used.
         *
         * @return field name
         */
        public String field() {
            return field;
        }

        /**
         * Returns the bind method, or null if a field is used.
         *
         * @return bind method name
         */
        public String bind() {
            return bind;
        }

        /**
         * Returns true if the component cannot activate without the service.
         *
         * @return true for cardinality 1..1 and 1..n
         */
        public boolean mandatory() {
            return mandatory;
        }

        /**
         * Returns true if the reference takes several services.
         *
         * @return true for cardinality 0..n and 1..n
         */
        public boolean multiple() {
            return multiple;
        }
    }

    private final String name;
    private final String implementation;
    private final String activate;
    private final String deactivate;
    private final List<String> provides;
    private final List<Reference> references;
    private final Map<String, Object> properties;

    private ComponentDescriptor(String name, String implementation, String activate, String deactivate,
                                List<String> provides, List<Reference> references, Map<String, Object> properties) {
        this.name = name;
        this.implementation = implementation;
        this.activate = activate;
        this.deactivate = deactivate;
        this.provides = ImmutableList.copyOf(provides);
        this.references = ImmutableList.copyOf(references);
        this.properties = ImmutableMap.copyOf(properties);
    }

    /**
     * Loads the descriptor of a component class from the class path.
     *
     * @param componentClass component class name (the default component name)
     * @param loader         class loader to search
     * @return the descriptor
     * @throws IllegalStateException if there is no descriptor or it cannot be parsed
     */
    public static ComponentDescriptor load(String componentClass, ClassLoader loader) {
        String resource = "OSGI-INF/" + componentClass + ".xml";
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no component descriptor " + resource + " on the class path: is "
                        + componentClass + " a @Component built by the bundle plugin?");
            }
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(false);
            Document doc = f.newDocumentBuilder().parse(in);
            return parse(doc.getDocumentElement());
        } catch (IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + resource + ": " + e.getMessage(), e);
        }
    }

    private static ComponentDescriptor parse(Element root) {
        List<String> provides = new ArrayList<>();
        NodeList p = root.getElementsByTagName("provide");
        for (int i = 0; i < p.getLength(); i++) {
            provides.add(((Element) p.item(i)).getAttribute("interface"));
        }
        List<Reference> refs = new ArrayList<>();
        NodeList r = root.getElementsByTagName("reference");
        for (int i = 0; i < r.getLength(); i++) {
            Element e = (Element) r.item(i);
            refs.add(new Reference(e.getAttribute("name"), e.getAttribute("interface"),
                                   blankToNull(e.getAttribute("field")), blankToNull(e.getAttribute("bind")),
                                   e.hasAttribute("cardinality") ? e.getAttribute("cardinality") : "1..1"));
        }
        Map<String, Object> props = new LinkedHashMap<>();
        NodeList pr = root.getElementsByTagName("property");
        for (int i = 0; i < pr.getLength(); i++) {
            Element e = (Element) pr.item(i);
            String value = e.hasAttribute("value") ? e.getAttribute("value") : e.getTextContent().trim();
            props.put(e.getAttribute("name"), typed(e.getAttribute("type"), value));
        }
        Element impl = (Element) root.getElementsByTagName("implementation").item(0);
        return new ComponentDescriptor(root.getAttribute("name"), impl.getAttribute("class"),
                root.hasAttribute("activate") ? root.getAttribute("activate") : null,
                root.hasAttribute("deactivate") ? root.getAttribute("deactivate") : null,
                provides, refs, props);
    }

    private static Object typed(String type, String value) {
        switch (type) {
            case "Integer":
                return Integer.valueOf(value);
            case "Long":
                return Long.valueOf(value);
            case "Boolean":
                return Boolean.valueOf(value);
            case "Double":
                return Double.valueOf(value);
            default:
                return value;
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    /**
     * Returns the component name.
     *
     * @return name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the implementation class name.
     *
     * @return class name
     */
    public String implementation() {
        return implementation;
    }

    /**
     * Returns the activate method name, or null.
     *
     * @return method name
     */
    public String activate() {
        return activate;
    }

    /**
     * Returns the deactivate method name, or null.
     *
     * @return method name
     */
    public String deactivate() {
        return deactivate;
    }

    /**
     * Returns the service interfaces the component provides.
     *
     * @return interface class names
     */
    public List<String> provides() {
        return provides;
    }

    /**
     * Returns the references.
     *
     * @return references
     */
    public List<Reference> references() {
        return references;
    }

    /**
     * Returns the component properties with their default values.
     *
     * @return properties
     */
    public Map<String, Object> properties() {
        return properties;
    }
}
