"""``StreamingArgsParser``: incremental JSON parser for one tool call's arguments. Sans-IO.

Fed the argument text fragment by fragment (``push``), it reports (``poll``):

* :class:`ArgsParsed` ``(name, value)`` for each top-level key as soon as its value is complete:
  strings, numbers, ``true``/``false``/``null``, nested objects and arrays. Values are fully
  decoded and are exactly what the final strict parse of the whole text gives (nested values,
  numbers and keys are decoded by the same JSON library, from their own slice of text). A key
  that occurs twice is reported twice; the last report wins, as in the final parse.
* :class:`ArgsProgress` ``(name, received, value)`` while a top-level string value is still
  open: at most one per ``push``, with ``value`` the text decoded since the previous progress
  of that key and ``received`` the number of characters decoded so far. The total size of all
  progress events is therefore linear in the argument length (RAF repeats the whole prefix in
  every event and emits one per byte; see docs/deviations.md). A fragment that ends inside an
  escape sequence or between the two halves of a surrogate pair reports only complete
  characters.

The parser is strict: anything the final parse would reject (a raw control character in a
string, a lone surrogate, escaped or as a character of a ``str`` fragment, a bad escape, a
malformed number, a number out of range, nesting deeper than ``max_depth``, trailing
garbage) stops it; it then reports nothing more and :attr:`StreamingArgsParser.error` says
what was wrong. It never raises on its input. Nesting is counted while scanning, so a value
is never decoded past the limit and nothing here recurses per level. Text that is not a JSON
object at the top level (``"x"``, ``[1]``) is not an error here but yields no events.

``push`` reads every fragment with the general scan: a state machine over the states listed
below, where each key or value is read by the scanner of its state (runs of ordinary
characters and complete escapes are matched by compiled regular expressions and decoded in
bulk by the JSON library). :meth:`StreamingArgsParser.feed` first tries a fast path for the
fragments that make up nearly all of a long argument, and gives exactly the events and state
that ``push`` then ``poll`` would:

* in a top-level string value, a fragment of plain text (no quote, backslash or control
  character) is its own decoding; one with escapes is checked and decoded by one call of the
  JSON library, which rejects exactly what the general scan would (a quote, a control
  character, a bad escape, a lone surrogate: then the general scan reads the fragment and
  reports it); when the fragment may end in a cut escape (a final ``\\`` or ``\\u12``) or
  a high surrogate that waits for its other half, one pattern first splits that part off,
  to be read with the next fragment;
* in a nested value, a fragment without brackets or backslashes only moves the scan in or
  out of strings (one count of its quotes); otherwise one pattern per bracket skips ordinary
  characters, complete strings and escaped pairs, and the brackets are counted, up to where
  the value ends, gets too deep, or a backslash ends the fragment, from where the general
  scan goes on.

Cost: each character is examined by the general scan at most once, and at most once more by
a fast path that hands its fragment over (plus an escape cut by the end of a fragment, a few
characters, read again with the next); each completed value is decoded once from its own
slice. The total work is linear in the argument length for any fragmentation.
"""

from __future__ import annotations

import codecs
import re
from typing import Final

import msgspec

from raf._args_events import ArgsEvent, ArgsParsed, ArgsProgress
from raf._mypyc import mypyc_attr
from raf.limits import DEFAULT_MAX_JSON_DEPTH, check_json_depth

__all__ = ["ArgsEvent", "ArgsParsed", "ArgsProgress", "StreamingArgsParser"]


# The parser's states: plain ints, compared without the Python-level hashing and comparison
# of an Enum. Each reads what is said beside it and moves to the state after the arrow; text
# the final parse would reject moves any state to FAILED. The four token states (IN_*) have
# their own scanner, called by _scan; _scan reads the others itself.
_START: Final = 0  # whitespace, then "{" -> KEY_OR_END (anything else -> NOT_OBJECT)
_KEY_OR_END: Final = 1  # after "{": whitespace, then '"' -> IN_KEY or "}" -> DONE
_KEY: Final = 2  # after ",": whitespace, then '"' -> IN_KEY
_IN_KEY: Final = 3  # the key's text up to its closing quote -> COLON
_COLON: Final = 4  # whitespace, then ":" -> VALUE
_VALUE: Final = 5  # whitespace, then '"' -> IN_STRING, "{" "[" -> IN_NESTED, else IN_SCALAR
_IN_STRING: Final = 6  # a top-level string value, up to its closing quote -> COMMA_OR_END
_IN_SCALAR: Final = 7  # a number or literal, up to the next other character -> COMMA_OR_END
_IN_NESTED: Final = 8  # an object or array value, up to its closing bracket -> COMMA_OR_END
_COMMA_OR_END: Final = 9  # whitespace, then "," -> KEY or "}" -> DONE
_DONE: Final = 10  # the top-level object is closed; only whitespace may follow
_NOT_OBJECT: Final = 11  # the text is not an object: reads nothing, no events, not an error
_FAILED: Final = 12  # reads nothing; ``error`` says why

# Ordinary characters and complete escapes of a JSON string (no quote, no backslash alone, no
# control character).
_STRING_RUN = re.compile(r'(?:[^"\\\x00-\x1f\ud800-\udfff]+|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*')
# What may remain of an escape cut by the end of a fragment.
_ESCAPE_PREFIX = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?")
_HIGH_SURROGATE_END = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}$")
# The same run (possessive: never backtracking), then what may remain of an escape cut by the
# end of the fragment, up to the end: the fast path of a fragment that may end in a cut escape.
_RUN_AND_CUT = re.compile(
    r'((?:[^"\\\x00-\x1f\ud800-\udfff]++|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*+)(?:\\(?:u[0-9a-fA-F]{0,3})?)?'
)
_BLOCK = 256

_WS = re.compile(r"[ \t\n\r]*")
_STRING_SPECIAL = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')
_NESTED_SPECIAL = re.compile(r'["\\{}\[\]]')
_NESTED_STRING_SPECIAL = re.compile(r'["\\]')
_NESTED_SPECIAL_BUT_QUOTE = re.compile(r"[\\{}\[\]]")
# Fast path of nested values (possessive, so never backtracking): the rest of a string the
# scan is inside, up to its closing quote or a backslash ending the fragment; and, outside
# strings, what is neither a bracket nor a backslash ending the fragment (ordinary characters,
# complete strings, a backslash with the character it escapes, as the general scan skips
# both), then maybe a string left open (group 1).
_NESTED_STRING_BODY = r'[^"\\]*+(?:\\[\s\S][^"\\]*+)*+'
_NESTED_IN_STRING_RUN = re.compile(_NESTED_STRING_BODY)
_NESTED_RUN = re.compile(
    r'(?:[^"\\{}\[\]]++|"' + _NESTED_STRING_BODY + r'"|\\[\s\S])*+("' + _NESTED_STRING_BODY + ")?+"
)
_SCALAR_CHARS = re.compile(r"[0-9A-Za-z+\-.]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_decode = msgspec.json.Decoder().decode
_decode_string = msgspec.json.Decoder(str).decode


def _unexpected(c: str) -> str:
    """What a character a string may not hold raw is: a control character, or a lone
    surrogate (a ``str`` fragment holding one was built by hand: no stream decodes to it)."""
    if 0xD800 <= ord(c) <= 0xDFFF:
        return "lone surrogate"
    return f"control character U+{ord(c):04X}"


def _high_surrogate_at_end(run: str) -> int:
    """Where ``run`` ends with a high-surrogate escape (``\\ud83d``), or -1."""
    match = _HIGH_SURROGATE_END.search(run)
    if match is None:
        return -1
    start = k = match.start()
    while k > 0 and run[k - 1] == "\\":
        k -= 1
    return start if (start - k) % 2 == 0 else -1  # not when its backslash is itself escaped


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled build: subclasses may override methods
class StreamingArgsParser:
    """Incremental parser of one tool call's JSON arguments. See the module docstring.

    Args:
        max_depth: deepest nesting accepted in the arguments document (the top-level object
            counts as 1); deeper text stops the parser.
    """

    def __init__(self, *, max_depth: int = DEFAULT_MAX_JSON_DEPTH) -> None:
        check_json_depth(max_depth)
        self._max_nested = max_depth - 1  # the depth a value inside the object may reach
        self._state = _START
        self._events: list[ArgsEvent] = []
        self._bytes_decoder: codecs.IncrementalDecoder | None = None
        self.error: str | None = None
        """Why the parser stopped, or ``None``."""
        # The value (or key) being read, as raw segments joined once when it completes.
        self._raw: list[str] = []
        # Older raw segments of the same value, joined in blocks of _BLOCK segments so that
        # memory is about one copy of the text even when every fragment is one character.
        self._blocks: list[str] = []
        self._key = ""
        # Top-level string value: decoded text not yet reported, count decoded so far, and the
        # raw text of an escape (or high surrogate) cut by the end of a fragment.
        self._pending: list[str] = []
        self._received = 0
        self._tail = ""
        self._key_escape = False  # a key's backslash ended the previous fragment
        # Nested value: bracket depth, and whether the scan is inside one of its strings.
        self._depth = 0
        self._nested_in_string = False
        self._nested_escape = False

    @property
    def done(self) -> bool:
        """The top-level object is complete."""
        return self._state == _DONE

    def push(self, fragment: str | bytes) -> None:
        """Add the next fragment of the argument text.

        ``bytes`` are decoded as UTF-8 incrementally (a character split between two pushes is
        fine); ``str`` fragments are used as they are.
        """
        if type(fragment) is not str:
            if self._bytes_decoder is None:
                self._bytes_decoder = codecs.getincrementaldecoder("utf-8")("strict")
            try:
                fragment = self._bytes_decoder.decode(fragment)  # type: ignore[arg-type]
            except UnicodeDecodeError as exc:
                self._fail(f"invalid UTF-8: {exc}")
                return
        state = self._state
        if fragment and state not in (_FAILED, _NOT_OBJECT):
            self._scan(fragment, 0)
            if self._state == _IN_STRING:
                self._report_progress()

    def feed(self, fragment: str | bytes) -> list[ArgsEvent]:
        """``push(fragment)`` then ``poll()``, in one call.

        The same events and state, sooner: a ``str`` fragment inside a top-level string value
        or a nested value is read by a fast path when it can be (see the module docstring).
        """
        if type(fragment) is str and not self._events:
            state = self._state
            if state == _IN_STRING:
                if not self._tail and _STRING_SPECIAL.search(fragment) is None:
                    # The most common fragment: plain text, which is its own decoding.
                    if not fragment:
                        return []
                    raw = self._raw
                    raw.append(fragment)
                    if len(raw) >= _BLOCK:
                        self._blocks.append("".join(raw))
                        raw.clear()
                    self._received += len(fragment)
                    return [ArgsProgress(self._key, self._received, fragment)]
                events = self._feed_string(fragment)
                if events is not None:
                    return events
            elif state == _IN_NESTED:
                if not self._nested_escape and _NESTED_SPECIAL_BUT_QUOTE.search(fragment) is None:
                    # The most common fragment: no bracket and no backslash, so only its
                    # quotes change the scan's state (every one opens or closes a string).
                    if fragment.count('"') & 1:
                        self._nested_in_string = not self._nested_in_string
                    raw = self._raw
                    raw.append(fragment)
                    if len(raw) >= _BLOCK:
                        self._blocks.append("".join(raw))
                        raw.clear()
                    return []
                i = self._feed_nested(fragment)
                if i == len(fragment):
                    return []
                self._scan(fragment, i)  # the general scan goes on from there
                if self._state == _IN_STRING:
                    self._report_progress()
                return self.poll()
        self.push(fragment)
        return self.poll()

    def poll(self) -> list[ArgsEvent]:
        """The events discovered since the last poll, in order."""
        events, self._events = self._events, []
        return events

    # -- fast paths of feed ----------------------------------------------------------------

    def _feed_string(self, s: str) -> list[ArgsEvent] | None:
        """``s`` continues a top-level string value and is not plain text: its events, or
        ``None`` (nothing changed) when only the general scan can read it (a closing quote,
        an error)."""
        tail = self._tail
        text = tail + s if tail else s
        n = len(text)
        k = text.rfind("\\")
        if k < 0:
            return None  # a quote or a control character
        if k < n - 6 or (k < n - 1 and text[k + 1] != "u"):
            # No escape can be cut at the end, nor a high surrogate wait there for its other
            # half: the whole text is one run, which the JSON library checks as it decodes.
            run, rest = text, ""
        else:
            m = _RUN_AND_CUT.fullmatch(text)
            if m is None:
                return None
            end = m.end(1)
            run, rest = (text, "") if end == n else (text[:end], text[end:])
            if end >= 6 and text[end - 6] == "\\":
                high = _high_surrogate_at_end(run)
                if high >= 0:  # its low half may be in the next fragment
                    run, rest = run[:high], run[high:] + rest
            if not run:
                self._tail = rest
                return []
        try:
            decoded = _decode_string(f'"{run}"') if "\\" in run else run
        except (msgspec.DecodeError, UnicodeEncodeError):
            return None  # a quote, a control character, a bad escape, a lone surrogate
        self._tail = rest
        raw = self._raw
        raw.append(run)
        if len(raw) >= _BLOCK:
            self._blocks.append("".join(raw))
            raw.clear()
        self._received += len(decoded)
        return [ArgsProgress(self._key, self._received, decoded)]

    def _feed_nested(self, s: str) -> int:
        """``s`` continues a nested value: read it up to where only the general scan can go
        on (a string cut by the fragment, the closing bracket, a bracket too deep, a
        backslash ending the fragment), and return that index (``len(s)``: all read)."""
        n = len(s)
        i = 0
        if self._nested_escape:  # the previous fragment ended with a backslash
            if not n:
                return 0
            i = 1
        depth = self._depth
        in_string = self._nested_in_string
        max_nested = self._max_nested
        run = _NESTED_RUN.match
        while i < n:
            if in_string:
                j = _NESTED_IN_STRING_RUN.match(s, i).end()  # type: ignore[union-attr]
                if j == n or s[j] != '"':  # the fragment ends inside the string
                    i = j
                    break
                in_string = False
                i = j + 1
                continue
            m = run(s, i)
            j = m.end()  # type: ignore[union-attr]
            if m.lastindex is not None:  # type: ignore[union-attr]
                in_string = True  # the fragment ends inside a string it opened
                i = j
                break
            if j == n:
                i = n
                break
            c = s[j]
            if c in {"{", "["}:
                if depth >= max_nested:
                    i = j  # the general scan reports it
                    break
                depth += 1
            elif c in {"}", "]"}:
                if depth == 1:
                    i = j  # the value ends: the general scan completes it
                    break
                depth -= 1
            else:
                i = j  # a backslash ending the fragment
                break
            i = j + 1
        if i:
            raw = self._raw
            raw.append(s if i == n else s[:i])
            if len(raw) >= _BLOCK:
                self._blocks.append("".join(raw))
                raw.clear()
            self._nested_escape = False
            self._depth = depth
            self._nested_in_string = in_string
        return i

    # -- the general scan ------------------------------------------------------------------

    def _fail(self, reason: str) -> None:
        self._state = _FAILED
        self.error = reason
        self._raw = []
        self._blocks = []
        self._pending = []

    def _scan(self, s: str, i: int) -> None:
        """Read ``s`` from index ``i``, in whatever state the parser is."""
        n = len(s)
        while i < n:
            state = self._state
            # Inside a key or a value: its own scanner.
            if state == _IN_STRING:
                i = self._scan_string_value(s, i)
                continue
            if state == _IN_NESTED:
                i = self._scan_nested(s, i)
                continue
            if state == _IN_KEY:
                i = self._scan_key(s, i)
                continue
            if state == _IN_SCALAR:
                i = self._scan_scalar(s, i)
                continue
            i = _WS.match(s, i).end()  # type: ignore[union-attr]
            if i >= n:
                return
            c = s[i]
            if state == _START:
                if c != "{":
                    self._state = _NOT_OBJECT
                    return
                self._state = _KEY_OR_END
                i += 1
            elif state in (_KEY_OR_END, _KEY):
                if c == '"':
                    self._state = _IN_KEY
                    self._raw = ['"']
                    i += 1
                elif c == "}" and state == _KEY_OR_END:
                    self._state = _DONE
                    i += 1
                else:
                    return self._fail(f"expected a key at {c!r}")
            elif state == _COLON:
                if c != ":":
                    return self._fail(f"expected ':' after key {self._key!r}, got {c!r}")
                self._state = _VALUE
                i += 1
            elif state == _VALUE:
                i = self._start_value(c, i)
            elif state == _COMMA_OR_END:
                if c == ",":
                    self._state = _KEY
                elif c == "}":
                    self._state = _DONE
                else:
                    return self._fail(f"expected ',' or '}}' after the value of {self._key!r}")
                i += 1
            elif state == _DONE:
                return self._fail(f"unexpected {c!r} after the arguments object")
            else:  # FAILED / NOT_OBJECT
                return

    def _start_value(self, c: str, i: int) -> int:
        if c == '"':
            self._state = _IN_STRING
            self._raw = ['"']
            self._pending = []
            self._received = 0
            return i + 1
        if c in {"{", "["}:
            self._state = _IN_NESTED
            self._raw = []
            self._depth = 0
            self._nested_in_string = False
            self._nested_escape = False
            return i
        if c == "-" or (c.isascii() and (c.isdigit() or c.isalpha())):
            self._state = _IN_SCALAR
            self._raw = []
            return i
        self._fail(f"unexpected {c!r} where the value of {self._key!r} should start")
        return i

    def _complete(self, raw: str) -> None:
        """A value's text is complete: decode it and report it."""
        try:
            value = _decode(raw)
        except msgspec.DecodeError as exc:  # msgspec.ValidationError is a DecodeError too
            self._fail(f"invalid value for {self._key!r}: {exc}")
            return
        except UnicodeEncodeError:  # a str fragment held a lone surrogate character
            self._fail(f"lone surrogate in the value of {self._key!r}")
            return
        except RecursionError:
            self._fail(f"the value of {self._key!r} nests deeper than the stack allows")
            return
        self._events.append(ArgsParsed(self._key, value))
        self._state = _COMMA_OR_END
        self._raw = []

    def _scan_key(self, s: str, i: int) -> int:
        raw = self._raw
        n = len(s)
        if self._key_escape:  # the previous fragment ended with a backslash
            self._key_escape = False
            raw.append(s[i])
            i += 1
        while i < n:
            m = _STRING_SPECIAL.search(s, i)
            if m is None:
                raw.append(s[i:])
                return n
            j = m.start()
            c = s[j]
            if c == "\\":
                raw.append(s[i : j + 1])
                if j + 1 < n:
                    raw.append(s[j + 1])
                    i = j + 2
                else:
                    self._key_escape = True  # the escaped character comes with the next fragment
                    return n
                continue
            raw.append(s[i : j + 1])
            if c != '"':
                self._fail(f"{_unexpected(c)} in a key")
                return n
            try:
                self._key = _decode("".join(raw))
            except msgspec.DecodeError as exc:
                self._fail(f"invalid key: {exc}")
                return n
            except UnicodeEncodeError:  # a str fragment held a lone surrogate character
                self._fail("lone surrogate in a key")
                return n
            self._raw = []
            self._state = _COLON
            return j + 1
        return i

    def _scan_scalar(self, s: str, i: int) -> int:
        end = _SCALAR_CHARS.match(s, i).end()  # type: ignore[union-attr]
        if end > i:
            self._raw.append(s[i:end])
        if end == len(s):
            return end  # the number may go on in the next fragment
        token = self._text()
        if token not in ("true", "false", "null") and _NUMBER.fullmatch(token) is None:
            self._fail(f"invalid value {token[:40]!r} for {self._key!r}")
            return len(s)
        self._complete(token)
        return end

    def _scan_nested(self, s: str, i: int) -> int:
        n = len(s)
        start = i
        while i < n:
            if self._nested_escape:
                self._nested_escape = False
                i += 1
                continue
            pattern = _NESTED_STRING_SPECIAL if self._nested_in_string else _NESTED_SPECIAL
            m = pattern.search(s, i)
            if m is None:
                break
            j = m.start()
            c = s[j]
            i = j + 1
            if c == "\\":
                self._nested_escape = True
            elif c == '"':
                self._nested_in_string = not self._nested_in_string
            elif c in {"{", "["}:
                self._depth += 1
                if self._depth > self._max_nested:
                    self._fail(
                        f"the value of {self._key!r} nests deeper than "
                        f"{self._max_nested + 1} levels"
                    )
                    return n
            else:  # "}" or "]"
                self._depth -= 1
                if self._depth == 0:
                    self._keep(s[start:i])
                    self._complete(self._text())
                    return i
        self._keep(s[start:])
        return n

    def _scan_string_value(self, s: str, i: int) -> int:
        """Read a top-level string value: runs of ordinary characters and complete escapes
        are matched and decoded in bulk; an escape cut by the end of the fragment (or a high
        surrogate whose pair may follow) waits in ``_tail``."""
        tail = self._tail
        text = tail + s[i:] if tail else s[i:]
        self._tail = ""
        end = _STRING_RUN.match(text).end()  # type: ignore[union-attr]
        if end < len(text):
            c = text[end]
            if c == '"':
                if not self._take(text[:end], closing=True):
                    return len(s)
                self._raw.append('"')
                self._pending.clear()
                self._complete(self._text())
                return i + end + 1 - len(tail)
            if c != "\\" or _ESCAPE_PREFIX.fullmatch(text, end) is None:
                what = _unexpected(c) if c != "\\" else f"invalid escape {text[end : end + 6]!r}"
                self._fail(f"{what} in the value of {self._key!r}")
                return len(s)
        run, rest = text[:end], text[end:]
        high = _high_surrogate_at_end(run)
        if high >= 0:  # its low half may be in the next fragment
            run, rest = run[:high], run[high:] + rest
        self._take(run, closing=False)
        self._tail = rest
        return len(s)

    def _take(self, run: str, *, closing: bool) -> bool:
        """Decode a run of the string (ordinary characters and complete escapes)."""
        if not run:
            return True
        if "\\" in run:
            try:
                decoded = _decode_string(f'"{run}"')
            except (msgspec.DecodeError, UnicodeEncodeError):
                self._fail(f"lone surrogate in the value of {self._key!r}")
                return False
        else:
            decoded = run  # no escape: the text is its own decoding
        self._keep(run)
        if not closing:
            self._pending.append(decoded)
            self._received += len(decoded)
        return True

    def _keep(self, text: str) -> None:
        raw = self._raw
        raw.append(text)
        if len(raw) >= _BLOCK:
            self._blocks.append("".join(raw))
            raw.clear()  # in place: callers may hold this list

    def _text(self) -> str:
        """The raw text of the value (or key) being read, then forget it."""
        text = "".join(self._blocks) + "".join(self._raw)
        self._blocks = []
        self._raw = []
        return text

    def _report_progress(self) -> None:
        if self._pending:
            text = "".join(self._pending)
            self._pending = []
            self._events.append(ArgsProgress(self._key, self._received, text))
