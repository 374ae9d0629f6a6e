#!/usr/bin/env bash
# Runs the tests of the packages with concurrency under the race detector,
# against real services like scripts/test.sh (about 5 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."

MINIO_BIN="$(./scripts/install-minio.sh)"
export MINIO_BIN
FAKE_GCS_BIN="$(./scripts/install-fake-gcs.sh)"
export FAKE_GCS_BIN
AZURITE_BIN="$(./scripts/install-azurite.sh)"
export AZURITE_BIN

go test -race -count=1 -timeout=30m "$@" ./fileio ./commit ./writer ./realtime ./memindexer ./reader ./compaction ./serve
