#!/usr/bin/env python3
"""Draw one PNG chart from the JSON results of one SecurePush benchmark run.

    python3 Benchmarks/chart.py RESULTS_DIR [--out FILE]

Reads fetch.json, signin.json, send.json, fanout.json and memory.json (as written by Benchmarks/bench.py) from
RESULTS_DIR and writes RESULTS_DIR/benchmarks.png (or FILE) with four panels:

  (a) throughput per path (log scale): store.get cleartext/TLS beside their nginx ceilings, push.send sustained,
      fan-out deliveries/s, auth.login at bcrypt cost 12 and 10, auth.refresh; targets drawn as red ticks
  (b) latency p50/p90/p99 (ms, log scale): store.get, nginx, push.send end to end (fetched) at 200/s and 1000/s
  (c) resident memory per service: idle, after the fetch benchmark, after fan-out; the idle target as a line
  (d) text: machine, run, ratio to nginx, server CPU per request, files not found

Missing files or figures are skipped (and listed on stdout). Exits 1 only if no result file exists or the PNG
cannot be written. Needs matplotlib (Debian: apt-get install python3-matplotlib); uses the Agg backend.
"""
import argparse
import json
import math
import os
import sys
import textwrap

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(f"chart.py: no matplotlib for {sys.executable} (Debian: apt-get install python3-matplotlib, "
             "then run it with /usr/bin/python3)")

FILES = ("fetch", "signin", "send", "fanout", "memory")
STORE, NGINX, TARGET = "#3b75af", "#a0a0a0", "#d62728"
PCT_COLORS = {"p50": "#9ecae1", "p90": "#4292c6", "p99": "#08519c"}
MEM_SERIES = (("idle_mb", "idle", "#a1d99b"), ("after_fetch_mb", "after fetch", "#41ab5d"),
              ("after_fanout_mb", "after fan-out", "#006d2c"))
MEM_ORDER = ("auth", "store-cleartext", "store-tls", "store", "dispatch")
missing = []  # what was not found, printed at the end and shown in panel (d)


def load(directory):
    docs = {}
    for name in FILES:
        path = os.path.join(directory, f"{name}.json")
        try:
            with open(path) as f:
                docs[name] = json.load(f)
        except FileNotFoundError:
            missing.append(f"{name}.json")
        except (OSError, ValueError) as e:
            missing.append(f"{name}.json (unreadable: {e})")
    return docs


def fig(docs, name, *keys):
    """docs[name]["figures"][keys...] as a float, or None (recorded as missing if the file exists)."""
    if name not in docs:
        return None
    v = docs[name].get("figures", {})
    for i, k in enumerate(keys):
        v = v.get(k) if isinstance(v, dict) else None
        if v is None:  # report the shortest missing path once, e.g. "fetch.tls" rather than each figure in it
            path = ".".join((name,) + keys[:i + 1])
            if path not in missing:
                missing.append(path)
            return None
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def target(docs, name, key, default):
    """settings.targets[key] of a result file, else the documented default."""
    v = docs.get(name, {}).get("settings", {}).get("targets", {}).get(key)
    return float(v) if isinstance(v, (int, float)) else default


def num(v, unit=""):
    s = f"{v:,.0f}" if v >= 100 else f"{v:.1f}" if v >= 1 else f"{v:.2f}"
    return s + unit


def log_floor(values):
    return 10 ** math.floor(math.log10(min(values) * 0.8))


def throughput(ax, docs):
    rows = []  # (label, value, colour, target or None, extra text)
    ratio_min = target(docs, "fetch", "ratio_to_nginx_min", 0.15)
    for mode, title in (("cleartext", "cleartext"), ("tls", "TLS")):
        store, nginx = fig(docs, "fetch", mode, "store_rps"), fig(docs, "fetch", mode, "nginx_rps")
        ratio = fig(docs, "fetch", mode, "ratio_to_nginx")
        rows.append((f"store.get {title}", store, STORE, nginx and nginx * ratio_min,
                     f" ({ratio:.2f}× nginx; target {ratio_min:g}×)" if ratio is not None else ""))
        rows.append((f"nginx ceiling {title}", nginx, NGINX, None, ""))
    rows.append(("push.send sustained", fig(docs, "send", "sustained", "sends_per_second"), STORE,
                 target(docs, "send", "sends_per_s_min", 3000.0), ""))
    deliveries_min = target(docs, "fanout", "deliveries_per_s_min", 5000.0)
    if "fanout" in docs:
        one = docs["fanout"].get("figures", {}).get("one_user") or {}
        many = docs["fanout"].get("figures", {}).get("many_users") or {}
        rows.append((f"fan-out 1 user × {one.get('devices', '?')} devices",
                     fig(docs, "fanout", "one_user", "deliveries_per_second"), STORE, deliveries_min, " deliveries"))
        sends = fig(docs, "fanout", "many_users", "sends_per_second")
        rows.append((f"fan-out {many.get('users', '?')} users", fig(docs, "fanout", "many_users", "deliveries_per_second"),
                     STORE, deliveries_min, " deliveries" + (f" ({num(sends)} sends/s)" if sends else "")))
    for cost in (12, 10):
        rows.append((f"auth.login bcrypt {cost}", fig(docs, "signin", f"login_cost{cost}_per_s"), STORE, None, ""))
    rows.append(("auth.refresh", fig(docs, "signin", "refresh_per_s"), STORE, None, ""))
    rows = [r for r in rows if r[1]]
    ax.set_title("(a) throughput per path (per second, log scale; red tick = target)", loc="left")
    if not rows:
        ax.text(0.5, 0.5, "no throughput figures", ha="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    base = log_floor([r[1] for r in rows])
    ys = range(len(rows))[::-1]
    ax.barh(ys, [r[1] - base for r in rows], left=base, color=[r[2] for r in rows], height=0.6)
    for y, (_, value, _, tgt, extra) in zip(ys, rows):
        ax.text(value * 1.12, y, num(value, "/s") + extra, va="center", fontsize=8, zorder=5,
                bbox=dict(facecolor="white", edgecolor="none", pad=0.5))
        if tgt:
            ax.plot([tgt, tgt], [y - 0.45, y + 0.45], color=TARGET, lw=2.2, zorder=4)
    ax.set_xscale("log")
    ax.set_xlim(base, max(max(r[1] for r in rows), max((r[3] or 0) for r in rows)) * 30)
    ax.set_yticks(list(ys), [r[0] for r in rows], fontsize=9)
    ax.grid(axis="x", alpha=0.3)


def latency(ax, docs):
    groups = []  # (label, {pct: ms}, target or None)
    targets = {}  # who -> p99 target, for the legend
    p99_max = target(docs, "fetch", "p99_ms_max", 20.0)
    for who, label in (("store", "store.get"), ("nginx", "nginx")):
        for mode in ("cleartext", "tls"):
            values = {p: fig(docs, "fetch", mode, f"{who}_{p}_ms") for p in PCT_COLORS}
            groups.append((f"{label}\n{'TLS' if mode == 'tls' else mode}", values, p99_max if who == "store" else None))
            if who == "store" and any(values.values()):
                targets["store.get"] = p99_max
    send_p99 = target(docs, "send", "fetched_p99_ms_max", 25.0)
    for rate, tgt in (("rate200", None), ("rate1000", None), ("rate2000", send_p99)):
        values = {p: fig(docs, "send", rate, "fetched_ms", p) for p in PCT_COLORS}
        offered, achieved = fig(docs, "send", rate, "offered_per_second"), fig(docs, "send", rate, "achieved_per_second")
        rate_s = f"@{offered:g}/s" if offered else f"@? ({rate})"
        label = f"push.send\n{rate_s}" + (f"\n(got {num(achieved)}/s)" if achieved else "")
        groups.append((label, values, tgt))
        if tgt and any(values.values()):
            targets[f"push.send {rate_s}"] = tgt
    groups = [g for g in groups if any(g[1].values())]
    ax.set_title("(b) latency (ms, log scale; push.send: send → fetched end to end)", loc="left")
    if not groups:
        ax.text(0.5, 0.5, "no latency figures", ha="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    base = log_floor([v for g in groups for v in g[1].values() if v])
    width, labelled = 0.27, set()
    for i, (label, values, tgt) in enumerate(groups):
        for j, (p, colour) in enumerate(PCT_COLORS.items()):
            x, v = i + (j - 1) * width, values[p]
            if v:
                ax.bar(x, v - base, width, bottom=base, color=colour, label=None if p in labelled else p)
                labelled.add(p)
            ax.text(x, (v or base) * 1.08, num(v) if v else "n/a", ha="center", va="bottom", fontsize=7,
                    rotation=90, zorder=5, bbox=dict(facecolor="white", edgecolor="none", alpha=0.7, pad=0.3))
        if tgt:
            ax.plot([i - 0.45, i + 0.45], [tgt, tgt], color=TARGET, lw=2, ls="--", zorder=4)
    handles, labels = ax.get_legend_handles_labels()
    handles.append(plt.Line2D([], [], color=TARGET, lw=2, ls="--"))
    labels.append("p99 target:\n" + ",\n".join(f"{who} < {t:g} ms" for who, t in targets.items()))
    ax.set_yscale("log")
    ax.set_ylim(base, max(v for g in groups for v in g[1].values() if v) * 8)
    ax.set_xticks(range(len(groups)), [g[0] for g in groups], fontsize=8)
    ax.legend(handles, labels, loc="upper left", fontsize=8, ncol=4)
    ax.grid(axis="y", alpha=0.3)


def memory(ax, docs):
    mem = docs.get("memory", {}).get("figures", {})
    series = [(label, colour, mem[key]) for key, label, colour in MEM_SERIES if isinstance(mem.get(key), dict)]
    idle_max = target(docs, "memory", "idle_mb_max", 40.0)
    ax.set_title(f"(c) resident memory (VmRSS, MB); idle target < {idle_max:g} MB", loc="left")
    if not series:
        ax.text(0.5, 0.5, "no memory figures", ha="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    names = {k for _, _, values in series for k in values}
    names = [n for n in MEM_ORDER if n in names] + sorted(names - set(MEM_ORDER))
    width = 0.8 / len(series)
    for j, (label, colour, values) in enumerate(series):
        xs = [i + (j - (len(series) - 1) / 2) * width for i, n in enumerate(names) if n in values]
        vs = [values[n] for n in names if n in values]
        ax.bar(xs, vs, width, color=colour, label=label)
        for x, v in zip(xs, vs):
            ax.text(x, v + 0.5, f"{v:.1f}", ha="center", va="bottom", fontsize=7, rotation=90, zorder=5,
                    bbox=dict(facecolor="white", edgecolor="none", alpha=0.7, pad=0.3))
    ax.axhline(idle_max, color=TARGET, lw=1.5, ls="--", label=f"idle target {idle_max:g} MB")
    ax.set_xticks(range(len(names)), names, fontsize=9)
    ax.set_ylim(0, max(idle_max, max(v for _, _, vals in series for v in vals.values())) * 1.25)
    ax.legend(loc="upper left", fontsize=8, ncol=4)
    ax.grid(axis="y", alpha=0.3)


def text_panel(ax, docs, first):
    ax.axis("off")
    ax.set_title("(d) run", loc="left")
    m = first.get("machine", {})
    lines = [f"machine    {m.get('cores', '?')} cores, {m.get('model', '?')}",
             f"           {num(m['mem_total_mb'] / 1024)} GB RAM, kernel {m.get('kernel', '?')}"
             if m.get("mem_total_mb") else "",
             "load avg   " + " ".join(f"{x:.2f}" for x in m.get("loadavg_at_start", [])) + " (at start)", ""]
    for name in FILES:
        if name in docs:
            d = docs[name]
            profile = d.get("settings", {}).get("profile", "?")
            lines.append(f"{name + '.json':<12}{d.get('timestamp', '?')}  profile {profile}")
    lines.append("")
    ratio_min = target(docs, "fetch", "ratio_to_nginx_min", 0.15)
    for mode in ("cleartext", "tls"):
        r = docs.get("fetch", {}).get("figures", {}).get(mode, {})
        if r:
            cpu = [num(r[k]) if isinstance(r.get(k), (int, float)) else "?"
                   for k in ("store_cpu_us_per_request", "nginx_cpu_us_per_request")]
            ratio = r.get("ratio_to_nginx", float("nan"))
            lines.append(f"store.get {mode:<9} {ratio:.3f} × nginx (target ≥ {ratio_min:g}); "
                         f"CPU {cpu[0]} µs/req vs nginx {cpu[1]}")
    growth = docs.get("memory", {}).get("figures", {}).get("growth_round1_to_last_mb")
    if isinstance(growth, dict):
        lines.append("RSS growth " + ", ".join(f"{k} {v:+.1f} MB" for k, v in growth.items()) + " (round 1 → last)")
    if missing:
        lines += [""] + textwrap.wrap("not found: " + ", ".join(missing), 90, subsequent_indent="           ")
    ax.text(0, 1, "\n".join(lines), va="top", ha="left", family="monospace", fontsize=8.5, transform=ax.transAxes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results_dir")
    parser.add_argument("--out", help="PNG to write (default: RESULTS_DIR/benchmarks.png)")
    args = parser.parse_args()
    docs = load(args.results_dir)
    if not docs:
        names = ", ".join(n + ".json" for n in FILES)
        print(f"chart.py: no result file ({names}) in {args.results_dir}", file=sys.stderr)
        return 1
    first = docs[next(n for n in FILES if n in docs)]
    stamps = sorted(d["timestamp"] for d in docs.values() if d.get("timestamp"))
    profiles = [d.get("settings", {}).get("profile") for d in docs.values()]
    profile = "/".join(sorted({p for p in profiles if p})) or "?"  # "smoke/full" if files from runs were mixed

    figure, axes = plt.subplots(2, 2, figsize=(14, 9), dpi=110)
    throughput(axes[0][0], docs)
    latency(axes[0][1], docs)
    memory(axes[1][0], docs)
    text_panel(axes[1][1], docs, first)  # last: shows everything the other panels found missing
    figure.suptitle(f"SecurePush benchmarks: {profile} run, {stamps[0] if stamps else '?'}, "
                    f"{first.get('machine', {}).get('cores', '?')} cores", fontsize=13, fontweight="bold")
    figure.tight_layout()
    out = args.out or os.path.join(args.results_dir, "benchmarks.png")
    try:
        figure.savefig(out)
    except (OSError, ValueError) as e:
        print(f"chart.py: cannot write {out}: {e}", file=sys.stderr)
        return 1
    if missing:
        print("chart.py: not found: " + ", ".join(missing))
    print(f"chart.py: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
