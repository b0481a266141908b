package org.mcast4ai.impl.p4;

import org.onosproject.net.behaviour.Pipeliner;
import org.onosproject.net.pi.model.DefaultPiPipeconf;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiPipeconfId;
import org.onosproject.net.pi.model.PiPipelineInterpreter;
import org.onosproject.p4runtime.model.P4InfoParser;
import org.onosproject.p4runtime.model.P4InfoParserException;

import java.net.URL;

/**
 * The pipeconf of {@code models/p4/mcast4ai.p4} on BMv2, from the artifacts on the bundle class path (the
 * P4Info and BMv2 JSON p4c made from the program with its default bounds, the CPU port it was compiled with).
 * An operator binds switches to it in ONOS's network configuration ({@code "pipeconf":} {@link #ID}).
 */
public final class Mcast4aiPipeconf {
    /** The pipeconf's id. */
    public static final PiPipeconfId ID = new PiPipeconfId("org.mcast4ai.p4.bmv2");
    /** The program's CPU port ({@code CPU_PORT}; {@code simple_switch_grpc --cpu-port}). */
    public static final int CPU_PORT = 255;
    static final String P4INFO = "/org/mcast4ai/p4/mcast4ai.p4info.txt";
    static final String BMV2_JSON = "/org/mcast4ai/p4/mcast4ai.json";
    static final String CPU_PORT_TXT = "/org/mcast4ai/p4/cpu_port.txt";

    private Mcast4aiPipeconf() {
    }

    /**
     * @return the pipeconf
     * @throws P4InfoParserException if the bundled P4Info does not parse
     * @throws IllegalStateException if an artifact is missing from the class path
     */
    public static PiPipeconf build() throws P4InfoParserException {
        URL p4info = resource(P4INFO);
        return DefaultPiPipeconf.builder()
                .withId(ID)
                .withPipelineModel(P4InfoParser.parse(p4info))
                .addBehaviour(PiPipelineInterpreter.class, Mcast4aiInterpreter.class)
                .addBehaviour(Pipeliner.class, Mcast4aiPipeliner.class)
                .addExtension(PiPipeconf.ExtensionType.P4_INFO_TEXT, p4info)
                .addExtension(PiPipeconf.ExtensionType.BMV2_JSON, resource(BMV2_JSON))
                .addExtension(PiPipeconf.ExtensionType.CPU_PORT_TXT, resource(CPU_PORT_TXT))
                .build();
    }

    private static URL resource(String path) {
        URL url = Mcast4aiPipeconf.class.getResource(path);
        if (url == null) {
            throw new IllegalStateException("the bundle lacks " + path);
        }
        return url;
    }
}
