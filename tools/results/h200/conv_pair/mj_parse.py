import json,sys
txt=open(sys.argv[1]).read().splitlines()
j=[json.loads(l) for l in txt if l.startswith('{')]
w=[l for l in txt if l.startswith('wall')]
if not j: print(sys.argv[2],'no json',txt[-3:]); sys.exit()
j=j[0]; p=j['setup_phases_s']
wall=float(w[0].split()[1]) if w else float('nan')
print(f"{sys.argv[2]:>10}: wall {wall:.2f} main {j['main_s']:.3f} [before {j['before_setup_s']:.3f} device {p['device_start']:.3f} "
      f"load {p['read_and_load']:.3f} sessions {p['sessions']:.3f} plan {p['plan']:.3f} first {p['first_run']:.3f} "
      f"warm {p['warm_run']:.3f} staging {p['staging']:.3f} | run {j['run_s']:.4f} results {j['results_s']:.3f} "
      f"write {j['write_s']:.3f} teardown {j['teardown_s']:.3f}] after main {wall-j['main_s']:.3f} prec {j['precision']}")
