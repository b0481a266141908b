package org.mcast4ai.engine.reliable;

import java.util.Arrays;

/**
 * One group's ACK aggregation: the group's receivers acknowledge an RC sender through one virtual peer, and the
 * sender sees what a single RC responder would send it.
 *
 * <ul>
 *   <li>Each receiver's acknowledged PSN is kept; the aggregated ACK carries the minimum over the current
 *       receivers, extended past the 24-bit wrap ({@link Psn}). It is sent once per advance of the minimum and
 *       never beyond it, with the MSN and credit of the receiver that holds the minimum (of several, the one
 *       with the lowest {@link #key}), as they were when the minimum was last found.</li>
 *   <li>A NAK (PSN sequence error, or receiver not ready) is passed on at once with the PSN after the minimum,
 *       so the NAK's implied acknowledgement never covers data a slower receiver lacks, and only once per PSN
 *       per retransmission round: NAKs for the same PSN are repeated only after the sender retransmitted it
 *       (or, where the aggregation point does not see the data, after the NAK hold-off).</li>
 *   <li>After the sender retransmits, one duplicate ACK is passed on as a re-ACK of the aggregated PSN (a
 *       sender that timed out must hear again what it already knows).</li>
 *   <li>CNPs are passed on at most once per CNP interval per group.</li>
 *   <li>An ACK, NAK or CNP whose ICRC does not verify is dropped and counted before anything else is read of
 *       it ({@link #onCorrupt}): a damaged PSN never frees data at the sender.</li>
 *   <li>Anything from a source that is not a current receiver is dropped, and so is an ACK or NAK beyond the
 *       last PSN sent where the aggregation point sees the data: at any distance ahead the 24-bit arithmetic can
 *       tell (up to 2^23 - 1 past the next PSN to send; what lies behind it is a stale duplicate).</li>
 *   <li>When the minimum has not advanced for the stall timeout while data is unacknowledged, the stall clock
 *       starts again and the group is suspect: from then on it counts the active receivers heard from ahead of
 *       the minimum (any ACK or NAK, duplicates included). If the minimum still stands at the next timeout and
 *       more than half of the active receivers were heard from ahead of it in that window, the receivers at the
 *       minimum lag alone: they are reported stalled and no longer hold it back. Otherwise it is a common stall
 *       (a loss many receivers share, or the fabric cut between the sender and many of them while a receiver on
 *       the sender's side still acknowledges): nobody is evicted, it is counted, the window starts again, and
 *       the sender's retransmission recovers. The window opens only after a whole stall timeout without
 *       progress, so a receiver heard just before a partition cut it off does not count as heard; a partition
 *       never looks like dead receivers. With two receivers only the controller evicts one. No
 *       rule leaves the group without an active receiver: a fatal NAK (access or operational error) stalls its
 *       receiver instead of reaching the sender, unless it is the last active one, when the sender gets it
 *       (at the PSN after the minimum). The controller may evict a receiver it finds unreachable
 *       ({@link #evict}).</li>
 *   <li>A receiver joins at a stated PSN, never below the aggregated PSN (the sender may have freed that data)
 *       nor past the next PSN to be sent: it holds the minimum only from there. One that leaves or stalls lets
 *       the minimum advance to the slowest remaining receiver, never further.</li>
 * </ul>
 *
 * <p>Time is the caller's ({@code nowNanos}); nothing here reads a clock, blocks or allocates per packet.
 * An ACK costs O(1) unless its receiver was the last one at the minimum, when the minimum is found again over
 * the receivers (once per advance of the minimum). Not thread-safe: one aggregator per group, fed by one thread.
 */
public final class AckAggregator {
    /** AETH syndrome of a NAK for a PSN sequence error. */
    public static final int NAK_SEQUENCE = 0x60;
    private static final int SYNDROME_KIND = 0xE0;
    private static final int KIND_ACK = 0x00;
    private static final int KIND_RNR = 0x20;
    private static final int KIND_NAK = 0x60;
    private static final long NEVER = Long.MIN_VALUE;

    /** How the aggregation point is placed and paced. */
    public static final class Config {
        final boolean seesData;
        final long stallNanos;
        final long cnpIntervalNanos;
        final long nakHoldoffNanos;

        /**
         * @param seesData         whether the aggregation point sees the sender's data (then ACKs beyond it are
         *                         dropped and retransmissions open a new NAK round)
         * @param stallNanos       how long the minimum may stand still with data unacknowledged before the
         *                         receivers at it are stalled out
         * @param cnpIntervalNanos at most one CNP per this interval reaches the sender
         * @param nakHoldoffNanos  without the data in sight: how long a NAK for the same PSN is not repeated
         */
        public Config(boolean seesData, long stallNanos, long cnpIntervalNanos, long nakHoldoffNanos) {
            if (stallNanos <= 0 || cnpIntervalNanos < 0 || nakHoldoffNanos < 0) {
                throw new IllegalArgumentException("timeouts must be positive and intervals not negative");
            }
            this.seesData = seesData;
            this.stallNanos = stallNanos;
            this.cnpIntervalNanos = cnpIntervalNanos;
            this.nakHoldoffNanos = nakHoldoffNanos;
        }
    }

    private final Config config;
    private final AggregationOutput out;
    private final KeySlots index;

    // per receiver, by slot 0 .. count-1
    private long[] keys;
    private long[] acked;
    private int[] msn;
    private int[] credit;
    private boolean[] stalled;
    private int[] heardIn;      // the window a receiver was last counted in as heard from ahead of the minimum
    private int count;
    private int active;

    private long min;           // minimum acknowledged PSN over the active receivers
    private int atMin;          // active receivers whose acknowledged PSN is the minimum
    private int minMsn;
    private int minCredit;
    private long ackOut;        // the PSN the sender holds as acknowledged (ACK or NAK passed on)
    private long minSince;      // when the minimum last advanced, or data was sent with everything acknowledged
    private int window;         // the stall clock's window, one more at every start of the clock
    private int heardAhead;     // active receivers heard from ahead of the minimum in this window
    private boolean suspect;    // this window opened at a stall timeout: it decides who lags alone
    private long sentNext;      // the next PSN the sender will send (seesData), or one past the highest ACK seen
    private long nakOut = NEVER;
    private long nakOutNanos;
    private boolean retransmitted;
    private boolean reack;
    private long cnpOutNanos = NEVER;

    private long acksIn;
    private long acksOut;
    private long reAcks;
    private long naksIn;
    private long naksOut;
    private long cnpsIn;
    private long cnpsOut;
    private long stalls;
    private long commonStalls;
    private final long[] drops = new long[AggregationOutput.Drop.values().length];

    /**
     * @param startPsn the sender's first PSN (24 bits)
     * @param config   placement and pacing
     * @param out      where ACKs, NAKs, CNPs, drops and stalls go
     * @param expected receivers expected (capacity grows past it)
     */
    public AckAggregator(int startPsn, Config config, AggregationOutput out, int expected) {
        this.config = config;
        this.out = out;
        this.index = new KeySlots(expected);
        int n = Math.max(1, expected);
        keys = new long[n];
        acked = new long[n];
        msn = new int[n];
        credit = new int[n];
        stalled = new boolean[n];
        heardIn = new int[n];
        sentNext = startPsn & Psn.MASK;
        ackOut = sentNext - 1;
        min = ackOut;
    }

    /**
     * A receiver's name: RC ACKs carry no source QPN, so a receiver is its address and the QPN its ACKs are
     * addressed to (its queue pair's peer at the group's virtual peer, one per receiver).
     *
     * @param ipv4 the receiver's IPv4 address
     * @param qpn  the QPN its ACKs name
     * @return the key that names it to the aggregator
     */
    public static long key(int ipv4, int qpn) {
        return (ipv4 & 0xFFFFFFFFL) << Psn.BITS | qpn & Psn.MASK;
    }

    // ------------------------------------------------------------------ membership

    /**
     * Adds a receiver that holds the minimum from {@code joinPsn} on.
     *
     * @param key      the receiver ({@link #key})
     * @param joinPsn  the first PSN it must acknowledge (24 bits)
     * @param nowNanos now
     * @throws IllegalArgumentException if it is a receiver already, or the PSN is below the aggregated PSN or
     *                                  past the next PSN the sender sends
     */
    public void addReceiver(long key, int joinPsn, long nowNanos) {
        if (index.get(key) >= 0) {
            throw new IllegalArgumentException("receiver " + Long.toHexString(key) + " is already in the group");
        }
        long join = Psn.extend(joinPsn, ackOut + 1);
        if (join < ackOut + 1 || config.seesData && join > sentNext) {
            throw new IllegalArgumentException("a receiver joins between PSN " + Psn.wire(ackOut + 1)
                    + " (the sender may have freed what is before) and the next PSN sent; got " + joinPsn);
        }
        if (count == keys.length) {
            int n = count * 2;
            keys = Arrays.copyOf(keys, n);
            acked = Arrays.copyOf(acked, n);
            msn = Arrays.copyOf(msn, n);
            credit = Arrays.copyOf(credit, n);
            stalled = Arrays.copyOf(stalled, n);
            heardIn = Arrays.copyOf(heardIn, n);
        }
        int s = count++;
        keys[s] = key;
        acked[s] = join - 1;
        msn[s] = minMsn;
        credit[s] = minCredit;
        stalled[s] = false;
        heardIn[s] = window - 1;
        index.put(key, s);
        if (active++ == 0) {
            min = join - 1;
            atMin = 1;
            restartClock(nowNanos);
        } else if (join - 1 == min) {
            atMin++;
        }
    }

    /**
     * Removes a receiver (it left the group, or the controller gave up on a stalled one). The minimum may advance
     * to the slowest remaining receiver.
     *
     * @param key      the receiver
     * @param nowNanos now
     * @return whether it was a receiver
     */
    public boolean removeReceiver(long key, long nowNanos) {
        int s = index.get(key);
        if (s < 0) {
            return false;
        }
        boolean heldMin = !stalled[s] && acked[s] == min;
        if (!stalled[s]) {
            active--;
            unheard(s);
        }
        index.remove(key);
        int last = --count;
        if (s != last) {
            keys[s] = keys[last];
            acked[s] = acked[last];
            msn[s] = msn[last];
            credit[s] = credit[last];
            stalled[s] = stalled[last];
            heardIn[s] = heardIn[last];
            index.put(keys[s], s);
        }
        if (heldMin && --atMin == 0) {
            minAdvanced(nowNanos);
        }
        return true;
    }

    // ------------------------------------------------------------------ packets

    /**
     * The sender sent a data packet (only where the aggregation point sees the data).
     *
     * @param psn      its PSN (24 bits)
     * @param nowNanos now
     */
    public void onData(int psn, long nowNanos) {
        long p = Psn.extend(psn, sentNext);
        if (p >= sentNext) {
            if (active > 0 && min == sentNext - 1) {
                // everything was acknowledged: the stall clock starts with this packet
                restartClock(nowNanos);
            }
            sentNext = p + 1;
        } else {
            retransmitted = true;
            reack = true;
        }
    }

    /**
     * An ACK from the receivers' side.
     *
     * @param source   the packet's source ({@link #key} of its IP and QPN)
     * @param psn      the PSN it acknowledges (24 bits)
     * @param ackMsn   its MSN
     * @param ackCredit its credit count
     * @param nowNanos now
     */
    public void onAck(long source, int psn, int ackMsn, int ackCredit, long nowNanos) {
        int s = index.get(source);
        if (s < 0 || stalled[s]) {
            drop(AggregationOutput.Drop.NON_MEMBER, source);
            return;
        }
        acksIn++;
        // where the data is in sight, the PSN is placed against what was sent: everything the 24 bits tell as
        // ahead of it is beyond, everything behind it that the receiver acknowledged already is stale
        long p = Psn.extend(psn, config.seesData ? sentNext : acked[s]);
        if (beyondSent(p)) {
            drop(AggregationOutput.Drop.BEYOND_SENT, source);
            return;
        }
        if (p <= acked[s]) {
            heard(s);
            if (reack) {
                reack = false;
                reAcks++;
                out.ack(Psn.wire(ackOut), minMsn, minCredit);
            }
            return;
        }
        advance(s, p, ackMsn, ackCredit, nowNanos);
        heard(s);
    }

    /**
     * An ACK, NAK or CNP from the receivers' side whose ICRC does not verify: dropped and counted, and nothing
     * else about it is believed (its source included).
     *
     * @param source   the source it claims ({@link #key}), for the record
     * @param nowNanos now
     */
    public void onCorrupt(long source, long nowNanos) {
        drop(AggregationOutput.Drop.BAD_ICRC, source);
    }

    /**
     * The controller found a receiver unreachable (its leaf or link is gone): it no longer holds back the
     * minimum, as if it had stalled, until it is removed or re-added. Refused for the last active receiver.
     *
     * @param key      the receiver
     * @param nowNanos now
     * @return whether it was evicted (false: not a receiver, already stalled, or the last active one)
     */
    public boolean evict(long key, long nowNanos) {
        int s = index.get(key);
        if (s < 0 || stalled[s] || active <= 1) {
            return false;
        }
        boolean heldMin = acked[s] == min;
        stall(s);
        if (heldMin && --atMin == 0) {
            minAdvanced(nowNanos);
        }
        return true;
    }

    /**
     * A NAK from the receivers' side.
     *
     * @param source   the packet's source
     * @param psn      the PSN it names (for a sequence error: the PSN the receiver expects)
     * @param syndrome its AETH syndrome
     * @param nakMsn   its MSN
     * @param nowNanos now
     */
    public void onNak(long source, int psn, int syndrome, int nakMsn, long nowNanos) {
        int s = index.get(source);
        if (s < 0 || stalled[s]) {
            drop(AggregationOutput.Drop.NON_MEMBER, source);
            return;
        }
        naksIn++;
        int kind = syndrome & SYNDROME_KIND;
        long expected = Psn.extend(psn, config.seesData ? sentNext : acked[s] + 1);
        boolean fatal = kind == KIND_NAK && (syndrome & 0x1F) != 0;
        if (fatal && active > 1) {
            // an access or operational error: the receiver's QP is broken; the sender's must not be
            stall(s);
            recomputeIfNone(nowNanos);
            return;
        }
        if (beyondSent(expected)) {
            // a receiver NAKs a PSN it received (not ready) or one before a PSN it received (sequence error)
            drop(AggregationOutput.Drop.BEYOND_SENT, source);
            return;
        }
        if (kind == KIND_NAK && expected - 1 > acked[s]) {
            // a sequence error acknowledges everything before the PSN it expects
            advanceQuietly(s, expected - 1, nakMsn, credit[s], nowNanos);
        }
        long resend = min + 1;
        if (resend == nakOut && !(config.seesData ? retransmitted
                : nowNanos - nakOutNanos >= config.nakHoldoffNanos)) {
            heard(s);
            drop(AggregationOutput.Drop.NAK_REPEATED, source);
            return;
        }
        nakOut = resend;
        nakOutNanos = nowNanos;
        retransmitted = false;
        if (min > ackOut) {
            ackOut = min;
            restartClock(nowNanos);
        }
        // heard once the clock is where the NAK left it (it may have started a new window)
        heard(s);
        naksOut++;
        // the last receiver's fatal NAK reaches the sender as it is: the group's transfer cannot go on
        out.nak(Psn.wire(resend), minMsn, kind == KIND_RNR || fatal ? syndrome : NAK_SEQUENCE);
    }

    /**
     * A congestion notification from the receivers' side.
     *
     * @param source   the packet's source
     * @param nowNanos now
     */
    public void onCnp(long source, long nowNanos) {
        int s = index.get(source);
        if (s < 0 || stalled[s]) {
            drop(AggregationOutput.Drop.NON_MEMBER, source);
            return;
        }
        cnpsIn++;
        if (cnpOutNanos != NEVER && nowNanos - cnpOutNanos < config.cnpIntervalNanos) {
            drop(AggregationOutput.Drop.CNP_RATE, source);
            return;
        }
        cnpOutNanos = nowNanos;
        cnpsOut++;
        out.cnp();
    }

    /**
     * Checks the stall timeout; call it periodically.
     *
     * @param nowNanos now
     */
    public void tick(long nowNanos) {
        if (active == 0 || !outstanding() || nowNanos - minSince < config.stallNanos) {
            return;
        }
        if (!suspect || 2L * heardAhead <= active) {
            // the first timeout, or half of the receivers or more not heard from ahead of the minimum (a cut
            // between the sender and them looks just so): a stall they share, which the sender's retransmission
            // recovers; a new window decides at the next timeout
            commonStalls++;
            restartClock(nowNanos);
            suspect = true;
            return;
        }
        for (int s = 0; s < count; s++) {
            if (!stalled[s] && acked[s] == min) {
                stall(s);
            }
        }
        atMin = 0;
        minAdvanced(nowNanos);
    }

    // ------------------------------------------------------------------ state

    private boolean beyondSent(long p) {
        return config.seesData && p >= sentNext;
    }

    private boolean outstanding() {
        return config.seesData ? min < sentNext - 1 : min < sentNext - 1 && sentNext - 1 > ackOut;
    }

    private void advance(int s, long p, int m, int c, long nowNanos) {
        if (advanceQuietly(s, p, m, c, nowNanos) && min > ackOut) {
            ackOut = min;
            reack = false;
            acksOut++;
            out.ack(Psn.wire(min), minMsn, minCredit);
        }
    }

    /** @return whether the minimum was found again */
    private boolean advanceQuietly(int s, long p, int m, int c, long nowNanos) {
        long old = acked[s];
        acked[s] = p;
        msn[s] = m;
        credit[s] = c;
        if (!config.seesData && p >= sentNext) {
            if (sentNext - 1 == min) {
                // everything was acknowledged alike: the stall clock starts with this first receiver ahead
                restartClock(nowNanos);
            }
            sentNext = p + 1;
        }
        if (old == min && --atMin == 0) {
            recompute(nowNanos);
            return true;
        }
        return false;
    }

    // a receiver answered: if it is ahead of the minimum, the fabric reaches it, and whoever lags alone behind it
    // may be evicted (the window's count holds each receiver once)
    private void heard(int s) {
        if (!stalled[s] && acked[s] > min && heardIn[s] != window) {
            heardIn[s] = window;
            heardAhead++;
        }
    }

    // an active receiver stops counting: it left or stalled
    private void unheard(int s) {
        if (heardIn[s] == window) {
            heardIn[s] = window - 1;
            heardAhead--;
        }
    }

    // the minimum advanced (or the clock starts for another reason): a new window, counting nobody yet
    private void restartClock(long nowNanos) {
        minSince = nowNanos;
        window++;
        heardAhead = 0;
        suspect = false;
    }

    private void stall(int s) {
        unheard(s);
        stalled[s] = true;
        active--;
        stalls++;
        out.stalled(keys[s]);
    }

    private void recomputeIfNone(long nowNanos) {
        if (active > 0) {
            int held = 0;
            for (int s = 0; s < count; s++) {
                if (!stalled[s] && acked[s] == min) {
                    held++;
                }
            }
            atMin = held;
            if (held == 0) {
                minAdvanced(nowNanos);
            }
        }
    }

    /** Finds the minimum again and passes on an ACK if it advanced. */
    private void minAdvanced(long nowNanos) {
        if (active == 0) {
            restartClock(nowNanos);
            return;
        }
        recompute(nowNanos);
        if (min > ackOut) {
            ackOut = min;
            reack = false;
            acksOut++;
            out.ack(Psn.wire(min), minMsn, minCredit);
        } else {
            restartClock(nowNanos);
        }
    }

    private void recompute(long nowNanos) {
        long m = Long.MAX_VALUE;
        int n = 0;
        int holder = -1;
        for (int s = 0; s < count; s++) {
            if (stalled[s]) {
                continue;
            }
            long a = acked[s];
            if (a < m) {
                m = a;
                n = 1;
                holder = s;
            } else if (a == m) {
                n++;
                // of several at the minimum, the one with the lowest key: the same answer whatever the order
                // receivers are kept in
                if (keys[s] < keys[holder]) {
                    holder = s;
                }
            }
        }
        if (holder < 0) {
            return;
        }
        if (m > min) {
            restartClock(nowNanos);
        }
        min = m;
        atMin = n;
        minMsn = msn[holder];
        minCredit = credit[holder];
    }

    private void drop(AggregationOutput.Drop why, long source) {
        drops[why.ordinal()]++;
        out.dropped(why, source);
    }

    // ------------------------------------------------------------------ reading

    /** @return the PSN the sender holds as acknowledged (24 bits) */
    public int acknowledged() {
        return Psn.wire(ackOut);
    }

    /** @return the next PSN the sender sends, as far as the aggregation point knows (24 bits) */
    public int nextPsn() {
        return Psn.wire(sentNext);
    }

    /** @return current receivers, stalled ones included */
    public int receivers() {
        return count;
    }

    /**
     * @param key a receiver
     * @return whether it is a receiver and stalled out
     */
    public boolean isStalled(long key) {
        int s = index.get(key);
        return s >= 0 && stalled[s];
    }

    /** @return ACKs from receivers */
    public long acksIn() {
        return acksIn;
    }

    /** @return aggregated ACKs to the sender, one per advance of the minimum */
    public long acksOut() {
        return acksOut;
    }

    /** @return ACKs repeated to the sender after a retransmission (not an advance) */
    public long reAcks() {
        return reAcks;
    }

    /** @return NAKs from receivers */
    public long naksIn() {
        return naksIn;
    }

    /** @return NAKs to the sender */
    public long naksOut() {
        return naksOut;
    }

    /** @return CNPs from receivers */
    public long cnpsIn() {
        return cnpsIn;
    }

    /** @return CNPs to the sender */
    public long cnpsOut() {
        return cnpsOut;
    }

    /** @return receivers stalled out so far */
    public long stalls() {
        return stalls;
    }

    /** @return stall timeouts that evicted nobody (the first of a stall, or one that many receivers share) */
    public long commonStalls() {
        return commonStalls;
    }

    /**
     * @param why a drop reason
     * @return packets dropped for it
     */
    public long dropped(AggregationOutput.Drop why) {
        return drops[why.ordinal()];
    }
}
