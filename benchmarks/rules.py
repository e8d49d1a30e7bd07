"""What do the compatibility rules cost on top of schema validation? Per file, in one process.

For each example config and rule case, times (median of several rounds) loading, schema
checking, and the rules, and prints the rules' cost per file and as a fraction of the schema's.
Usage: python benchmarks/rules.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from gpujob import services
from gpujob.catalog import load
from gpujob.checks import schema
from gpujob.checks.engine import CheckOptions
from gpujob.config.load import load_file

ROOT = Path(__file__).resolve().parent.parent


def per_file(func, items, rounds: int) -> float:
    """Median over rounds of the mean seconds per item."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for item in items:
            func(item)
        times.append((time.perf_counter() - start) / len(items))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    paths = sorted((ROOT / "configs").glob("*.yaml")) + sorted(
        (ROOT / "tests" / "cases").glob("*/rule-*.yaml"))
    docs = [load_file(str(p)).document for p in paths]
    docs = [d for d in docs if d is not None] * 20
    service = services.get("ai-platform")
    cat = load("ai-platform")  # once, as a run does
    options = CheckOptions(service, submit=True)
    found = {id(d): {f.path for f in schema.check(d, choices=cat.choices) if f.is_error}
             for d in docs}

    def check_rules(d):
        return service.rules(d, cat, found[id(d)], options)  # the engine's call, as submit's

    load_time = per_file(lambda p: load_file(str(p)), paths * 20, args.rounds)
    check = per_file(lambda d: schema.check(d, choices=cat.choices), docs, args.rounds)
    rule = per_file(check_rules, docs, args.rounds)
    print(f"{len(paths)} configs ({len(docs)} checks a round, median of {args.rounds} rounds):")
    print(f"  load    {load_time * 1e6:7.1f} us/file")
    print(f"  schema  {check * 1e6:7.1f} us/file")
    print(f"  rules   {rule * 1e6:7.1f} us/file = {rule / check:.2f} x the schema's cost, "
          f"{rule / (load_time + check + rule):.0%} of a file's checking")


if __name__ == "__main__":
    main()
