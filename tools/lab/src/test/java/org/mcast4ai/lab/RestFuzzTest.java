package org.mcast4ai.lab;

import org.junit.jupiter.api.Test;
import org.mcast4ai.client.GroupSpec;
import org.mcast4ai.client.Mcast4aiClient;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RestFuzz} against the lab's REST server over the real manager: 1,500 random requests by the
 * administrator, two tenant users, no credentials and a wrong password.
 */
class RestFuzzTest {

    @Test
    void randomRequestsNeverAnswer5xxNeverHangAndNeverCrossATenant() throws Exception {
        try (HostedRest rest = new HostedRest(20, "maxReceiversPerGroup", "8", "maxGroupsPerTenant", "3",
                "addressPool", "239.1.0.0/28")) {
            Mcast4aiClient admin = Mcast4aiClient.connect(rest.base().toString(), "onos", "rocks",
                    Duration.ofSeconds(10));
            admin.create(GroupSpec.of("t1", "g1").jobId("j").source("10.0.0.1").receivers(List.of("10.0.0.2",
                    "10.0.0.3")));
            admin.create(GroupSpec.of("t2", "g2").jobId("j").source("10.0.0.1").receivers(List.of("10.0.0.4")));
            RestFuzz.Caller onos = new RestFuzz.Caller("onos", LabRealm.basic("onos", "rocks"), null);
            List<RestFuzz.Caller> callers = List.of(onos,
                    new RestFuzz.Caller("alice", LabRealm.basic("alice", "wonder"), "t1"),
                    new RestFuzz.Caller("bob", LabRealm.basic("bob", "builder"), "t2"),
                    new RestFuzz.Caller("anonymous", null, null),
                    new RestFuzz.Caller("wrong", LabRealm.basic("onos", "rock"), null));
            RestFuzz.Result r = new RestFuzz(rest.base(), onos, callers, List.of("10.0.0.1", "10.0.0.2", "10.0.0.3",
                    "10.0.0.4", "10.0.0.5", "10.0.0.6", "10.0.0.7"), 20261201, Duration.ofSeconds(10)).run(1500);
            System.out.println(r);
            assertTrue(r.clean(), r + " " + r.problems);
            assertTrue(r.refused > r.requests / 2, "most random requests are refused: " + r);
            assertTrue(r.accepted > 50, "and some change groups: " + r);
        }
    }
}
