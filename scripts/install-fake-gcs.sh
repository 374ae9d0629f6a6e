#!/usr/bin/env bash
# Builds fake-gcs-server (the GCS emulator used by the tests, package testenv)
# once per machine and prints the path of the binary. Idempotent: an existing
# binary is reused. The build takes about a minute on 2 cores.
set -euo pipefail

version="v1.56.1"
bindir="${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/fake-gcs-server/bin"
bin="$bindir/fake-gcs-server"

if [[ -x "$bin" ]]; then
	echo "$bin"
	exit 0
fi

mkdir -p "$bindir"
echo "building github.com/fsouza/fake-gcs-server@$version into $bindir..." >&2
GOBIN="$bindir" go install "github.com/fsouza/fake-gcs-server@$version"
echo "$bin"
