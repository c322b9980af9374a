#!/bin/bash
# ab.sh MODEL BATCH THREADS: compute-only p50 of the build before (/tmp/oldbuild) and after (build/), alternating.
cfg=$1; b=$2; t=$3
run() { "$@" --config configs/$cfg.yaml --paths cpu --threads $t --batches $b --duration-ms 1500 --json /tmp/b.json >/dev/null; /usr/bin/python3 -c "import json; print(round(json.load(open('/tmp/b.json'))['results'][0]['compute_only']['p50_ms'],3))"; }
for i in 1 2 3; do
  busy=$(top -bn1 | awk 'NR>7 && $9>50 {print $12}' | head -1)
  echo "$cfg $b t=$t old $(run /tmp/oldbuild/bin/bench) new $(run ./build/bin/bench) ${busy:+(busy: $busy)}"
done
