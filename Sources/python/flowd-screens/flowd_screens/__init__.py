"""flowd_screens: write flowd screen hosts in Python (docs/screens-python.md).

    from flowd_screens import ScreenHost

    host = ScreenHost.connect(name="greeting", provides=["greeting"])

    @host.register("greeting")
    def placed(screen):
        print(screen.state["title"], screen.placement)
        screen.on_dismiss(lambda dismissal: print("gone:", dismissal.reason))
        screen.send({"didPressButton": {"index": 0}})

    print("done:", host.run())

A kind whose app carries its State and Output as protobuf messages is registered with the classes
protoc generated, e.g. `host.register("login", placed, state=cards_pb2.CardState,
output=cards_pb2.CardOutput)`: `screen.state` is then a CardState and `send` takes CardOutputs.
"""

import re as _re

#: The protobuf versions the generated code in flowd_screens.proto works with (protoc 3.21's output);
#: keep in step with pyproject.toml.
PROTOBUF_REQUIREMENT = ">=4.21,<7"


def _protobuf_problem():
    """None if the installed protobuf fits the generated code, else what to do."""
    install = f"python3 -m pip install 'protobuf{PROTOBUF_REQUIREMENT}'"
    try:
        import google.protobuf
    except ImportError:
        return f"flowd_screens needs the Python package protobuf{PROTOBUF_REQUIREMENT}, which is not installed ({install})"
    version = tuple(int(part) for part in _re.findall(r"\d+", google.protobuf.__version__)[:2])
    if not (4, 21) <= version < (7, 0):
        return (f"flowd_screens needs protobuf{PROTOBUF_REQUIREMENT}, but protobuf {google.protobuf.__version__} "
                f"is installed ({install})")
    return None


_problem = _protobuf_problem()
if _problem:
    raise ImportError(_problem)

from . import errors, payloads  # noqa: E402
from .connection import default_socket_path  # noqa: E402
from .errors import DaemonError, ErrorCode, FlowdError  # noqa: E402
from .host import DaemonInfo, ExitReason, ScreenHost, ShutdownReason  # noqa: E402
from .payloads import protobuf_content_type  # noqa: E402
from .placement import Change, NodeKind, PathStep, Placement  # noqa: E402
from .reconnect import ReconnectPolicy  # noqa: E402
from .screen import Dismissal, DismissReason, HostedScreen, Phase  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "Change", "DaemonError", "DaemonInfo", "Dismissal", "DismissReason", "ErrorCode", "ExitReason", "FlowdError",
    "HostedScreen", "NodeKind", "PathStep", "Phase", "Placement", "ReconnectPolicy", "ScreenHost", "ShutdownReason",
    "default_socket_path", "errors", "payloads", "protobuf_content_type",
]
