package org.mcast4ai.api;

import java.util.List;
import java.util.Objects;

/**
 * What the P4 fabric loop last did on this instance: the switches bound to mcast4ai's pipeconf that it
 * programs, how many runs it made, what its last run wrote, and why it could not program them if it could not
 * (a switch with more uplinks than the program holds, a fabric it cannot lay out). Immutable.
 */
public final class P4FabricStatus {
    private final boolean writer;
    private final List<String> switches;
    private final long runs;
    private final long lastRunMillis;
    private final int rulesWritten;
    private final int rulesRemoved;
    private final int groupsWritten;
    private final String problem;
    private final List<String> unacknowledged;
    private final List<String> joining;
    private final String pipeconf;

    /**
     * @param writer        true if this instance writes the static state (the others only watch)
     * @param switches      available switches bound to the pipeconf, by device id
     * @param runs          runs since the app started
     * @param lastRunMillis wall-clock time of the last run, 0 before the first
     * @param rulesWritten  table entries the last run added or replaced
     * @param rulesRemoved  table entries the last run removed
     * @param groupsWritten multicast groups the last run added or changed
     * @param problem       why the last run could not program the switches; null if it could
     */
    public P4FabricStatus(boolean writer, List<String> switches, long runs, long lastRunMillis, int rulesWritten,
                          int rulesRemoved, int groupsWritten, String problem) {
        this(writer, switches, runs, lastRunMillis, rulesWritten, rulesRemoved, groupsWritten, problem, List.of());
    }

    /**
     * @param writer         true if this instance writes the static state (the others only watch)
     * @param switches       available switches bound to the pipeconf, by device id
     * @param runs           runs since the app started
     * @param lastRunMillis  wall-clock time of the last run, 0 before the first
     * @param rulesWritten   table entries the last run added or replaced
     * @param rulesRemoved   table entries the last run removed
     * @param groupsWritten  multicast groups the last run added or changed
     * @param problem        why the last run could not program the switches; null if it could
     * @param unacknowledged the switches that have not acknowledged their static state yet (groups wait for them)
     */
    public P4FabricStatus(boolean writer, List<String> switches, long runs, long lastRunMillis, int rulesWritten,
                          int rulesRemoved, int groupsWritten, String problem, List<String> unacknowledged) {
        this(writer, switches, runs, lastRunMillis, rulesWritten, rulesRemoved, groupsWritten, problem,
                unacknowledged, List.of());
    }

    /**
     * @param writer         true if this instance writes the static state (the others only watch)
     * @param switches       available switches bound to the pipeconf, by device id
     * @param runs           runs since the app started
     * @param lastRunMillis  wall-clock time of the last run, 0 before the first
     * @param rulesWritten   table entries the last run added or replaced
     * @param rulesRemoved   table entries the last run removed
     * @param groupsWritten  multicast groups the last run added or changed
     * @param problem        why the last run could not program the switches; null if it could
     * @param unacknowledged the switches that have not acknowledged their static state yet (groups wait for them)
     * @param joining        the switches, and links as {@code a/b}, back after a failure that the others do not
     *                       forward through until they (a link's two ends) acknowledged their state
     */
    public P4FabricStatus(boolean writer, List<String> switches, long runs, long lastRunMillis, int rulesWritten,
                          int rulesRemoved, int groupsWritten, String problem, List<String> unacknowledged,
                          List<String> joining) {
        this(writer, switches, runs, lastRunMillis, rulesWritten, rulesRemoved, groupsWritten, problem,
                unacknowledged, joining, null);
    }

    /**
     * @param writer         true if this instance writes the static state (the others only watch)
     * @param switches       available switches bound to the pipeconf, by device id
     * @param runs           runs since the app started
     * @param lastRunMillis  wall-clock time of the last run, 0 before the first
     * @param rulesWritten   table entries the last run added or replaced
     * @param rulesRemoved   table entries the last run removed
     * @param groupsWritten  multicast groups the last run added or changed
     * @param problem        why the last run could not program the switches; null if it could
     * @param unacknowledged the switches that have not acknowledged their static state yet (groups wait for them)
     * @param joining        the switches, and links as {@code a/b}, back after a failure that the others do not
     *                       forward through until they (a link's two ends) acknowledged their state
     * @param pipeconf       the pipeconf (build of the program) the switches run and are planned for; null when
     *                       no switch runs one, or they run several
     */
    public P4FabricStatus(boolean writer, List<String> switches, long runs, long lastRunMillis, int rulesWritten,
                          int rulesRemoved, int groupsWritten, String problem, List<String> unacknowledged,
                          List<String> joining, String pipeconf) {
        this.pipeconf = pipeconf;
        this.unacknowledged = List.copyOf(unacknowledged);
        this.joining = List.copyOf(joining);
        this.writer = writer;
        this.switches = List.copyOf(switches);
        this.runs = runs;
        this.lastRunMillis = lastRunMillis;
        this.rulesWritten = rulesWritten;
        this.rulesRemoved = rulesRemoved;
        this.groupsWritten = groupsWritten;
        this.problem = problem;
    }

    /** @return true if this instance writes the static state */
    public boolean writer() {
        return writer;
    }

    /** @return the available switches bound to the pipeconf */
    public List<String> switches() {
        return switches;
    }

    /** @return runs since the app started */
    public long runs() {
        return runs;
    }

    /** @return wall-clock milliseconds of the last run, 0 before the first */
    public long lastRunMillis() {
        return lastRunMillis;
    }

    /** @return table entries the last run added or replaced */
    public int rulesWritten() {
        return rulesWritten;
    }

    /** @return table entries the last run removed */
    public int rulesRemoved() {
        return rulesRemoved;
    }

    /** @return multicast groups the last run added or changed */
    public int groupsWritten() {
        return groupsWritten;
    }

    /** @return the switches that have not acknowledged their static state yet */
    public List<String> unacknowledged() {
        return unacknowledged;
    }

    /**
     * @return the switches, and links as {@code a/b}, back after a failure that the others do not forward through
     *         yet: they wait for its (a link's two ends') acknowledgement (a switch back with empty tables, or a link
     *         its ends do not know yet, would drop what reaches it)
     */
    public List<String> joining() {
        return joining;
    }

    /** @return why the last run could not program the switches, or null */
    public String problem() {
        return problem;
    }

    /** @return the pipeconf the switches run and are planned for; null when none, or several */
    public String pipeconf() {
        return pipeconf;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof P4FabricStatus)) {
            return false;
        }
        P4FabricStatus s = (P4FabricStatus) o;
        return s.writer == writer && s.switches.equals(switches) && s.runs == runs
                && s.lastRunMillis == lastRunMillis && s.rulesWritten == rulesWritten
                && s.rulesRemoved == rulesRemoved && s.groupsWritten == groupsWritten
                && Objects.equals(s.problem, problem) && s.unacknowledged.equals(unacknowledged)
                && s.joining.equals(joining) && Objects.equals(s.pipeconf, pipeconf);
    }

    @Override
    public int hashCode() {
        return Objects.hash(writer, switches, runs, lastRunMillis, rulesWritten, rulesRemoved, groupsWritten,
                problem, unacknowledged, joining, pipeconf);
    }

    @Override
    public String toString() {
        return "writer=" + writer + " pipeconf=" + pipeconf + " switches=" + switches.size() + " runs=" + runs
                + " rulesWritten="
                + rulesWritten + " rulesRemoved=" + rulesRemoved + " groupsWritten=" + groupsWritten
                + " unacknowledged=" + unacknowledged + " joining=" + joining
                + " problem=" + (problem == null ? "none" : problem);
    }
}
