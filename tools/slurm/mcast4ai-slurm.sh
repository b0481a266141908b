# Shared by the mcast4ai Slurm scripts (sourced): settings, the job's request, node names to fabric hosts.
#
# Settings come from the environment or, since Slurm runs PrologSlurmctld and EpilogSlurmctld with only its own
# variables, from the file $MCAST4AI_SLURM_ENV (default /etc/mcast4ai/slurm.env), shell assignments such as
#   MCAST4AI_ONOS=onos1:8181  ONOS_WEB_USER=...  ONOS_WEB_PASS=...  MCAST4AI_TENANT=ml
#   MCAST4AI_NODE_MAP=/etc/mcast4ai/nodes   # lines "NODE HOST": a Slurm node's name as the controller knows it
#   MCAST4AI_CLIENT=/opt/mcast4ai/tools/client/mcast4ai-client

m4_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
m4_env="${MCAST4AI_SLURM_ENV:-/etc/mcast4ai/slurm.env}"
# shellcheck disable=SC1090
if [ -r "$m4_env" ]; then
    set -a
    . "$m4_env"
    set +a
fi
MCAST4AI_CLIENT="${MCAST4AI_CLIENT:-$m4_here/../client/mcast4ai-client}"
export MCAST4AI_ONOS ONOS_WEB_USER ONOS_WEB_PASS

m4_log() { echo "mcast4ai-slurm[${SLURM_JOB_ID:-?}]: $*" >&2; }

# m4_request COMMENT: sets M4_WANTED (0/1), M4_TENANT, M4_MODE, M4_RELIABILITY, M4_OPTIONAL, M4_ERROR from a job
# comment "mcast4ai" or "mcast4ai:tenant=T,mode=M,reliability=R,optional" (other text around it is kept apart by
# spaces or semicolons)
m4_request() {
    M4_WANTED=0 M4_TENANT="${MCAST4AI_TENANT:-${SLURM_JOB_ACCOUNT:-slurm}}" M4_MODE=AUTO M4_RELIABILITY=NONE
    M4_OPTIONAL=0 M4_ERROR=""
    local word opts kv
    for word in ${1//;/ }; do
        case "$word" in
            mcast4ai) M4_WANTED=1 ;;
            mcast4ai:*)
                M4_WANTED=1
                opts="${word#mcast4ai:}"
                for kv in ${opts//,/ }; do
                    case "$kv" in
                        tenant=?*) M4_TENANT="${kv#tenant=}" ;;
                        mode=AUTO|mode=TREE|mode=BITMAP) M4_MODE="${kv#mode=}" ;;
                        reliability=?*) M4_RELIABILITY="${kv#reliability=}" ;;
                        optional) M4_OPTIONAL=1 ;;
                        *) M4_ERROR="unknown option '$kv' in the job comment (tenant=T, mode=AUTO|TREE|BITMAP, reliability=R, optional)" ;;
                    esac
                done
                ;;
        esac
    done
}

# m4_group_name: the job's group (one per job; array tasks are jobs of their own)
m4_group_name() { echo "slurm-${SLURM_JOB_ID:?}"; }

# m4_host NODE: the controller's name for a Slurm node (the map's second column, else the node name)
m4_host() {
    local node="$1" n h
    if [ -n "${MCAST4AI_NODE_MAP:-}" ] && [ -r "$MCAST4AI_NODE_MAP" ]; then
        while read -r n h _; do
            case "$n" in ''|'#'*) continue ;; esac
            [ "$n" = "$node" ] && { echo "$h"; return 0; }
        done <"$MCAST4AI_NODE_MAP"
    fi
    echo "$node"
}

# m4_nodes: the job's nodes, one per line, in Slurm's order (the first is the source)
m4_nodes() { scontrol show hostnames "${SLURM_JOB_NODELIST:?}"; }
