"""The one way the Python tests and the browser tests start flowd (Swift's is FlowdTestSupport's
DaemonProcess, with the same rule): on a socket in a short directory, without a journal, ready once
it logs "listening on" (not when its socket file appears, which comes a moment before, or is a
stale one). Its log is kept in memory, and in a file when asked."""

import os
import signal
import subprocess
import threading
import time

READY = "listening on"


class FlowdProcess:
    """`flowd ARGUMENTS --socket DIRECTORY/flowd.sock --no-state`, started and waited for."""

    def __init__(self, binary, arguments, directory, log_path=None, environment=None, ready_timeout=30):
        self.directory = directory
        self.socket_path = os.path.join(directory, "flowd.sock")
        self.process = subprocess.Popen(
            [binary, *arguments, "--socket", self.socket_path, "--no-state"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=dict(os.environ, **(environment or {})))
        self._log = []
        self._log_file = open(log_path, "w") if log_path else None
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read_log, daemon=True)
        self._reader.start()
        if not self.wait_for_log(READY, ready_timeout):
            self.kill()
            raise RuntimeError(f"flowd did not start (exit {self.process.poll()}):\n{self.log}")

    def _read_log(self):
        for line in self.process.stderr:
            text = line.decode(errors="replace")
            with self._changed:
                self._log.append(text)
                if self._log_file:
                    self._log_file.write(text)
                    self._log_file.flush()
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    @property
    def log(self):
        with self._changed:
            return "".join(self._log)

    def wait_for_log(self, text, timeout=10):
        """True once flowd's log has `text`; False after `timeout` seconds or once flowd exited without it."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while text not in "".join(self._log):
                left = deadline - time.monotonic()
                if left <= 0 or (self.process.poll() is not None and not self._reader.is_alive()):
                    return text in "".join(self._log)
                self._changed.wait(min(left, 0.2))
        return True

    def poll(self):
        return self.process.poll()

    def wait(self, timeout=20):
        """flowd's exit status, waiting at most `timeout` seconds; its whole log is read by then."""
        status = self.process.wait(timeout)
        self._reader.join(5)
        return status

    def terminate(self, timeout=10):
        """SIGTERM (flowd's graceful stop), then SIGKILL after `timeout` seconds."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()

    def kill(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def close(self):
        """Kills flowd if it runs and releases its log."""
        self.kill()
        self._reader.join(5)
        self.process.stderr.close()
        if self._log_file:
            self._log_file.close()
