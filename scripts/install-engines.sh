#!/usr/bin/env bash
# Installs the engine peers of the interop harness (interop/engines): a venv
# with PyFlink and PySpark (interop/engines/requirements.txt, every package
# pinned) and the Paimon connector jars (interop/engines/jars.txt, from Maven
# Central through `mvn dependency:copy`, checked against
# interop/engines/jars.sha256), cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/engines and rebuilt only when those
# files or the Python version change. Prints the cache directory on stdout.
#
# Layout: $DIR/venv (python), $DIR/jars/flink/*.jar (also linked into
# PyFlink's lib directory), $DIR/jars/spark/*.jar.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR="${XDG_CACHE_HOME:-$HOME/.cache}/paimon-go/engines"
PYTHON="${PYTHON:-python3}"
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

want="$(cat interop/engines/requirements.txt interop/engines/jars.txt interop/engines/jars.sha256 scripts/install-engines.sh | sha256sum | cut -d' ' -f1) $("$PYTHON" -c 'import sys; print(sys.version.split()[0])')"
if [[ -x "$DIR/venv/bin/python" && "$(cat "$DIR/.stamp" 2>/dev/null)" == "$want" ]]; then
	echo "$DIR"
	exit 0
fi

t0=$(now)
echo "engines: installing PyFlink, PySpark and the Paimon jars into $DIR" >&2
rm -rf "$DIR"
mkdir -p "$DIR/jars/flink" "$DIR/jars/spark"
"$PYTHON" -m venv "$DIR/venv"
"$DIR/venv/bin/pip" install --disable-pip-version-check --quiet --requirement interop/engines/requirements.txt
echo "engines: venv ready ($(took "$t0"))" >&2

t1=$(now)
while read -r coord; do
	[[ -z "$coord" || "$coord" == \#* ]] && continue
	case "$coord" in
	*:paimon-spark-*) out="$DIR/jars/spark" ;;
	*) out="$DIR/jars/flink" ;;
	esac
	if ! mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
		"-Dartifact=$coord" "-DoutputDirectory=$out" >"$DIR/mvn.log" 2>&1; then
		cat "$DIR/mvn.log" >&2
		exit 1
	fi
done <interop/engines/jars.txt
(cd "$DIR/jars" && sha256sum -c --quiet "$OLDPWD/interop/engines/jars.sha256") >&2
# The Flink jars go on the class path of PyFlink's JVM (its lib directory),
# where the peer's MiniCluster finds them: as pipeline.jars they would be
# uploaded to the cluster with every job (100 MB, seconds per statement).
pyflink_lib="$("$DIR/venv/bin/python" -c 'import os, pyflink; print(os.path.join(os.path.dirname(pyflink.__file__), "lib"))')"
ln -s "$DIR"/jars/flink/*.jar "$pyflink_lib/"
echo "engines: jars ready ($(took "$t1"))" >&2

echo "$want" >"$DIR/.stamp"
echo "engines: installed in $(took "$t0"), $(du -sh "$DIR" | cut -f1)" >&2
echo "$DIR"
