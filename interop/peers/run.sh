#!/usr/bin/env bash
# rtbench's peer comparison: the same workloads on the same flights with
# paimon-go (cmd/rtbench), pypaimon and Java Paimon, one after the other on
# this machine, printed side by side with ratios (see peers.py).
#
#   interop/peers/run.sh [--rows N] [--batch-rows N] [--commit-every N]
#                        [--buckets N] [--workloads a,b,c] [--json FILE] [--keep DIR]
#
# The peers are the interop harness's: the pypaimon venv and the Java Paimon
# class path that scripts/interop.sh caches under
# ${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/interop. When they are missing, it
# runs scripts/interop.sh once without tests to install them. The Java side of
# the benchmark (java/RtbenchPeer.java) is compiled against that class path
# into the same cache, again only when its source changes.
set -euo pipefail
cd "$(dirname "$0")/../.."

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/interop"
VENV="$CACHE/venv"
JBUILD="$CACHE/java-build"
if [[ ! -x "$VENV/bin/python" || ! -f "$JBUILD/interop-peer.jar" ]]; then
	echo "peers: installing the interop peers (scripts/interop.sh, no tests)" >&2
	./scripts/interop.sh -run '^$' >&2
fi

# Compile the Java benchmark peer when its source changed.
PEER="$CACHE/rtbench-peer"
want="$(sha256sum interop/peers/java/RtbenchPeer.java | cut -d' ' -f1) $(java -version 2>&1 | head -1)"
if [[ ! -f "$PEER/RtbenchPeer.class" || "$(cat "$PEER/.stamp" 2>/dev/null)" != "$want" ]]; then
	echo "peers: compiling interop/peers/java/RtbenchPeer.java" >&2
	rm -rf "$PEER"
	mkdir -p "$PEER"
	javac -nowarn -d "$PEER" -cp "$JBUILD/lib/*" interop/peers/java/RtbenchPeer.java
	echo "$want" >"$PEER/.stamp"
fi

BIN="$(mktemp -d)/rtbench"
trap 'rm -rf "$(dirname "$BIN")"' EXIT
go build -o "$BIN" ./cmd/rtbench

"$VENV/bin/python" interop/peers/peers.py --rtbench "$BIN" \
	--java-cp "$PEER:$JBUILD/lib/*" --java "${PAIMON_INTEROP_JAVA:-java}" "$@"
