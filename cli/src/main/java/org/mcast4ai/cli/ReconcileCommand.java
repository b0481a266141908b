package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.ReconcileCounters;

/** Shows what the reconcile loop has done: audits, repairs, orphans removed. */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-reconcile",
        description = "Shows the reconcile loop's audits, repairs and orphan rules removed on this instance")
public class ReconcileCommand extends Mcast4aiCommand {

    @Override
    protected void run() {
        access().checkReadsAll();
        ReconcileCounters c = groupService.reconcileCounters();
        if (outputJson()) {
            print("{\"audits\":%d,\"repairs\":%d,\"orphansRemoved\":%d}", c.audits(), c.repairs(), c.orphansRemoved());
            return;
        }
        print("audits=%d repairs=%d orphansRemoved=%d", c.audits(), c.repairs(), c.orphansRemoved());
    }
}
