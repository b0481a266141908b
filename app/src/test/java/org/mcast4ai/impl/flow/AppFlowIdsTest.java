package org.mcast4ai.impl.flow;

import org.junit.jupiter.api.Test;
import org.onlab.packet.Ethernet;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onlab.packet.TpPort;
import org.onlab.packet.VlanId;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.TrafficSelector;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The ids are exactly the ones {@code fromApp} gives, for random rules of the kinds the app builds. */
class AppFlowIdsTest {
    @Test
    void sameIdAsFromAppForRandomRules() {
        Random rnd = new Random(5);
        for (int i = 0; i < 3000; i++) {
            ApplicationId app = new DefaultApplicationId(1 + rnd.nextInt(Short.MAX_VALUE), "a" + i);
            DeviceId dev = DeviceId.deviceId(String.format("of:%016x", rnd.nextInt(64)));
            int table = rnd.nextInt(255);
            int priority = rnd.nextInt(65536);
            TrafficSelector sel = selector(rnd);
            long expected = DefaultFlowRule.builder().forDevice(dev).forTable(table).withPriority(priority)
                    .withSelector(sel).withTreatment(DefaultTrafficTreatment.emptyTreatment()).fromApp(app)
                    .makePermanent().build().id().value();
            // twice: the second time the criteria's text comes from the cache
            assertEquals(expected, AppFlowIds.of(app, dev, sel, priority, table), sel.toString());
            assertEquals(expected, AppFlowIds.of(app, dev, sel, priority, table), sel.toString());
        }
    }

    private static TrafficSelector selector(Random rnd) {
        TrafficSelector.Builder b = DefaultTrafficSelector.builder();
        if (rnd.nextBoolean()) {
            b.matchEthType(Ethernet.TYPE_IPV4).matchIPDst(IpPrefix.valueOf(0xE0000000 | rnd.nextInt(1 << 20),
                    4 + rnd.nextInt(29)));
        }
        if (rnd.nextBoolean()) {
            b.matchInPort(PortNumber.portNumber(1 + rnd.nextInt(64)));
        }
        if (rnd.nextBoolean()) {
            b.matchVlanId(VlanId.vlanId((short) (1 + rnd.nextInt(4094))));
        }
        if (rnd.nextBoolean()) {
            b.matchMetadata(rnd.nextInt(1 << 17));
        }
        switch (rnd.nextInt(3)) {
            case 0:
                MacAddress one = MacAddress.valueOf(1L << rnd.nextInt(48));
                b.matchEthSrcMasked(one, one);
                break;
            case 1:
                b.matchEthSrc(MacAddress.valueOf(rnd.nextLong() & 0xffff_ffff_ffffL));
                break;
            default:
                b.matchEthDst(MacAddress.valueOf(rnd.nextLong() & 0xffff_ffff_ffffL));
        }
        if (rnd.nextInt(4) == 0) {
            b.matchIPProtocol((byte) 17).matchUdpDst(TpPort.tpPort(rnd.nextInt(65536)));
        }
        return b.build();
    }
}
