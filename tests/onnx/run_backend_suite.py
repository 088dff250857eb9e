#!/usr/bin/env python3
"""Runs ONNX's backend test suite (onnx.backend.test) against atoll.backend
and prints the counts: passed, failed, skipped by reason.

usage: run_backend_suite.py [--pattern REGEX] [--every N] [--no-models] [--max-cases N]
                            [--json FILE] [--log FILE] [--fail-on-failure]
(with PYTHONPATH naming build/python). Exit status 1 when a case fails and
--fail-on-failure is given.
"""
import argparse
import collections
import json
import os
import re
import sys
import time
import unittest

import onnx.backend.test

import atoll.backend


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pattern", default=None, help="only test names matching this regex")
    ap.add_argument("--max-cases", type=int, default=0)
    ap.add_argument("--every", type=int, default=1, help="every Nth case in name order (a bounded sample)")
    ap.add_argument("--no-models", action="store_true", help="leave out the model zoo's networks")
    ap.add_argument("--json", default=None)
    ap.add_argument("--fail-on-failure", action="store_true")
    ap.add_argument("--log", default=None, help="a line per case: name, seconds, outcome")
    ap.add_argument("--require-passes", type=int, default=0,
                    help="fail unless at least this many cases pass (a skip is not a pass)")
    ap.add_argument("--known-failures", default=None,
                    help="a file of cases that fail for a documented reason: any other failure, or a listed "
                         "case that ran and passed, fails the run")
    args = ap.parse_args()
    bt = onnx.backend.test.BackendTest(atoll.backend, __name__)
    cases = bt.test_cases
    suite = unittest.TestSuite()
    pattern = re.compile(args.pattern) if args.pattern else None
    count = 0
    models = {"test_" + m + "_cpu" for m in ("bvlc_alexnet", "densenet121", "inception_v1", "inception_v2",
                                            "resnet50", "shufflenet", "squeezenet", "vgg19", "zfnet512")}
    index = 0
    for cls in cases.values():
        for name in sorted(unittest.TestLoader().getTestCaseNames(cls)):
            if not name.endswith("_cpu") or (pattern and not pattern.search(name)):
                continue
            if args.no_models and name in models:
                continue
            index += 1
            if (index - 1) % args.every != 0:
                continue
            suite.addTest(cls(name))
            count += 1
            if args.max_cases and count >= args.max_cases:
                break
    t0 = time.time()
    log = open(args.log, "w", buffering=1) if args.log else None

    class LoggingResult(unittest.TextTestResult):
        def startTest(self, test):
            self._started = time.time()
            if log:
                log.write(f"{test.id().split('.')[-1]} ... ")
            super().startTest(test)

        def stopTest(self, test):
            super().stopTest(test)
            if log:
                log.write(f"{time.time() - self._started:.2f} s\n")

    runner = unittest.TextTestRunner(stream=open(os.devnull, "w"), verbosity=0, resultclass=LoggingResult)
    result = runner.run(suite)
    reasons = collections.Counter()
    for _, why in result.skipped:
        reasons[re.sub(r"'[^']*'", "'…'", why.split("\n")[0])[:120]] += 1
    failed = [(str(t).split()[0], tb.strip().splitlines()[-1][:200]) for t, tb in result.failures + result.errors]
    passed = result.testsRun - len(result.skipped) - len(failed)
    summary = {"cases": result.testsRun, "passed": passed, "failed": len(failed), "skipped": len(result.skipped),
               "seconds": round(time.time() - t0, 1), "skip_reasons": dict(reasons.most_common()),
               "failures": dict(failed)}
    print(f"{result.testsRun} cases: {passed} passed, {len(failed)} failed, {len(result.skipped)} skipped "
          f"({summary['seconds']} s)")
    for why, n in reasons.most_common(25):
        print(f"  skipped {n:4d}: {why}")
    for name, why in failed[:40]:
        print(f"  FAILED {name}: {why}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    if passed < args.require_passes:
        print(f"  only {passed} cases passed, {args.require_passes} required")
        return 1
    if args.known_failures:
        known = {}
        for line in open(args.known_failures):
            if line.strip() and not line.startswith("#"):
                name, _, why = line.strip().partition(" ")
                known[name] = why.strip()
        failed_names = {name for name, _ in failed}
        ran = {str(t).split()[0] for t in suite}
        unexpected = sorted(failed_names - set(known))
        fixed = sorted(n for n in known if n in ran and n not in failed_names and
                       n not in {str(t).split()[0] for t, _ in result.skipped})
        for n in sorted(failed_names & set(known)):
            print(f"  known failure {n}: {known[n]}")
        for n in fixed:
            print(f"  FIXED {n}: it passes now; remove it from {args.known_failures}")
        if unexpected or fixed:
            return 1
        return 0
    return 1 if (failed and args.fail_on_failure) else 0


if __name__ == "__main__":
    sys.exit(main())
