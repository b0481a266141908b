package org.mcast4ai.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The commands of {@link Main}, each one or a few calls of {@link Mcast4aiClient}. */
final class Commands {
    private static final long DEFAULT_WAIT_SECONDS = 30;

    private final Mcast4aiClient client;
    private final Main.Args a;
    private final PrintStream out;
    private final boolean json;

    Commands(Mcast4aiClient client, Main.Args a, PrintStream out, boolean json) {
        this.client = client;
        this.a = a;
        this.out = out;
        this.json = json;
    }

    int run(String command) throws Main.UsageException, ClientException, IOException {
        switch (command) {
            case "create":
                return create();
            case "wait":
                return await();
            case "show":
                return show();
            case "list":
                return list();
            case "add":
            case "remove":
                return receivers(command.equals("add"));
            case "bitmap":
                a.done(1);
                return print(client.bitmap(a.id()));
            case "plan":
                a.done(1);
                return print(client.plan(a.id()));
            case "withdraw":
                return withdraw();
            default:
                throw new Main.UsageException("unknown command '" + command + "'");
        }
    }

    private int create() throws Main.UsageException, ClientException, IOException {
        String tenant = a.required("--tenant");
        String name = a.required("--name");
        GroupSpec spec = GroupSpec.of(tenant, name).source(a.required("--source"));
        String list = a.option("--receivers");
        String file = a.option("--receivers-file");
        if ((list == null) == (file == null)) {
            throw new Main.UsageException("create needs one of --receivers and --receivers-file");
        }
        List<String> receivers = list != null ? Endpoints.split(list) : Endpoints.read(file);
        if (receivers.isEmpty()) {
            throw new Main.UsageException("no receivers given");
        }
        spec.receivers(receivers);
        String job = a.option("--job-id");
        if (job != null) {
            spec.jobId(job);
        }
        String mode = a.option("--mode");
        if (mode != null) {
            spec.mode(mode);
        }
        String reliability = a.option("--reliability");
        if (reliability != null) {
            spec.reliability(reliability);
        }
        String priority = a.option("--priority");
        if (priority != null) {
            try {
                spec.priority(Integer.parseInt(priority));
            } catch (NumberFormatException e) {
                throw new Main.UsageException("--priority is a number; got '" + priority + "'");
            }
        }
        boolean reuse = a.flag("--reuse");
        boolean wait = a.flag("--wait");
        Duration timeout = timeout();
        boolean allowDegraded = a.flag("--allow-degraded");
        a.done(0);
        JsonNode group;
        try {
            group = client.create(spec);
        } catch (ClientException e) {
            Optional<JsonNode> held = reuse && e.status() == 409 ? client.find(tenant, name) : Optional.empty();
            if (held.isEmpty() || !live(held.get())) {
                throw e;
            }
            // the job's group exists (a retried prolog, another job on the same object): join it
            group = client.addReceivers(held.get().path("id").asLong(), receivers);
        }
        if (wait) {
            group = client.awaitInstalled(group.path("id").asLong(), timeout, allowDegraded);
        }
        return print(group);
    }

    private static boolean live(JsonNode group) {
        String s = group.path("state").asText();
        return !s.equals("WITHDRAWING") && !s.equals("WITHDRAWN");
    }

    private Duration timeout() throws Main.UsageException {
        String t = a.option("--timeout");
        return Duration.ofSeconds(t == null ? DEFAULT_WAIT_SECONDS : a.seconds(t, "--timeout"));
    }

    private int await() throws Main.UsageException, ClientException {
        Duration timeout = timeout();
        boolean allowDegraded = a.flag("--allow-degraded");
        a.done(1);
        return print(client.awaitInstalled(a.id(), timeout, allowDegraded));
    }

    private int show() throws Main.UsageException, ClientException {
        if (a.positional().isEmpty()) {
            String tenant = a.required("--tenant");
            String name = a.required("--name");
            a.done(0);
            return print(byKey(tenant, name));
        }
        a.done(1);
        return print(client.group(a.id()));
    }

    private JsonNode byKey(String tenant, String name) throws ClientException {
        return client.find(tenant, name).orElseThrow(() -> new ClientException(ClientException.Reason.REFUSED,
                404, "no group " + tenant + "/" + name));
    }

    private int list() throws Main.UsageException, ClientException {
        Map<String, String> filters = new LinkedHashMap<>();
        for (String[] f : new String[][]{{"--tenant", "tenant"}, {"--name", "name"}, {"--job-id", "jobId"},
                {"--state", "state"}}) {
            String v = a.option(f[0]);
            if (v != null) {
                filters.put(f[1], v);
            }
        }
        a.done(0);
        List<JsonNode> groups = client.groups(filters);
        if (json) {
            ObjectMapper mapper = new ObjectMapper();
            out.println(mapper.createObjectNode().set("groups", mapper.valueToTree(groups)));
        } else {
            groups.forEach(g -> out.println(Main.summary(g)));
        }
        return 0;
    }

    private int receivers(boolean add) throws Main.UsageException, ClientException {
        a.done(Integer.MAX_VALUE);
        long id = a.id();
        List<String> endpoints = new ArrayList<>(a.positional().subList(1, a.positional().size()));
        if (endpoints.isEmpty()) {
            throw new Main.UsageException((add ? "add" : "remove") + " needs receivers after the id");
        }
        return print(add ? client.addReceivers(id, endpoints) : client.removeReceivers(id, endpoints));
    }

    private int withdraw() throws Main.UsageException, ClientException {
        boolean purge = a.flag("--purge");
        Duration timeout = timeout();
        long id;
        if (a.positional().isEmpty()) {
            String tenant = a.required("--tenant");
            String name = a.required("--name");
            a.done(0);
            id = byKey(tenant, name).path("id").asLong();
        } else {
            a.done(1);
            id = a.id();
        }
        if (purge) {
            client.purge(id, timeout);
            if (json) {
                out.println("{\"id\":" + id + ",\"purged\":true}");
            } else {
                out.println(id + " purged");
            }
            return 0;
        }
        return print(client.withdraw(id));
    }

    private int print(JsonNode n) {
        if (json || !n.has("state")) {
            out.println(json ? n.toString() : n.toPrettyString());
        } else {
            out.println(Main.summary(n));
        }
        return 0;
    }
}
