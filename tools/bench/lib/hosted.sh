# Sourced by tools/bench/churn and tools/bench/failover: builds what the hosted group manager needs (app, rest,
# lab and bench; tests skipped) when the bench jar or its libraries are missing or --rebuild is given, then runs
# a bench main class with the JDK opened the way the lab opens it.
#   bench_hosted NAME MAIN_CLASS ARGS...
bench_hosted() {
    local name="$1" main="$2"
    shift 2
    local here root jar rebuild=0 args=() a p
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    root="$(cd "$here/../.." && pwd)"
    for a in "$@"; do
        if [ "$a" = "--rebuild" ]; then rebuild=1; else args+=("$a"); fi
    done
    jar="$here/target/mcast4ai-bench-0.1.0-SNAPSHOT.jar"
    if [ "$rebuild" = 1 ] || [ ! -f "$jar" ] || ! ls "$here"/target/lib/mcast4ai-lab-*.jar >/dev/null 2>&1 \
            || ! ls "$here"/target/lib/guava-*.jar >/dev/null 2>&1 \
            || ! ls "$here"/target/lib/mcast4ai-app-*-tests.jar >/dev/null 2>&1; then
        echo "$name: building app, rest, lab and bench (skip tests)..." >&2
        local mods="app,rest,tools/lab"
        (cd "$root" && mvn -B -q -o install -pl "$mods" -am -DskipTests -Dcheckstyle.skip \
            && mvn -B -q -o package -pl tools/bench -Dmaven.test.skip=true -Dcheckstyle.skip) \
        || (cd "$root" && mvn -B -q install -pl "$mods" -am -DskipTests -Dcheckstyle.skip \
            && mvn -B -q package -pl tools/bench -Dmaven.test.skip=true -Dcheckstyle.skip)
    fi
    cd "$root"
    # Kryo (ONOS serializers) reflects into the JDK: open what the lab opens. Logging at warn: the manager logs
    # each group's state changes at debug/info, which is not what is measured.
    local opens=()
    for p in java.lang java.lang.invoke java.lang.reflect java.util java.util.concurrent \
             java.util.concurrent.atomic java.nio java.net java.time java.math; do
        opens+=(--add-opens "java.base/$p=ALL-UNNAMED")
    done
    exec java ${CHURN_JAVA_OPTS:-} -Xms1g -Xmx2g ${BENCH_GC:--XX:+UseParallelGC} -Djava.awt.headless=true "${opens[@]}" \
        -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
        -cp "$jar:$here/target/lib/*" "$main" "${args[@]}"
}
