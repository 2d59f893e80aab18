"""What can go wrong in a screen host: the daemon's Error frames, one exception class per
wire ErrorCode (docs/protocol.md §13), and local failures (connecting, the handshake, the
socket, refused Places, misuse). Everything derives from FlowdError, so `except FlowdError`
catches all of it; `except flowd_screens.errors.InvalidNavigation` catches one code."""

import enum


class ErrorCode(enum.Enum):
    """The wire ErrorCode (docs/protocol.md §13); unknown values read as UNSPECIFIED."""

    UNSPECIFIED = 0
    MALFORMED_FRAME = 1
    FRAME_TOO_LARGE = 2
    UNSUPPORTED_VERSION = 3
    UNAUTHORIZED = 4
    UNEXPECTED_MESSAGE = 5
    HANDSHAKE_TIMEOUT = 6
    UNKNOWN_SCREEN = 7
    NOT_YOUR_SCREEN = 8
    UNKNOWN_SERIAL = 9
    BAD_PAYLOAD = 10
    ACK_TIMEOUT = 11
    WRITE_QUEUE_OVERFLOW = 12
    UNKNOWN_KIND = 13
    INVALID_NAVIGATION = 14
    UNKNOWN_FLOW = 15
    LIMIT_EXCEEDED = 16
    SHUTTING_DOWN = 17
    INTERNAL = 18
    RESUME_REFUSED = 19
    BAD_LINK = 20
    UNKNOWN_LINK = 21
    LINK_REFUSED = 22
    FRAME_TIMEOUT = 23

    @classmethod
    def of(cls, value):
        """The code for a wire value; a value this version does not know is UNSPECIFIED."""
        try:
            return cls(value)
        except ValueError:
            return cls.UNSPECIFIED


class FlowdError(Exception):
    """Base of every error of this library. `fatal`: the connection cannot go on;
    `screen_id`, `serial`: the screen and command concerned, or None."""

    def __init__(self, message, fatal=False, screen_id=None, serial=None):
        super().__init__(message)
        self.message = message
        self.fatal = fatal
        self.screen_id = screen_id
        self.serial = serial

    def _subject(self):
        parts = []
        if self.screen_id is not None:
            parts.append(f"screen {self.screen_id}")
        if self.serial is not None:
            parts.append(f"serial {self.serial}")
        return f" ({', '.join(parts)})" if parts else ""

    def __str__(self):
        return f"{self.message}{self._subject()}"


# --- Local failures ------------------------------------------------------------------------

class SpawnEnvironmentError(FlowdError):
    """FLOWD_SOCKET_FD / FLOWD_TOKEN are missing or malformed (`ScreenHost.from_environment`)."""


class ConnectError(FlowdError):
    """Connecting to the socket path failed (nothing listens, no permission, ...)."""


class UntrustedServer(ConnectError):
    """The socket is served by a process of another user (neither ours nor root): refused before
    anything was sent, and not dialled again (docs/protocol.md §1). `uid`: the server's;
    `directory_owner`: the uid owning the socket's directory, or None if it cannot be read."""

    def __init__(self, message, uid, directory_owner):
        super().__init__(message, fatal=True)
        self.uid = uid
        self.directory_owner = directory_owner


class HandshakeError(FlowdError):
    """No Welcome in time, or something other than Welcome or Error came first."""


class ConnectionClosed(FlowdError):
    """The connection broke, or the session is over: nothing can be sent."""


class Reconnecting(FlowdError):
    """The connection dropped and the host is reconnecting: nothing was sent. Not fatal; the
    screens are placed again once it has resumed."""


class PingTimeout(FlowdError):
    """flowd did not answer a Ping in time (`ScreenHost.ping`)."""


class ProtocolViolation(FlowdError):
    """flowd broke the protocol: a bad frame, a command for a screen it never placed here."""


class KindNotRegistered(FlowdError):
    """A Place named a kind no handler is registered for; refused with UNKNOWN_KIND."""


class StateNotDecoded(FlowdError):
    """A state payload does not decode (not JSON, not the kind's protobuf message, another content type),
    or the kind's decoder refused it; refused with BAD_PAYLOAD."""


class EncodingError(FlowdError):
    """An output could not be encoded (as JSON, or as the kind's protobuf message), or its frame is over
    the negotiated size."""


class UsageError(FlowdError):
    """The API was used in a way it does not support (e.g. a negative tab index)."""


# --- The daemon's Error frames ---------------------------------------------------------------

class DaemonError(FlowdError):
    """An Error frame from flowd. `code` is its ErrorCode; the subclass names it (InvalidNavigation,
    BadPayload, ...). Non-fatal ones go to `ScreenHost.on_error`; fatal ones end `run()` by being raised."""

    code = ErrorCode.UNSPECIFIED

    def __str__(self):
        fatal = "fatal " if self.fatal else ""
        return f"flowd {fatal}error {self.code.name}{self._subject()}: {self.message}"

    @staticmethod
    def from_wire(error):
        """The exception for a wire `Error` message: the subclass of its code."""
        code = ErrorCode.of(error.code)
        cls = _BY_CODE.get(code, DaemonError)
        raised = cls(error.message, fatal=error.fatal,
                     screen_id=error.screen_id or None, serial=error.serial or None)
        raised.code = code
        return raised


def _daemon_error(code, doc):
    return type("".join(part.capitalize() for part in code.name.split("_")), (DaemonError,),
                {"code": code, "__doc__": doc, "__module__": __name__})


MalformedFrame = _daemon_error(ErrorCode.MALFORMED_FRAME, "Frame bytes are not an Envelope, N = 0, or no body (fatal).")
FrameTooLarge = _daemon_error(ErrorCode.FRAME_TOO_LARGE, "A length prefix over the maximum frame size (fatal).")
UnsupportedVersion = _daemon_error(ErrorCode.UNSUPPORTED_VERSION, "No common protocol version (fatal).")
Unauthorized = _daemon_error(ErrorCode.UNAUTHORIZED, "Wrong uid, a bad or reused token, a forbidden role (fatal).")
UnexpectedMessage = _daemon_error(ErrorCode.UNEXPECTED_MESSAGE, "A message not allowed now or for this role (fatal).")
HandshakeTimeout = _daemon_error(ErrorCode.HANDSHAKE_TIMEOUT, "No complete Hello within the handshake timeout (fatal).")
UnknownScreen = _daemon_error(ErrorCode.UNKNOWN_SCREEN, "screen_id names no live screen.")
NotYourScreen = _daemon_error(ErrorCode.NOT_YOUR_SCREEN, "The screen is hosted by another connection.")
UnknownSerial = _daemon_error(ErrorCode.UNKNOWN_SERIAL, "An Ack for a serial never sent for that screen.")
BadPayload = _daemon_error(ErrorCode.BAD_PAYLOAD, "An output that does not decode as the screen's Output type; dropped.")
AckTimeout = _daemon_error(ErrorCode.ACK_TIMEOUT, "A command was not acked in time; the screen was removed by force.")
WriteQueueOverflow = _daemon_error(ErrorCode.WRITE_QUEUE_OVERFLOW, "This host stopped reading (fatal).")
UnknownKind = _daemon_error(ErrorCode.UNKNOWN_KIND, "Hello.provides names kinds the app does not know.")
InvalidNavigation = _daemon_error(ErrorCode.INVALID_NAVIGATION, "User navigation that does not apply; nothing changed.")
UnknownFlow = _daemon_error(ErrorCode.UNKNOWN_FLOW, "flow_id names no live flow.")
LimitExceeded = _daemon_error(ErrorCode.LIMIT_EXCEEDED, "Screens per host, connections, ...")
ShuttingDown = _daemon_error(ErrorCode.SHUTTING_DOWN, "The daemon is shutting down and refuses new work.")
Internal = _daemon_error(ErrorCode.INTERNAL, "A bug in the daemon; the message says what failed.")
ResumeRefused = _daemon_error(ErrorCode.RESUME_REFUSED, "The resume token is unknown, used, expired or from another run.")
BadLink = _daemon_error(ErrorCode.BAD_LINK, "OpenLink.link is malformed.")
UnknownLink = _daemon_error(ErrorCode.UNKNOWN_LINK, "No flow understood a segment of the link.")
LinkRefused = _daemon_error(ErrorCode.LINK_REFUSED, "A flow declined the link.")
FrameTimeout = _daemon_error(ErrorCode.FRAME_TIMEOUT, "A frame was begun and the rest did not come within the frame timeout (fatal).")

_BY_CODE = {cls.code: cls for cls in [
    MalformedFrame, FrameTooLarge, UnsupportedVersion, Unauthorized, UnexpectedMessage, HandshakeTimeout,
    UnknownScreen, NotYourScreen, UnknownSerial, BadPayload, AckTimeout, WriteQueueOverflow, UnknownKind,
    InvalidNavigation, UnknownFlow, LimitExceeded, ShuttingDown, Internal, ResumeRefused, BadLink,
    UnknownLink, LinkRefused, FrameTimeout,
]}
