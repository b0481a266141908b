package org.mcast4ai.impl.bitmap;

import org.mcast4ai.engine.FabricSnapshot;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Make-before-break across switches for one static-table sync. A switch's changed up rules (a spread slot moved to
 * another uplink, a new bit sent up) point copies at a neighbour. When that neighbour adds rules of its own in the
 * same sync (a link back: the spine's down rules towards the returned leaf, the leaf's rules for arrivals on it),
 * every switch's other additions are acknowledged first and the up rules follow. When the new uplinks lead to
 * switches that add nothing (a link or spine gone: the slots move to what forwards already), the up rules go at
 * once, so a reroute never waits an extra round.
 */
final class UpOrder {
    private final int upTable;
    private final Map<DeviceId, CompletableFuture<Void>> firstStages = new ConcurrentHashMap<>();
    private final Set<DeviceId> adding = ConcurrentHashMap.newKeySet();
    private final Map<DeviceId, List<FlowRule>> upMoves = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> gate = new CompletableFuture<>();

    /** @param upTable the table of the up rules (the replication chain's first) */
    UpOrder(int upTable) {
        this.upTable = upTable;
    }

    /**
     * Takes a switch's up rules (those in the up table that copy to a port) out of its additions.
     *
     * @param add the rules to add on one switch; what remains goes in the first round
     * @return its up rules
     */
    List<FlowRule> takeUp(List<FlowRule> add) {
        List<FlowRule> up = new ArrayList<>();
        add.removeIf(r -> {
            boolean isUp = r.tableId() == upTable && r.treatment().allInstructions().stream()
                    .anyMatch(i -> i.type() == Instruction.Type.OUTPUT);
            if (isUp) {
                up.add(r);
            }
            return isUp;
        });
        return up;
    }

    /**
     * @param device the switch
     * @param adds   whether its first round adds rules
     * @param done   completes when its first round is answered
     * @param up     its up rules, sent once {@link #gate()} opens
     */
    void sent(DeviceId device, boolean adds, CompletableFuture<Void> done, List<FlowRule> up) {
        firstStages.put(device, done);
        if (adds) {
            adding.add(device);
        }
        if (!up.isEmpty()) {
            upMoves.put(device, up);
        }
    }

    /** @return opens when the up rules may go */
    CompletableFuture<Void> gate() {
        return gate;
    }

    /**
     * Every switch has been sent its first round: opens the gate at once, or, if an up rule leads to a switch
     * that adds rules, when every first round is answered (successfully or not: a switch that refused is tried
     * again by the next sync).
     *
     * @param fabric the snapshot the sync follows (null: open at once)
     */
    void allSent(FabricSnapshot fabric) {
        if (fabric == null || !leadsToAdding(fabric)) {
            gate.complete(null);
            return;
        }
        CompletableFuture.allOf(firstStages.values().stream().map(f -> f.handle((v, e) -> (Void) null))
                .toArray(CompletableFuture[]::new)).whenComplete((v, e) -> gate.complete(null));
    }

    private boolean leadsToAdding(FabricSnapshot fabric) {
        for (Map.Entry<DeviceId, List<FlowRule>> e : upMoves.entrySet()) {
            int sw = fabric.switchIndex(e.getKey().toString());
            if (sw < 0) {
                continue;
            }
            Set<Long> ports = new HashSet<>();
            e.getValue().forEach(r -> r.treatment().allInstructions().stream()
                    .filter(i -> i.type() == Instruction.Type.OUTPUT)
                    .forEach(i -> ports.add(((Instructions.OutputInstruction) i).port().toLong())));
            for (int l = fabric.linkStart(sw); l < fabric.linkStart(sw + 1); l++) {
                if (ports.contains(fabric.linkFromPort(l))
                        && adding.contains(DeviceId.deviceId(fabric.switchName(fabric.linkTo(l))))) {
                    return true;
                }
            }
        }
        return false;
    }
}
