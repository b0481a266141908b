package org.mcast4ai.impl.p4;

import org.onosproject.net.behaviour.Pipeliner;
import org.onosproject.net.pi.model.DefaultPiPipeconf;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiPipeconfId;
import org.onosproject.net.pi.model.PiPipelineInterpreter;
import org.onosproject.p4runtime.model.P4InfoParser;
import org.onosproject.p4runtime.model.P4InfoParserException;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.zip.GZIPInputStream;

/**
 * The pipeconfs of {@code models/p4/mcast4ai.p4} on BMv2, one per build the bundle carries (the P4Info and BMv2
 * JSON p4c made from the program with a build's bounds, the CPU port it was compiled with): the default build for
 * fabrics of up to 256 leaf numbers, 8 hosts a leaf and 8 leaves a pod, and two wide builds for k=48 and k=64 fat
 * trees and leaf-spines of up to 2,048 leaves. An operator binds every P4 switch of a fabric to the one build its
 * geometry needs in ONOS's network configuration ({@code "pipeconf":} the build's id); the app plans each switch's
 * entries with that build's bounds.
 */
public final class Mcast4aiPipeconf {
    /** The default build's pipeconf id. */
    public static final PiPipeconfId ID = new PiPipeconfId("org.mcast4ai.p4.bmv2");
    /** The program's CPU port ({@code CPU_PORT}; {@code simple_switch_grpc --cpu-port}). */
    public static final int CPU_PORT = 255;
    static final String P4INFO = "/org/mcast4ai/p4/mcast4ai.p4info.txt";
    static final String BMV2_JSON = "/org/mcast4ai/p4/mcast4ai.json";
    static final String CPU_PORT_TXT = "/org/mcast4ai/p4/cpu_port.txt";

    /** A build of the program: its pipeconf and the compile-time bounds of its parser and tables. */
    public enum Build {
        /** {@code SLOT_BYTES=1 LEAF_BYTES=1 LEAF_SET=256 UPLINKS=24}. */
        DEFAULT(ID, 1, 1, 256, 24, P4INFO, BMV2_JSON),
        /** {@code SLOT_BYTES=3 LEAF_BYTES=3 LEAF_SET=2048 UPLINKS=32}: k=48 fat trees (24 hosts a leaf). */
        K48(new PiPipeconfId("org.mcast4ai.p4.bmv2.k48"), 3, 3, 2048, 32,
                "/org/mcast4ai/p4/mcast4ai-3-3-2048-32.p4info.txt", "/org/mcast4ai/p4/mcast4ai-3-3-2048-32.json.gz"),
        /** {@code SLOT_BYTES=4 LEAF_BYTES=4 LEAF_SET=2048 UPLINKS=32}: k=64 fat trees (32 hosts a leaf). */
        K64(new PiPipeconfId("org.mcast4ai.p4.bmv2.k64"), 4, 4, 2048, 32,
                "/org/mcast4ai/p4/mcast4ai-4-4-2048-32.p4info.txt", "/org/mcast4ai/p4/mcast4ai-4-4-2048-32.json.gz");

        private final PiPipeconfId id;
        private final int slotBytes;
        private final int leafBytes;
        private final int leafSet;
        private final int uplinks;
        private final String p4info;
        private final String json;

        Build(PiPipeconfId id, int slotBytes, int leafBytes, int leafSet, int uplinks, String p4info, String json) {
            this.id = id;
            this.slotBytes = slotBytes;
            this.leafBytes = leafBytes;
            this.leafSet = leafSet;
            this.uplinks = uplinks;
            this.p4info = p4info;
            this.json = json;
        }

        /** @return its pipeconf's id */
        public PiPipeconfId id() {
            return id;
        }

        /** @return bytes of the LEAF entries' slot bitmaps it parses */
        public int slotBytes() {
            return slotBytes;
        }

        /** @return bytes of the POD entries' leaf bitmaps it parses */
        public int leafBytes() {
            return leafBytes;
        }

        /** @return the leaf numbers its leaf sets cover */
        public int leafSet() {
            return leafSet;
        }

        /** @return the uplinks it holds per switch */
        public int uplinks() {
            return uplinks;
        }

        /** @return the class path of its P4Info */
        public String p4info() {
            return p4info;
        }

        /**
         * @param slotBytes a fabric's slot bitmap bytes
         * @param leafBytes its leaf bitmap bytes
         * @return the build that parses its header, if the bundle carries one
         */
        public static Optional<Build> fitting(int slotBytes, int leafBytes) {
            for (Build b : values()) {
                if (b.slotBytes == slotBytes && b.leafBytes == leafBytes) {
                    return Optional.of(b);
                }
            }
            return Optional.empty();
        }

        /**
         * @param pipeconf a pipeconf id
         * @return the build it names, if it is one of the app's
         */
        public static Optional<Build> of(PiPipeconfId pipeconf) {
            for (Build b : values()) {
                if (b.id.equals(pipeconf)) {
                    return Optional.of(b);
                }
            }
            return Optional.empty();
        }
    }

    private Mcast4aiPipeconf() {
    }

    /**
     * @return the default build's pipeconf
     * @throws P4InfoParserException if the bundled P4Info does not parse
     * @throws IllegalStateException if an artifact is missing from the class path
     */
    public static PiPipeconf build() throws P4InfoParserException {
        return build(Build.DEFAULT);
    }

    /**
     * @param b a build
     * @return its pipeconf; a wide build's BMv2 JSON, carried compressed, is unpacked into the temporary directory
     * @throws P4InfoParserException if the bundled P4Info does not parse
     * @throws IllegalStateException if an artifact is missing from the class path or cannot be unpacked
     */
    public static PiPipeconf build(Build b) throws P4InfoParserException {
        URL p4info = resource(b.p4info);
        return DefaultPiPipeconf.builder()
                .withId(b.id)
                .withPipelineModel(P4InfoParser.parse(p4info))
                .addBehaviour(PiPipelineInterpreter.class, Mcast4aiInterpreter.class)
                .addBehaviour(Pipeliner.class, Mcast4aiPipeliner.class)
                .addExtension(PiPipeconf.ExtensionType.P4_INFO_TEXT, p4info)
                .addExtension(PiPipeconf.ExtensionType.BMV2_JSON, json(b))
                .addExtension(PiPipeconf.ExtensionType.CPU_PORT_TXT, resource(CPU_PORT_TXT))
                .build();
    }

    // a wide build's JSON is about 20 MB, 0.5 MB compressed: the bundle carries it compressed. One file per build,
    // replaced by a rename, so that activating the app again does not leave another 20 MB behind (and a reader
    // of the old file keeps it)
    private static URL json(Build b) {
        URL url = resource(b.json);
        if (!b.json.endsWith(".gz")) {
            return url;
        }
        Path out = Path.of(System.getProperty("java.io.tmpdir"), b.id.id() + ".json");
        try (InputStream in = new GZIPInputStream(url.openStream())) {
            Path part = Files.createTempFile(out.getParent(), b.id.id() + "-", ".part");
            try {
                Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
                Files.move(part, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(part);
            }
            return out.toUri().toURL();
        } catch (IOException e) {
            throw new IllegalStateException("cannot unpack " + b.json + ": " + e.getMessage(), e);
        }
    }

    private static URL resource(String path) {
        URL url = Mcast4aiPipeconf.class.getResource(path);
        if (url == null) {
            throw new IllegalStateException("the bundle lacks " + path);
        }
        return url;
    }
}
