# Sourced by scripts/bench-gen.sh and scripts/bench-times.sh.
# load_verdict "L1 L5 L15": what the 1-minute load average before a run says, per CPU.
load_verdict() {
  awk -v l="${1%% *}" -v n="$(nproc)" 'BEGIN {
    if (l > n) printf "load %.2f per CPU: more work than CPUs in the minute before the run (a 1-minute average); work that went on into the run inflates its wall times", l / n
    else printf "load %.2f per CPU: no more work than CPUs in the minute before the run", l / n }'
}
