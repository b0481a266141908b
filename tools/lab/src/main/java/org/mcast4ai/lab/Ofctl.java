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
 * Runs {@code ovs-ofctl -O OpenFlow13} commands, feeding a text file on standard input.
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

    /**
     * Runs {@code ovs-ofctl -O OpenFlow13 <args>} with the given standard input.
     *
     * @param args  arguments after the protocol option
     * @param stdin text for standard input, or null
     * @return the result
     */
    Result run(List<String> args, String stdin);

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
