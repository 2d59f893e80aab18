"""One screen the daemon placed on a host: its state and placement, callbacks for what the
daemon does to it next, and the ways to answer (outputs, user navigation)."""

import enum
from dataclasses import dataclass

from . import errors, payloads
from .placement import Change, Placement
from .proto import screen_pb2


class DismissReason(enum.Enum):
    """Why a screen goes (`Dismissal.reason`)."""

    UNSPECIFIED = 0
    FLOW_FINISHED = 1
    FLOW_TERMINATED = 2
    USER_NAVIGATION = 3  # already gone from view: do not animate
    SHUTDOWN = 4
    REMOVED = 5
    ACK_TIMEOUT = "ack-timeout"  # local: removed by force after ACK_TIMEOUT; no ack is sent
    RESUMED = "resumed"  # local: the host resumed on a new connection; a Place with the same id may follow
    CONNECTION_LOST = "connection-lost"  # local: the connection dropped and could not be resumed

    @classmethod
    def from_wire(cls, value):
        """The reason a wire `Dismiss.Reason` names."""
        try:
            return cls(value)
        except ValueError:
            return cls.UNSPECIFIED


@dataclass(frozen=True)
class Dismissal:
    """How and why a screen is removed; given to `on_dismiss`."""

    reason: DismissReason
    animated: bool


#: The most bytes `save_state` keeps for one screen (flowd refuses more with LIMIT_EXCEEDED).
MAX_SAVED_STATE_BYTES = 16 * 1024


class Phase(enum.Enum):
    """The phase of user navigation: a button press is IMMEDIATE; a gesture is BEGIN, then CANCEL or COMMIT."""

    IMMEDIATE = 0
    BEGIN = 1
    CANCEL = 2
    COMMIT = 3


class HostedScreen:
    """A screen placed on this host. `state` is the decoded state (the JSON as Python values, a message
    of the kind's `state` class, or what the kind's `decode` made of it); callbacks run before the
    command is acked, so when the daemon sees the ack the host has applied it. Use it on the thread
    that runs the host."""

    def __init__(self, host, place, state, output_type=None):
        self._host = host
        #: The kind's registered protobuf class for outputs, or None (JSON).
        self.output_type = output_type
        self.id = place.screen_id
        self.kind = place.kind
        self.state = state
        self.placement = Placement.from_wire(place.placement)
        self.previous_placement = None
        self.animated = place.animated
        self.flow_id = place.flow_id
        self.flow_type = place.flow_type
        self.last_serial = place.serial
        #: What this host (or the one before it) saved for the screen with `save_state`, handed back by
        #: flowd when it placed the screen again: after a restart, on a new host, after a restore.
        #: b"" for a new screen.
        self.saved_state = host._saved_states.get(place.screen_id, bytes(place.saved_state))
        self.dismissal = None
        self._on_update = None
        self._on_placement_changed = None
        self._on_dismiss = None

    def __repr__(self):
        return f"<HostedScreen {self.id} {self.kind!r} {self.placement}>"

    @property
    def is_dismissed(self):
        """True once the screen was dismissed (or removed by force); outputs and navigation are then dropped."""
        return self.dismissal is not None

    # Callbacks: each replaces the one set before; each returns its function, so it works as a decorator.

    def on_update(self, handler):
        """`handler(state)` on each Update; `self.state` is already the new state."""
        self._on_update = handler
        return handler

    def on_placement_changed(self, handler):
        """`handler(change)` on each PlacementChanged (a `Change`); `placement` and `previous_placement` are set."""
        self._on_placement_changed = handler
        return handler

    def on_dismiss(self, handler):
        """`handler(dismissal)` once when the screen goes (a `Dismissal`)."""
        self._on_dismiss = handler
        return handler

    # Answers.

    def send(self, output):
        """Sends a user event (docs/protocol.md §14): a protobuf message in its binary form with content
        type `application/protobuf; proto=NAME` (e.g. `CardOutput(did_press_button=DidPressButton(index=0))`;
        EncodingError if the kind registered another `output` class), or anything else as JSON (e.g.
        `{"didPressButton": {"index": 0}}`, which flowd also takes for a protobuf kind, in protobuf's
        JSON mapping). Dropped without error once the screen is dismissed."""
        if self.is_dismissed:
            return
        payload = payloads.encode_output(output, self.output_type, self.kind, self.id)
        self._host._send_input("output", screen_pb2.Output(screen_id=self.id, payload=payload))

    def save_state(self, data):
        """Saves `data` (bytes, at most 16384) for this screen: what the user has not sent — a half-typed
        line, a scroll position. flowd keeps the last one with the screen and hands it back as
        `saved_state` when the screen is placed again (docs/protocol.md §19); b"" clears it. The flows
        never see it. Dropped once the screen is dismissed; while the host reconnects, the last one is
        sent once it resumed."""
        if not isinstance(data, (bytes, bytearray)):
            raise errors.UsageError(f"save_state takes bytes, got {type(data).__name__}", screen_id=self.id)
        if len(data) > MAX_SAVED_STATE_BYTES:
            raise errors.UsageError(f"save_state takes at most {MAX_SAVED_STATE_BYTES} bytes, got {len(data)}: keep what "
                                    "the user has not sent, not the screen's contents", screen_id=self.id)
        if self.is_dismissed:
            return
        self._host._save_state(self.id, bytes(data))

    def back(self, phase=Phase.IMMEDIATE):
        """Reports that the user popped this screen off its stack (a back button: IMMEDIATE; a swipe:
        BEGIN, then CANCEL or COMMIT). flowd answers with Dismiss/PlacementChanged, not directly."""
        self._navigate(back=screen_pb2.Back(phase=phase.value))

    def select_tab(self, index):
        """Reports that the user selected tab `index` (from 0) of the tab bar containing this screen."""
        if not isinstance(index, int) or not 0 <= index < 1 << 32:
            raise errors.UsageError(f"tab index {index!r} is out of range; pass 0 or more", screen_id=self.id)
        self._navigate(select_tab=screen_pb2.SelectTab(index=index))

    def close_modal(self, phase=Phase.IMMEDIATE):
        """Reports that the user closed the modal presentation containing this screen."""
        self._navigate(close_modal=screen_pb2.CloseModal(phase=phase.value))

    def ack(self, serial=None):
        """Acks `serial` (default: the last one received). Needed only with `ScreenHost.auto_ack = False`."""
        self._host.ack(self.id, self.last_serial if serial is None else serial)

    def _navigate(self, **action):
        if self.is_dismissed:
            return
        self._host._send_input("user_navigation", screen_pb2.UserNavigation(screen_id=self.id, **action))

    # Applied by the host.

    def _updated(self, serial, state):
        self.last_serial = serial
        self.state = state
        if self._on_update:
            self._on_update(state)

    def _moved(self, serial, change, placement):
        self.last_serial = serial
        self.previous_placement, self.placement = self.placement, Placement.from_wire(placement)
        if self._on_placement_changed:
            try:
                change = Change(change)
            except ValueError:
                change = Change.UNSPECIFIED
            self._on_placement_changed(change)

    def _dismissed(self, dismissal, serial=None):
        if self.is_dismissed:
            return
        if serial is not None:
            self.last_serial = serial
        self.dismissal = dismissal
        if self._on_dismiss:
            self._on_dismiss(dismissal)
