"""`pip install` of the package folder works, and the installed copy alone hosts a screen."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from support import CARDS, PACKAGE, Daemon

# Run from the target folder, with nothing of the checkout on the path but the demo's card messages
# (the app's, not the library's).
HOST_A_TUTORIAL = """
import sys
import flowd_screens
from flowd_screens import ScreenHost
assert flowd_screens.__file__.startswith(sys.argv[2]), flowd_screens.__file__
sys.path.append(sys.argv[3])
from cards_pb2 import CardState
host = ScreenHost.connect(sys.argv[1], provides=["tutorial"])
placed = []
host.register("tutorial", placed.append, state=CardState)
host.ping()
print(placed[0].state.title, "from", host.daemon.app)
"""


class Install(unittest.TestCase):
    def test_pip_installs_into_a_target_and_the_copy_hosts_a_screen(self):
        scratch = tempfile.mkdtemp(prefix="fpy-pip-", dir="/tmp")
        self.addCleanup(shutil.rmtree, scratch, True)
        # A copy of the package folder: pip's build writes build/ and *.egg-info next to the sources.
        source, target = os.path.join(scratch, "flowd-screens"), os.path.join(scratch, "site")
        shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests"))
        pip = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input",
             "--target", target, source],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
        self.assertEqual(pip.returncode, 0, pip.stderr)
        self.assertTrue(os.path.isfile(os.path.join(target, "flowd_screens", "proto", "envelope_pb2.py")))
        self.assertTrue(os.path.isdir(os.path.join(target, "google", "protobuf")), "protobuf comes as a dependency")

        daemon = Daemon("tutorial")
        self.addCleanup(daemon.stop)
        environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        environment["PYTHONPATH"] = target
        run = subprocess.run([sys.executable, "-c", HOST_A_TUTORIAL, daemon.socket_path, target, CARDS], cwd=target,
                             env=environment, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.strip(), "Welcome from tutorial")


if __name__ == "__main__":
    unittest.main()
