#!/usr/bin/env bash
# Builds the MinIO server used by the tests (package testenv) once per machine
# and prints the path of the binary. Idempotent: an existing binary is reused.
#
# MinIO is source-only now, so it is built with `go install`, pinned to one
# commit. The build takes 6-18 minutes on 2 cores and gives a ~143 MiB binary.
set -euo pipefail

version="v0.0.0-20260212201848-7aac2a2c5b7c"
bindir="${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/minio/bin"
bin="$bindir/minio"

if [[ -x "$bin" ]]; then
	echo "$bin"
	exit 0
fi

mkdir -p "$bindir"
echo "building github.com/minio/minio@$version into $bindir (takes several minutes)..." >&2
GOBIN="$bindir" go install "github.com/minio/minio@$version"
echo "$bin"
