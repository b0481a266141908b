package org.mcast4ai.lab;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.projectfloodlight.openflow.exceptions.OFParseError;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadActionErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadInstructionErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadMatchErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadRequestErrorMsg;
import org.projectfloodlight.openflow.protocol.OFBundleCtrlType;
import org.projectfloodlight.openflow.protocol.errormsg.OFBundleFailedErrorMsg;
import org.projectfloodlight.openflow.protocol.OFBundleFlags;
import org.projectfloodlight.openflow.protocol.OFEchoRequest;
import org.projectfloodlight.openflow.protocol.OFErrorMsg;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFlowRemoved;
import org.projectfloodlight.openflow.protocol.errormsg.OFFlowModFailedErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFGroupModFailedErrorMsg;
import org.projectfloodlight.openflow.protocol.OFHello;
import org.projectfloodlight.openflow.protocol.OFHelloElem;
import org.projectfloodlight.openflow.protocol.OFHelloElemVersionbitmap;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsReplyFlags;
import org.projectfloodlight.openflow.protocol.OFType;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.BundleId;
import org.projectfloodlight.openflow.types.U32;

import java.io.Closeable;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.mcast4ai.lab.OpenFlowTranslator.OF;

/**
 * One OpenFlow 1.4 connection to a bridge over its management socket ({@code <rundir>/<bridge>.mgmt}, the socket
 * {@code ovs-ofctl} uses), held open the way ONOS holds its switch connections: requests are matched to replies by
 * transaction id, several callers share it, echo requests are answered. A connection that fails is closed and every
 * request on it answered with the error; the owner opens a new one for the next request.
 */
final class OvsConnection implements Closeable {

    private static final long TIMEOUT_MS = 15_000;
    // every reason Open vSwitch 3.x reports: idle and hard timeout, delete, group delete, meter delete, eviction
    private static final int FLOW_REMOVED_REASONS = 0x3f;
    private static final Set<OFBundleFlags> BUNDLE_FLAGS = EnumSet.of(OFBundleFlags.ATOMIC, OFBundleFlags.ORDERED);

    private final String bridge;
    private final SocketChannel channel;
    private final Thread reader;
    private final AtomicLong xids = new AtomicLong(1);
    private final AtomicInteger bundleIds = new AtomicInteger(1);
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> hello = new CompletableFuture<>();
    private final Ofctl.FlowRemoved removed;
    private volatile String failure;


    /** Messages answering one request: done at its reply, its last multipart part or an error. */
    private static final class Pending {
        final List<OFMessage> replies = new ArrayList<>();
        final CompletableFuture<List<OFMessage>> done = new CompletableFuture<>();
    }

    private OvsConnection(String bridge, SocketChannel channel, Ofctl.FlowRemoved removed) {
        this.bridge = bridge;
        this.channel = channel;
        this.removed = removed;
        this.reader = new Thread(this::readLoop, "mcast4ai-lab-of-" + bridge);
        reader.setDaemon(true);
    }

    /**
     * Connects to a bridge and negotiates OpenFlow 1.4.
     *
     * @param bridge bridge name
     * @param rundir  Open vSwitch's run directory
     * @param removed hears the flows the bridge removes
     * @return the connection
     * @throws IOException if the socket cannot be reached or the bridge does not speak OpenFlow 1.4
     */
    static OvsConnection open(String bridge, Path rundir, Ofctl.FlowRemoved removed) throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.connect(UnixDomainSocketAddress.of(rundir.resolve(bridge + ".mgmt")));
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        OvsConnection c = new OvsConnection(bridge, ch, removed);
        c.reader.start();
        try {
            c.write(List.of(OF.buildHello().setXid(0).build()));
            c.hello.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            // Open vSwitch sends a service connection asynchronous messages (here FLOW_REMOVED) only once it set a
            // miss_send_len; only flow removals are asked for
            c.write(List.of(OF.buildSetConfig().setXid(c.xid()).setMissSendLen(0xffff).build(),
                    OF.buildAsyncSet().setXid(c.xid()).setProperties(List.of(
                            OF.asyncConfigPropPacketInMaster(0), OF.asyncConfigPropPortStatusMaster(0),
                            OF.asyncConfigPropFlowRemovedMaster(FLOW_REMOVED_REASONS)))
                            .build()));
        } catch (ExecutionException | TimeoutException | InterruptedException e) {
            c.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("no OpenFlow 1.4 hello from " + bridge + ": "
                    + (e.getCause() != null ? e.getCause().getMessage() : e), e);
        }
        return c;
    }

    /** @return true until the connection failed or was closed */
    boolean isOpen() {
        return failure == null && channel.isOpen();
    }

    /** @return a fresh transaction id */
    long xid() {
        return xids.getAndIncrement() & 0xffffffffL;
    }

    /**
     * Sends a request and returns its replies (every part of a multipart reply), or the switch's error.
     *
     * @param request the request
     * @return the replies; a single {@link OFErrorMsg} when the switch refused it
     * @throws IOException if the connection failed or the switch did not answer in time
     */
    List<OFMessage> request(OFMessage request) throws IOException {
        Pending p = new Pending();
        pending.put(request.getXid(), p);
        try {
            write(List.of(request));
            return p.done.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            fail("no answer from " + bridge + " in " + TIMEOUT_MS + " ms");
            throw new IOException("no answer from " + bridge + " in " + TIMEOUT_MS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } finally {
            pending.remove(request.getXid());
        }
    }

    /**
     * Applies writes as one atomic, ordered bundle, the way {@code ovs-ofctl --bundle} does: open, add every
     * message, a barrier to collect what the switch refused while adding, then commit (or discard when it refused
     * any).
     *
     * @param messages flow-mods or group-mods, each with its own transaction id
     * @return null when the switch committed the bundle, else the switch's errors
     * @throws IOException if the connection failed
     */
    String bundle(List<OFMessage> messages) throws IOException {
        BundleId id = BundleId.of(bundleIds.getAndIncrement());
        String refused = error(request(OF.buildBundleCtrlMsg().setXid(xid()).setBundleId(id)
                .setBundleCtrlType(OFBundleCtrlType.OPEN_REQUEST).setFlags(BUNDLE_FLAGS).build()));
        if (refused != null) {
            return refused;
        }
        List<OFMessage> adds = new ArrayList<>(messages.size() + 1);
        Map<Long, Pending> added = new java.util.HashMap<>();
        for (OFMessage m : messages) {
            Pending p = new Pending();
            added.put(m.getXid(), p);
            pending.put(m.getXid(), p);
            adds.add(OF.buildBundleAddMsg().setXid(m.getXid()).setBundleId(id).setFlags(BUNDLE_FLAGS)
                    .setData(m).build());
        }
        Pending barrier = new Pending();
        long barrierXid = xid();
        pending.put(barrierXid, barrier);
        adds.add(OF.buildBarrierRequest().setXid(barrierXid).build());
        StringBuilder errors = new StringBuilder();
        try {
            write(adds);
            barrier.done.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            // replies on one connection come in order: every add's error, if any, came before the barrier's reply
            addErrors(added, errors);
            OFBundleCtrlType end = errors.length() == 0 ? OFBundleCtrlType.COMMIT_REQUEST
                    : OFBundleCtrlType.DISCARD_REQUEST;
            String endError = error(request(OF.buildBundleCtrlMsg().setXid(xid()).setBundleId(id)
                    .setBundleCtrlType(end).setFlags(BUNDLE_FLAGS).build()));
            if (errors.length() > 0 || endError == null) {
                return errors.length() == 0 ? null : errors.substring(0, errors.length() - 2);
            }
            // a commit that fails names the message the switch refused, with that message's xid, before its own
            addErrors(added, errors);
            return errors.append(endError).toString();
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            fail("no barrier reply from " + bridge + " in " + TIMEOUT_MS + " ms");
            throw new IOException("no barrier reply from " + bridge);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } finally {
            added.keySet().forEach(pending::remove);
            pending.remove(barrierXid);
        }
    }

    private static void addErrors(Map<Long, Pending> added, StringBuilder errors) {
        for (Pending p : added.values()) {
            synchronized (p) {
                p.replies.stream().map(OvsConnection::describe).forEach(e -> errors.append(e).append("; "));
                p.replies.clear();
            }
        }
    }

    private static String error(List<OFMessage> replies) {
        for (OFMessage m : replies) {
            if (m instanceof OFErrorMsg) {
                return describe(m);
            }
        }
        return null;
    }

    /**
     * Names an OpenFlow error the way {@code ovs-ofctl} prints it, e.g. {@code OFPGMFC_GROUP_EXISTS}.
     *
     * @param m a message, normally an error
     * @return its name
     */
    static String describe(OFMessage m) {
        if (m instanceof OFGroupModFailedErrorMsg) {
            return "OFPGMFC_" + ((OFGroupModFailedErrorMsg) m).getCode();
        } else if (m instanceof OFFlowModFailedErrorMsg) {
            return "OFPFMFC_" + ((OFFlowModFailedErrorMsg) m).getCode();
        } else if (m instanceof OFBadActionErrorMsg) {
            return "OFPBAC_" + ((OFBadActionErrorMsg) m).getCode();
        } else if (m instanceof OFBadInstructionErrorMsg) {
            return "OFPBIC_" + ((OFBadInstructionErrorMsg) m).getCode();
        } else if (m instanceof OFBadMatchErrorMsg) {
            return "OFPBMC_" + ((OFBadMatchErrorMsg) m).getCode();
        } else if (m instanceof OFBadRequestErrorMsg) {
            return "OFPBRC_" + ((OFBadRequestErrorMsg) m).getCode();
        } else if (m instanceof OFBundleFailedErrorMsg) {
            return "OFPBFC_" + ((OFBundleFailedErrorMsg) m).getCode();
        } else if (m instanceof OFErrorMsg) {
            return "OFPET_" + ((OFErrorMsg) m).getErrType();
        }
        return "unexpected " + m.getType();
    }

    private void write(List<OFMessage> messages) throws IOException {
        if (failure != null) {
            throw new IOException(failure);
        }
        ByteBuf buf = Unpooled.buffer(256 * messages.size());
        messages.forEach(m -> m.writeTo(buf));
        ByteBuffer out = buf.nioBuffer();
        synchronized (channel) {
            while (out.hasRemaining()) {
                channel.write(out);
            }
        }
    }

    private void readLoop() {
        ByteBuffer header = ByteBuffer.allocate(8);
        try {
            while (true) {
                header.clear();
                readFully(header);
                int length = header.getShort(2) & 0xffff;
                if (length < 8) {
                    throw new IOException("bad OpenFlow message length " + length);
                }
                ByteBuffer body = ByteBuffer.allocate(length);
                body.put(header.array(), 0, 8);
                readFully(body);
                dispatch(body.array());
            }
        } catch (IOException | OFParseError | RuntimeException e) {
            fail((channel.isOpen() ? "connection to " + bridge + " failed: " : "connection to " + bridge
                    + " closed: ") + e.getMessage());
        }
    }

    private void readFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (channel.read(b) < 0) {
                throw new IOException("end of stream");
            }
        }
    }

    private void dispatch(byte[] bytes) throws OFParseError, IOException {
        OFMessage m = OFFactories.getGenericReader().readFrom(Unpooled.wrappedBuffer(bytes));
        if (!hello.isDone()) {
            // the switch's hello first: OpenFlow 1.4 must be among the versions it allows
            if (m instanceof OFHello && offers14((OFHello) m)) {
                hello.complete(null);
            } else {
                hello.completeExceptionally(new IOException(bridge + " does not allow OpenFlow 1.4 (its hello: "
                        + m + "); the lab's bridges allow OpenFlow13,OpenFlow14,OpenFlow15"));
            }
            return;
        }
        if (m == null || m instanceof OFHello) {
            return;
        }
        if (m instanceof OFFlowRemoved) {
            OFFlowRemoved r = (OFFlowRemoved) m;
            removed.removed(bridge, r.getCookie().getValue(), String.valueOf(r.getReason()));
            return;
        }
        if (m.getType() == OFType.ECHO_REQUEST) {
            write(List.of(OF.buildEchoReply().setXid(m.getXid()).setData(((OFEchoRequest) m).getData()).build()));
            return;
        }
        Pending p = pending.get(m.getXid());
        if (p == null) {
            return; // an asynchronous message, or the answer to a request given up on
        }
        synchronized (p) {
            p.replies.add(m);
        }
        boolean more = m instanceof OFStatsReply
                && ((OFStatsReply) m).getFlags().contains(OFStatsReplyFlags.REPLY_MORE);
        if (!more) {
            p.done.complete(p.replies);
        }
    }

    private static boolean offers14(OFHello h) {
        int wire = OFVersion.OF_14.getWireVersion();
        for (OFHelloElem e : h.getElements()) {
            if (e instanceof OFHelloElemVersionbitmap) {
                List<U32> words = ((OFHelloElemVersionbitmap) e).getBitmaps();
                return !words.isEmpty() && (words.get(0).getValue() & (1L << wire)) != 0;
            }
        }
        return h.getVersion().getWireVersion() >= wire;
    }

    private void fail(String why) {
        if (failure == null) {
            failure = why;
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing is all that is left to do
        }
        hello.completeExceptionally(new IOException(why));
        pending.values().forEach(p -> p.done.completeExceptionally(new IOException(why)));
    }

    @Override
    public void close() {
        fail("connection to " + bridge + " closed");
    }
}
