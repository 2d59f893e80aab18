#!/usr/bin/env python3
"""Click → next screen drawn, measured in the browser (docs/web.md): `performance.now()` just before
a button's click() and in the MutationObserver callback that sees the page draw the next screen.
Walks the tutorial round (menu → Welcome → All set → menu) until it has N clicks, after W warm-up
clicks, and prints the median, p90, p99 and the extremes. scripts/bench-web runs it on the release
build; it is a measurement, not a test.

    python3 Tests/Browser/click_latency.py --bin .build/release [--clicks 100] [--warmup 10]"""

import argparse
import os
import statistics

from harness import Stack, chrome, on_screen

ROUND = ["Onboarding tutorial", "Next", "Done"]

MEASURE = """
const [label, done] = arguments;
const stage = document.getElementById("stage");
const before = stage.dataset.screenId;
const button = [...stage.querySelectorAll("button.action")].find((b) => b.textContent === label);
if (!button) { done(-1); return; }
let t0 = 0;
const observer = new MutationObserver(() => {
  if (stage.dataset.screenId && stage.dataset.screenId !== before) {
    const t1 = performance.now();
    observer.disconnect();
    done(t1 - t0);
  }
});
observer.observe(stage, { attributes: true, childList: true, subtree: true });
t0 = performance.now();
button.click();
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--clicks", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()
    stack = Stack(os.path.abspath(args.bin))
    driver = chrome()
    try:
        driver.get(stack.url)
        on_screen(driver, "menu")
        samples = []
        for click in range(args.warmup + args.clicks):
            label = ROUND[click % len(ROUND)]
            milliseconds = driver.execute_async_script(MEASURE, label)
            if milliseconds < 0:
                raise SystemExit(f'no button "{label}" on the screen at click {click}')
            if click >= args.warmup:
                samples.append(milliseconds)
        samples.sort()

        def percentile(p):
            return samples[min(len(samples) - 1, max(0, round(p / 100 * len(samples) + 0.5) - 1))]
        print(f"click → next screen drawn, {len(samples)} clicks (after {args.warmup} warm-up), "
              f"Chromium {driver.capabilities.get('browserVersion', '?')}, {os.path.basename(os.path.abspath(args.bin))} build")
        print(f"  median {statistics.median(samples):.2f} ms   p90 {percentile(90):.2f} ms   p99 {percentile(99):.2f} ms"
              f"   min {samples[0]:.2f} ms   max {samples[-1]:.2f} ms")
    finally:
        driver.quit()
        stack.stop()


if __name__ == "__main__":
    main()
