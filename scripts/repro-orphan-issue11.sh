#!/bin/bash
# The reproduction of issue 11 (orphan cleaning deleted live files): the
# cleaner's open of snapshot-4 is delayed by 4 s (strace), meanwhile an
# import commits snapshot 5 and an expiration deletes snapshot 4. With the
# fix, clean-orphans deletes nothing live and cat prints rows 1 to 4.
#
#	go build -o /tmp/paimon ./cmd/paimon && scripts/repro-orphan-issue11.sh /tmp/paimon
set -u
P=$1; W=$(mktemp -d); T=$W/t; cd "$W"
$P create $T --column x:INT >/dev/null
for x in 1 2; do echo "{\"x\":$x}" > r.jsonl; $P import $T r.jsonl >/dev/null; done
$P compact --full $T >/dev/null; echo '{"x":3}' > r.jsonl; $P import $T r.jsonl >/dev/null
$P expire --retain-min 1 --retain-max 1 $T >/dev/null; sleep 4
strace -f -qq -o /dev/null -e trace=openat -e inject=openat:delay_enter=4s -P $T/snapshot/snapshot-4 $P clean-orphans --older-than 3s $T > clean.out 2>&1 &
sleep 1.5; echo '{"x":4}' > r.jsonl; $P import $T r.jsonl >/dev/null; $P expire --retain-min 1 --retain-max 1 $T >/dev/null; wait
echo "--- clean-orphans:"; cat clean.out
echo "--- cat:"; $P cat $T 2>&1
