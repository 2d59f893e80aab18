"""docs/screens-python.md stays true: its complete screen host runs against a real flowd, and every
Python snippet there compiles."""

import os
import re
import subprocess
import sys
import unittest

from support import CARDS, ROOT, Daemon

GUIDE = os.path.join(ROOT, "docs", "screens-python.md")


def snippets():
    with open(GUIDE, encoding="utf-8") as file:
        return re.findall(r"```python\n(.*?)```", file.read(), re.S)


class Guide(unittest.TestCase):
    def test_every_snippet_compiles(self):
        self.assertGreaterEqual(len(snippets()), 4)
        for number, code in enumerate(snippets(), 1):
            compile(code, f"{GUIDE} snippet {number}", "exec")

    def test_the_complete_host_pushes_to_three_and_finishes(self):
        complete = [code for code in snippets() if "host.run()" in code and "ScreenHost.connect" in code][0]
        daemon = Daemon("deep-stack")
        self.addCleanup(daemon.stop)
        # The guide's host imports the demo's generated cards_pb2 (scripts/screens in this checkout).
        path = os.pathsep.join(part for part in [os.environ.get("PYTHONPATH"), CARDS] if part)
        environment = dict(os.environ, FLOWD_SOCKET=daemon.socket_path, PYTHONPATH=path)
        run = subprocess.run([sys.executable, "-c", complete], env=environment,
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        lines = run.stdout.splitlines()
        self.assertIn("+ Item 3 at stack[0] > screen[2] (visible, top-most)", lines, run.stdout)
        self.assertIn("COVERED visible: False", lines)
        self.assertEqual(lines[-1], "done: ExitReason.SHUTDOWN ShutdownReason.APP_FINISHED", run.stdout)
        self.assertEqual(daemon.wait(), 0)


if __name__ == "__main__":
    unittest.main()
