package org.mcast4ai.engine.reliable;

import java.util.ArrayList;
import java.util.List;

/** Records what an aggregator passes on, one line per output: {@code ack 5 msn 2}, {@code nak 6 60}, ... */
final class Recorder implements AggregationOutput {
    final List<String> lines = new ArrayList<>();
    private final java.util.function.LongFunction<String> names;

    Recorder() {
        this(Long::toHexString);
    }

    /** @param names how stalled receivers are named */
    Recorder(java.util.function.LongFunction<String> names) {
        this.names = names;
    }

    final List<Integer> acks = new ArrayList<>();
    final List<Integer> naks = new ArrayList<>();

    @Override
    public void ack(int psn, int msn, int credit) {
        acks.add(psn);
        lines.add("ack " + psn + " msn " + msn + " credit " + credit);
    }

    @Override
    public void nak(int psn, int msn, int syndrome) {
        naks.add(psn);
        lines.add("nak " + psn + " msn " + msn + " syndrome " + Integer.toHexString(syndrome));
    }

    @Override
    public void cnp() {
        lines.add("cnp");
    }

    @Override
    public void dropped(Drop why, long source) {
        lines.add("drop " + why);
    }

    @Override
    public void stalled(long receiver) {
        lines.add("stalled " + names.apply(receiver));
    }

    /** @return the lines recorded since the last call, and forgets them */
    List<String> take() {
        List<String> l = new ArrayList<>(lines);
        lines.clear();
        acks.clear();
        naks.clear();
        return l;
    }
}
