#!/bin/sh
# Records the six configurations of issue 10 once per seed, one at a time.
# Usage (as root, from this directory): ./record-all.sh OUTDIR [SEED...]
# Each seed's runs go to OUTDIR/seed<S>/.
set -eu
out=${1:?usage: record-all.sh OUTDIR [SEED...]}
shift
seeds=${*:-1 2}
go build -o callsim.bin .
for seed in $seeds; do
	for cfg in "1 40" "2 40" "3 40" "4 40" "2 100" "4 100"; do
		set -- $cfg
		./callsim.bin -scenario "$1" -rtt "$2" -seed "$seed" -out "$out/seed$seed" -duration 70s 2>&1 |
			grep -v '^emu tun' || echo "run scenario $1 rtt $2 seed $seed failed"
	done
done
rm -f callsim.bin
