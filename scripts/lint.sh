#!/usr/bin/env bash
# Static checks CI runs before the tests: gofmt, go vet (with the interop
# build tag too) and staticcheck, pinned and installed once per machine into
# ${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/bin from the Go module proxy.
# Any finding fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."

STATICCHECK_VERSION=v0.8.2 # staticcheck 2026.2.2
BIN="${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/bin"
SC="$BIN/staticcheck-$STATICCHECK_VERSION"
if [ ! -x "$SC" ]; then
	mkdir -p "$BIN"
	tmp="$(mktemp -d)"
	GOBIN="$tmp" go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
	mv "$tmp/staticcheck" "$SC"
	rmdir "$tmp"
fi

unformatted="$(gofmt -l $(git ls-files '*.go'))"
if [ -n "$unformatted" ]; then
	echo "lint: gofmt -l lists files that are not formatted:" >&2
	echo "$unformatted" >&2
	exit 1
fi
go vet ./...
go vet -tags interop ./interop
"$SC" ./...
echo "lint: gofmt, go vet and staticcheck $STATICCHECK_VERSION are clean" >&2
