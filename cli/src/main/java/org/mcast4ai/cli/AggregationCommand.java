package org.mcast4ai.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.mcast4ai.api.AggregationContext;
import org.mcast4ai.api.AggregationReport;
import org.mcast4ai.api.GroupException;
import org.mcast4ai.api.P2mpGroupId;
import org.mcast4ai.api.VirtualPeer;
import org.mcast4ai.codec.AggregationContextCodec;

/**
 * Shows an ACK_AGGREGATION group's aggregation: its virtual peer, each receiver's slot, peer QPN, join PSN and
 * whether it is stalled, and the aggregation point's last counters (ACKs, NAKs and CNPs in and out, drops by
 * reason).
 */
@Service
@Command(scope = "mcast4ai", name = "mcast4ai-aggregation",
        description = "Shows an ACK_AGGREGATION group's virtual peer, receivers and aggregation counters")
public class AggregationCommand extends Mcast4aiCommand {

    @Argument(index = 0, name = "id", description = "Group id", required = true)
    @Completion(GroupIdCompleter.class)
    String id = null;

    @Override
    protected void run() {
        P2mpGroupId gid = P2mpGroupId.parse(id);
        readable(gid);
        AggregationContext c = groupService.getAggregation(gid).orElseThrow(() -> GroupException.notFound(gid));
        if (outputJson()) {
            print("%s", AggregationContextCodec.encode(c).toString());
            return;
        }
        VirtualPeer p = c.peer();
        print("group %d %s: virtual peer %s mac %s qpn %d, index %d, first PSN %d", gid.value(), c.group().state(),
                p.address(), p.mac(), p.qpn(), p.index(), p.startPsn());
        print("  sender %s ip %s qpn %d", c.sender().host(), c.sender().ip(), c.sender().qpn());
        for (AggregationContext.Member m : c.receivers()) {
            print("  receiver %s ip %s qpn %d slot %d peer qpn %d join PSN %d%s", m.host(), m.ip(), m.qpn(),
                    m.slot(), m.peerQpn(), m.joinPsn(), p.stalled().contains(m.host()) ? " STALLED" : "");
        }
        c.unresolved().forEach(u -> print("  unresolved %s", u));
        if (c.report().isEmpty()) {
            print("  no report from an aggregation point yet");
            return;
        }
        AggregationReport r = c.report().get();
        StringBuilder counters = new StringBuilder();
        for (String name : AggregationReport.COUNTERS) {
            counters.append(' ').append(name).append('=').append(r.counter(name));
        }
        print("  report from %s:%s", r.agent(), counters);
        print("  sender next PSN %d, acknowledged to the sender %d", r.sentNext(), r.acked());
        r.receiverAcked().forEach((host, psn) -> print("  receiver %s acknowledged PSN %d, lag %d%s", host, psn,
                r.lag(host), r.stalled().contains(host) ? " STALLED" : ""));
    }
}
