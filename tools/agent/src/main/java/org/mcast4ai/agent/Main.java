package org.mcast4ai.agent;

import org.mcast4ai.client.ClientException;
import org.mcast4ai.client.Mcast4aiClient;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code mcast4ai-agent}: the host-side agent of ACK aggregation.
 * <pre>
 *   mcast4ai-agent aggregate --iface IF --source HOST [options]   the ACK aggregator beside a sender
 *   mcast4ai-agent edge --ports FILE [options]                    the receiver-edge rewrite (the lab's P4 egress)
 * </pre>
 * {@code --attach IF:DIR[@NETNS],...} says where the aggregator runs (default: both directions of --iface; in the
 * lab, the sender's egress for its data and the switch port's egress for the ACKs). Options: {@code --onos URL},
 * {@code --user}, {@code --password} (default $MCAST4AI_ONOS, $ONOS_WEB_USER, $ONOS_WEB_PASS),
 * {@code --interval-ms} (200), {@code --object PATH}, {@code --pin DIR} (/sys/fs/bpf/mcast4ai),
 * {@code --stall-ms} (1000), {@code --cnp-interval-us} (50), {@code --nak-holdoff-ms} (10), {@code --once}.
 * Runs until killed; a restart keeps every group's aggregation state (pinned maps).
 */
public final class Main {
    static final String USAGE = "usage: mcast4ai-agent aggregate --iface IF --source HOST [options]\n"
            + "       mcast4ai-agent edge --ports FILE [options]\n"
            + "options: --attach IF:ingress|egress[@NETNS],... --onos URL --user U --password P --interval-ms N\n"
            + "         --object PATH --pin DIR --agent NAME --stall-ms N --cnp-interval-us N --nak-holdoff-ms N\n"
            + "         --once";

    private static final java.util.Set<String> OPTIONS = java.util.Set.of("--iface", "--attach", "--source",
            "--ports", "--onos", "--user", "--password", "--interval-ms", "--object", "--pin", "--agent",
            "--stall-ms", "--cnp-interval-us", "--nak-holdoff-ms");

    private Main() {
    }

    /**
     * @param args command line
     */
    public static void main(String[] args) {
        System.exit(run(args, System.err, System.getenv()));
    }

    /**
     * @param args command line
     * @param err  where messages go
     * @param env  the environment
     * @return exit status: 0 after --once, 2 for a usage error, 1 if the kernel refused
     */
    static int run(String[] args, PrintStream err, Map<String, String> env) {
        Map<String, String> o = new HashMap<>();
        if (args.length == 0 || !(args[0].equals("aggregate") || args[0].equals("edge"))) {
            err.println(USAGE);
            return 2;
        }
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--once")) {
                o.put("--once", "true");
            } else if (OPTIONS.contains(args[i]) && i + 1 < args.length) {
                o.put(args[i], args[++i]);
            } else {
                err.println("mcast4ai-agent: unexpected '" + args[i] + "'\n" + USAGE);
                return 2;
            }
        }
        DateTimeFormatter hms = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
        Consumer<String> log = m -> err.println(LocalTime.now().format(hms) + " mcast4ai-agent: " + m);
        try {
            Mcast4aiClient client = Mcast4aiClient.connect(
                    o.getOrDefault("--onos", env.getOrDefault("MCAST4AI_ONOS", "localhost")),
                    o.getOrDefault("--user", env.getOrDefault("ONOS_WEB_USER", "onos")),
                    o.getOrDefault("--password", env.getOrDefault("ONOS_WEB_PASS", "rocks")), Duration.ofSeconds(10));
            long interval = number(o, "--interval-ms", 200);
            Path pin = Path.of(o.getOrDefault("--pin", "/sys/fs/bpf/mcast4ai"));
            Round round;
            if (args[0].equals("aggregate")) {
                Aggregator.Settings s = new Aggregator.Settings();
                s.iface = required(o, "--iface");
                s.source = required(o, "--source");
                if (o.containsKey("--attach")) {
                    s.attach = java.util.List.of(o.get("--attach").split(","));
                }
                s.agent = o.getOrDefault("--agent", InetAddress.getLocalHost().getHostName());
                s.pin = pin;
                s.object = Path.of(o.getOrDefault("--object", "ebpf/target/ack_agg.o"));
                s.stallNs = number(o, "--stall-ms", 1000) * 1_000_000L;
                s.cnpIntervalNs = number(o, "--cnp-interval-us", 50) * 1_000L;
                s.nakHoldoffNs = number(o, "--nak-holdoff-ms", 10) * 1_000_000L;
                Aggregator a = new Aggregator(s, client, new Bpftool(), log);
                a.start();
                round = a::round;
            } else {
                EdgeRewriter e = new EdgeRewriter(client, new Bpftool(), log,
                        EdgeRewriter.readPorts(Path.of(required(o, "--ports"))),
                        Path.of(o.getOrDefault("--object", "ebpf/target/edge_rewrite.o")), pin);
                e.start();
                round = e::round;
            }
            boolean once = o.containsKey("--once");
            String lastProblem = null;
            while (true) {
                try {
                    round.run();
                    lastProblem = null;
                } catch (ClientException | IOException e) {
                    // the kernel state stays as it is until the controller answers again; said once per problem
                    if (!e.getMessage().equals(lastProblem)) {
                        log.accept("round: " + e.getMessage());
                        lastProblem = e.getMessage();
                    }
                    if (once) {
                        return 1;
                    }
                }
                if (once) {
                    return 0;
                }
                Thread.sleep(interval);
            }
        } catch (IllegalArgumentException e) {
            err.println("mcast4ai-agent: " + e.getMessage() + "\n" + USAGE);
            return 2;
        } catch (IOException e) {
            log.accept(e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    /** One reconcile round. */
    interface Round {
        void run() throws ClientException, IOException;
    }

    private static String required(Map<String, String> o, String name) {
        String v = o.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(name + " is required");
        }
        return v;
    }

    private static long number(Map<String, String> o, String name, long dflt) {
        String v = o.get(name);
        if (v == null) {
            return dflt;
        }
        try {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a non-negative number; got '" + v + "'");
        }
    }
}
