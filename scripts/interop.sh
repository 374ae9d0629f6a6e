#!/usr/bin/env bash
# Interop harness: installs the peers and runs the interop matrix
# (interop/, build tag "interop").
#
#   - pypaimon: a venv with interop/python/requirements.txt (every package
#     pinned), cached under ${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/interop/venv
#     and rebuilt only when the requirements or the Python version change;
#   - Java Paimon: interop/java built with Maven (artifacts in ~/.m2) into
#     the same cache, rebuilt only when its pom.xml or sources change; offline
#     (-o) first, online when something is missing from ~/.m2;
#   - Flink 2.0 and Spark 3.5 (PyFlink, PySpark and the Paimon connector jars,
#     scripts/install-engines.sh), cached under .../paimon-go/engines and
#     rebuilt only when their pinned versions change (the first install takes
#     about 4-5 minutes and 1.3 GB);
#
# then runs `go test -tags interop -count=1 -v ./interop/...`. Extra
# arguments go to `go test` (e.g. -run 'TestMatrix/java_writes').
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/interop"
mkdir -p "$CACHE"
PYTHON="${PYTHON:-python3}"
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

# --- pypaimon venv ---
t0=$(now)
VENV="$CACHE/venv"
REQ=interop/python/requirements.txt
want_py="$(sha256sum "$REQ" | cut -d' ' -f1) $("$PYTHON" -c 'import sys; print(sys.version.split()[0])')"
if [[ ! -x "$VENV/bin/python" || "$(cat "$VENV/.stamp" 2>/dev/null)" != "$want_py" ]]; then
	echo "interop: installing pypaimon venv into $VENV" >&2
	rm -rf "$VENV"
	"$PYTHON" -m venv "$VENV"
	"$VENV/bin/pip" install --disable-pip-version-check --quiet --requirement "$REQ"
	echo "$want_py" >"$VENV/.stamp"
fi
echo "interop: pypaimon venv ready ($(took "$t0"))" >&2

# --- Java Paimon peer ---
t0=$(now)
JBUILD="$CACHE/java-build"
want_java="$(cd interop/java && find pom.xml src -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
if [[ ! -f "$JBUILD/interop-peer.jar" || "$(cat "$JBUILD/.stamp" 2>/dev/null)" != "$want_java" ]]; then
	echo "interop: building the Java peer into $JBUILD" >&2
	rm -rf "$JBUILD"
	mvn_args=(-B -q -f interop/java/pom.xml "-Dinterop.build=$JBUILD" package)
	if ! mvn -o "${mvn_args[@]}" >"$CACHE/mvn-offline.log" 2>&1; then
		mvn "${mvn_args[@]}"
	fi
	echo "$want_java" >"$JBUILD/.stamp"
fi
echo "interop: Java peer ready ($(took "$t0"))" >&2

# --- Flink and Spark peers (TestEngines) ---
t0=$(now)
ENGINES="$(./scripts/install-engines.sh)"
echo "interop: Flink and Spark ready ($(took "$t0"))" >&2

export PAIMON_ENGINES_PYTHON="$ENGINES/venv/bin/python"
export PAIMON_ENGINES_JARS="$ENGINES/jars"
export PAIMON_INTEROP_PYTHON="$VENV/bin/python"
export PAIMON_INTEROP_JAVA_CP="$JBUILD/interop-peer.jar:$JBUILD/lib/*"
export PAIMON_INTEROP_JAVA="${PAIMON_INTEROP_JAVA:-java}"

go test -tags interop -count=1 -v -timeout 60m "$@" ./interop/...
