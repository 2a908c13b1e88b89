#!/usr/bin/env python3
"""gensteplog.py: writes synthetic per-step training logs for samples and benchmarks.

Each flavor mimics the output of the tool it is named after, line for line,
with deterministic pseudo-random numbers (seeded), so samples/steplogs/ can
be regenerated and benchmarks need not commit large inputs.

  gensteplog.py jsonl N            N JSON Lines records (step, loss, times)
  gensteplog.py rectflow [STEPS]   rectified-flow "=== Profiling Report ===" blocks
  gensteplog.py generic [STEPS]    generic trainer `profile/train/dl_X/time_*_ms: v` lines
  gensteplog.py mae [EPOCHS]       MAE "=== Epoch N Profiling Summary ===" blocks
Output goes to stdout."""

import json
import random
import sys


def jsonl(n):
    rnd = random.Random(1)
    out = sys.stdout
    for step in range(1, n + 1):
        fwd = 0.030 + rnd.random() * 0.004
        bwd = 0.060 + rnd.random() * 0.006
        data = 0.005 + rnd.random() * 0.002
        rec = {"step": step, "epoch": step // 1000, "loss": round(4.0 / (1 + step / 5000), 6),
               "lr": 3e-4, "time_data_ms": round(data * 1e3, 3),
               "time_forward_ms": round(fwd * 1e3, 3), "time_backward_ms": round(bwd * 1e3, 3),
               "step_time_ms": round((fwd + bwd + data + 0.002) * 1e3, 3),
               "samples_per_second": round(64 / (fwd + bwd + data + 0.002), 2)}
        out.write(json.dumps(rec, separators=(", ", ": ")) + "\n")


SECTIONS = [("data_loading", 0.0468), ("forward_pass", 0.3047), ("backward_pass", 0.1791),
            ("metrics_computation", 0.0025), ("optimizer_step", 0.0018), ("ema_update", 0.0009)]


def rectflow_block(title, times):
    """Prints one block the way the rectified-flow profiler formats it."""
    lines = [f"=== {title} ===", "", "Detailed Breakdown:"]
    totals = {name: sum(v) for name, v in times.items()}
    for name, v in times.items():
        lines.append(f"{name}: count={len(v)}, total={totals[name]:.3f}s, "
                     f"avg={totals[name] / len(v):.4f}s, min={min(v):.4f}s, max={max(v):.4f}s")
    grand = sum(totals.values())
    lines += ["", "Time Distribution:"]
    for name in times:
        lines.append(f"{name}: {totals[name] / grand * 100:.1f}%")
    slowest = max(times, key=lambda n: totals[n] / len(times[n]))
    data_pct = totals["data_loading"] / grand * 100
    lines += ["", "Performance Insights:",
              f"- Slowest component: {slowest} ({totals[slowest] / len(times[slowest]):.4f}s avg)",
              (f"- Data loading appears efficient ({data_pct:.1f}% of total time)" if data_pct <= 15
               else f"- Data loading may be a bottleneck ({data_pct:.1f}% of total time)")]
    return "\n".join(lines) + "\n"


def rectflow(steps=150, every=50):
    rnd = random.Random(2)
    times = {name: [] for name, _ in SECTIONS}
    for step in range(1, steps + 1):
        for name, mean in SECTIONS:
            times[name].append(mean * (0.9 + 0.2 * rnd.random()))
        print(f"step {step}: loss {1.0 / step ** 0.3:.4f}")
        if step % every == 0:
            window = {n: v[-every:] for n, v in times.items()}
            sys.stdout.write("\n" + rectflow_block(f"Profiling Report (Step {step})", window) + "\n")
    sys.stdout.write(rectflow_block(f"Final Profiling Summary ({steps} steps)", times))


def generic(steps=200, every=50):
    rnd = random.Random(3)
    loaders = {"main": 1.0, "aux": 2.5}
    for step in range(every, steps + 1, every):
        print(f"step: {step}")
        for dl, slow in loaders.items():
            print(f"profile/train/dl_{dl}/time_data_ms: {0.8 * slow * (0.9 + 0.2 * rnd.random()):.2f}")
            print(f"profile/train/dl_{dl}/time_forward_ms: {3.2 * (0.9 + 0.2 * rnd.random()):.2f}")
            print(f"profile/train/dl_{dl}/time_backward_ms: {1.9 * (0.9 + 0.2 * rnd.random()):.2f}")
            print(f"profile/train/dl_{dl}/time_optimizer_ms: {0.44 * (0.9 + 0.2 * rnd.random()):.2f}")
        print(f"profile/val/dl_val_main/time_forward_ms: {2.78 * (0.9 + 0.2 * rnd.random()):.2f}")
        print(f"INFO some unrelated log line at step {step}")


def mae(epochs=3):
    rnd = random.Random(4)
    parts = [("forward_pass", 0.452), ("backward_pass", 0.281), ("data_transfer", 0.083),
             ("optimizer_step", 0.078), ("validation_epoch", 0.062), ("ema_update", 0.021),
             ("visualization_generation", 0.018)]
    for ep in range(1, epochs + 1):
        total = 45.23 * (0.95 + 0.1 * rnd.random())
        print(f"profiling/ram_usage_percent: {60 + 10 * rnd.random():.1f}")
        print(f"profiling/data_gen_percentage: {20 + 20 * rnd.random():.1f}")
        print(f"=== Epoch {ep} Profiling Summary ===")
        print(f"Total time: {total:.2f}s")
        print(f"Avg batch time: {total / 318:.3f}s")
        print(f"Throughput: {318 / total * 3600:.1f} batches/hour")
        print("")
        print("\U0001F4CA Time Breakdown:")
        used = 0.0
        for name, share in parts:
            secs = total * share
            used += secs
            print(f"  {name:<25}: {share * 100:4.1f}% ({secs:5.2f}s)")
        print(f"  {'other/overhead':<24}: {(total - used) / total * 100:4.1f}% ({total - used:5.2f}s)")
        print("=" * 50)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    kind, args = argv[1], [int(a) for a in argv[2:]]
    {"jsonl": jsonl, "rectflow": rectflow, "generic": generic, "mae": mae}[kind](*args)


if __name__ == "__main__":
    main(sys.argv)
