#!/usr/bin/env bash
# The main job on an embedded default: convert a real dump from testdata to
# JSON and text. (Becomes a live capture of the demo service later.)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p demo
in=testdata/corpus/go/panicparse_panicweb_debug2.txt
bin/stackdump convert "$in" -o demo/dump.json.gz
bin/stackdump convert "$in" -o demo/dump.txt
echo "wrote demo/dump.json.gz and demo/dump.txt from $in"
