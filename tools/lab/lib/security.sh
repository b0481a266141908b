# Sourced by tools/lab/demo --security once the lab runner serves with the users of $users_file: alice holds
# tenant t1, bob tenant t2, onos is the administrator. Sets SEC_U (requests without or with wrong credentials
# that succeeded), SEC_C (cross-tenant requests that succeeded, or another tenant's group seen), the fuzz
# figures SEC_FN SEC_F SEC_H, and R D X S from the delivery check of alice's group after bob's attempts.

SEC_U=0 SEC_C=0 SEC_FN=0 SEC_F=0 SEC_H=0 SEC_FUZZ_RC=1
# as CRED METHOD PATH [JSON]: one request as USER:PASSWORD ("-": no credentials); sets $code, body in $body
as() {
    local cred=$1; shift
    local args=(-sS -o "$body" -w '%{http_code}' -X "$1" "$base$2")
    [ "$cred" != - ] && args+=(-u "$cred")
    [ $# -ge 3 ] && args+=(-H 'Content-Type: application/json' --data "$3")
    code=$(curl "${args[@]}" 2>"$out/curl.err") || code=000
}
# refused VAR WHAT: the last answer must be a refusal; a success counts in VAR
refused() {
    case "$code" in
        2*|3*) printf -v "$1" '%d' $(( ${!1} + 1 )); say "  NOT REFUSED: $2 -> $code $(head -c 200 "$body")" ;;
        000) fail "$2: no answer ($(cat "$out/curl.err"))" ;;
        *) say "  $2 -> $code $(jq -r '.message // empty' "$body" 2>/dev/null | head -c 110)" ;;
    esac
}
client() {  # client CRED ARGS...: the scheduler client as USER:PASSWORD
    MCAST4AI_ONOS="$base" ONOS_WEB_USER="${1%%:*}" ONOS_WEB_PASS="${1#*:}" tools/client/mcast4ai-client "${@:2}"
}

# alice's group: the demo's source and members, hosts of tenant t1; bob's host $intruder (tenant t2) and a host no
# tenant owns for his group's receiver (the demo started the runner with hostTenants saying so)
free=""
for h in "${host_names[@]}"; do
    [ "$h" = "$source" ] || [ "$h" = "$intruder" ] && continue
    printf '%s\n' "${members[@]}" | grep -qx "$h" || { free=$h; break; }
done
[ -n "$free" ] || fail "the fabric has no unowned host for bob's group"
say "security: alice (tenant t1) creates her group with the scheduler client: $source -> ${members[*]}"
receivers=$(for h in "${members[@]}"; do printf '%s,' "${HOST_IP[$h]}"; done)
client "$ALICE" --json create --tenant t1 --name alice-job --job-id slurm-1 --source "${HOST_IP[$source]}" \
    --receivers "${receivers%,}" --wait >"$out/alice.json" 2>"$out/client.err" \
    || fail "alice could not create her group: $(cat "$out/client.err")"
read -r ga address ga_version < <(jq -r '"\(.id) \(.address) \(.version)"' "$out/alice.json")
say "  group $ga INSTALLED, address $address"
client "$BOB" --json create --tenant t2 --name bob-job --source "${HOST_IP[$intruder]}" \
    --receivers "${HOST_IP[$free]}" --wait >"$out/bob.json" 2>"$out/client.err" \
    || fail "bob could not create his group: $(cat "$out/client.err")"
gb=$(jq -r .id "$out/bob.json")
say "  bob (tenant t2) has group $gb"

t1_request="{\"tenant\":\"t1\",\"name\":\"taken-over\",\"source\":\"${HOST_IP[$intruder]}\",\"receivers\":[\"${HOST_IP[$intruder]}\"]}"
say "security: requests without credentials or with wrong ones"
for cred in - onos:wrong nobody:rocks "alice:${ALICE#*:}x"; do
    as "$cred" GET /groups;                        refused SEC_U "[$cred] GET /groups"
    as "$cred" GET "/groups/$ga";                  refused SEC_U "[$cred] GET /groups/$ga"
    as "$cred" POST /groups "$t1_request";         refused SEC_U "[$cred] POST /groups"
    as "$cred" POST "/groups/$ga/receivers" "{\"receivers\":[\"${HOST_IP[$intruder]}\"]}"
    refused SEC_U "[$cred] POST /groups/$ga/receivers"
    as "$cred" DELETE "/groups/$ga?purge=true";    refused SEC_U "[$cred] DELETE /groups/$ga?purge=true"
    as "$cred" GET /reconcile;                     refused SEC_U "[$cred] GET /reconcile"
done

say "security: each tenant against the other's group"
cross() {  # cross CRED GROUP OWN_HOST OTHER_TENANT
    local cred=$1 g=$2 own=$3 t=$4 who=${1%%:*}
    as "$cred" GET "/groups/$g";                   refused SEC_C "[$who] GET /groups/$g"
    as "$cred" GET "/groups/$g/plan";              refused SEC_C "[$who] GET /groups/$g/plan"
    as "$cred" GET "/groups/$g/bitmap";            refused SEC_C "[$who] GET /groups/$g/bitmap"
    as "$cred" GET "/groups?tenant=$t";            refused SEC_C "[$who] GET /groups?tenant=$t"
    as "$cred" POST "/groups/$g/receivers" "{\"receivers\":[\"$own\"]}"
    refused SEC_C "[$who] POST /groups/$g/receivers (its own host $own)"
    as "$cred" DELETE "/groups/$g/receivers?host=$own"; refused SEC_C "[$who] DELETE /groups/$g/receivers"
    as "$cred" POST "/groups/$g/recompile";        refused SEC_C "[$who] POST /groups/$g/recompile"
    as "$cred" DELETE "/groups/$g";                refused SEC_C "[$who] DELETE /groups/$g"
    as "$cred" DELETE "/groups/$g?purge=true";     refused SEC_C "[$who] DELETE /groups/$g?purge=true"
    as "$cred" POST /groups "{\"tenant\":\"$t\",\"name\":\"taken-over\",\"source\":\"$own\",\"receivers\":[\"${HOST_IP[${members[0]}]}\"]}"
    refused SEC_C "[$who] POST /groups for tenant $t"
    as "$cred" GET /groups
    local seen
    seen=$(jq --arg t "$t" '[.groups[]? | select(.tenant == $t)] | length' "$body" 2>/dev/null || echo 1)
    if [ "$code" != 200 ] || [ "$seen" != 0 ]; then
        SEC_C=$((SEC_C + 1)); say "  NOT HIDDEN: [$who] GET /groups -> $code lists $seen group(s) of $t"
    else
        say "  [$who] GET /groups -> 200 without $t's groups"
    fi
}
cross "$BOB" "$ga" "${HOST_IP[$intruder]}" t1
cross "$ALICE" "$gb" "${HOST_IP[$source]}" t2
say "security: hosts of another tenant (hostTenants): neither as receivers nor as the source"
as "$BOB" POST /groups "{\"tenant\":\"t2\",\"name\":\"to-alice\",\"source\":\"${HOST_IP[$intruder]}\",\"receivers\":[\"${HOST_IP[${members[0]}]}\"]}"
refused SEC_C "[bob] POST /groups of t2 to alice's host ${members[0]}"
as "$BOB" POST /groups "{\"tenant\":\"t2\",\"name\":\"as-alice\",\"source\":\"${HOST_IP[$source]}\",\"receivers\":[\"${HOST_IP[$free]}\"]}"
refused SEC_C "[bob] POST /groups of t2 from alice's source $source"
as "$BOB" POST "/groups/$gb/receivers" "{\"receivers\":[\"${HOST_IP[${members[1]}]}\"]}"
refused SEC_C "[bob] POST /groups/$gb/receivers (alice's host ${members[1]})"

as "$ALICE" GET "/groups/$ga"
[ "$code" = 200 ] && [ "$(jq -r .version "$body")" = "$ga_version" ] && [ "$(jq -r .state "$body")" = INSTALLED ] \
    || { SEC_C=$((SEC_C + 1)); say "  alice's group changed: $(head -c 300 "$body")"; }
say "security: alice's group delivers to its members only (bob's host $intruder must see nothing)"
deliver "${members[@]}"

say "security: REST fuzz against the lab (1,500 requests as onos, alice, bob, no and wrong credentials)"
hosts_csv=$(for h in "$source" "${members[@]}" "$intruder"; do printf '%s,' "${HOST_IP[$h]}"; done)
java -cp "$jar" org.mcast4ai.lab.RestFuzz --base "$base" --hosts "${hosts_csv%,}" --count 1500 \
    --tenant "t1=$ALICE" --tenant "t2=$BOB" >"$out/rest-fuzz.txt" 2>&1
SEC_FUZZ_RC=$?
sed 's/^/demo:   /' "$out/rest-fuzz.txt"
line=$(grep '^rest-fuzz: requests=' "$out/rest-fuzz.txt") || fail "the fuzz did not report"
SEC_FN=$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<<"$line")
SEC_F=$(sed -n 's/.* 5xx=\([0-9]*\).*/\1/p' <<<"$line")
SEC_H=$(sed -n 's/.* hangs=\([0-9]*\).*/\1/p' <<<"$line")
fuzz_cross=$(sed -n 's/.* cross_tenant=\([0-9]*\).*/\1/p' <<<"$line")
SEC_C=$((SEC_C + fuzz_cross))
[ "$SEC_FUZZ_RC" = 0 ] || say "the fuzz found problems (above)"
