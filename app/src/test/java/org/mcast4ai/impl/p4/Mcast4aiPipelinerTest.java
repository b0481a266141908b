package org.mcast4ai.impl.p4;

import org.junit.jupiter.api.Test;
import org.onlab.packet.Ethernet;
import org.onlab.packet.IPv6;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.flowobjective.DefaultFilteringObjective;
import org.onosproject.net.flowobjective.DefaultForwardingObjective;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.flowobjective.Objective;
import org.onosproject.net.flowobjective.ObjectiveContext;
import org.onosproject.net.flowobjective.ObjectiveError;
import org.onosproject.net.flow.criteria.Criteria;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The objectives ONOS's packet service sends for link discovery and host learning succeed (the program punts
 * those frames itself); anything the program does not do fails as unsupported instead of passing for installed.
 */
class Mcast4aiPipelinerTest {
    private static final TrafficTreatment PUNT = DefaultTrafficTreatment.builder().punt().wipeDeferred().build();
    private final Mcast4aiPipeliner pipeliner = new Mcast4aiPipeliner();
    private final List<String> answers = new ArrayList<>();

    private ObjectiveContext recorder() {
        return new ObjectiveContext() {
            @Override
            public void onSuccess(Objective objective) {
                answers.add("ok");
            }

            @Override
            public void onError(Objective objective, ObjectiveError error) {
                answers.add(error.name());
            }
        };
    }

    private String forward(TrafficSelector selector, TrafficTreatment treatment) {
        answers.clear();
        pipeliner.forward(DefaultForwardingObjective.builder().withSelector(selector).withTreatment(treatment)
                .fromApp(new DefaultApplicationId(1, "org.onosproject.core")).withPriority(40000)
                .withFlag(ForwardingObjective.Flag.VERSATILE).makePermanent().add(recorder()));
        assertEquals(1, answers.size(), "exactly one answer");
        return answers.get(0);
    }

    private static TrafficSelector eth(short type) {
        return DefaultTrafficSelector.builder().matchEthType(type).build();
    }

    @Test
    void packetRequestsForWhatTheProgramPuntsSucceed() {
        assertEquals("ok", forward(eth(Ethernet.TYPE_LLDP), PUNT));
        assertEquals("ok", forward(eth(Ethernet.TYPE_BSN), PUNT));
        assertEquals("ok", forward(eth(Ethernet.TYPE_ARP), PUNT));
        assertEquals("ok", forward(DefaultTrafficSelector.builder().matchEthType(Ethernet.TYPE_IPV6)
                .matchIPProtocol(IPv6.PROTOCOL_ICMP6).matchIcmpv6Type((byte) 135).build(), PUNT));
    }

    @Test
    void everythingElseIsUnsupported() {
        assertEquals("UNSUPPORTED", forward(eth(Ethernet.TYPE_IPV4), PUNT));
        assertEquals("UNSUPPORTED", forward(eth(Ethernet.TYPE_IPV6), PUNT));
        assertEquals("UNSUPPORTED", forward(DefaultTrafficSelector.emptySelector(), PUNT));
        assertEquals("UNSUPPORTED", forward(eth(Ethernet.TYPE_ARP),
                DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(1)).build()));
        assertEquals("UNSUPPORTED", forward(eth(Ethernet.TYPE_ARP),
                DefaultTrafficTreatment.builder().punt().setOutput(PortNumber.portNumber(1)).build()));
        answers.clear();
        pipeliner.filter(DefaultFilteringObjective.builder().withKey(Criteria.matchInPort(PortNumber.portNumber(1)))
                .addCondition(Criteria.matchEthType(Ethernet.TYPE_IPV4))
                .fromApp(new DefaultApplicationId(1, "x")).withPriority(1).permit().add(recorder()));
        assertEquals(List.of("UNSUPPORTED"), answers);
    }
}
