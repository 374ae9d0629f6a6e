#!/usr/bin/env bash
# Runs every test of the module against real services. Extra arguments are
# passed to `go test`, e.g. ./scripts/test.sh -run Conformance -v
#
# With CI=true, tests that cannot find a service they need (MinIO) fail
# instead of skipping. fake-gcs-server and Azurite are installed too, so the GCS and Azure tests run.
set -euo pipefail
cd "$(dirname "$0")/.."

MINIO_BIN="$(./scripts/install-minio.sh)"
export MINIO_BIN
FAKE_GCS_BIN="$(./scripts/install-fake-gcs.sh)"
export FAKE_GCS_BIN
AZURITE_BIN="$(./scripts/install-azurite.sh)"
export AZURITE_BIN

go test -count=1 -timeout=40m "$@" ./...
