# Pool the raw pwbench lines (slurped) into one summary per
# (impl, mode, case, cmd): latency over all samples of all runs, peak RSS,
# and wall time per batch (median over runs).
def sorted_pct($p): (length) as $n | if $n == 0 then null
	else .[([(($p / 100) * $n | ceil), 1] | max) - 1] end;
def stats: sort | {min: .[0], median: sorted_pct(50), p99: sorted_pct(99), max: .[-1], n: length};

{
  date: $date, machine: $machine, profile: $profile, config: $config, seconds: $secs, errors: $errors,
  groups: [ .[] | select(.mode != "binary") ]
    | group_by([.impl, .mode, .case, .cmd])
    | map({
        impl: .[0].impl, mode: .[0].mode, case: .[0].case, cmd: .[0].cmd,
        runs: length,
        failed: (map(.failed) | add),
        lat_ms: (map(.samples_ms[]) | stats),
        rss_kb: (map(.rss_kb[]) | stats),
        wall_ms: (map(.wall_ms) | stats)
      }),
  binaries: [ .[] | select(.mode == "binary") | del(.mode) ]
}
