"""ScreenHost against a real flowd: the handshake, placed/updated/dismissed, outputs, user navigation,
the Ping barrier, typed errors, and reconnecting and resuming after a drop. The demo apps' kinds carry
their states and outputs as protobuf (flowd.demo.v1.CardState, CardOutput): the tests register them so."""

import os
import unittest
from dataclasses import dataclass

from flowd_screens import (Change, DaemonError, DismissReason, ErrorCode, ExitReason, FlowdError, NodeKind, Phase,
                           ScreenHost, ShutdownReason, errors)
from flowd_screens.connection import hello
from flowd_screens.reconnect import Dropped, Reconnected, Resent, ResumeRefused

from support import CARDS, CuttingProxy, Daemon, Impostor, cards_pb2


def press(index):
    """The CardOutput of pressing button `index`."""
    return cards_pb2.CardOutput(did_press_button=cards_pb2.DidPressButton(index=index))


PRESS_0 = press(0)
PRESS_1 = press(1)
CARD_CLASSES = {"state": cards_pb2.CardState, "output": cards_pb2.CardOutput}


class Recorder:
    """Hosts `kinds` on a host and writes down what happens to its screens, one line each."""

    def __init__(self, host, kinds):
        self.host = host
        self.lines = []
        self.placed = []
        self.errors = []
        self.reconnects = []
        host.on_error = self.errors.append
        host.on_reconnect = self.reconnects.append
        for kind in kinds:
            host.register(kind, self.place, **CARD_CLASSES)

    def place(self, screen):
        self.placed.append(screen)
        self.lines.append(f"+ {screen.kind} {screen.state.title}")
        screen.on_update(lambda state: self.lines.append(f"~ {screen.kind} {state.title}"))
        screen.on_placement_changed(lambda change: self.lines.append(f"> {screen.state.title} {change.name}"))
        screen.on_dismiss(lambda dismissal: self.lines.append(f"- {screen.state.title} {dismissal.reason.name}"))

    def screen(self, title):
        """The live screen showing `title`."""
        found = [screen for screen in self.host.screens.values() if screen.state.title == title]
        assert len(found) == 1, f"{len(found)} live screens titled {title!r}: {self.lines}"
        return found[0]


class HostTestCase(unittest.TestCase):
    def start(self, app, *arguments):
        daemon = Daemon(app, *arguments)
        self.addCleanup(daemon.stop)
        return daemon

    def connect(self, path, kinds, **options):
        host = ScreenHost.connect(path, name="flowd_screens tests", provides=kinds, **options)
        self.addCleanup(host.close)
        return host, Recorder(host, kinds)


class HandshakeAndScreens(HostTestCase):
    def test_handshake_says_who_flowd_is_and_reports_unknown_kinds(self):
        daemon = self.start("tutorial")
        host, record = self.connect(daemon.socket_path, ["tutorial", "no-such-kind"])
        self.assertEqual(host.daemon.app, "tutorial")
        self.assertTrue(host.daemon.server.startswith("flowd "), host.daemon)
        self.assertGreater(host.daemon.connection_id, 0)
        self.assertEqual(host.daemon.resume_grace, 5.0)
        self.assertFalse(host.daemon.resumed)
        host.ping()
        self.assertEqual(record.lines, ["+ tutorial Welcome"])
        unknown = [error for error in record.errors if isinstance(error, errors.UnknownKind)]
        self.assertEqual(len(unknown), 1, record.errors)
        self.assertIn("no-such-kind", unknown[0].message)
        self.assertFalse(unknown[0].fatal)

    def test_placed_updated_and_dismissed(self):
        daemon = self.start("mirror")
        host, record = self.connect(daemon.socket_path, ["item", "tutorial"])
        host.ping()
        item, mirror = record.placed
        self.assertEqual((item.kind, mirror.kind), ("item", "tutorial"))
        self.assertEqual([step.kind for step in item.placement.path], [NodeKind.WINDOW, NodeKind.TAB_BAR, NodeKind.SCREEN])
        self.assertEqual(item.placement.path[1].tab_count, 2)
        self.assertEqual((item.placement.visible, mirror.placement.visible), (True, False))

        item.send(PRESS_0)  # Count: both screens get a new state
        host.ping()
        self.assertEqual(record.lines[-2:], ["~ item Count 1", "~ tutorial Count 1"])
        self.assertEqual(item.state.title, "Count 1")

        item.send(PRESS_1)  # Finish: the app unwinds and ends
        self.assertEqual(host.run(), ExitReason.SHUTDOWN)
        self.assertEqual(host.shutdown_reason, ShutdownReason.APP_FINISHED)
        self.assertEqual(sorted(record.lines[-2:]), ["- Count 1 FLOW_FINISHED", "- Count 1 FLOW_FINISHED"])
        self.assertEqual(host.screens, {})
        self.assertEqual(daemon.wait(), 0)

    def test_an_output_round_trip_is_complete_when_ping_returns(self):
        daemon = self.start("deep-stack")
        host, record = self.connect(daemon.socket_path, ["item"])
        host.ping()
        first = record.screen("Item 1")
        self.assertEqual((first.placement.stack_index, first.placement.can_go_back, first.animated), (0, False, False))

        first.send(PRESS_0)  # Push
        host.ping()  # the barrier: the Place and PlacementChanged the output caused are handled by now
        second = record.screen("Item 2")
        self.assertEqual((second.placement.stack_index, second.placement.can_go_back, second.animated), (1, True, True))
        self.assertEqual(record.lines, ["+ item Item 1", "+ item Item 2", "> Item 1 COVERED"])
        self.assertFalse(first.placement.visible)
        self.assertTrue(first.previous_placement.visible)
        self.assertEqual(record.errors, [])


@dataclass
class Card:
    """The demo's CardState, typed."""

    title: str
    body: str
    buttons: list
    field: str = None
    text: str = None

    @classmethod
    def of(cls, message):
        return cls(message.title, message.body, list(message.buttons),
                   message.field if message.HasField("field") else None,
                   message.text if message.HasField("text") else None)


class Decoding(HostTestCase):
    def host(self, app="deep-stack"):
        daemon = self.start(app)
        host = ScreenHost.connect(daemon.socket_path, provides=["item"])
        self.addCleanup(host.close)
        refused = []
        host.on_error = refused.append
        return daemon, host, refused

    def test_the_state_is_the_kinds_message(self):
        _, host, refused = self.host()
        placed = []
        host.register("item", placed.append, state=cards_pb2.CardState)
        host.ping()
        self.assertIsInstance(placed[0].state, cards_pb2.CardState)
        self.assertEqual(placed[0].state, cards_pb2.CardState(title="Item 1", buttons=["Push", "Push 999", "Finish"]))
        self.assertFalse(placed[0].state.HasField("field"))
        self.assertEqual(refused, [])

    def test_a_decoder_types_the_state(self):
        _, host, _ = self.host()
        placed = []
        host.register("item", placed.append, decode=Card.of, state=cards_pb2.CardState)
        host.ping()
        self.assertEqual(placed[0].state, Card("Item 1", "", ["Push", "Push 999", "Finish"]))

    def test_a_state_the_decoder_refuses_is_refused_to_flowd(self):
        daemon, host, refused = self.host()
        host.register("item", self.fail, decode=lambda message: Card(**{"extra": message}), state=cards_pb2.CardState)
        host.ping()
        self.assertEqual(host.screens, {})
        self.assertIsInstance(refused[0], errors.StateNotDecoded)
        self.assertIn("kind 'item'", refused[0].message)
        self.assertTrue(daemon.wait_for_log("code=badPayload"), daemon.log)  # flowd got the refusal

    def test_a_state_of_another_message_is_refused_to_flowd_naming_both(self):
        daemon, host, refused = self.host()
        host.register("item", self.fail, state=cards_pb2.CardOutput)
        host.ping()
        self.assertEqual(host.screens, {})
        self.assertIsInstance(refused[0], errors.StateNotDecoded)
        self.assertIn("flowd.demo.v1.CardState", refused[0].message)
        self.assertIn("flowd.demo.v1.CardOutput", refused[0].message)
        self.assertTrue(daemon.wait_for_log("code=badPayload"), daemon.log)

    def test_a_kind_registered_for_json_refuses_a_protobuf_state(self):
        daemon, host, refused = self.host()
        host.register("item", self.fail)
        host.ping()
        self.assertIsInstance(refused[0], errors.StateNotDecoded)
        self.assertIn("registered for JSON states", refused[0].message)
        self.assertTrue(daemon.wait_for_log("code=badPayload"), daemon.log)


class Outputs(HostTestCase):
    def test_json_outputs_are_taken_for_a_protobuf_kind(self):
        daemon = self.start("deep-stack")
        host, record = self.connect(daemon.socket_path, ["item"])
        host.ping()
        record.screen("Item 1").send({"didPressButton": {"index": 0}})  # protobuf's JSON mapping of a CardOutput
        host.ping()
        record.screen("Item 2")
        self.assertEqual(record.errors, [])

    def test_an_output_of_another_content_type_is_refused_naming_both(self):
        daemon = self.start("deep-stack")
        host = ScreenHost.connect(daemon.socket_path, provides=["item"])
        self.addCleanup(host.close)
        refused, placed = [], []
        host.on_error = refused.append
        host.register("item", placed.append, state=cards_pb2.CardState)  # no output class: the host sends it
        host.ping()
        placed[0].send(cards_pb2.DidPressButton(index=0))
        host.ping()
        bad_payload, = refused
        self.assertIsInstance(bad_payload, errors.BadPayload)
        self.assertEqual((bad_payload.screen_id, bad_payload.fatal), (placed[0].id, False))
        self.assertIn("application/protobuf; proto=flowd.demo.v1.DidPressButton", bad_payload.message)
        self.assertIn("application/protobuf; proto=flowd.demo.v1.CardOutput", bad_payload.message)
        self.assertEqual(len(host.screens), 1)  # nothing was pushed


class Navigation(HostTestCase):
    def test_back_with_a_cancelled_and_a_committed_gesture(self):
        daemon = self.start("deep-stack")
        host, record = self.connect(daemon.socket_path, ["item"])
        host.ping()
        record.screen("Item 1").send(PRESS_0)
        host.ping()
        second = record.screen("Item 2")

        second.back(Phase.BEGIN)
        second.back(Phase.CANCEL)  # a swipe given up changes nothing
        host.ping()
        self.assertFalse(second.is_dismissed)

        second.back(Phase.BEGIN)
        second.back(Phase.COMMIT)
        host.ping()
        self.assertEqual(second.dismissal.reason, DismissReason.USER_NAVIGATION)
        self.assertEqual(record.lines[-2:], ["- Item 2 USER_NAVIGATION", "> Item 1 UNCOVERED"])
        self.assertTrue(record.screen("Item 1").placement.visible)
        self.assertEqual(record.errors, [])

    def test_close_modal(self):
        daemon = self.start("modal")
        host, record = self.connect(daemon.socket_path, ["item"])
        host.ping()
        record.screen("Home").send(PRESS_0)  # Present
        host.ping()
        detail = record.screen("Detail 1")
        self.assertTrue(detail.placement.in_modal)
        detail.close_modal()
        host.ping()
        self.assertEqual(detail.dismissal.reason, DismissReason.USER_NAVIGATION)
        self.assertTrue(record.screen("Home").placement.visible)

    def test_select_tab(self):
        daemon = self.start("mirror")
        host, record = self.connect(daemon.socket_path, ["item", "tutorial"])
        host.ping()
        item, mirror = record.placed
        changes = []
        mirror.on_placement_changed(changes.append)
        item.select_tab(1)
        host.ping()
        self.assertEqual((item.placement.visible, mirror.placement.visible), (False, True))
        # A tab switch is TAB_SELECTED, never UNCOVERED (docs/protocol.md §9).
        self.assertEqual(changes, [Change.TAB_SELECTED])


class Errors(HostTestCase):
    def test_bad_inputs_are_typed_errors_and_the_host_carries_on(self):
        daemon = self.start("deep-stack")
        host, record = self.connect(daemon.socket_path, ["item"])
        host.ping()
        first = record.screen("Item 1")

        first.send({"nonsense": {}})
        first.back()  # the root of its stack
        host.ack(first.id, 99)
        host.ping()
        bad_payload, invalid_navigation, unknown_serial = record.errors
        self.assertIsInstance(bad_payload, errors.BadPayload)
        self.assertIsInstance(bad_payload, DaemonError)
        self.assertEqual((bad_payload.code, bad_payload.screen_id, bad_payload.fatal), (ErrorCode.BAD_PAYLOAD, first.id, False))
        self.assertIsInstance(invalid_navigation, errors.InvalidNavigation)
        self.assertIsInstance(unknown_serial, errors.UnknownSerial)
        self.assertEqual(unknown_serial.serial, 99)

        first.send(PRESS_0)
        host.ping()
        record.screen("Item 2")

    def test_an_unacked_command_times_out_and_the_screen_goes(self):
        daemon = self.start("modal", "--ack-timeout", "0.5")
        host, record = self.connect(daemon.socket_path, ["item"])
        host.auto_ack = False
        host.ping()
        home = record.screen("Home")
        home.ack()  # by hand: Home stays
        home.send(PRESS_0)  # Present: Detail 1 is never acked
        host.ping()
        home.ack()  # its PlacementChanged (covered)
        detail = record.screen("Detail 1")
        while not detail.is_dismissed and host.poll_once(5) is None:
            pass
        self.assertEqual(detail.dismissal.reason, DismissReason.ACK_TIMEOUT)
        timeout, = [error for error in record.errors if isinstance(error, errors.AckTimeout)]
        self.assertEqual((timeout.screen_id, timeout.fatal), (detail.id, False))
        host.ping()
        self.assertFalse(home.is_dismissed)

    def test_local_misuse_is_refused_before_sending(self):
        daemon = self.start("deep-stack")
        host, record = self.connect(daemon.socket_path, ["item"])
        host.ping()
        first = record.screen("Item 1")
        with self.assertRaises(errors.UsageError):
            first.select_tab(-1)
        with self.assertRaises(errors.EncodingError):
            first.send({"didPressButton": {"index": object()}})

    def test_a_fatal_error_ends_run_by_being_raised(self):
        daemon = self.start("deep-stack")
        host, _ = self.connect(daemon.socket_path, ["item"])
        host._connection.send("hello", hello("again"))  # a second Hello breaks the protocol
        # flowd has closed the connection before the host read anything: acking its Place meets a
        # closed socket, and the Error flowd sent before closing still says why.
        self.assertTrue(daemon.wait_for_log("protocol error; closing connection"))
        with self.assertRaises(errors.UnexpectedMessage) as raised:
            host.run()
        self.assertTrue(raised.exception.fatal)
        with self.assertRaises(errors.UnexpectedMessage):  # the session stays failed
            host.ping()

    @unittest.skipUnless(Impostor.POSSIBLE, "needs root: the impostor runs as another user")
    def test_a_socket_another_user_serves_is_refused_before_anything_is_sent(self):
        impostor = Impostor()
        self.addCleanup(impostor.stop)
        with self.assertRaises(errors.UntrustedServer) as raised:
            ScreenHost.connect(impostor.socket_path, provides=["item"], handshake_timeout=2)
        for part in impostor.refusal():
            self.assertIn(part, str(raised.exception))
        self.assertTrue(raised.exception.fatal)
        self.assertEqual((raised.exception.uid, raised.exception.directory_owner), (Impostor.UID, Impostor.UID))
        self.assertTrue(issubclass(errors.UntrustedServer, errors.ConnectError))
        self.assertEqual(impostor.received(), 0, "nothing was sent to it")

    def test_connecting_and_spawning_errors(self):
        with self.assertRaises(errors.ConnectError) as raised:
            ScreenHost.connect("/tmp/no-such-dir-for-flowd/flowd.sock", provides=["item"])
        self.assertIn("/tmp/no-such-dir-for-flowd/flowd.sock", str(raised.exception))
        with self.assertRaises(errors.SpawnEnvironmentError):
            ScreenHost.from_environment(environ={})
        self.assertTrue(issubclass(errors.SpawnEnvironmentError, FlowdError))
        self.assertFalse(ScreenHost.spawned_by_flowd({}))


# A screen process for `flowd --spawn-screens`: pushes once, then finishes; logs to flowd's stderr.
SPAWNED_ITEM = """#!/usr/bin/env python3
import sys
sys.path.append(CARDS)
from flowd_screens import ScreenHost
from cards_pb2 import CardOutput, CardState, DidPressButton

def say(text):  # one write: two processes share flowd's stderr
    sys.stderr.write(f"spawned: {text}\\n")
    sys.stderr.flush()

host = ScreenHost.from_environment()

@host.register("item", state=CardState, output=CardOutput)
def placed(screen):
    say(f"placed {screen.state.title} animated={screen.animated}")
    screen.on_dismiss(lambda dismissal: say(f"dismissed {screen.state.title} {dismissal.reason.name}"))
    screen.send(CardOutput(did_press_button=DidPressButton(index=0 if screen.placement.stack_index == 0 else 2)))

say(f"ended {host.run().name}")
"""


class Spawned(HostTestCase):
    def test_a_spawned_process_serves_its_one_screen_and_ends_with_it(self):
        directory = Daemon.scratch_directory()
        self.addCleanup(Daemon.remove, directory)
        script = os.path.join(directory, "item.py")
        with open(script, "w", encoding="utf-8") as file:
            file.write(SPAWNED_ITEM.replace("CARDS", repr(CARDS), 1))
        os.chmod(script, 0o755)
        # A spawned screen gets only what flowd passes on: how it finds flowd_screens and protobuf.
        daemon = self.start("deep-stack", "--spawn-screens", script, "--screen-env", "PYTHONPATH,PYTHONDONTWRITEBYTECODE")
        self.assertEqual(daemon.wait(), 0, daemon.log)
        log = daemon.log
        for line in ["placed Item 1 animated=False", "placed Item 2 animated=True", "dismissed Item 1 FLOW_FINISHED",
                     "dismissed Item 2 FLOW_FINISHED"]:
            self.assertIn(f"spawned: {line}\n", log)
        self.assertEqual(log.count("spawned: ended ONLY_SCREEN_DISMISSED"), 2, log)


SPAWNED_TYPIST = """#!/usr/bin/env python3
import os, signal, sys
sys.path.append(CARDS)
from flowd_screens import ScreenHost
from cards_pb2 import CardOutput, CardState, DidPressButton

def say(text):
    sys.stderr.write(f"typist: {text}\\n")
    sys.stderr.flush()

host = ScreenHost.from_environment()

@host.register("item", state=CardState, output=CardOutput)
def placed(screen):
    if not screen.saved_state:
        # Half a line typed, not sent: saved, then the process dies (SIGKILL, nothing flushed by Python).
        screen.save_state("half a na".encode())
        host.ping()
        say(f"pid {os.getpid()} typed half a line and dies")
        os.kill(os.getpid(), signal.SIGKILL)
    say(f"pid {os.getpid()} placed again with {screen.saved_state.decode()!r}")
    screen.send(CardOutput(did_press_button=DidPressButton(index=2)))

host.run()
"""


class SavedState(HostTestCase):
    def test_a_host_killed_while_a_line_is_half_typed_comes_back_with_it(self):
        directory = Daemon.scratch_directory()
        self.addCleanup(Daemon.remove, directory)
        script = os.path.join(directory, "typist.py")
        with open(script, "w", encoding="utf-8") as file:
            file.write(SPAWNED_TYPIST.replace("CARDS", repr(CARDS), 1))
        os.chmod(script, 0o755)
        # Spawned screens restart by default: the new process gets the screen, and the line.
        # A spawned screen gets only what flowd passes on: how it finds flowd_screens and protobuf.
        daemon = self.start("deep-stack", "--spawn-screens", script, "--screen-env", "PYTHONPATH,PYTHONDONTWRITEBYTECODE")
        self.assertEqual(daemon.wait(), 0, daemon.log)
        log = daemon.log
        self.assertIn("typed half a line and dies", log)
        self.assertIn("placed again with 'half a na'", log)

    def test_save_state_refuses_what_is_not_bytes_or_too_long(self):
        daemon = self.start("deep-stack")
        host, record = self.connect(daemon.socket_path, ["item"])
        host.ping()
        screen = record.screen("Item 1")
        with self.assertRaises(errors.UsageError):
            screen.save_state("text, not bytes")
        with self.assertRaises(errors.UsageError):
            screen.save_state(b"x" * (16 * 1024 + 1))
        screen.save_state(b"x" * (16 * 1024))
        host.ping()
        self.assertEqual(record.errors, [])


class Reconnecting(HostTestCase):
    def through_proxy(self, app="deep-stack", **options):
        daemon = self.start(app)
        proxy = CuttingProxy(daemon.socket_path, daemon.directory + "/proxy.sock")
        self.addCleanup(proxy.close)
        host, record = self.connect(proxy.path, ["item"], **options)
        host.ping()
        return daemon, proxy, host, record

    def test_resumes_after_a_cut(self):
        daemon, proxy, host, record = self.through_proxy()
        first = record.screen("Item 1")
        proxy.cut()
        host.ping()  # across the reconnection
        self.assertIsInstance(record.reconnects[0], Dropped)
        self.assertIsInstance(record.reconnects[-1], Reconnected)
        self.assertTrue(record.reconnects[-1].resumed, record.reconnects)
        self.assertTrue(host.daemon.resumed)
        self.assertEqual(first.dismissal.reason, DismissReason.RESUMED)
        again = record.screen("Item 1")
        self.assertIsNot(again, first)
        self.assertEqual((again.id, again.animated), (first.id, False))
        again.send(PRESS_0)
        host.ping()
        record.screen("Item 2")
        self.assertTrue(daemon.wait_for_log("screen host resumed"))
        self.assertGreaterEqual(proxy.connections, 2)  # the host came back through the proxy

    def push_through_a_cut(self, direction, body):
        """Presses Push on Item 1 while the proxy loses the next `body` frame going `direction` (and
        cuts there); returns the host and its record after a barrier across the reconnection."""
        _, proxy, host, record = self.through_proxy()
        proxy.lose_next(direction, lambda envelope: envelope.WhichOneof("body") == body)
        record.screen("Item 1").send(PRESS_0)
        host.ping()
        self.assertEqual(len(proxy.lost), 1)
        self.assertIn(Resent(1), record.reconnects)  # no Pong confirmed it: sent again with its key
        return host, record

    def test_a_saved_state_lost_in_a_cut_is_sent_again_and_the_screen_has_the_newest(self):
        daemon, proxy, host, record = self.through_proxy()
        first = record.screen("Item 1")
        first.save_state(b"an older line")
        host.ping()
        proxy.lose_next("up", lambda envelope: envelope.WhichOneof("body") == "save_state")
        first.save_state(b"the newest line")  # lost with the connection
        host.ping(timeout=15)
        self.assertEqual(len(proxy.lost), 1)
        again = record.screen("Item 1")
        self.assertIsNot(again, first)
        self.assertEqual(again.saved_state, b"the newest line", "the host's own is newer than the resume's Place")
        # flowd has it too: the next host after this one gets it. The barrier: flowd took the
        # goodbye, so the screen waits for the next host (else the new host may join first, and
        # its Ping be answered before the old host's leaving was read).
        host.close()
        self.assertTrue(daemon.wait_for_log("screen waits for the next host of its kind"))
        other, other_record = self.connect(daemon.socket_path, ["item"])
        other.ping()
        self.assertEqual(other_record.screen("Item 1").saved_state, b"the newest line")

    def test_an_output_lost_in_a_cut_is_sent_again(self):
        _, record = self.push_through_a_cut("up", "output")
        record.screen("Item 2")  # applied once it was sent again

    def test_an_output_applied_before_the_cut_is_not_applied_twice(self):
        host, record = self.push_through_a_cut("down", "pong")
        host.ping()
        self.assertEqual(sorted(screen.state.title for screen in host.screens.values()), ["Item 1", "Item 2"])
        self.assertNotIn("+ item Item 3", record.lines)  # flowd had applied it and dropped the repeat

    def test_a_refused_token_starts_fresh(self):
        daemon = self.start("deep-stack")
        host, record = self.connect(daemon.socket_path, ["item"])
        host.ping()
        first = record.screen("Item 1")
        daemon.kill()  # the next flowd on the socket did not issue the token
        successor = Daemon("deep-stack", directory=daemon.directory)
        self.addCleanup(successor.stop)
        host.ping(timeout=15)
        kinds = [type(event) for event in record.reconnects]
        self.assertEqual(kinds[0], Dropped)
        self.assertIn(ResumeRefused, kinds)
        self.assertEqual(kinds[-1], Reconnected)
        self.assertFalse(record.reconnects[-1].resumed)
        self.assertEqual(first.dismissal.reason, DismissReason.CONNECTION_LOST)
        record.screen("Item 1")  # placed by the new flowd

    def test_a_host_without_reconnect_ends_at_a_drop(self):
        _, proxy, host, record = self.through_proxy(reconnect=None)
        proxy.cut()
        self.assertEqual(host.run(), ExitReason.CONNECTION_CLOSED)
        self.assertEqual(record.reconnects, [])
        with self.assertRaises(errors.ConnectionClosed):
            record.placed[0].send(PRESS_0)


if __name__ == "__main__":
    unittest.main()
