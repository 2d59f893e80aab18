"""A real flowd for the tests, and a proxy that can cut a connection or lose a frame on purpose."""

import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

from flowd_screens.proto import envelope_pb2

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.normpath(os.path.join(PACKAGE, "..", "..", ".."))
#: Where the demo's generated card messages are (cards_pb2, from proto/flowd/demo/v1/cards.proto): every
#: kind of the demo apps carries its state and outputs as flowd.demo.v1.CardState and CardOutput.
CARDS = os.path.join(ROOT, "scripts", "screens")
if CARDS not in sys.path:
    sys.path.append(CARDS)

import cards_pb2  # noqa: E402

LAUNCHER = os.path.join(ROOT, "scripts", "lib")
if LAUNCHER not in sys.path:
    sys.path.append(LAUNCHER)

from flowd_process import FlowdProcess  # noqa: E402


def flowd_binary():
    """$FLOWD_BINARY, else the debug build of this checkout (scripts/test builds it first)."""
    path = os.environ.get("FLOWD_BINARY") or os.path.join(ROOT, ".build", "debug", "flowd")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"no flowd at {path}: run `swift build` first, or set FLOWD_BINARY")
    return path


class Daemon(FlowdProcess):
    """`flowd serve --app APP --no-state` on a socket in a short temporary directory, started as every
    Python and browser test starts flowd (scripts/lib/flowd_process.py); killed and its directory
    removed by `stop()` (use it as a context manager or with addCleanup)."""

    @staticmethod
    def scratch_directory():
        """A new short directory under /tmp (socket paths must stay under 107 bytes)."""
        return tempfile.mkdtemp(prefix="fpy-", dir="/tmp")

    @staticmethod
    def remove(directory):
        shutil.rmtree(directory, ignore_errors=True)

    def __init__(self, app, *arguments, directory=None):
        directory = directory or self.scratch_directory()
        # The launcher spawns Python screens; these tests host every kind themselves.
        super().__init__(flowd_binary(), ["serve", "--app", app, *arguments], directory,
                         environment={"FLOWD_PYTHON_SCREENS": "0"})

    def stop(self, remove=True):
        self.close()
        if remove:
            self.remove(self.directory)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()


def frames(buffer):
    """Splits bytes into (complete frames, the rest); a frame is (its bytes, its Envelope)."""
    found = []
    while len(buffer) >= 4:
        (length,) = struct.unpack("<I", buffer[:4])
        if len(buffer) < 4 + length:
            break
        envelope = envelope_pb2.Envelope()
        envelope.ParseFromString(buffer[4:4 + length])
        found.append((buffer[:4 + length], envelope))
        buffer = buffer[4 + length:]
    return found, buffer


class CuttingProxy:
    """Listens on `path` and relays each connection to flowd's socket, frame by frame. `cut()` drops the
    current connection (both sides see the end of the stream); `lose_next(direction, predicate)` drops
    the next frame of that direction ("up": host to flowd, "down": flowd to host) whose envelope
    matches, and cuts the connection right there, as a crash of the link would."""

    def __init__(self, daemon_path, path):
        self.daemon_path = daemon_path
        self.path = path
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(8)
        self.lock = threading.Lock()
        self.pairs = []
        self.losses = {"up": None, "down": None}
        self.lost = []
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def lose_next(self, direction, predicate):
        with self.lock:
            self.losses[direction] = predicate

    def cut(self):
        with self.lock:
            pairs, self.pairs = self.pairs, []
        for pair in pairs:
            self._drop(pair)

    @staticmethod
    def _drop(pair):
        for end in pair:
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()

    def close(self):
        self.cut()
        self.listener.close()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(self.daemon_path)
            with self.lock:
                self.pairs.append((client, upstream))
                self.connections += 1
            threading.Thread(target=self._relay, args=(client, upstream, "up", (client, upstream)), daemon=True).start()
            threading.Thread(target=self._relay, args=(upstream, client, "down", (client, upstream)), daemon=True).start()

    def _relay(self, source, target, direction, pair):
        buffer = b""
        while True:
            try:
                chunk = source.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            complete, buffer = frames(buffer + chunk)
            for data, envelope in complete:
                with self.lock:
                    predicate = self.losses[direction]
                    lose = predicate is not None and predicate(envelope)
                    if lose:
                        self.losses[direction] = None
                        self.lost.append(envelope)
                if lose:
                    self.cut()
                    return
                try:
                    target.sendall(data)
                except OSError:
                    break
        with self.lock:
            if pair in self.pairs:
                self.pairs.remove(pair)
        self._drop(pair)
