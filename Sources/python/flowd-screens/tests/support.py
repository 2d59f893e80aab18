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


class Impostor:
    """A socket served by another user: a listener forked and run as nobody (uid 65534; the tests must
    be root) in a directory nobody owns, as when another user created `/tmp/flowd-<uid>/` first. It
    accepts one connection and reports how many bytes the client sent before closing it: a client that
    checks who serves the socket sends none (docs/protocol.md §1). `stop()` kills it and removes it."""

    UID = 65534
    POSSIBLE = os.getuid() == 0

    def __init__(self):
        self.base = tempfile.mkdtemp(prefix="fpy-", dir="/tmp")
        os.chmod(self.base, 0o755)
        self.directory = os.path.join(self.base, "imp")
        os.mkdir(self.directory, 0o700)
        os.chown(self.directory, self.UID, self.UID)
        self.socket_path = os.path.join(self.directory, "flowd.sock")
        ready, ready_write = os.pipe()
        self._report, report_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # only system calls here, then _exit: the parent may have threads
            try:
                os.setgroups([])
                os.setgid(self.UID)
                os.setuid(self.UID)
                server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                server.bind(self.socket_path)
                server.listen(8)
                os.write(ready_write, b"listening")
                client, _ = server.accept()
                count = 0
                while data := client.recv(65536):
                    count += len(data)
                os.write(report_write, f"{count}\n".encode())
            finally:
                os._exit(0)
        os.close(ready_write)
        os.close(report_write)
        started = os.read(ready, 16)
        os.close(ready)
        if started != b"listening":
            self.stop()
            raise RuntimeError("the impostor did not start listening")

    def received(self):
        """Waits until the client closed its connection; the bytes it sent."""
        text = b""
        while not text.endswith(b"\n"):
            chunk = os.read(self._report, 64)
            if not chunk:
                raise RuntimeError("the impostor ended without a report")
            text += chunk
        return int(text)

    def refusal(self):
        """What every refusal says: the socket, the impostor's uid, and the directory's owner."""
        return [f"refusing the server at {self.socket_path}: it runs as uid {self.UID}, not as this user (uid 0) or root",
                f"its directory {self.directory} belongs to uid {self.UID}", "nothing was sent"]

    def stop(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ChildProcessError, ProcessLookupError):
            pass
        os.close(self._report)
        shutil.rmtree(self.base, ignore_errors=True)
