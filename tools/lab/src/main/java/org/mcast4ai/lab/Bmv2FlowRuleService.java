package org.mcast4ai.lab;

import org.onlab.util.ImmutableByteSequence;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.DefaultFlowEntry;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleServiceAdapter;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.flow.instructions.PiInstruction;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;
import org.onosproject.net.pi.runtime.PiFieldMatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ONOS's flow rule service over BMv2 switches, as its P4Runtime flow rule programmable would be: the app's PI
 * table entries (a {@link PiCriterion} of exact matches and a {@link PiAction}; an empty selector is the table's
 * default action) written with BMv2's runtime CLI, batch by batch and stage by stage in order. A batch is
 * acknowledged once every switch answered every entry of it; a stage a switch refused fails the batch with the
 * refused operations and the stages after it are not sent (ONOS's semantics). What a switch accepted is listed
 * ADDED; nothing else is.
 */
public class Bmv2FlowRuleService extends FlowRuleServiceAdapter {
    private static final Logger log = LoggerFactory.getLogger(Bmv2FlowRuleService.class);
    private static final Pattern HANDLE = Pattern.compile("added with handle (\\d+)");

    private final Map<DeviceId, Integer> thrift;
    private final P4InfoOrder order;
    private final Bmv2Cli cli;
    private final Executor executor;
    private final Executor perSwitch;
    // per device, what it holds: the rule and its entry handle (-1 for a default action)
    private final Map<DeviceId, Map<FlowId, Held>> tables = new ConcurrentHashMap<>();
    // what is applied and not answered yet, or refused (FAILED), as ONOS's flow store lists it
    private final Map<DeviceId, Map<FlowId, FlowEntry>> pending = new ConcurrentHashMap<>();

    private static final class Held {
        final FlowRule rule;
        final int handle;

        Held(FlowRule rule, int handle) {
            this.rule = rule;
            this.handle = handle;
        }
    }

    /**
     * @param thrift   each switch's thrift port
     * @param order    the program's match field and parameter order
     * @param cli      the runtime CLI
     * @param executor where batches are written, one after another
     */
    public Bmv2FlowRuleService(Map<DeviceId, Integer> thrift, P4InfoOrder order, Bmv2Cli cli, Executor executor) {
        this.thrift = Map.copyOf(thrift);
        this.order = order;
        this.cli = cli;
        this.executor = executor;
        this.perSwitch = executor instanceof java.util.concurrent.ExecutorService
                ? java.util.concurrent.Executors.newCachedThreadPool(
                        org.onlab.util.Tools.groupedThreads("mcast4ai-lab", "bmv2-switch-%d"))
                : Runnable::run;
    }

    @Override
    public void apply(FlowRuleOperations ops) {
        // ONOS's store lists a rule PENDING_ADD (or PENDING_REMOVE) from the moment it is applied
        for (java.util.Set<FlowRuleOperation> stage : ops.stages()) {
            for (FlowRuleOperation op : stage) {
                pending.computeIfAbsent(op.rule().deviceId(), d -> new ConcurrentHashMap<>()).put(op.rule().id(),
                        new DefaultFlowEntry(op.rule(), op.type() == FlowRuleOperation.Type.REMOVE
                                ? FlowEntry.FlowEntryState.PENDING_REMOVE : FlowEntry.FlowEntryState.PENDING_ADD));
            }
        }
        executor.execute(() -> {
            FlowRuleOperations.Builder failed = FlowRuleOperations.builder();
            boolean anyFailed = false;
            for (java.util.Set<FlowRuleOperation> stage : ops.stages()) {
                Map<DeviceId, List<FlowRuleOperation>> byDevice = new LinkedHashMap<>();
                stage.forEach(op -> byDevice.computeIfAbsent(op.rule().deviceId(), d -> new ArrayList<>()).add(op));
                // the switches of a stage in parallel, as ONOS writes each device on its own; the stage ends when
                // every one answered
                Map<DeviceId, java.util.concurrent.CompletableFuture<List<FlowRuleOperation>>> answers =
                        new LinkedHashMap<>();
                byDevice.forEach((d, list) -> answers.put(d, java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> write(d, list), perSwitch)));
                for (Map.Entry<DeviceId, java.util.concurrent.CompletableFuture<List<FlowRuleOperation>>> e
                        : answers.entrySet()) {
                    List<FlowRuleOperation> no = e.getValue().join();
                    refusedOn(e.getKey(), no);
                    for (FlowRuleOperation op : no) {
                        anyFailed = true;
                        if (op.type() == FlowRuleOperation.Type.REMOVE) {
                            failed.remove(op.rule());
                        } else {
                            failed.add(op.rule());
                        }
                    }
                }
                if (anyFailed) {
                    break;
                }
            }
            if (ops.callback() == null) {
                return;
            }
            if (anyFailed) {
                ops.callback().onError(failed.build());
            } else {
                ops.callback().onSuccess(ops);
            }
        });
    }

    // writes one device's operations of a stage; returns those it refused
    private List<FlowRuleOperation> write(DeviceId device, List<FlowRuleOperation> ops) {
        Integer port = thrift.get(device);
        if (port == null) {
            return ops;
        }
        Map<FlowId, Held> held = tables.computeIfAbsent(device, d -> new ConcurrentHashMap<>());
        List<String> commands = new ArrayList<>();
        List<FlowRuleOperation> sent = new ArrayList<>();
        List<FlowRuleOperation> refused = new ArrayList<>();
        for (FlowRuleOperation op : ops) {
            try {
                String c = command(op, held.get(op.rule().id()));
                if (c == null) {
                    held.remove(op.rule().id());
                    settled(device, op);
                    continue;
                }
                commands.add(c);
                sent.add(op);
            } catch (IllegalArgumentException e) {
                log.warn("{}: entry not translated: {}", device, e.getMessage());
                refused.add(op);
            }
        }
        if (commands.isEmpty()) {
            return refused;
        }
        List<String> answers;
        try {
            answers = new ArrayList<>(cli.run(port, commands));
        } catch (IOException e) {
            log.warn("{}: {}", device, e.getMessage());
            refused.addAll(sent);
            return refused;
        }
        for (int i = 0; i < sent.size(); i++) {
            FlowRuleOperation op = sent.get(i);
            String error = Bmv2Cli.error(answers.get(i));
            if (error != null && error.contains("DUPLICATE_ENTRY") && commands.get(i).startsWith("table_add ")) {
                // the switch holds the entry from before the runner started (a controller restart): taken over
                // and set to what is asked, as ONOS reconciles a device's entries when it connects
                String adopted = adopt(port, commands.get(i));
                error = adopted.startsWith("handle ") ? null : adopted;
                if (error == null) {
                    answers.set(i, "Entry has been added with " + adopted);
                }
            }
            if (error != null) {
                log.warn("{} refused {}: {}", device, commands.get(i), error);
                refused.add(op);
                continue;
            }
            FlowId id = op.rule().id();
            settled(device, op);
            if (op.type() == FlowRuleOperation.Type.REMOVE) {
                held.remove(id);
            } else {
                Held before = held.get(id);
                Matcher m = HANDLE.matcher(answers.get(i));
                int handle = m.find() ? Integer.parseInt(m.group(1)) : before != null ? before.handle : -1;
                held.put(id, new Held(op.rule(), handle));
            }
        }
        return refused;
    }

    // table_add T A K... => P...: the handle of the entry with key K, set to A(P); "handle N", or the error
    private String adopt(int port, String add) {
        int arrow = add.indexOf(" =>");
        String[] parts = {add.substring(0, arrow), add.substring(arrow + 3).trim()};
        String[] head = parts[0].split(" ");
        String table = head[1];
        String action = head[2];
        String key = String.join(" ", java.util.Arrays.copyOfRange(head, 3, head.length));
        String params = parts[1].isEmpty() ? "" : " " + parts[1];
        try {
            String dump = cli.run(port, List.of("table_dump_entry_from_key " + table + " " + key)).get(0);
            Matcher m = Pattern.compile("Dumping entry 0x([0-9a-fA-F]+)").matcher(dump);
            if (!m.find()) {
                return "no entry for the key: " + dump.trim();
            }
            int handle = Integer.parseInt(m.group(1), 16);
            String e = Bmv2Cli.error(cli.run(port, List.of("table_modify " + table + " " + action + " " + handle
                    + " =>" + params)).get(0));
            return e == null ? "handle " + handle : e;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    // an operation answered: the store lists what the switch holds
    private void settled(DeviceId device, FlowRuleOperation op) {
        Map<FlowId, FlowEntry> p = pending.get(device);
        if (p != null) {
            p.computeIfPresent(op.rule().id(), (k, e) -> e.state() == (op.type() == FlowRuleOperation.Type.REMOVE
                    ? FlowEntry.FlowEntryState.PENDING_REMOVE : FlowEntry.FlowEntryState.PENDING_ADD) ? null : e);
        }
    }

    // refused: ONOS lists a rule the switch refused as FAILED (the app writes it again)
    private void refusedOn(DeviceId device, List<FlowRuleOperation> ops) {
        for (FlowRuleOperation op : ops) {
            if (op.type() == FlowRuleOperation.Type.REMOVE) {
                settled(device, op);
            } else {
                pending.computeIfAbsent(device, d -> new ConcurrentHashMap<>()).put(op.rule().id(),
                        new DefaultFlowEntry(op.rule(), FlowEntry.FlowEntryState.FAILED));
            }
        }
    }

    // the CLI command of an operation, or null when there is nothing to do (removing what the switch lacks)
    private String command(FlowRuleOperation op, Held held) {
        FlowRule r = op.rule();
        String table = ((PiTableId) r.table()).id();
        PiCriterion criterion = (PiCriterion) r.selector().getCriterion(Criterion.Type.PROTOCOL_INDEPENDENT);
        boolean isDefault = criterion == null;
        if (op.type() == FlowRuleOperation.Type.REMOVE) {
            if (held == null) {
                return null;
            }
            return isDefault ? "table_reset_default " + table : "table_delete " + table + " " + held.handle;
        }
        PiAction action = action(r);
        String params = params(action);
        if (isDefault) {
            return "table_set_default " + table + " " + action.id().id() + params;
        }
        if (held != null && held.handle >= 0) {
            // "=>" before the parameters: BMv2's CLI fails on a modify without it when there is none
            return "table_modify " + table + " " + action.id().id() + " " + held.handle + " =>" + params;
        }
        StringBuilder key = new StringBuilder();
        for (String f : order.fields(table)) {
            PiFieldMatch m = criterion.fieldMatch(org.onosproject.net.pi.model.PiMatchFieldId.of(f))
                    .orElseThrow(() -> new IllegalArgumentException(table + ": no match on " + f));
            if (!(m instanceof PiExactFieldMatch)) {
                throw new IllegalArgumentException(table + "." + f + ": only exact matches are written");
            }
            key.append(' ').append(hex(((PiExactFieldMatch) m).value()));
        }
        return "table_add " + table + " " + action.id().id() + key + " =>" + params;
    }

    private static PiAction action(FlowRule r) {
        if (r.treatment().allInstructions().size() != 1
                || !(r.treatment().allInstructions().get(0) instanceof PiInstruction)
                || !(((PiInstruction) r.treatment().allInstructions().get(0)).action() instanceof PiAction)) {
            throw new IllegalArgumentException("not one PI action: " + r.treatment());
        }
        return (PiAction) ((PiInstruction) r.treatment().allInstructions().get(0)).action();
    }

    private String params(PiAction a) {
        StringBuilder out = new StringBuilder();
        for (String p : order.params(a.id().id())) {
            PiActionParam v = a.parameters().stream()
                    .filter(x -> x.id().equals(org.onosproject.net.pi.model.PiActionParamId.of(p))).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(a.id() + ": no parameter " + p));
            out.append(' ').append(hex(v.value()));
        }
        return out.toString();
    }

    private static String hex(ImmutableByteSequence b) {
        StringBuilder s = new StringBuilder("0x");
        for (byte x : b.asArray()) {
            s.append(String.format("%02x", x));
        }
        return s.length() == 2 ? "0" : s.toString();
    }

    /**
     * A switch came back with its tables empty: what the store holds for it is written again, as ONOS's flow
     * audit re-installs the rules a device lacks (the app's own audit may write them too: they are replaced).
     *
     * @param device the switch
     */
    public void reinstall(DeviceId device) {
        executor.execute(() -> {
            Map<FlowId, Held> held = tables.get(device);
            if (held == null || held.isEmpty()) {
                return;
            }
            List<FlowRuleOperation> ops = new ArrayList<>();
            held.values().forEach(h -> ops.add(new FlowRuleOperation(h.rule, FlowRuleOperation.Type.ADD)));
            // the entries' handles went with the switch's tables
            held.clear();
            List<FlowRuleOperation> no = write(device, ops);
            refusedOn(device, no);
            log.info("{} back: {} entries written again, {} refused", device, ops.size() - no.size(), no.size());
        });
    }

    @Override
    public Iterable<FlowEntry> getFlowEntries(DeviceId deviceId) {
        Map<FlowId, FlowEntry> out = new LinkedHashMap<>();
        tables.getOrDefault(deviceId, Map.of()).forEach((id, h) -> out.put(id,
                new DefaultFlowEntry(h.rule, FlowEntry.FlowEntryState.ADDED)));
        out.putAll(pending.getOrDefault(deviceId, Map.of()));
        return new ArrayList<>(out.values());
    }

    @Override
    public FlowEntry getFlowEntry(FlowRule rule) {
        FlowEntry p = pending.getOrDefault(rule.deviceId(), Map.of()).get(rule.id());
        if (p != null) {
            return p;
        }
        Held h = tables.getOrDefault(rule.deviceId(), Map.of()).get(rule.id());
        return h == null ? null : new DefaultFlowEntry(h.rule, FlowEntry.FlowEntryState.ADDED);
    }

    @Override
    public Iterable<FlowEntry> getFlowEntriesById(ApplicationId id) {
        List<FlowEntry> out = new ArrayList<>();
        tables.values().forEach(t -> t.values().stream().filter(h -> h.rule.appId() == id.id())
                .forEach(h -> out.add(new DefaultFlowEntry(h.rule, FlowEntry.FlowEntryState.ADDED))));
        return out;
    }

    @Override
    public int getFlowRuleCount() {
        return tables.values().stream().mapToInt(Map::size).sum();
    }

    @Override
    public void applyFlowRules(FlowRule... rules) {
        FlowRuleOperations.Builder b = FlowRuleOperations.builder();
        for (FlowRule r : rules) {
            b.add(r);
        }
        apply(b.build());
    }

    @Override
    public void removeFlowRules(FlowRule... rules) {
        FlowRuleOperations.Builder b = FlowRuleOperations.builder();
        for (FlowRule r : rules) {
            b.remove(r);
        }
        apply(b.build());
    }
}
