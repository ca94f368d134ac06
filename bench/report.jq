# Render bench/results/latest.json as a markdown table.
# Columns: podwire, reference, ratio (podwire / reference), floor, target, met?
. as $s
| $s.config as $c
| def grp($i; $m; $k; $cmd):
    first($s.groups[] | select(.impl == $i and .mode == $m and .case == $k and .cmd == $cmd)) // null;
  def med($i; $m; $k; $cmd): grp($i; $m; $k; $cmd) | if . then .lat_ms else null end;
  def wall($i; $m; $k; $cmd): grp($i; $m; $k; $cmd) | if . then .wall_ms.median else null end;
  def rss($i; $m; $k; $cmd): grp($i; $m; $k; $cmd) | if . then .rss_kb.max else null end;
  def r1: . * 10 | round / 10;
  def v: if type == "object" then .median else . end;
  def ms: if . == null then "—" elif type == "object" then "\(.median | r1) ms (p99 \(.p99 | r1))" else "\(r1) ms" end;
  def mb: if . == null then "—" else "\(. / 1024 * 100 | round / 100) MB" end;
  def ratio($a; $b): ($a | v) as $x | ($b | v) as $y
    | if $x == null or $y == null or $y == 0 then "—" else "\($x / $y * 100 | round / 100)x" end;
  def yn(f): if . == null then "n/a" elif f then "met" else "**missed**" end;
  def latrow($name; $pw; $ref; $floor; $kref; $kfloor):
    "| \($name) | \($pw | ms) | \($ref | ms) | \(ratio($pw; $ref)) | \($floor | ms) | ≤\($kref)x ref, ≤\($kfloor)x floor | \(
      if $pw == null or $ref == null or $floor == null then "n/a"
      elif ($pw | v) <= $kref * ($ref | v) and ($pw | v) <= $kfloor * ($floor | v) then "met" else "**missed**" end) |";
  def delrow($name; $pw; $ref; $floor):
    "| \($name) | \($pw | ms) | \($ref | ms) | \(ratio($pw; $ref)) | \($floor | ms) | ≤ floor + 2 ms | \(
      if $pw == null or $floor == null then "n/a" elif ($pw | v) <= ($floor | v) + 2 then "met" else "**missed**" end) |";
  def info($name; $pw; $ref; $floor; $note):
    "| \($name) | \($pw | ms) | \($ref | ms) | \(ratio($pw; $ref)) | \($floor | ms) | \($note) | — |";
  def hl($cmd):
    med("podwire"; "host-local"; "leases-0"; $cmd) as $p0
    | med("podwire"; "host-local"; "leases-\($c.leases_big)"; $cmd) as $pn
    | med("reference"; "host-local"; "leases-0"; $cmd) as $r0
    | med("reference"; "host-local"; "leases-\($c.leases_big)"; $cmd) as $rn
    | (info("host-local \($cmd), 0 leases"; $p0; $r0; null; "—")),
      ("| host-local \($cmd), \($c.leases_big) leases | \($pn | ms) | \($rn | ms) | \(ratio($pn; $rn)) | — | ≤1.2x podwire's empty case (now \(ratio($pn; $p0)); reference \(ratio($rn; $r0))) | \(
        if $pn == null or $p0 == null then "n/a" elif ($pn | v) <= 1.2 * ($p0 | v) then "met" else "**missed**" end) |");
  def binrow($p):
    first($s.binaries[] | select(.impl == "podwire" and .case == $p)) as $pw
    | first($s.binaries[] | select(.impl == "reference" and .case == $p)) as $ref
    | "| binary size, \($p) (shared libs) | \(if $pw then "\($pw.size / 1024 | round) KB (\($pw.shared_libs))" else "—" end) | \(if $ref then "\($ref.size / 1024 | round) KB (\($ref.shared_libs))" else "—" end) | \(ratio($pw.size; $ref.size)) | — | — | — |";
  "# podwire benchmark (\($s.profile))",
  "",
  "\($s.date); \($s.machine); \($s.seconds) s. Latency is the median over all calls of all runs (p99 in parentheses); one fork/exec/wait per call, so every number includes process start-up. Floor = bench/kfloor, one minimal C process per pod doing only the netlink work and a lease file, timed the same way (see bench/README.md).",
  "",
  "| measurement | podwire | reference | ratio | floor | target | met? |",
  "|---|---|---|---|---|---|---|",
  info("exec floor (/bin/true through the driver)"; null; null; med("floor"; "floor"; "exec"; "EXEC"); "—"),
  info("floor via ip -batch (2 ip execs per pod), ADD"; null; null; med("floor-ip"; "floor"; "seq"; "EXEC"); "—"),
  info("floor via ip -batch, DEL (one ip link del)"; null; null; med("floor-ip"; "floor"; "seq-del"; "EXEC"); "—"),
  latrow("ADD, 1 pod (bridge created each time)"; med("podwire"; "bridge-v4"; "1pod"; "ADD");
    med("reference"; "bridge-v4"; "1pod"; "ADD"); med("floor"; "floor"; "1pod"; "EXEC"); 0.25; 1.3),
  latrow("ADD, \($c.pods_seq) pods on one bridge"; med("podwire"; "bridge-v4"; "seq"; "ADD");
    med("reference"; "bridge-v4"; "seq"; "ADD"); med("floor"; "floor"; "seq"; "EXEC"); 0.25; 1.3),
  (if $c.pods_big > 0 then
    latrow("ADD, pods 1-10 of \($c.pods_big)"; med("podwire"; "bridge-v4"; "big-first10"; "ADD");
      med("reference"; "bridge-v4"; "big-first10"; "ADD"); med("floor"; "floor"; "big-first10"; "EXEC"); 0.25; 1.3),
    latrow("ADD, pods \($c.pods_big - 9)-\($c.pods_big) of \($c.pods_big)"; med("podwire"; "bridge-v4"; "big-last10"; "ADD");
      med("reference"; "bridge-v4"; "big-last10"; "ADD"); med("floor"; "floor"; "big-last10"; "EXEC"); 0.4; 1.3)
  else empty end),
  delrow("DEL, 1 pod"; med("podwire"; "bridge-v4"; "1pod"; "DEL"); med("reference"; "bridge-v4"; "1pod"; "DEL");
    med("floor"; "floor"; "1pod-del"; "EXEC")),
  delrow("DEL, \($c.pods_seq) pods"; med("podwire"; "bridge-v4"; "seq"; "DEL"); med("reference"; "bridge-v4"; "seq"; "DEL");
    med("floor"; "floor"; "seq-del"; "EXEC")),
  (if $c.pods_big > 0 then
    delrow("DEL, \($c.pods_big) pods"; med("podwire"; "bridge-v4"; "big"; "DEL"); med("reference"; "bridge-v4"; "big"; "DEL");
      med("floor"; "floor"; "big-del"; "EXEC"))
  else empty end),
  info("dual-stack ADD, 1 pod"; med("podwire"; "bridge-dual"; "1pod"; "ADD"); med("reference"; "bridge-dual"; "1pod"; "ADD"); null; "—"),
  info("dual-stack ADD, \($c.pods_seq) pods"; med("podwire"; "bridge-dual"; "seq"; "ADD"); med("reference"; "bridge-dual"; "seq"; "ADD"); null; "—"),
  info("dual-stack DEL, \($c.pods_seq) pods"; med("podwire"; "bridge-dual"; "seq"; "DEL"); med("reference"; "bridge-dual"; "seq"; "DEL"); null; "—"),
  (wall("podwire"; "concurrent"; "conc"; "ADD") as $pw | wall("reference"; "concurrent"; "conc"; "ADD") as $ref
    | "| \($c.pods_conc) concurrent ADDs, wall per batch | \($pw | ms) | \($ref | ms) | \(ratio($pw; $ref)) | \(wall("floor"; "floor"; "conc"; "EXEC") | ms) | ≤1/3 of reference | \(
      if $pw == null or $ref == null then "n/a" elif $pw * 3 <= $ref then "met" else "**missed**" end) |"),
  info("\($c.pods_conc) concurrent ADDs, per op"; med("podwire"; "concurrent"; "conc"; "ADD"); med("reference"; "concurrent"; "conc"; "ADD");
    med("floor"; "floor"; "conc"; "EXEC"); "—"),
  (wall("podwire"; "concurrent"; "conc"; "DEL") as $pw | wall("reference"; "concurrent"; "conc"; "DEL") as $ref
    | info("\($c.pods_conc) concurrent DELs, wall per batch"; $pw; $ref; wall("floor"; "floor"; "conc-del"; "EXEC"); "—")),
  (rss("podwire"; "bridge-v4"; "seq"; "ADD") as $pw | rss("reference"; "bridge-v4"; "seq"; "ADD") as $ref
    | "| peak RSS, bridge ADD (largest process, max over calls) | \($pw | mb) | \($ref | mb) | \(ratio($pw; $ref)) | \(rss("floor"; "floor"; "seq"; "EXEC") | mb) | ≤ 2 MB | \($pw | yn(. <= 2048)) |"),
  (rss("podwire"; "host-local"; "leases-0"; "ADD") as $pw | rss("reference"; "host-local"; "leases-0"; "ADD") as $ref
    | "| peak RSS, host-local ADD alone | \($pw | mb) | \($ref | mb) | \(ratio($pw; $ref)) | \(rss("floor"; "floor"; "exec"; "EXEC") | mb) | ≤ 2 MB | \($pw | yn(. <= 2048)) |"),
  hl("ADD"), hl("DEL"),
  info("ADD, \($c.pods_seq) pods, IPAM exec'd (PODWIRE_IPAM_EXEC=1)"; med("podwire"; "ipam-exec"; "seq"; "ADD");
    med("reference"; "bridge-v4"; "seq"; "ADD"); null; "in-process: \(med("podwire"; "bridge-v4"; "seq"; "ADD") | v | ms)"),
  info("DEL, \($c.pods_seq) pods, IPAM exec'd (PODWIRE_IPAM_EXEC=1)"; med("podwire"; "ipam-exec"; "seq"; "DEL");
    med("reference"; "bridge-v4"; "seq"; "DEL"); null; "in-process: \(med("podwire"; "bridge-v4"; "seq"; "DEL") | v | ms)"),
  binrow("bridge"), binrow("host-local"),
  "",
  (if ($s.errors | length) > 0 then "Errors:\n" + ($s.errors | map("- " + .) | join("\n")) else "No errors, no leftovers, no duplicate addresses." end)
