package org.mcast4ai.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The tree value: per-switch out ports read back as given, copies not views. */
class MulticastTreeTest {

    @Test
    void outPortsReadBackPerSwitch() {
        MulticastTree t = new MulticastTree(new int[]{4, 7, 9}, new long[]{1, 3, 2},
                                            new long[][]{{2, 5}, {}, {1, 4, 6}},
                                            new int[]{4, 4}, new int[]{7, 9}, new int[]{12});
        assertEquals(3, t.size());
        assertArrayEquals(new long[]{2, 5}, t.outPorts(0));
        assertArrayEquals(new long[0], t.outPorts(1));
        assertArrayEquals(new long[]{1, 4, 6}, t.outPorts(2));
        assertEquals(3, t.outPortCount(2));
        assertEquals(4L, t.outPort(2, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> t.outPort(1, 0));
        t.outPorts(0)[0] = 99;
        assertEquals(2L, t.outPort(0, 0), "outPorts returns a copy");
        assertEquals(2, t.fabricLinks());
        assertEquals(9, t.linkTo(1));
        assertArrayEquals(new int[]{12}, t.unreachable());
    }
}
