"""The library's enums and exception classes follow proto/: a code or value added there fails here
until the library names it."""

import unittest

from flowd_screens import Change, DismissReason, ErrorCode, NodeKind, Phase, ShutdownReason, errors
from flowd_screens.proto import control_pb2, screen_pb2


def wire_values(enum_descriptor, prefix):
    """{name without prefix: number} of a generated enum."""
    return {name[len(prefix):]: number for name, number in enum_descriptor.items()}


class WireNames(unittest.TestCase):
    def test_every_error_code_has_its_exception_class(self):
        codes = wire_values(control_pb2.ErrorCode, "ERROR_CODE_")
        self.assertEqual({code.name: code.value for code in ErrorCode}, codes)
        for name, number in codes.items():
            raised = errors.DaemonError.from_wire(control_pb2.Error(code=number, message="m", screen_id=7, serial=2))
            self.assertIs(raised.code, ErrorCode[name])
            self.assertEqual((raised.screen_id, raised.serial), (7, 2))
            if name != "UNSPECIFIED":
                expected = "".join(part.capitalize() for part in name.split("_"))
                self.assertEqual(type(raised).__name__, expected)
                self.assertIs(getattr(errors, expected), type(raised))

    def test_an_unknown_error_code_is_a_plain_daemon_error(self):
        raised = errors.DaemonError.from_wire(control_pb2.Error(code=999, message="new", fatal=True))
        self.assertIs(type(raised), errors.DaemonError)
        self.assertIs(raised.code, ErrorCode.UNSPECIFIED)
        self.assertTrue(raised.fatal)

    def test_the_other_enums_match_the_wire(self):
        pairs = [
            (Change, screen_pb2.PlacementChanged.Change, "CHANGE_"),
            (NodeKind, screen_pb2.NodeKind, "NODE_KIND_"),
            (Phase, screen_pb2.NavigationPhase, "NAVIGATION_PHASE_"),
            (ShutdownReason, control_pb2.Shutdown.Reason, "REASON_"),
        ]
        for enum, wire, prefix in pairs:
            self.assertEqual({member.name: member.value for member in enum}, wire_values(wire, prefix), enum)
        wire_reasons = wire_values(screen_pb2.Dismiss.Reason, "REASON_")
        self.assertEqual({reason.name: reason.value for reason in DismissReason if isinstance(reason.value, int)},
                         wire_reasons)


if __name__ == "__main__":
    unittest.main()
