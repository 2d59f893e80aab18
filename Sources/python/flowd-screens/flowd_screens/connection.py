"""Frames on a Unix stream socket (docs/protocol.md §2-4): a uint32 little-endian length, then one
Envelope; connecting to the named socket and the handshake."""

import errno
import os
import select
import socket
import struct
import time

from . import errors
from .proto import control_pb2, envelope_pb2, handshake_pb2

#: The largest frame before the handshake, and the default after it.
DEFAULT_MAX_FRAME_SIZE = 1 << 20
#: The protocol version this library speaks.
PROTOCOL_VERSION = 1


def default_socket_path(environ=None):
    """The daemon's socket path as flowd chooses it (docs/protocol.md §1), without `--socket`."""
    environ = os.environ if environ is None else environ
    if environ.get("FLOWD_SOCKET"):
        return environ["FLOWD_SOCKET"]
    if environ.get("XDG_RUNTIME_DIR"):
        return os.path.join(environ["XDG_RUNTIME_DIR"], "flowd", "flowd.sock")
    return f"/tmp/flowd-{os.getuid()}/flowd.sock"


def hello(name, provides=(), token="", resume_token=""):
    """A screen host's Hello."""
    return handshake_pb2.Hello(min_version=PROTOCOL_VERSION, max_version=PROTOCOL_VERSION,
                               role=handshake_pb2.ROLE_SCREEN_HOST, token=token, name=name,
                               provides=list(provides), pid=os.getpid(), resume_token=resume_token)


def check_server(sock, path):
    """Refuses a server whose uid (SO_PEERCRED) is neither ours nor root, before anything is sent:
    another user who created the socket's directory first would read what we send and answer as
    flowd (docs/protocol.md §1). Raises UntrustedServer naming the socket, that uid and the owner
    of the socket's directory."""
    credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", credentials)
    ours = os.getuid()
    if uid in (ours, 0):
        return
    directory = os.path.dirname(path) or "."
    try:
        owner = os.stat(directory).st_uid
    except OSError:
        owner = None
    owned_by = f"uid {owner}" if owner is not None else "an owner that cannot be read"
    raise errors.UntrustedServer(
        f"refusing the server at {path}: it runs as uid {uid}, not as this user (uid {ours}) or root, and its "
        f"directory {directory} belongs to {owned_by}; another user may be posing as flowd, so nothing was sent. "
        f"Remove {directory} if it is not yours (as its owner or root), or use a socket in a directory of your own "
        "(FLOWD_SOCKET or XDG_RUNTIME_DIR)", uid, owner)


class Connection:
    """One connection: writes envelopes numbered 1, 2, 3, ... and splits what it reads into envelopes."""

    def __init__(self, sock):
        self.sock = sock
        self.seq = 0
        self.max_frame_size = DEFAULT_MAX_FRAME_SIZE
        self._buffer = b""

    @classmethod
    def attach(cls, path):
        """Connects to the daemon's named socket; raises ConnectError."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
        except OSError as error:
            sock.close()
            raise errors.ConnectError(f"cannot connect to flowd at {path}: {error.strerror or error}; "
                                      "is flowd running there (flowd serve --socket PATH)?") from error
        try:
            check_server(sock, path)
        except BaseException:
            sock.close()
            raise
        return cls(sock)

    @classmethod
    def inherited(cls, fd):
        """The already connected socket a spawned screen inherits (FLOWD_SOCKET_FD)."""
        try:
            sock = socket.socket(fileno=fd)
        except OSError as error:
            raise errors.SpawnEnvironmentError(f"FLOWD_SOCKET_FD={fd} is not an open socket: {error}") from error
        if sock.family != socket.AF_UNIX or sock.type != socket.SOCK_STREAM:
            sock.detach()
            raise errors.SpawnEnvironmentError(f"FLOWD_SOCKET_FD={fd} is not a Unix stream socket")
        os.set_inheritable(fd, False)
        return cls(sock)

    def fileno(self):
        return self.sock.fileno()

    def send(self, body, message, reply_to=0):
        """Writes one envelope with `message` as its `body` field; returns its seq.
        Raises ConnectionClosed if the peer is gone, EncodingError if the frame is too large."""
        envelope = envelope_pb2.Envelope(seq=self.seq + 1, reply_to=reply_to)
        getattr(envelope, body).CopyFrom(message)
        data = envelope.SerializeToString()
        if len(data) > self.max_frame_size:
            raise errors.EncodingError(f"cannot send {body}: the frame is {len(data)} bytes, over the negotiated "
                                       f"maximum of {self.max_frame_size}")
        try:
            self.sock.sendall(struct.pack("<I", len(data)) + data)
        except OSError as error:
            raise errors.ConnectionClosed(f"cannot send {body}: {error.strerror or error}", fatal=True) from error
        self.seq += 1
        return self.seq

    def read(self):
        """Reads what is available (call when readable); returns the complete envelopes, or None at the
        end of the stream or a reset. Raises ProtocolViolation for bytes that are not frames."""
        try:
            chunk = self.sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return None
        except OSError as error:
            if error.errno in (errno.EAGAIN, errno.EINTR):
                return []
            raise errors.ConnectionClosed(f"reading from flowd failed: {error.strerror or error}", fatal=True) from error
        if not chunk:
            return None
        self._buffer += chunk
        return self._frames()

    def read_rest(self):
        """The complete envelopes still readable without waiting (after a failed send: what flowd said
        before it closed, such as a fatal Error and its Shutdown); [] if there are none or they are garbled."""
        self.sock.setblocking(False)
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                self._buffer += chunk
        except OSError:
            pass
        finally:
            self.sock.setblocking(True)
        try:
            return self._frames()
        except errors.ProtocolViolation:
            return []

    def _frames(self):
        envelopes = []
        while len(self._buffer) >= 4:
            (length,) = struct.unpack("<I", self._buffer[:4])
            if length == 0 or length > self.max_frame_size:
                raise errors.ProtocolViolation(f"flowd sent a frame of {length} bytes (allowed: 1 to "
                                               f"{self.max_frame_size}); the connection is unusable", fatal=True)
            if len(self._buffer) < 4 + length:
                break
            envelope = envelope_pb2.Envelope()
            try:
                envelope.ParseFromString(self._buffer[4:4 + length])
            except Exception as error:  # protobuf's DecodeError differs between implementations
                raise errors.ProtocolViolation(f"flowd sent a frame that is not an Envelope: {error}", fatal=True) from error
            self._buffer = self._buffer[4 + length:]
            envelopes.append(envelope)
        return envelopes

    def handshake(self, hello_message, timeout=5.0):
        """Sends Hello and waits for Welcome (`timeout` seconds; None: for ever). Returns the Welcome and
        the envelopes that came after it. Raises the daemon's DaemonError if it refuses (e.g.
        ResumeRefused, Unauthorized), HandshakeError if nothing or something else comes."""
        self.send("hello", hello_message)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.sock], [], [], wait)
            if not ready:
                raise errors.HandshakeError(f"flowd sent no Welcome within {timeout} s")
            envelopes = self.read()
            if envelopes is None:
                raise errors.HandshakeError("flowd closed the connection before its Welcome")
            if not envelopes:
                continue
            first, rest = envelopes[0], envelopes[1:]
            body = first.WhichOneof("body")
            if body == "welcome":
                if first.welcome.max_frame_size:
                    self.max_frame_size = first.welcome.max_frame_size
                return first.welcome, rest
            if body == "error":
                raise errors.DaemonError.from_wire(first.error)
            raise errors.HandshakeError(f"flowd answered Hello with {body} instead of Welcome")

    def say_goodbye(self):
        """Sends Shutdown (the host leaves on purpose: no resumption) if the socket still takes it."""
        try:
            self.send("shutdown", control_pb2.Shutdown())
        except errors.FlowdError:
            pass

    def close(self):
        self.sock.close()
