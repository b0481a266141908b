package org.mcast4ai.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The kernel side through Debian's {@code bpftool} and {@code tc}: load and pin a program with its maps, attach it
 * to an interface, run it on a frame ({@code BPF_PROG_RUN}) and read or write map entries. One process per call:
 * the agent's work is control-plane rate (a few calls per group per period), and the tools are the interface the
 * kernel's maintainers keep stable.
 */
public class Bpftool {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TIMEOUT_S = 20;

    /** A command that failed. */
    public static final class Failure extends IOException {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message);
        }
    }

    /** What a command printed. */
    public static final class Result {
        final int exit;
        final String out;
        final String err;

        Result(int exit, String out, String err) {
            this.exit = exit;
            this.out = out;
            this.err = err;
        }
    }

    /**
     * @param cmd command and arguments
     * @return exit status and output
     * @throws IOException if it cannot run or does not finish in time
     */
    public Result exec(List<String> cmd) throws IOException {
        Path out = Files.createTempFile("mcast4ai-agent", ".out");
        Path err = Files.createTempFile("mcast4ai-agent", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new Failure(String.join(" ", cmd.subList(0, Math.min(4, cmd.size()))) + ": no answer in "
                        + TIMEOUT_S + " s");
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted");
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private Result ok(List<String> cmd) throws IOException {
        Result r = exec(cmd);
        if (r.exit != 0) {
            String e = r.err.strip();
            throw new Failure(String.join(" ", cmd.subList(0, Math.min(4, cmd.size()))) + " failed: "
                    + (e.length() > 400 ? e.substring(e.length() - 400) : e));
        }
        return r;
    }

    /**
     * Loads an object and pins its program and maps, unless the program is pinned already (then the running
     * instance and its maps, with every group's state, are kept).
     *
     * @param object the compiled object
     * @param prog   where the program is pinned
     * @param maps   directory its maps are pinned in
     * @return true if it was loaded now, false if it was there
     * @throws IOException if the verifier refuses it or bpffs is not mounted
     */
    public boolean loadPinned(Path object, Path prog, Path maps) throws IOException {
        if (Files.exists(prog)) {
            return false;
        }
        Files.createDirectories(maps);
        ok(List.of("bpftool", "prog", "load", object.toString(), prog.toString(), "type", "classifier", "pinmaps",
                maps.toString()));
        return true;
    }

    /**
     * Attaches a pinned program to one direction of an interface, unless a filter of that name is there.
     *
     * @param iface     the interface
     * @param direction ingress or egress
     * @param prog      the pinned program
     * @param name      the program's name (as tc shows it)
     * @param pref      the filter's preference (lower runs first)
     * @return true if attached now
     * @throws IOException if tc refuses
     */
    public boolean attach(String iface, String direction, Path prog, String name, int pref) throws IOException {
        return attach(iface, direction, null, prog, name, pref);
    }

    /**
     * Attaches a pinned program to one direction of an interface in a network namespace (entered for the network
     * only, so the pinned program stays visible).
     *
     * @param iface     the interface
     * @param direction ingress or egress
     * @param netns     a name under /run/netns, or null for this namespace
     * @param prog      the pinned program
     * @param name      the program's name (as tc shows it)
     * @param pref      the filter's preference (lower runs first)
     * @return true if attached now
     * @throws IOException if tc refuses
     */
    public boolean attach(String iface, String direction, String netns, Path prog, String name, int pref)
            throws IOException {
        List<String> in = netns == null ? List.of() : List.of("nsenter", "--net=/run/netns/" + netns);
        exec(concat(in, List.of("tc", "qdisc", "add", "dev", iface, "clsact")));
        Result shown = ok(concat(in, List.of("tc", "filter", "show", "dev", iface, direction)));
        if (shown.out.contains(name)) {
            return false;
        }
        ok(concat(in, List.of("tc", "filter", "add", "dev", iface, direction, "pref", Integer.toString(pref), "bpf",
                "direct-action", "object-pinned", prog.toString())));
        return true;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /**
     * Runs a pinned program once on a frame ({@code BPF_PROG_RUN}).
     *
     * @param prog  the pinned program
     * @param frame the frame
     * @return the program's return value
     * @throws IOException if bpftool fails
     */
    public int run(Path prog, byte[] frame) throws IOException {
        Path in = Files.createTempFile("mcast4ai-agent", ".frame");
        try {
            Files.write(in, frame);
            Result r = ok(List.of("bpftool", "-j", "prog", "run", "pinned", prog.toString(), "data_in",
                    in.toString()));
            return JSON.readTree(r.out).path("retval").asInt(-1);
        } finally {
            Files.deleteIfExists(in);
        }
    }

    /** What a test run of the program returned and the frame it left. */
    public static final class Run {
        final int retval;
        final byte[] out;

        Run(int retval, byte[] out) {
            this.retval = retval;
            this.out = out;
        }
    }

    /**
     * Runs a pinned program on one frame and reads the frame it leaves (an aggregated ACK a control run wrote).
     *
     * @param prog  the pinned program
     * @param frame the frame
     * @return the return value and the frame out
     * @throws IOException if bpftool fails
     */
    public Run runWithOutput(Path prog, byte[] frame) throws IOException {
        Path in = Files.createTempFile("mcast4ai-agent", ".frame");
        Path out = Files.createTempFile("mcast4ai-agent", ".out-frame");
        try {
            Files.write(in, frame);
            Result r = ok(List.of("bpftool", "-j", "prog", "run", "pinned", prog.toString(), "data_in",
                    in.toString(), "data_out", out.toString(), "data_size_out", "2048"));
            return new Run(JSON.readTree(r.out).path("retval").asInt(-1), Files.readAllBytes(out));
        } finally {
            Files.deleteIfExists(in);
            Files.deleteIfExists(out);
        }
    }

    /**
     * @param map a pinned map
     * @param key the key's bytes
     * @return the entry as bpftool formats it from the map's BTF ({@code formatted.value}), or null if absent
     * @throws IOException if bpftool fails otherwise
     */
    public JsonNode lookup(Path map, byte[] key) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("bpftool", "-j", "map", "lookup", "pinned", map.toString(),
                "key", "hex"));
        cmd.addAll(hex(key));
        Result r = exec(cmd);
        if (r.exit != 0) {
            return null;
        }
        return JSON.readTree(r.out).path("formatted").path("value");
    }

    /**
     * @param map   a pinned map
     * @param key   the key's bytes
     * @param value the value's bytes
     * @throws IOException if bpftool fails
     */
    public void update(Path map, byte[] key, byte[] value) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("bpftool", "map", "update", "pinned", map.toString(), "key",
                "hex"));
        cmd.addAll(hex(key));
        cmd.add("value");
        cmd.add("hex");
        cmd.addAll(hex(value));
        ok(cmd);
    }

    /**
     * @param map a pinned hash map
     * @param key the key's bytes
     * @throws IOException if bpftool fails (an absent key is no failure)
     */
    public void delete(Path map, byte[] key) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("bpftool", "map", "delete", "pinned", map.toString(), "key",
                "hex"));
        cmd.addAll(hex(key));
        exec(cmd);
    }

    /**
     * @param map a pinned map
     * @return its entries as bpftool formats them ({@code [{"key": ..., "value": ...}]})
     * @throws IOException if bpftool fails
     */
    public JsonNode dump(Path map) throws IOException {
        Result r = ok(List.of("bpftool", "-j", "map", "dump", "pinned", map.toString()));
        return JSON.readTree(r.out);
    }

    /**
     * @param iface an interface name
     * @return its ifindex
     * @throws IOException if there is no such interface
     */
    public int ifindex(String iface) throws IOException {
        Path p = Path.of("/sys/class/net", iface, "ifindex");
        if (!Files.exists(p)) {
            throw new Failure("no interface " + iface);
        }
        return Integer.parseInt(Files.readString(p).strip());
    }

    private static List<String> hex(byte[] b) {
        List<String> out = new ArrayList<>(b.length);
        for (byte x : b) {
            out.add(String.format("%02x", x & 0xff));
        }
        return out;
    }
}
