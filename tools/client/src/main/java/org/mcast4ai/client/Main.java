package org.mcast4ai.client;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code mcast4ai-client}: the scheduler's command over the REST API. Exit status 0 on success, 1 when the API
 * refuses the call (its message on standard error), 2 for a usage error, 3 when a waited-for group FAILED, 4 when
 * it is DEGRADED, 5 on a timeout, 6 when the controller cannot be reached.
 */
public final class Main {
    static final String USAGE = String.join("\n",
            "usage: mcast4ai-client [--onos HOST[:PORT]|URL] [--user USER] [--password PASSWORD] [--json]",
            "                       [--http-timeout SECONDS] COMMAND ...",
            "  create --tenant T --name N --source HOST[#QPN] (--receivers H,H#QPN,... | --receivers-file F|-)",
            "         [--job-id J] [--mode AUTO|TREE|BITMAP] [--reliability R] [--priority P] [--reuse]",
            "         [--wait] [--timeout SECONDS] [--allow-degraded]",
            "  wait ID [--timeout SECONDS] [--allow-degraded]",
            "  show ID | show --tenant T --name N",
            "  list [--tenant T] [--name N] [--job-id J] [--state S]",
            "  add ID HOST[#QPN]...        remove ID HOST[#QPN]...",
            "  bitmap ID                   plan ID",
            "  withdraw (ID | --tenant T --name N) [--purge] [--timeout SECONDS]",
            "Hosts are ONOS host ids, MACs, IPs or names the resolver knows. The controller, user and password",
            "default to $MCAST4AI_ONOS (else $OCI, else localhost), $ONOS_WEB_USER and $ONOS_WEB_PASS (onos/rocks).",
            "Exit status: 0 done, 1 refused by the API, 2 usage, 3 FAILED, 4 DEGRADED, 5 timeout, 6 unreachable.");

    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;

    Main(PrintStream out, PrintStream err, Map<String, String> env) {
        this.out = out;
        this.err = err;
        this.env = env;
    }

    /**
     * Runs the command and exits with its status.
     *
     * @param args command line
     */
    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err, System.getenv()));
    }

    /**
     * Runs the command without exiting.
     *
     * @param args command line
     * @param out  standard output
     * @param err  standard error
     * @param env  the environment ({@code MCAST4AI_ONOS}, {@code OCI}, {@code ONOS_WEB_USER}, {@code ONOS_WEB_PASS})
     * @return the exit status
     */
    public static int execute(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        return new Main(out, err, env).run(args);
    }

    /** A usage error. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /**
     * @param args command line
     * @return exit status
     */
    int run(String[] args) {
        try {
            Args a = new Args(args);
            String onos = a.global("--onos", env.getOrDefault("MCAST4AI_ONOS", env.getOrDefault("OCI", "localhost")));
            String user = a.global("--user", env.getOrDefault("ONOS_WEB_USER", "onos"));
            String password = a.global("--password", env.getOrDefault("ONOS_WEB_PASS", "rocks"));
            long httpTimeout = a.seconds(a.global("--http-timeout", "30"), "--http-timeout");
            boolean json = a.globalFlag("--json");
            String command = a.command();
            Mcast4aiClient client;
            try {
                client = Mcast4aiClient.connect(onos, user, password, Duration.ofSeconds(httpTimeout));
            } catch (IllegalArgumentException e) {
                throw new UsageException("--onos: " + e.getMessage());
            }
            return new Commands(client, a, out, json).run(command);
        } catch (UsageException e) {
            err.println("mcast4ai-client: " + e.getMessage());
            err.println(USAGE);
            return 2;
        } catch (ClientException e) {
            err.println("mcast4ai-client: " + (e.status() > 0 ? e.status() + " " : "") + e.getMessage());
            return e.reason().exitStatus();
        } catch (IllegalArgumentException e) {
            err.println("mcast4ai-client: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("mcast4ai-client: " + e.getMessage());
            return 2;
        }
    }

    /** The command line: global options, the command, its options and positional arguments. */
    static final class Args {
        private final Map<String, String> globals = new LinkedHashMap<>();
        private final Map<String, String> options = new LinkedHashMap<>();
        private final List<String> positional = new ArrayList<>();
        private String command;

        private static final List<String> FLAGS = List.of("--json", "--wait", "--purge", "--allow-degraded",
                "--reuse");

        Args(String[] args) throws UsageException {
            int i = 0;
            for (; i < args.length && args[i].startsWith("--"); i++) {
                i = option(args, i, globals);
            }
            if (i == args.length) {
                throw new UsageException("no command");
            }
            command = args[i++];
            for (; i < args.length; i++) {
                if (args[i].startsWith("--")) {
                    i = option(args, i, options);
                } else {
                    positional.add(args[i]);
                }
            }
        }

        private static int option(String[] args, int i, Map<String, String> into) throws UsageException {
            String name = args[i];
            String value;
            int eq = name.indexOf('=');
            if (eq > 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (FLAGS.contains(name)) {
                value = "true";
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new UsageException(name + " needs a value");
            }
            if (into.put(name, value) != null) {
                throw new UsageException(name + " is given twice");
            }
            return i;
        }

        String command() {
            return command;
        }

        String global(String name, String dflt) {
            String v = globals.remove(name);
            return v == null ? dflt : v;
        }

        boolean globalFlag(String name) throws UsageException {
            String v = globals.remove(name);
            if (v == null) {
                v = options.remove(name);
            }
            if (!globals.isEmpty()) {
                throw new UsageException("unknown option " + globals.keySet().iterator().next()
                        + " before the command");
            }
            return v != null && flag(name, v);
        }

        String option(String name) {
            return options.remove(name);
        }

        String required(String name) throws UsageException {
            String v = options.remove(name);
            if (v == null || v.isEmpty()) {
                throw new UsageException(command + " needs " + name);
            }
            return v;
        }

        boolean flag(String name) throws UsageException {
            String v = options.remove(name);
            return v != null && flag(name, v);
        }

        private static boolean flag(String name, String v) throws UsageException {
            if (!v.equals("true") && !v.equals("false")) {
                throw new UsageException(name + " is true or false; got '" + v + "'");
            }
            return v.equals("true");
        }

        List<String> positional() {
            return positional;
        }

        long seconds(String v, String name) throws UsageException {
            try {
                long s = Long.parseLong(v);
                if (s > 0) {
                    return s;
                }
            } catch (NumberFormatException e) {
                // the message below
            }
            throw new UsageException(name + " is a positive number of seconds; got '" + v + "'");
        }

        /**
         * Refuses options and arguments the command did not take.
         *
         * @param positionals how many arguments the command takes
         * @throws UsageException for an option or an argument it does not take
         */
        void done(int positionals) throws UsageException {
            if (!options.isEmpty()) {
                throw new UsageException(command + " does not take " + options.keySet().iterator().next());
            }
            if (positional.size() > positionals) {
                throw new UsageException(command + " takes " + positionals + " argument(s); got "
                        + positional.size() + ": " + positional);
            }
        }

        long id() throws UsageException {
            if (positional.isEmpty()) {
                throw new UsageException(command + " needs a group id");
            }
            String text = positional.get(0);
            try {
                long id = Long.parseLong(text);
                if (id > 0 && Long.toString(id).equals(text)) {
                    return id;
                }
            } catch (NumberFormatException e) {
                // the message below
            }
            throw new UsageException("a group id is a positive decimal number; got '" + text + "'");
        }
    }

    /**
     * @param group a group as the API answers it
     * @return one line: id, tenant/name, state, address, mode, receiver count
     */
    static String summary(JsonNode group) {
        StringBuilder s = new StringBuilder();
        s.append(group.path("id").asLong()).append(' ').append(group.path("tenant").asText()).append('/')
                .append(group.path("name").asText()).append(' ').append(group.path("state").asText()).append(' ')
                .append(group.path("address").asText("-")).append(' ')
                .append(group.path("effectiveMode").asText(group.path("mode").asText()))
                .append(" receivers=").append(group.path("receivers").size());
        if (group.path("unreachable").size() > 0) {
            s.append(" unreachable=").append(group.path("unreachable").size());
        }
        if (!group.path("reason").asText().isEmpty()) {
            s.append(" (").append(group.path("reason").asText()).append(')');
        }
        return s.toString();
    }
}
