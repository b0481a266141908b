package org.mcast4ai.lab;

import org.onosproject.net.DeviceId;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.concurrent.TimeUnit;

/**
 * Reaches the lab's switches: {@code ovs-ofctl -O OpenFlow13} commands fed a text file on standard input
 * ({@link #process()}), or the same commands answered over the lab's own OpenFlow connections
 * ({@link OvsOpenFlow}). The flow and group services use {@link #bundle} for writes and {@code dump-flows} /
 * {@code dump-groups} for their audits.
 */
public interface Ofctl {

    /**
     * The outcome of one command.
     */
    final class Result {
        private final int exitCode;
        private final String output;
        private final String errors;

        /**
         * Creates a result.
         *
         * @param exitCode exit code
         * @param output   standard output
         * @param errors   standard error
         */
        public Result(int exitCode, String output, String errors) {
            this.exitCode = exitCode;
            this.output = output;
            this.errors = errors;
        }

        /**
         * Returns true if the command succeeded.
         *
         * @return true on exit code 0
         */
        public boolean ok() {
            return exitCode == 0;
        }

        /**
         * Returns the exit code.
         *
         * @return exit code
         */
        public int exitCode() {
            return exitCode;
        }

        /**
         * Returns the standard output.
         *
         * @return output
         */
        public String output() {
            return output;
        }

        /**
         * Returns the standard error, e.g. the switch's OpenFlow error.
         *
         * @return errors
         */
        public String errors() {
            return errors;
        }
    }

    /** Hears the flows a bridge removed (OFPT_FLOW_REMOVED), on a connection's reader thread. */
    interface FlowRemoved {
        /**
         * @param bridge the bridge
         * @param cookie the removed flow's cookie (the lab's flow id)
         * @param reason why, as the switch names it (DELETE, GROUP_DELETE, IDLE_TIMEOUT, ...)
         */
        void removed(String bridge, long cookie, String reason);
    }

    /**
     * Runs {@code ovs-ofctl -O OpenFlow13 <args>} with the given standard input.
     *
     * @param args  arguments after the protocol option
     * @param stdin text for standard input, or null
     * @return the result
     */
    Result run(List<String> args, String stdin);

    /**
     * Applies writes to one bridge as one atomic bundle: all of them or, when the switch refuses one, none.
     * This default feeds their {@code ovs-ofctl} lines to {@code --bundle add-flows} or {@code add-groups}.
     *
     * @param bridge bridge name
     * @param ops    flow writes or group writes, not both
     * @return the result; not ok when the switch refused the bundle or a write is not mapped
     */
    default Result bundle(String bridge, List<SwitchOp> ops) {
        if (ops.isEmpty()) {
            return new Result(0, "", "");
        }
        if (!oneKind(ops)) {
            return new Result(-1, "", MIXED);
        }
        boolean groups = ops.get(0).isGroup();
        StringBuilder text = new StringBuilder();
        for (SwitchOp op : ops) {
            try {
                text.append(op.line()).append('\n');
            } catch (UnmappedException e) {
                return new Result(-1, "", e.getMessage());
            }
        }
        return run(List.of("--bundle", groups ? "add-groups" : "add-flows", bridge, "-"), text.toString());
    }

    /** Why a bundle that mixes flow and group writes is refused. */
    String MIXED = "a bundle holds flow writes or group writes, not both";

    /**
     * Says whether writes may share one bundle: OpenFlow bundles flow-mods or group-mods, and ovs-ofctl one of
     * {@code add-flows} or {@code add-groups}.
     *
     * @param ops writes
     * @return true when they are all flow writes or all group writes
     */
    static boolean oneKind(List<SwitchOp> ops) {
        return ops.stream().allMatch(op -> op.isGroup() == ops.get(0).isGroup());
    }

    /**
     * Tells a listener about every flow a bridge removes (OFPT_FLOW_REMOVED for flows added with
     * {@code send_flow_rem}), as ONOS's OpenFlow provider tells FlowRuleManager. Only a switch access that holds
     * connections hears them; with this default nothing is heard and repairs wait for the audit.
     *
     * @param listener called with the bridge, the flow's cookie and the reason, on a connection's thread
     */
    default void onFlowRemoved(FlowRemoved listener) {
    }

    /**
     * Returns the lab's way to its switches: its own OpenFlow connections, unless the environment variable
     * {@code MCAST4AI_LAB_SWITCHES} is {@code ovs-ofctl} (one process per bundle, the baseline).
     *
     * @return the switch access
     */
    static Ofctl lab() {
        return labUsesProcesses() ? process() : new OvsOpenFlow();
    }

    /**
     * Says whether {@link #lab()} chose {@code ovs-ofctl} processes, which hear no flow removals.
     *
     * @return true when {@code MCAST4AI_LAB_SWITCHES} is {@code ovs-ofctl}
     */
    static boolean labUsesProcesses() {
        return "ovs-ofctl".equals(System.getenv("MCAST4AI_LAB_SWITCHES"));
    }

    /**
     * Runs one read-only command ({@code dump-flows}, {@code dump-groups}) on several bridges side by side.
     *
     * @param command   the command, followed by the bridge's name
     * @param bridges   device to bridge name
     * @param connected true for a device to read
     * @param pool      where the commands run
     * @return each connected device's result, once all have answered
     */
    default CompletableFuture<Map<DeviceId, Result>> readAll(String command, Map<DeviceId, String> bridges,
                                                           Predicate<DeviceId> connected, Executor pool) {
        Map<DeviceId, CompletableFuture<Result>> reads = new LinkedHashMap<>();
        bridges.forEach((device, bridge) -> {
            if (connected.test(device)) {
                reads.put(device, CompletableFuture.supplyAsync(() -> run(List.of(command, bridge), null), pool));
            }
        });
        return CompletableFuture.allOf(reads.values().toArray(new CompletableFuture[0])).thenApply(v -> {
            Map<DeviceId, Result> out = new LinkedHashMap<>();
            reads.forEach((device, pending) -> out.put(device, pending.join()));
            return out;
        });
    }

    /**
     * Returns the runner that starts the real {@code ovs-ofctl}.
     *
     * @return process runner
     */
    static Ofctl process() {
        return (args, stdin) -> {
            List<String> cmd = new ArrayList<>(List.of("ovs-ofctl", "-O", "OpenFlow13"));
            cmd.addAll(args);
            try {
                Process p = new ProcessBuilder(cmd).start();
                CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
                CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
                try (OutputStream in = p.getOutputStream()) {
                    if (stdin != null) {
                        in.write(stdin.getBytes(StandardCharsets.UTF_8));
                    }
                }
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return new Result(-1, "", "ovs-ofctl timed out: " + String.join(" ", cmd));
                }
                return new Result(p.exitValue(), out.join(), err.join().trim());
            } catch (IOException e) {
                return new Result(-1, "", "cannot run ovs-ofctl: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Result(-1, "", "interrupted");
            }
        };
    }

    private static String drain(InputStream s) {
        try (s) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            s.transferTo(b);
            return b.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
