package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.P4FabricService;
import org.mcast4ai.api.P4FabricStatus;
import org.mcast4ai.codec.P4FabricStatusCodec;

import java.time.Instant;

/** Shows the P4 fabric loop: the switches bound to mcast4ai's pipeconf, what its last run wrote, and why not. */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-p4-fabric",
        description = "Shows the P4 switches bound to mcast4ai's pipeconf and the static state the app keeps on them")
public class P4FabricCommand extends Mcast4aiCommand {

    /** The P4 fabric loop. */
    @Reference
    protected P4FabricService p4Fabric;

    @Override
    protected void run() {
        access().checkReadsAll();
        P4FabricStatus s = p4Fabric.status();
        if (outputJson()) {
            print("%s", P4FabricStatusCodec.encode(s));
            return;
        }
        print("switches=%d pipeconf=%s writer=%s runs=%d last=%s wrote rules=%d removed=%d groups=%d",
                s.switches().size(), s.pipeconf() == null ? "none" : s.pipeconf(), s.writer(), s.runs(),
                s.lastRunMillis() == 0 ? "never" : Instant.ofEpochMilli(s.lastRunMillis()), s.rulesWritten(),
                s.rulesRemoved(), s.groupsWritten());
        if (s.problem() != null) {
            print("not programmed: %s", s.problem());
        }
        // groups with receivers behind a switch that has not answered wait for it
        s.switches().forEach(d -> print("  %s%s%s", d, s.unacknowledged().contains(d)
                ? "  static state not acknowledged yet" : "", s.joining().contains(d)
                ? "  back: the others forward through it once it acknowledged" : ""));
        s.joining().stream().filter(l -> l.contains("/")).forEach(l -> print("  link %s  back: the others forward "
                + "through it once its ends acknowledged", l));
    }
}
