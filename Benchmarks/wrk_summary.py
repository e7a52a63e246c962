"""Reads wrk's --latency output on stdin; prints "requests/s p50-ms p99-ms non-2xx" on one line."""
import re
import sys

text = sys.stdin.read()


def ms(value, unit):
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]


rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
p50 = re.search(r"50%\s+([\d.]+)(us|ms|s)", text)
p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", text)
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
print(f"{rps:.0f} {ms(*p50.groups()):.2f} {ms(*p99.groups()):.2f} {errors.group(1) if errors else 0}")
