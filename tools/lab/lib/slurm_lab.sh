#!/usr/bin/env bash
# A real Slurm against the lab: munged, slurmctld and one slurmd per lab host (Slurm nodes named after the hosts,
# all on this machine), mcast4ai-prolog/-epilog as PrologSlurmctld/EpilogSlurmctld, and a job submitted with
# sbatch that loads a file on every node with tools/slurm/distribute-checkpoint.sbatch; each node's task runs in its
# host's network namespace. Checks that the prolog created the job's group before the job ran, that every receiver
# verified the file, and that the epilog withdrew the group; then that a job without the comment gets no group, that
# a job cancelled while it runs loses its group, and that a comment the prolog cannot read holds the job. Ends with
#   slurm: job=J nodes=N group_created=1 withdrawn=1 verified=V cancelled_withdrawn=1 unasked_none=1 bad_comment_held=1
#
#   slurm_lab.sh --fabric FABRIC.json --rest BASE [--user U --password P] [--nodes N] [--size-mb M]
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
. "$here/deps.sh"
fabric="" rest="" user=onos password=rocks nodes=8 size_mb=32
while [ $# -gt 0 ]; do
    case "$1" in
        --fabric) fabric="$2"; shift 2 ;;
        --rest) rest="$2"; shift 2 ;;
        --user) user="$2"; shift 2 ;;
        --password) password="$2"; shift 2 ;;
        --nodes) nodes="$2"; shift 2 ;;
        --size-mb) size_mb="$2"; shift 2 ;;
        *) echo "slurm-lab: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -f "$fabric" ] && [ -n "$rest" ] || { echo "slurm-lab: --fabric and --rest are required" >&2; exit 2; }
say() { echo "slurm-lab: $*"; }
fail() { say "$*"; echo "slurm: FAILED ($*)"; exit 1; }

lab_ensure_packages slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge \
    || fail "could not install slurmctld, slurmd, slurm-client and munge"

dir="$repo/tools/lab/target/slurm"
# a run's daemons are stopped when it ends; a crashed earlier run's are stopped here
for pidf in "$dir"/*.pid; do [ -f "$pidf" ] && kill "$(cat "$pidf")" 2>/dev/null; done
rm -rf "$dir"
mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/out"
chmod 755 "$dir"
pids=()
stop() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for pidf in "$dir"/*.pid; do [ -f "$pidf" ] && kill "$(cat "$pidf")" 2>/dev/null; done
    # a job step whose slurmd went first (this run's only: they work under its spool and log directories; a step
    # ignores SIGTERM)
    for p in $(pgrep -x slurmstepd); do
        case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in "$dir"*) kill -KILL "$p" 2>/dev/null ;; esac
    done
    sleep 0.5
}
trap stop EXIT

# the lab's hosts, by name: the first N are the job's nodes
mapfile -t hosts < <(jq -r '.hosts[] | "\(.name) \(.ip) \(.ns)"' "$fabric" | head -n "$nodes")
[ "${#hosts[@]}" -ge 2 ] || fail "the fabric has fewer than 2 hosts"
names=() ; : >"$dir/nodes"
for h in "${hosts[@]}"; do
    read -r n ip ns <<<"$h"
    [ "$ns" = "m4$n" ] || fail "host $n lives in namespace $ns, not m4$n"
    names+=("$n"); echo "$n $ip" >>"$dir/nodes"
done
nodelist=$(IFS=,; echo "${names[*]}")

# munge with its own key and socket (the machine's munge, if any, is left alone)
mungekey --create --keyfile "$dir/munge.key" --force >/dev/null 2>&1 \
    || dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$dir/munge.key"
munged --force --key-file "$dir/munge.key" --socket "$dir/munge.sock" --pid-file "$dir/munged.pid" \
    --log-file "$dir/log/munged.log" --seed-file "$dir/munge.seed" || fail "munged did not start"

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ctld_port=$(free_port)
conf="$dir/slurm.conf"
{
    echo "ClusterName=mcast4ai-lab"
    echo "SlurmctldHost=localhost"
    echo "SlurmctldPort=$ctld_port"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$dir/munge.sock"
    echo "CredType=cred/munge"
    echo "StateSaveLocation=$dir/state"
    echo "SlurmdSpoolDir=$dir/spool/%n"
    echo "SlurmctldPidFile=$dir/slurmctld.pid"
    echo "SlurmdPidFile=$dir/slurmd-%n.pid"
    echo "SlurmctldLogFile=$dir/log/slurmctld.log"
    echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "MpiDefault=none"
    echo "SchedulerType=sched/builtin"
    echo "SelectType=select/linear"
    echo "ReturnToService=2"
    echo "MailProg=/bin/true"
    echo "PrologSlurmctld=$dir/prolog"
    echo "EpilogSlurmctld=$dir/epilog"
    i=0
    for n in "${names[@]}"; do
        echo "NodeName=$n NodeHostname=localhost NodeAddr=127.0.0.1 Port=$(free_port) CPUs=1 State=UNKNOWN"
        i=$((i + 1))
    done
    echo "PartitionName=lab Nodes=$nodelist Default=YES MaxTime=30 State=UP"
} >"$conf"
# Slurm runs its controller's prolog and epilog with its own variables only: the settings come from a file
cat >"$dir/slurm.env" <<ENV
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
SLURM_CONF=$conf
MCAST4AI_ONOS=$rest
ONOS_WEB_USER=$user
ONOS_WEB_PASS=$password
MCAST4AI_NODE_MAP=$dir/nodes
ENV
for s in prolog epilog; do
    printf '#!/bin/sh\nMCAST4AI_SLURM_ENV=%s exec %s "$@" >>%s 2>&1\n' "$dir/slurm.env" \
        "$repo/tools/slurm/mcast4ai-$s" "$dir/log/$s.log" >"$dir/$s"
    chmod +x "$dir/$s"
done
export SLURM_CONF="$conf"
slurmctld -f "$conf" || fail "slurmctld did not start (see $dir/log/slurmctld.log)"
for n in "${names[@]}"; do
    slurmd -f "$conf" -N "$n" || fail "slurmd $n did not start (see $dir/log/slurmd-$n.log)"
done
for _ in $(seq 100); do
    idle=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)
    [ "$idle" = "${#names[@]}" ] && break
    sleep 0.2
done
[ "$idle" = "${#names[@]}" ] || { sinfo -N >&2; fail "only $idle of ${#names[@]} Slurm nodes came up"; }
say "Slurm 22.05 up: slurmctld, ${#names[@]} slurmd (nodes $nodelist), munge; prolog and epilog from tools/slurm"

file="$dir/checkpoint.bin"
head -c "$((size_mb * 1024 * 1024))" /dev/urandom >"$file"
want=$(sha256sum "$file" | cut -d' ' -f1)
job=$(sbatch --parsable --nodes="${#names[@]}" --comment=mcast4ai:tenant=lab --output="$dir/job-%j.out" \
    --export="ALL,MCAST4AI_HOME=$repo,MCAST4AI_SLURM_ENV=$dir/slurm.env,MCAST4AI_NODE_EXEC=ip netns exec m4{node}" \
    "$repo/tools/slurm/distribute-checkpoint.sbatch" "$file" "$dir/out/%n") || fail "sbatch refused the job"
say "job $job submitted: ${size_mb} MB to ${#names[@]} nodes (sbatch --comment=mcast4ai:tenant=lab)"

# the group while the job runs, and the job's end
api() { curl -s -u "$user:$password" "$rest/$1"; }
created=0 seen_state=""
for _ in $(seq 1200); do
    g=$(api "groups?tenant=lab&name=slurm-$job" | jq -r '.groups[0] | select(. != null) | "\(.state) \(.id) \(.receivers | length)"')
    if [ -n "$g" ]; then
        created=1; seen_state="$g"
    fi
    st=$(scontrol show job "$job" -o 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    case "$st" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|PREEMPTED|"") break ;; esac
    sleep 0.25
done
case "$st" in
    RUNNING|PENDING|CONFIGURING|COMPLETING) scancel "$job"; say "job $job still $st after 300 s: cancelled" ;;
esac
say "job $job ended: ${st:-gone}; the group seen during the job: ${seen_state:-none} (state id receivers)"
# the epilog runs once the job is over: the group goes
withdrawn=0
for _ in $(seq 120); do
    left=$(api "groups?tenant=lab&name=slurm-$job" | jq -r '[.groups[] | select(.state != "WITHDRAWN")] | length')
    [ "$left" = 0 ] && { withdrawn=1; break; }
    sleep 0.25
done
verified=0
for n in "${names[@]:1}"; do
    got=$(sha256sum "$dir/out/$n/$(basename "$file")" 2>/dev/null | cut -d' ' -f1)
    [ "$got" = "$want" ] && verified=$((verified + 1))
done

# a job that does not ask gets no group; a job cancelled while it runs loses its group all the same; a comment the
# prolog cannot read holds the job, naming the option
group_count() { api "groups?tenant=lab&name=slurm-$1" | jq -r '[.groups[] | select(.state != "WITHDRAWN")] | length'; }
job_state() { scontrol show job "$1" -o 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
plain=$(sbatch --parsable --nodes=2 --output=/dev/null --wrap "sleep 1") || fail "sbatch refused a plain job"
cancel=$(sbatch --parsable --nodes=3 --comment=mcast4ai:tenant=lab --output=/dev/null --wrap "sleep 120") \
    || fail "sbatch refused the job to cancel"
bad=$(sbatch --parsable --nodes=2 --comment=mcast4ai:colour=red --output=/dev/null --wrap "sleep 1") \
    || fail "sbatch refused the job with a bad comment"
unasked=0 cancelled_withdrawn=0 refused=0
for _ in $(seq 240); do
    [ "$(job_state "$cancel")" = RUNNING ] && [ "$(group_count "$cancel")" = 1 ] && break
    sleep 0.25
done
[ "$(group_count "$cancel")" = 1 ] || say "job $cancel: no group while it ran"
scancel "$cancel"
for _ in $(seq 120); do
    [ "$(group_count "$cancel")" = 0 ] && [ "$(group_count "$plain")" = 0 ] && { cancelled_withdrawn=1; break; }
    sleep 0.25
done
for _ in $(seq 80); do
    case "$(job_state "$plain")" in COMPLETED|FAILED|"") break ;; esac
    sleep 0.25
done
[ "$(api "groups?name=slurm-$plain" | jq -r '.groups | length')" = 0 ] && unasked=1
for _ in $(seq 80); do
    grep -q "unknown option 'colour=red'" "$dir/log/prolog.log" 2>/dev/null && break
    sleep 0.25
done
bad_state=$(job_state "$bad")
grep -q "unknown option 'colour=red'" "$dir/log/prolog.log" && [ "$bad_state" != COMPLETED ] \
    && [ "$bad_state" != RUNNING ] && [ "$(group_count "$bad")" = 0 ] && refused=1
scancel "$bad" 2>/dev/null
say "job $plain without the comment: group made=$((1 - unasked)); job $cancel cancelled while running: group" \
    "withdrawn=$cancelled_withdrawn; job $bad with --comment=mcast4ai:colour=red: $bad_state, refused=$refused"

tr '\r' '\n' <"$dir/job-$job.out" 2>/dev/null | grep -v '^distribute: sent' | sed 's/^/slurm-lab: job output: /' | tail -8
sed 's/^/slurm-lab: /' "$dir/log/prolog.log" "$dir/log/epilog.log" 2>/dev/null | tail -4
echo "slurm: job=$job nodes=${#names[@]} group_created=$created withdrawn=$withdrawn verified=$verified" \
    "cancelled_withdrawn=$cancelled_withdrawn unasked_none=$unasked bad_comment_held=$refused"
[ "$st" = COMPLETED ] && [ "$created" = 1 ] && [ "$withdrawn" = 1 ] && [ "$verified" = $((${#names[@]} - 1)) ] \
    && [ "$cancelled_withdrawn" = 1 ] && [ "$unasked" = 1 ] && [ "$refused" = 1 ]
