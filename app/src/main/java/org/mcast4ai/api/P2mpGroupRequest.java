package org.mcast4ai.api;

import com.google.common.collect.ImmutableSet;

import java.util.Objects;
import java.util.Set;

/**
 * What a job scheduler asks for: "this source sends the same bytes to these receivers". Immutable; the
 * builder checks only shape (non-null, non-empty, no source among the receivers). Whether hosts exist
 * and limits hold is checked by the service.
 */
public final class P2mpGroupRequest {
    /** Default priority of a group's switch entries. */
    public static final int DEFAULT_PRIORITY = 40000;

    private final GroupKey key;
    private final String jobId;
    private final Endpoint source;
    private final ImmutableSet<Endpoint> receivers;
    private final ReplicationMode mode;
    private final Reliability reliability;
    private final int priority;

    private P2mpGroupRequest(Builder b) {
        this.key = b.key;
        this.jobId = b.jobId;
        this.source = b.source;
        this.receivers = ImmutableSet.copyOf(b.receivers);
        this.mode = b.mode;
        this.reliability = b.reliability;
        this.priority = b.priority;
    }

    /** @return a new builder */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder initialised from this request */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.key = key;
        b.jobId = jobId;
        b.source = source;
        b.receivers.addAll(receivers);
        b.mode = mode;
        b.reliability = reliability;
        b.priority = priority;
        return b;
    }

    /** @return tenant + name */
    public GroupKey key() {
        return key;
    }

    /** @return the scheduler's job id (free text, may be empty) */
    public String jobId() {
        return jobId;
    }

    /** @return the sending endpoint */
    public Endpoint source() {
        return source;
    }

    /** @return the receiving endpoints, in the order given */
    public Set<Endpoint> receivers() {
        return receivers;
    }

    /** @return requested replication mode */
    public ReplicationMode mode() {
        return mode;
    }

    /** @return requested reliability */
    public Reliability reliability() {
        return reliability;
    }

    /** @return priority of the group's switch entries */
    public int priority() {
        return priority;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof P2mpGroupRequest)) {
            return false;
        }
        P2mpGroupRequest r = (P2mpGroupRequest) o;
        return key.equals(r.key) && jobId.equals(r.jobId) && source.equals(r.source)
                && receivers.equals(r.receivers) && mode == r.mode && reliability == r.reliability
                && priority == r.priority;
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, jobId, source, receivers, mode, reliability, priority);
    }

    @Override
    public String toString() {
        return "P2mpGroupRequest{" + key + ", job=" + jobId + ", source=" + source + ", receivers="
                + receivers.size() + ", mode=" + mode + ", reliability=" + reliability + "}";
    }

    /** Scheduler job ids: Slurm's ({@code 12345}, {@code 12345_7}), names like {@code slurm-42}, URIs' paths. */
    private static final java.util.regex.Pattern JOB_ID = java.util.regex.Pattern.compile("[A-Za-z0-9._:@/+-]{0,128}");

    /** Builds requests; {@link #build()} checks shape and throws {@link GroupException} INVALID. */
    public static final class Builder {
        private GroupKey key;
        private String jobId = "";
        private Endpoint source;
        private final java.util.LinkedHashSet<Endpoint> receivers = new java.util.LinkedHashSet<>();
        private ReplicationMode mode = ReplicationMode.AUTO;
        private Reliability reliability = Reliability.NONE;
        private int priority = DEFAULT_PRIORITY;

        private Builder() {
        }

        /**
         * @param key tenant + name
         * @return this
         */
        public Builder key(GroupKey key) {
            this.key = key;
            return this;
        }

        /**
         * @param jobId scheduler job id
         * @return this
         */
        public Builder jobId(String jobId) {
            this.jobId = jobId == null ? "" : jobId;
            return this;
        }

        /**
         * @param source sender
         * @return this
         */
        public Builder source(Endpoint source) {
            this.source = source;
            return this;
        }

        /**
         * Adds a receiver.
         *
         * @param receiver receiver
         * @return this
         * @throws GroupException INVALID if the receiver was already added
         */
        public Builder addReceiver(Endpoint receiver) {
            if (!receivers.add(Objects.requireNonNull(receiver))) {
                throw GroupException.invalid("receiver " + receiver + " is listed more than once");
            }
            return this;
        }

        /**
         * @param rs receivers, each added with {@link #addReceiver}
         * @return this
         */
        public Builder addReceivers(Iterable<Endpoint> rs) {
            rs.forEach(this::addReceiver);
            return this;
        }

        /**
         * @param rs replaces the receiver set (duplicates refused)
         * @return this
         */
        public Builder receivers(Iterable<Endpoint> rs) {
            receivers.clear();
            return addReceivers(rs);
        }

        /**
         * @param mode replication mode
         * @return this
         */
        public Builder mode(ReplicationMode mode) {
            this.mode = Objects.requireNonNull(mode);
            return this;
        }

        /**
         * @param reliability reliability
         * @return this
         */
        public Builder reliability(Reliability reliability) {
            this.reliability = Objects.requireNonNull(reliability);
            return this;
        }

        /**
         * @param priority 1..65535
         * @return this
         */
        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        /** @return the request @throws GroupException INVALID on a malformed request */
        public P2mpGroupRequest build() {
            if (!JOB_ID.matcher(jobId).matches()) {
                throw GroupException.invalid("jobId must be at most 128 characters from A-Z a-z 0-9 . _ : @ / + - "
                        + "(empty for none); got '" + Printable.of(jobId) + "'");
            }
            if (key == null) {
                throw GroupException.invalid("a group needs a key (tenant and name)");
            }
            if (source == null) {
                throw GroupException.invalid("a group needs a source");
            }
            if (receivers.isEmpty()) {
                throw GroupException.invalid("a group needs at least one receiver");
            }
            for (Endpoint r : receivers) {
                if (r.host().equals(source.host())) {
                    throw GroupException.invalid("the source " + source.host() + " is also listed as a receiver");
                }
            }
            if (priority < 1 || priority > 65535) {
                throw GroupException.invalid("priority must be between 1 and 65535; got " + priority);
            }
            return new P2mpGroupRequest(this);
        }
    }
}
