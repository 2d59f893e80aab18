"""Input keys (docs/protocol.md §20): every output and navigation gets a key and is kept until a
Pong confirms it. flowd handles a connection's frames in order and journals an input before it
writes anything after it, so the Pong of a Ping sent after an input confirms it. After a drop the
host sends the unconfirmed inputs again with the same keys: flowd drops those it already applied
(even across its own restart) and applies the others, once."""

import random


class UnconfirmedInputs:
    """The inputs sent and not confirmed yet, as (number, body name, message), oldest first."""

    #: Inputs kept at most; the oldest is dropped (confirmed by then in any realistic session).
    CAPACITY = 256

    def __init__(self):
        self.entries = []
        self._next_number = 1
        self._marks = {}  # Ping nonce -> the number of the last input sent before it
        # Random, so that keys of different hosts (and of this host's earlier runs) do not meet.
        self._key_base = random.getrandbits(62) + 1

    def keyed(self, message):
        """Gives `message` (an Output or UserNavigation) its key; returns its number for `sent`."""
        number = self._next_number
        self._next_number += 1
        message.key = self._key_base + number
        return number

    def sent(self, number, body, message):
        """The input went out: it waits for a confirmation."""
        self.entries.append((number, body, message))
        del self.entries[:-self.CAPACITY]

    def pinged(self, nonce):
        """A Ping with `nonce` went out after the inputs sent so far."""
        self._marks[nonce] = self._next_number - 1

    def ponged(self, nonce):
        """Its Pong came back: every input sent before that Ping is confirmed."""
        last = self._marks.pop(nonce, None)
        if last is None:
            return
        self.entries = [entry for entry in self.entries if entry[0] > last]
        self._marks = {key: value for key, value in self._marks.items() if value > last}

    def connection_changed(self):
        """On a new connection no Pong of the old one will come."""
        self._marks.clear()
