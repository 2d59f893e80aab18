"""Protobuf payloads without a daemon: a ScreenHost on one end of a socket pair and a fake flowd on the
other, which writes Place/Update frames and reads what the host answers (acks, Errors, outputs)."""

import select
import socket
import struct
import unittest

from google.protobuf import json_format

from flowd_screens import ScreenHost, errors, payloads, protobuf_content_type
from flowd_screens.connection import Connection
from flowd_screens.proto import control_pb2, envelope_pb2, handshake_pb2, screen_pb2

from support import cards_pb2, frames

STATE_TYPE = "application/protobuf; proto=flowd.demo.v1.CardState"
OUTPUT_TYPE = "application/protobuf; proto=flowd.demo.v1.CardOutput"
LOGIN = cards_pb2.CardState(title="Log in", body="Log in to continue.", buttons=["Log in", "Cancel"],
                            field="User name", text="")


def protobuf(message):
    return screen_pb2.Payload(content_type=protobuf_content_type(message), data=message.SerializeToString())


def json_payload(text):
    return screen_pb2.Payload(content_type="application/json", data=text.encode())


class FakeFlowd:
    """flowd's end of a socket pair with a ScreenHost (already welcomed) on the other end."""

    def __init__(self, test):
        self.sock, theirs = socket.socketpair()
        test.addCleanup(self.sock.close)
        welcome = handshake_pb2.Welcome(version=1, connection_id=1, server="fake flowd", app="cards",
                                        max_frame_size=1 << 20, resume_grace_ms=0)
        self.host = ScreenHost(Connection(theirs), welcome, [], "payload tests", spawned=False)
        test.addCleanup(self.host._connection.close)
        self.refusals = []
        self.host.on_error = self.refusals.append
        self.seq = 0
        self.buffer = b""

    def write(self, **body):
        self.seq += 1
        data = envelope_pb2.Envelope(seq=self.seq, **body).SerializeToString()
        self.sock.sendall(struct.pack("<I", len(data)) + data)
        while self.host.poll_once(0.5) is None and select.select([self.host._connection.sock], [], [], 0)[0]:
            pass

    def place(self, kind, state, screen_id=1):
        self.write(place=screen_pb2.Place(screen_id=screen_id, kind=kind, state=state, serial=1))

    def update(self, state, screen_id=1, serial=2):
        self.write(update=screen_pb2.Update(screen_id=screen_id, serial=serial, state=state))

    def received(self):
        """The envelopes the host sent since the last call, by body name and message."""
        self.sock.setblocking(False)
        try:
            while True:
                self.buffer += self.sock.recv(65536)
        except BlockingIOError:
            pass
        finally:
            self.sock.setblocking(True)
        complete, self.buffer = frames(self.buffer)
        return [(envelope.WhichOneof("body"), getattr(envelope, envelope.WhichOneof("body"))) for _, envelope in complete]


class ProtobufStates(unittest.TestCase):
    def flowd(self, kind="login", **classes):
        flowd = FakeFlowd(self)
        placed = []
        flowd.host.register(kind, placed.append, **classes)
        return flowd, placed

    def test_a_protobuf_state_arrives_as_its_message(self):
        flowd, placed = self.flowd(state=cards_pb2.CardState, output=cards_pb2.CardOutput)
        flowd.place("login", protobuf(LOGIN))
        screen, = placed
        self.assertIsInstance(screen.state, cards_pb2.CardState)
        self.assertEqual(screen.state, LOGIN)
        self.assertTrue(screen.state.HasField("field"))
        self.assertEqual(flowd.received(), [("ack", screen_pb2.Ack(screen_id=1, serial=1))])

        updates = []
        screen.on_update(updates.append)
        flowd.update(protobuf(cards_pb2.CardState(title="Welcome, ann", buttons=["Continue"])))
        self.assertEqual(updates, [screen.state])
        self.assertEqual(screen.state.title, "Welcome, ann")
        self.assertFalse(screen.state.HasField("field"))
        self.assertEqual(flowd.received(), [("ack", screen_pb2.Ack(screen_id=1, serial=2))])
        self.assertEqual(flowd.refusals, [])

    def test_a_state_of_another_message_is_refused_with_bad_payload_naming_both(self):
        flowd, placed = self.flowd(state=cards_pb2.CardOutput)  # the wrong class for a state
        flowd.place("login", protobuf(LOGIN))
        self.assertEqual(placed, [])
        self.assertEqual(flowd.host.screens, {})
        (body, error), = flowd.received()  # an Error, no ack
        self.assertEqual((body, error.code, error.fatal, error.screen_id, error.serial),
                         ("error", control_pb2.ERROR_CODE_BAD_PAYLOAD, False, 1, 1))
        self.assertIn("flowd.demo.v1.CardState", error.message)
        self.assertIn("flowd.demo.v1.CardOutput", error.message)
        refusal, = flowd.refusals
        self.assertIsInstance(refusal, errors.StateNotDecoded)
        self.assertEqual(refusal.message, error.message)

    def test_an_update_of_another_message_leaves_the_state(self):
        flowd, placed = self.flowd(state=cards_pb2.CardState)
        flowd.place("login", protobuf(LOGIN))
        flowd.received()
        flowd.update(protobuf(cards_pb2.DidEnterText(text="ann")))
        self.assertEqual(placed[0].state, LOGIN)
        (body, error), = flowd.received()
        self.assertEqual((body, error.code, error.serial), ("error", control_pb2.ERROR_CODE_BAD_PAYLOAD, 2))
        self.assertIn("flowd.demo.v1.DidEnterText", error.message)

    def test_a_protobuf_state_for_a_json_kind_is_refused(self):
        flowd, placed = self.flowd()
        flowd.place("login", protobuf(LOGIN))
        self.assertEqual(placed, [])
        (body, error), = flowd.received()
        self.assertEqual((body, error.code), ("error", control_pb2.ERROR_CODE_BAD_PAYLOAD))
        self.assertIn("registered for JSON states", error.message)
        self.assertIn("flowd.demo.v1.CardState", error.message)

    def test_bytes_that_are_not_the_message_are_refused(self):
        flowd, placed = self.flowd(state=cards_pb2.CardState)
        flowd.place("login", screen_pb2.Payload(content_type=STATE_TYPE, data=b"\xff\xff\xff"))
        self.assertEqual(placed, [])
        self.assertIn("does not decode as a flowd.demo.v1.CardState", flowd.refusals[0].message)

    def test_another_content_type_is_refused(self):
        flowd, placed = self.flowd(state=cards_pb2.CardState)
        flowd.place("login", screen_pb2.Payload(content_type="text/plain", data=b"Log in"))
        self.assertEqual(placed, [])
        self.assertIn(f"'application/json' or '{STATE_TYPE}'", flowd.refusals[0].message)

    def test_a_json_state_is_parsed_into_the_message_with_json_format(self):
        flowd, placed = self.flowd(state=cards_pb2.CardState)
        flowd.place("login", json_payload('{"title": "Log in", "buttons": ["Log in", "Cancel"], '
                                          '"field": "User name", "text": ""}'))
        screen, = placed
        self.assertIsInstance(screen.state, cards_pb2.CardState)
        self.assertEqual((screen.state.title, list(screen.state.buttons)), ("Log in", ["Log in", "Cancel"]))
        self.assertTrue(screen.state.HasField("text"))  # present, though empty
        flowd.update(screen_pb2.Payload(content_type="", data=b""))  # empty: JSON, an empty message
        self.assertEqual(screen.state, cards_pb2.CardState())
        flowd.update(json_payload('{"title": "x", "colour": "red"}'), serial=3)  # unknown keys are ignored
        self.assertEqual(screen.state, cards_pb2.CardState(title="x"))
        flowd.update(json_payload('{"title": 5}'), serial=4)  # not a CardState's JSON
        self.assertEqual(screen.state.title, "x")
        self.assertIn("title", flowd.refusals[-1].message)
        self.assertEqual([body for body, _ in flowd.received()], ["ack", "ack", "ack", "error"])

    def test_decode_gets_the_message(self):
        flowd, placed = self.flowd(state=cards_pb2.CardState, decode=lambda card: (card.title, card.text))
        flowd.place("login", protobuf(LOGIN))
        self.assertEqual(placed[0].state, ("Log in", ""))

    def test_register_takes_only_message_classes(self):
        host = FakeFlowd(self).host
        with self.assertRaises(errors.UsageError):
            host.register("login", print, state=LOGIN)  # a message, not its class
        with self.assertRaises(errors.UsageError):
            host.register("login", print, output=dict)
        self.assertEqual(host.registered_kinds, [])

    def test_the_decorator_form_keeps_the_classes(self):
        flowd = FakeFlowd(self)
        placed = []

        @flowd.host.register("login", state=cards_pb2.CardState)
        def handler(screen):
            placed.append(screen)

        flowd.place("login", protobuf(LOGIN))
        self.assertEqual(placed[0].state, LOGIN)


class ProtobufOutputs(unittest.TestCase):
    def placed(self, **classes):
        flowd = FakeFlowd(self)
        placed = []
        flowd.host.register("login", placed.append, state=cards_pb2.CardState, **classes)
        flowd.place("login", protobuf(LOGIN))
        flowd.received()
        return flowd, placed[0]

    def sent_output(self, flowd):
        """The one output the host sent (followed by the Ping that confirms it)."""
        sent = flowd.received()
        self.assertEqual([body for body, _ in sent], ["output", "ping"])
        return sent[0][1]

    def test_a_message_is_sent_with_its_content_type_and_bytes(self):
        flowd, screen = self.placed(output=cards_pb2.CardOutput)
        press = cards_pb2.CardOutput(did_press_button=cards_pb2.DidPressButton(index=1))
        screen.send(press)
        output = self.sent_output(flowd)
        self.assertEqual(output.screen_id, 1)
        self.assertEqual(output.payload.content_type, OUTPUT_TYPE)
        self.assertEqual(output.payload.data, press.SerializeToString())
        self.assertNotEqual(output.key, 0)

        screen.send(cards_pb2.CardOutput(did_enter_text=cards_pb2.DidEnterText(text="ann")))
        sent = cards_pb2.CardOutput.FromString(self.sent_output(flowd).payload.data)
        self.assertEqual(sent.WhichOneof("event"), "did_enter_text")
        self.assertEqual(sent.did_enter_text.text, "ann")

    def test_button_zero_is_written(self):
        flowd, screen = self.placed()
        screen.send(cards_pb2.CardOutput(did_press_button=cards_pb2.DidPressButton(index=0)))
        data = self.sent_output(flowd).payload.data
        self.assertNotEqual(data, cards_pb2.CardOutput(did_press_button=cards_pb2.DidPressButton()).SerializeToString())
        self.assertEqual(json_format.MessageToDict(cards_pb2.CardOutput.FromString(data)),
                         {"didPressButton": {"index": 0}})

    def test_a_dict_is_still_sent_as_json(self):
        flowd, screen = self.placed(output=cards_pb2.CardOutput)
        screen.send({"didEnterText": {"text": "ann"}})
        output = self.sent_output(flowd)
        self.assertEqual(output.payload.content_type, "application/json")
        self.assertEqual(output.payload.data, b'{"didEnterText": {"text": "ann"}}')

    def test_a_message_of_another_type_than_the_kinds_output_is_not_sent(self):
        flowd, screen = self.placed(output=cards_pb2.CardOutput)
        with self.assertRaises(errors.EncodingError) as raised:
            screen.send(cards_pb2.DidPressButton(index=1))
        self.assertIn("flowd.demo.v1.CardOutput", raised.exception.message)
        self.assertIn("flowd.demo.v1.DidPressButton", raised.exception.message)
        self.assertEqual(flowd.received(), [])

    def test_without_an_output_class_any_message_goes_with_its_own_type(self):
        flowd, screen = self.placed()
        screen.send(cards_pb2.DidEnterText(text="ann"))  # flowd refuses it (BAD_PAYLOAD), not the host
        self.assertEqual(self.sent_output(flowd).payload.content_type,
                         "application/protobuf; proto=flowd.demo.v1.DidEnterText")


class ContentTypes(unittest.TestCase):
    def test_parsing(self):
        parse = payloads.parse_content_type
        self.assertEqual(parse(""), ("json", None))
        self.assertEqual(parse("application/json"), ("json", None))
        self.assertEqual(parse("Application/JSON; charset=utf-8"), ("json", None))
        self.assertEqual(parse(STATE_TYPE), ("protobuf", "flowd.demo.v1.CardState"))
        self.assertEqual(parse('application/protobuf;proto="a.B"'), ("protobuf", "a.B"))
        self.assertEqual(parse("application/protobuf"), ("protobuf", None))
        self.assertEqual(parse("text/plain"), (None, None))

    def test_the_content_type_of_a_class_and_of_a_message(self):
        self.assertEqual(protobuf_content_type(cards_pb2.CardState), STATE_TYPE)
        self.assertEqual(protobuf_content_type(cards_pb2.CardOutput()), OUTPUT_TYPE)


if __name__ == "__main__":
    unittest.main()
