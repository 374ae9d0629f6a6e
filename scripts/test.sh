#!/usr/bin/env bash
# Runs every test of the module against real services. Extra arguments are
# passed to `go test`, e.g. ./scripts/test.sh -run Conformance -v
#
# With CI=true, tests that cannot find a service they need (MinIO) fail
# instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."

MINIO_BIN="$(./scripts/install-minio.sh)"
export MINIO_BIN

go test -count=1 -timeout=40m "$@" ./...
