#!/usr/bin/env bash
# Runs every test of the module against real services. Extra arguments are
# passed to `go test`, e.g. ./scripts/test.sh -run Conformance -v
#
# With CI=true, tests that cannot find a service they need (MinIO) fail
# instead of skipping. fake-gcs-server is built too, so the GCS tests run.
set -euo pipefail
cd "$(dirname "$0")/.."

MINIO_BIN="$(./scripts/install-minio.sh)"
export MINIO_BIN
FAKE_GCS_BIN="$(./scripts/install-fake-gcs.sh)"
export FAKE_GCS_BIN

go test -count=1 -timeout=40m "$@" ./...
