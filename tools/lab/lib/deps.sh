# Sourced by tools/lab/fabric and tools/lab/demo: install what the lab needs (Debian) and start OVS.
# Quiet unless something has to be installed.

lab_need_root() {
    if [ "$(id -u)" != 0 ]; then
        echo "$1: must run as root (network namespaces and Open vSwitch)" >&2
        exit 2
    fi
}

# lab_ensure_packages cmd:package ...   installs the packages whose command is missing
lab_ensure_packages() {
    local missing=() pair
    for pair in "$@"; do
        if [ "${pair%%:*}" = scapy ]; then
            /usr/bin/python3 -c 'import scapy.contrib.roce' >/dev/null 2>&1 || missing+=("${pair#*:}")
        elif [ "${pair:0:1}" = / ]; then
            [ -e "${pair%%:*}" ] || missing+=("${pair#*:}")   # a file the package installs
        elif ! command -v "${pair%%:*}" >/dev/null 2>&1; then
            missing+=("${pair#*:}")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "lab: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    # tshark asks whether non-root users may capture; answer no without a prompt
    echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null || true
    if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
        apt-get update -qq >/dev/null 2>&1 || true
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
            || { echo "lab: apt-get install ${missing[*]} failed" >&2; return 1; }
    fi
}

lab_ensure_ovs() {
    if ovs-vsctl --timeout=5 show >/dev/null 2>&1; then
        return 0
    fi
    echo "lab: starting Open vSwitch" >&2
    /usr/share/openvswitch/scripts/ovs-ctl --system-id=random start >/dev/null 2>&1 || true
    ovs-vsctl --timeout=10 show >/dev/null 2>&1 \
        || { echo "lab: Open vSwitch did not start (see /var/log/openvswitch)" >&2; return 1; }
}

lab_ensure_base() {
    lab_ensure_packages python3:python3 ip:iproute2 ovs-vsctl:openvswitch-switch
    lab_ensure_ovs
}
