package org.mcast4ai.lab;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar mcast4ai-lab.jar --fabric tools/lab/out/fabric.json [--port 8181] [--state FILE]
 * [--users FILE] [--bind ADDRESS] [--config NAME=VALUE]... [--unicast-routes]}: hosts the mcast4ai components
 * (with the group manager's settings given, as {@code cfg set} would on ONOS) over an Open vSwitch lab fabric and
 * serves the REST API at {@code http://127.0.0.1:PORT/onos/mcast4ai/} (BASIC, the users of FILE or ONOS's default
 * {@code onos}/{@code rocks}) until SIGTERM or Ctrl-C; {@code --unicast-routes} adds routes to every host, as a
 * fabric's unicast routing would (for baselines).
 * {@code java -jar mcast4ai-lab.jar bench --fabric F} runs the setup measurements ({@link SetupBench}).
 */
public final class LabRunner {

    private LabRunner() {
    }

    /**
     * Runs the lab.
     *
     * @param args command line; {@code bench ARGS} runs {@link SetupBench} instead
     * @throws Exception if the benchmark fails
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("bench")) {
            SetupBench.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        Path fabricFile = null;
        int port = 8181;
        Lab.Settings settings = new Lab.Settings();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--fabric":
                        fabricFile = Path.of(args[++i]);
                        break;
                    case "--port":
                        port = Integer.parseInt(args[++i]);
                        break;
                    case "--state":
                        settings.stateFile = Path.of(args[++i]);
                        break;
                    case "--users":
                        settings.users = Path.of(args[++i]);
                        break;
                    case "--unicast-routes":
                        settings.unicastRoutes = true;
                        break;
                    case "--bind":
                        settings.bind = args[++i];
                        break;
                    case "--config":
                        String kv = args[++i];
                        int eq = kv.indexOf('=');
                        if (eq <= 0) {
                            usage("--config takes NAME=VALUE (a setting of the group manager); got " + kv);
                        }
                        settings.managerConfig.put(kv.substring(0, eq), kv.substring(eq + 1));
                        break;
                    default:
                        usage("unknown argument " + args[i]);
                }
            }
        } catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
            usage("bad arguments");
        }
        if (fabricFile == null || !Files.isReadable(fabricFile)) {
            usage("--fabric FILE is required and must be readable");
        }
        LabFabric fabric;
        try {
            fabric = LabFabric.read(fabricFile);
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("lab-runner: cannot read " + fabricFile + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        AutoCloseable lab;
        URI base;
        try {
            if (P4Lab.isP4(fabricFile)) {
                P4Lab p4 = P4Lab.start(fabric, fabricFile, port, settings);
                lab = p4;
                base = p4.base();
            } else {
                Lab ovs = Lab.start(fabric, Ofctl.lab(), port, Lab.COMPONENTS, settings);
                lab = ovs;
                base = ovs.base();
            }
        } catch (RuntimeException | IOException e) {
            System.err.println("lab-runner: cannot start: " + e.getMessage());
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.err.println("lab-runner: stopping");
            try {
                lab.close();
                System.out.println("lab-runner: stopped");
            } catch (Throwable e) {
                System.err.println("lab-runner: stop failed: " + e);
            } finally {
                System.out.flush();
                stopped.countDown();
            }
        }, "lab-runner-stop"));
        String ready = base.toString();
        System.out.println("lab-runner: ready on " + ready.substring(0, ready.length() - 1));
        System.out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void usage(String why) {
        System.err.println("lab-runner: " + why);
        System.err.println("usage: java -jar mcast4ai-lab.jar --fabric FABRIC.json [--port 8181] [--state FILE]"
                + " [--users USERS.properties] [--bind 127.0.0.1] [--config NAME=VALUE]..."
                + " [--unicast-routes]");
        System.exit(2);
    }
}
