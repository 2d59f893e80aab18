"""Reads `perf script -F tid,time,trace` of sched:sched_switch on one CPU (scripts/relay-tail)
and prints what ran in the median and the slowest 1% of the intervals between two runs of host A."""
import argparse
import collections
import re
import sys

SWITCH = re.compile(r"prev_comm=(.*?) prev_pid=(\d+) .*next_comm=(.*?) next_pid=(\d+)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", type=int, required=True)
    parser.add_argument("--a", type=int, required=True)
    parser.add_argument("--b", type=int, required=True)
    parser.add_argument("--server-threads", default="", help="the server's other threads (comma-separated ids)")
    parser.add_argument("--server-name", default="server")
    parser.add_argument("--skip", type=int, default=1000, help="intervals left out at the start (the warm-up)")
    args = parser.parse_args()
    names = {args.server: args.server_name, args.a: "host A", args.b: "host B", 0: "idle"}
    for thread in filter(None, args.server_threads.split(",")):
        names[int(thread)] = args.server_name + "'s other threads"

    def part(tid, comm):
        if tid in names:
            return names[tid]
        # Everything else (kernel threads, other programs) by name, without its CPU or number.
        return re.sub(r"[/:]\d+.*", "", comm)

    intervals, share, server_runs = [], collections.Counter(), []
    current, since, start, comms = None, None, None, {}
    for line in sys.stdin:
        match = SWITCH.search(line)
        if not match:
            continue
        fields = line.split()
        time = float(fields[1].rstrip(":"))
        prev_comm, prev_pid, next_comm, next_pid = match.group(1), int(match.group(2)), match.group(3), int(match.group(4))
        comms[prev_pid], comms[next_pid] = prev_comm, next_comm
        if current is not None:
            share[part(current, comms.get(current, "?"))] += time - since
            if current == args.server:
                server_runs.append((start, time - since))
        if next_pid == args.a:
            if start is not None:
                intervals.append((time - start, share, start))
            start, share = time, collections.Counter()
        current, since = next_pid, time
    # The warm-up (one or two intervals a round trip: --skip covers two) and the last intervals
    # (the hosts stopping) are left out.
    intervals = intervals[args.skip:-100]
    if len(intervals) < 1000:
        sys.exit("relay-tail: too few round trips in the trace (%d); is perf recording CPU 1?" % len(intervals))
    lengths = sorted(interval[0] for interval in intervals)
    n = len(lengths)
    p50, p99 = lengths[n // 2], lengths[int(n * 0.99)]
    print("%d intervals between two runs of host A (one or two a round trip): p50 %.1f us, p99 %.1f us, p99.9 %.1f us"
          % (n, p50 * 1e6, p99 * 1e6, lengths[int(n * 0.999)] * 1e6))

    def composition(selected):
        total, present = collections.Counter(), collections.Counter()
        for _, parts, _ in selected:
            for key, value in parts.items():
                total[key] += value
                if value > 0:
                    present[key] += 1
        return {key: (total[key] / len(selected) * 1e6, present[key] / len(selected)) for key in total}

    median = [x for x in intervals if abs(x[0] - p50) < 2e-6]
    tail = [x for x in intervals if x[0] >= p99]
    at_median, at_tail = composition(median), composition(tail)
    keys = sorted(set(at_median) | set(at_tail), key=lambda k: -(at_tail.get(k, (0, 0))[0] - at_median.get(k, (0, 0))[0]))
    print("%-24s %14s %14s %10s %18s" % ("ran on the CPU", "median (us)", "slowest 1%", "more", "in slowest 1%"))
    for key in keys[:12]:
        m, t = at_median.get(key, (0, 0)), at_tail.get(key, (0, 0))
        print("%-24s %14.1f %14.1f %10.1f %17.0f%%" % (key, m[0], t[0], t[0] - m[0], t[1] * 100))
    first = intervals[0][2]
    runs = sorted(length for start, length in server_runs if start is not None and start >= first)
    if runs:
        r = len(runs)
        print("%s's single runs: p50 %.1f us, p90 %.1f us, p99 %.1f us (p99/p50 x%.1f)"
              % (args.server_name, runs[r // 2] * 1e6, runs[int(r * 0.9)] * 1e6, runs[int(r * 0.99)] * 1e6, runs[int(r * 0.99)] / runs[r // 2]))


main()
