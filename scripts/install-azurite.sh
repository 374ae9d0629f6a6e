#!/usr/bin/env bash
# Installs Azurite (the Azure Storage emulator used by the tests, package
# testenv) from the npm registry once per machine and prints the path of its
# blob service launcher. Idempotent: an existing install is reused. Takes
# about 20 s; needs Node.js and npm.
set -euo pipefail

version="3.35.0"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/azurite"
bin="$dir/node_modules/.bin/azurite-blob"

if [[ -x "$bin" ]] && grep -q "\"version\": \"$version\"" "$dir/node_modules/azurite/package.json" 2>/dev/null; then
	echo "$bin"
	exit 0
fi

mkdir -p "$dir"
echo "installing azurite@$version from npm into $dir..." >&2
npm install --prefix "$dir" --no-audit --no-fund --silent "azurite@$version" >&2
echo "$bin"
