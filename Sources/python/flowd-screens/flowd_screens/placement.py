"""Where a screen sits in the navigation model (docs/protocol.md §7), read from the wire."""

import enum
from dataclasses import dataclass
from typing import Optional, Tuple


class NodeKind(enum.Enum):
    """A node of the navigation model."""

    UNSPECIFIED = 0
    WINDOW = 1
    STACK = 2
    TAB_BAR = 3
    SCREEN = 4


class Change(enum.Enum):
    """Why a placement changed (`PlacementChanged.change`)."""

    UNSPECIFIED = 0
    COVERED = 1
    UNCOVERED = 2
    MOVED = 3
    TAB_SELECTED = 4
    TAB_DESELECTED = 5


def _enum(cls, value):
    try:
        return cls(value)
    except ValueError:
        return cls.UNSPECIFIED


@dataclass(frozen=True)
class PathStep:
    """One element of a placement's path: a node and its position in the element before it."""

    kind: NodeKind
    id: int
    index: int
    presented: bool
    tab_count: int


@dataclass(frozen=True)
class Placement:
    """The path from the window to the screen, and whether the screen can be seen."""

    path: Tuple[PathStep, ...]
    visible: bool
    top_most: bool

    @classmethod
    def from_wire(cls, placement):
        """The placement a wire `Placement` message describes."""
        steps = tuple(PathStep(_enum(NodeKind, step.kind), step.id, step.index, step.presented, step.tab_count)
                      for step in placement.path)
        return cls(steps, placement.visible, placement.top_most)

    @property
    def in_modal(self):
        """True if the screen is inside a modal presentation (close_modal applies)."""
        return any(step.presented for step in self.path)

    @property
    def stack_index(self) -> Optional[int]:
        """The screen's index in its stack (0 = the stack's root), or None if it is not in a stack."""
        if len(self.path) >= 2 and self.path[-2].kind == NodeKind.STACK and not self.path[-1].presented:
            return self.path[-1].index
        return None

    @property
    def can_go_back(self):
        """True if back applies: the screen is in a stack and not its root."""
        return bool(self.stack_index)

    def __str__(self):
        names = {NodeKind.WINDOW: "window", NodeKind.STACK: "stack", NodeKind.TAB_BAR: "tabs",
                 NodeKind.SCREEN: "screen"}
        parts = [f"{'modal ' if step.presented else ''}{names.get(step.kind, '?')}[{step.index}]"
                 for step in self.path[1:]]
        flags = ("visible" if self.visible else "hidden") + (", top-most" if self.top_most else "")
        return f"{' > '.join(parts) or 'window'} ({flags})"
