"""Independent Server-Sent Events decoding cases for ``raf.sse.SSEDecoder``.

Every expectation in this table was written by hand from the specification text,
HTML Living Standard section 9.2.6 "Interpreting an event stream" (with 9.2.5
"Parsing an event stream" for the grammar and the UTF-8 decode step), and from
the assertions of the web-platform-tests ``eventsource/format-*`` tests.  None
of them were produced by running a decoder, and this module imports nothing
from ``raf``.

Where a case comes from
-----------------------
``web-platform-tests/wpt`` (files as stored at the commit shown)::

    eventsource/format-bom.js                          65cfe0a7fe33
    eventsource/format-bom-2.any.js                    5f9fb0d9f20d
    eventsource/format-comments.js                     65cfe0a7fe33
    eventsource/format-data-before-final-empty-line.js 65cfe0a7fe33
    eventsource/format-field-data.js                   65cfe0a7fe33
    eventsource/format-field-event.htm                 116d43a2e991
    eventsource/format-field-event-empty.htm           500d1c779e50
    eventsource/format-field-id.htm                    96863b45b766
    eventsource/format-field-id-2.any.js               5f9fb0d9f20d
    eventsource/format-field-id-3.htm                  b3ec19cc197a
    eventsource/format-field-id-null.htm               2a453c099ae8  (legacy, see below)
    eventsource/format-field-retry.htm                 30127dcaea78
    eventsource/format-field-retry-bogus.htm           433f8fa3e0bf
    eventsource/format-utf-8.any.js                    3fa157157a4e
    eventsource/format-utf-8.htm                       06df65b88fa1  (legacy, see below)
    eventsource/event-data.html                        1d51f10d4d0a
    eventsource/resources/message.php                  2b6775813674
    eventsource/resources/last-event-id.php            96863b45b766
    eventsource/resources/last-event-id2.py            b3ec19cc197a

the WPT mirror in ``servo/servo`` under ``tests/wpt/web-platform-tests/eventsource/``
(for files the wpt index above did not hold)::

    format-field-parsing.htm, format-field-retry-empty.htm, format-field-unknown.htm,
    format-leading-space.htm, format-newlines.htm, format-null-character.html,
    format-comments.htm, format-bom.htm, format-data-before-final-empty-line.htm,
    format-field-retry.htm (03000 revision), format-field-retry-bogus.htm (3000 revision),
    resources/message2.py, resources/last-event-id.py (the ``idvalue`` revision, 0b61cfc3ae80)

and ``xyaoinum/wpt`` ``eventsource/format-field-id-null.window.js`` (d474c2a0587f), the
current form of the U+0000 id test.  The body that ``resources/message.py`` sends is
``message + (b"" if newline == "none" else b"\\n\\n") + b"\\n"`` (same as message.php);
:func:`_message_py` reproduces it.  The ``format-mime-*`` tests are not translated:
they test HTTP Content-Type handling, which a byte-level decoder never sees.

Legacy WPT expectations that disagree with the current standard (not used as cases):

* ``format-field-id-null.htm`` (2a453c09) asserted ``lastEventId == "\\0\\0"``; the current
  standard ignores an ``id`` field containing U+0000 and the current test
  (``format-field-id-null.window.js``) asserts ``""``.  The cases follow the standard.
* ``format-utf-8.htm`` (06df65b8) expected the connection to fail because of
  ``charset=windows-1252``; the current standard decodes the stream as UTF-8 regardless
  and ``format-utf-8.any.js`` asserts ``"ok…"``.  The cases follow the standard.

How to read a case
------------------
``events`` is everything the decoder returns for ``stream`` -- the concatenation of what
``feed()`` and ``close()`` return -- whatever the chunking of ``stream`` into ``feed()``
calls.  ``last_event_id``, ``retry`` and ``truncated`` are the decoder attributes after
``close()``.  ``Expected.id`` is the last event ID string at dispatch time and
``Expected.retry`` is a valid ``retry`` value from that event's own block (else ``None``);
the decoder's ``retry`` attribute is the reconnection time, which the standard sets when
the ``retry`` field is *processed* (not at dispatch), so a complete ``retry:`` line in a
block that is later discarded still sets it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Expected:
    event: str
    data: str
    id: str = ""
    retry: int | None = None


@dataclass(frozen=True)
class SSECase:
    name: str  # short snake_case identifier, unique
    source: str  # where the rule comes from
    stream: bytes  # the whole input byte stream
    events: tuple[Expected, ...]
    last_event_id: str = ""  # decoder.last_event_id after close()
    retry: int | None = None  # decoder.retry after close()
    truncated: bool = False  # decoder.truncated after close()


def _message_py(message: bytes, *, newline: bool = True) -> bytes:
    """The body wpt ``eventsource/resources/message.py`` sends for ``?message=...``.

    ``newline=False`` is ``&newline=none``.
    """
    return message + (b"\n\n" if newline else b"") + b"\n"


_ELLIPSIS = "\u2026"  # HORIZONTAL ELLIPSIS, the default id of last-event-id.py


def _last_event_id_py(idvalue: bytes = _ELLIPSIS.encode("utf-8")) -> bytes:
    """First-connection body of wpt ``eventsource/resources/last-event-id.py``."""
    return b"id: " + idvalue + b"\nretry: 200\ndata: hello\n\n"


_LONG = b"x" * 2048  # format-comments.js: (new Array(2*1024+1)).join("x")

_S = "WHATWG 9.2.6"  # HTML Living Standard, "Interpreting an event stream"
_UTF8 = "WHATWG 9.2.6 + Encoding 'UTF-8 decode' (U+FFFD per maximal subpart)"

MSG = "message"

_WPT_CASES: tuple[SSECase, ...] = (
    SSECase(
        name="wpt_format_bom",
        source="wpt eventsource/format-bom.js: 1st BOM stripped, 2nd BOM makes '\\ufeffdata' "
        "an unknown field",
        stream=_message_py(b"\xef\xbb\xbfdata:1\n\n\xef\xbb\xbfdata:2\n\ndata:3"),
        events=(Expected(MSG, "1"), Expected(MSG, "3")),
    ),
    SSECase(
        name="wpt_format_bom_2",
        source="wpt eventsource/format-bom-2.any.js (double BOM: only one is stripped)",
        stream=_message_py(b"\xef\xbb\xbf\xef\xbb\xbfdata:1\n\ndata:2\n\ndata:3"),
        events=(Expected(MSG, "2"), Expected(MSG, "3")),
    ),
    SSECase(
        name="wpt_format_comments",
        source="wpt eventsource/format-comments.js (newline=none)",
        stream=_message_py(
            b"data:1\r:\x00\n:\r\ndata:2\n:"
            + _LONG
            + b"\rdata:3\n:data:fail\r:"
            + _LONG
            + b"\ndata:4\n",
            newline=False,
        ),
        events=(Expected(MSG, "1\n2\n3\n4"),),
    ),
    SSECase(
        name="wpt_format_data_before_final_empty_line",
        source="wpt eventsource/format-data-before-final-empty-line.js (newline=none): the "
        "final block lacks its blank line, so 'id:test' never becomes the last event ID",
        stream=_message_py(b"retry:1000\ndata:test1\n\nid:test\ndata:test2", newline=False),
        events=(Expected(MSG, "test1", retry=1000),),
        retry=1000,
        truncated=True,
    ),
    SSECase(
        name="wpt_format_field_data",
        source="wpt eventsource/format-field-data.js",
        stream=_message_py(b"data:\n\ndata\ndata\n\ndata:test"),
        events=(Expected(MSG, ""), Expected(MSG, "\n"), Expected(MSG, "test")),
    ),
    SSECase(
        name="wpt_format_field_event",
        source="wpt eventsource/format-field-event.htm",
        stream=_message_py(b"event:test\ndata:x\n\ndata:x"),
        events=(Expected("test", "x"), Expected(MSG, "x")),
    ),
    SSECase(
        name="wpt_format_field_event_empty",
        source="wpt eventsource/format-field-event-empty.htm",
        stream=_message_py(b"event: \ndata:data"),
        events=(Expected(MSG, "data"),),
    ),
    SSECase(
        name="wpt_format_field_id",
        source="wpt eventsource/format-field-id.htm + format-field-id-2.any.js, first "
        "connection of resources/last-event-id.py (reconnects with Last-Event-ID are HTTP-level "
        "and not expressible here)",
        stream=_last_event_id_py(),
        events=(Expected(MSG, "hello", id=_ELLIPSIS, retry=200),),
        last_event_id=_ELLIPSIS,
        retry=200,
    ),
    SSECase(
        name="wpt_format_field_id_3_persists",
        source="wpt eventsource/format-field-id-3.htm (last-event-id2.py type=1)",
        stream=b"id: 1\ndata: 1\n\ndata:2\n\n",
        events=(Expected(MSG, "1", id="1"), Expected(MSG, "2", id="1")),
        last_event_id="1",
    ),
    SSECase(
        name="wpt_format_field_id_3_changes_and_persists",
        source="wpt eventsource/format-field-id-3.htm (last-event-id2.py type=2)",
        stream=b"id: 1\ndata: 1\n\nid: 2\ndata:2\n\ndata:3\n\n",
        events=(
            Expected(MSG, "1", id="1"),
            Expected(MSG, "2", id="2"),
            Expected(MSG, "3", id="2"),
        ),
        last_event_id="2",
    ),
    SSECase(
        name="wpt_format_field_id_3_resets",
        source="wpt eventsource/format-field-id-3.htm (last-event-id2.py type=3)",
        stream=b"id: 1\ndata: 1\n\nid:\ndata:2\n\ndata:3\n\n",
        events=(
            Expected(MSG, "1", id="1"),
            Expected(MSG, "2", id=""),
            Expected(MSG, "3", id=""),
        ),
        last_event_id="",
    ),
    SSECase(
        name="wpt_format_field_id_null_nul_nul",
        source="wpt eventsource/format-field-id-null.window.js idvalue=%00%00",
        stream=_last_event_id_py(b"\x00\x00"),
        events=(Expected(MSG, "hello", id="", retry=200),),
        retry=200,
    ),
    SSECase(
        name="wpt_format_field_id_null_x_nul",
        source="wpt eventsource/format-field-id-null.window.js idvalue=x%00",
        stream=_last_event_id_py(b"x\x00"),
        events=(Expected(MSG, "hello", id="", retry=200),),
        retry=200,
    ),
    SSECase(
        name="wpt_format_field_id_null_nul_x",
        source="wpt eventsource/format-field-id-null.window.js idvalue=%00x",
        stream=_last_event_id_py(b"\x00x"),
        events=(Expected(MSG, "hello", id="", retry=200),),
        retry=200,
    ),
    SSECase(
        name="wpt_format_field_id_null_x_nul_x",
        source="wpt eventsource/format-field-id-null.window.js idvalue=x%00x",
        stream=_last_event_id_py(b"x\x00x"),
        events=(Expected(MSG, "hello", id="", retry=200),),
        retry=200,
    ),
    SSECase(
        name="wpt_format_field_id_null_space_nul",
        source="wpt eventsource/format-field-id-null.window.js idvalue=%20%00 (value ' \\0' "
        "after one space is removed)",
        stream=_last_event_id_py(b" \x00"),
        events=(Expected(MSG, "hello", id="", retry=200),),
        retry=200,
    ),
    SSECase(
        name="wpt_format_field_parsing",
        source="wpt eventsource/format-field-parsing.htm (newline=none)",
        stream=_message_py(
            b"data:\x00\ndata:  2\rData:1\ndata\x00:2\ndata:1\r\x00data:4\nda-ta:3\r"
            b"data_5\ndata:3\rdata:\r\n data:32\ndata:4\n",
            newline=False,
        ),
        events=(Expected(MSG, "\x00\n 2\n1\n3\n\n4"),),
    ),
    SSECase(
        name="wpt_format_field_retry",
        source="wpt eventsource/format-field-retry.htm ('03000' is decimal 3000, not octal); "
        "reconnection timing itself is not observable here",
        stream=_message_py(b"retry:03000\ndata:x"),
        events=(Expected(MSG, "x", retry=3000),),
        retry=3000,
    ),
    SSECase(
        name="wpt_format_field_retry_02000",
        source="wpt eventsource/format-field-retry.htm, older revision 30127dca ('02000')",
        stream=_message_py(b"retry:02000\ndata:x"),
        events=(Expected(MSG, "x", retry=2000),),
        retry=2000,
    ),
    SSECase(
        name="wpt_format_field_retry_bogus",
        source="wpt eventsource/format-field-retry-bogus.htm: 'retry:1000x' is ignored, 3000 stays",
        stream=_message_py(b"retry:3000\nretry:1000x\ndata:x"),
        events=(Expected(MSG, "x", retry=3000),),
        retry=3000,
    ),
    SSECase(
        name="wpt_format_field_retry_bogus_2000",
        source="wpt eventsource/format-field-retry-bogus.htm, older revision 433f8fa3",
        stream=_message_py(b"retry:2000\nretry:1000x\ndata:x"),
        events=(Expected(MSG, "x", retry=2000),),
        retry=2000,
    ),
    SSECase(
        name="wpt_format_field_retry_empty",
        source="wpt eventsource/format-field-retry-empty.htm ('retry' without colon = empty "
        "value, ignored)",
        stream=_message_py(b"retry\ndata:test"),
        events=(Expected(MSG, "test"),),
    ),
    SSECase(
        name="wpt_format_field_unknown",
        source="wpt eventsource/format-field-unknown.htm",
        stream=_message_py(
            b"data:test\n data\ndata\nfoobar:xxx\njustsometext\n:thisisacommentyay\ndata:test"
        ),
        events=(Expected(MSG, "test\n\ntest"),),
    ),
    SSECase(
        name="wpt_format_leading_space",
        source="wpt eventsource/format-leading-space.htm (TAB is not stripped; CR as newline)",
        stream=_message_py(b"data:\ttest\rdata: \ndata:test"),
        events=(Expected(MSG, "\ttest\n\ntest"),),
    ),
    SSECase(
        name="wpt_format_newlines",
        source="wpt eventsource/format-newlines.htm (newline=none; the final CR + message.py's "
        "LF form one CRLF)",
        stream=_message_py(b"data:test\r\ndata\ndata:test\r\n\r", newline=False),
        events=(Expected(MSG, "test\n\ntest"),),
    ),
    SSECase(
        name="wpt_format_null_character",
        source="wpt eventsource/format-null-character.html",
        stream=_message_py(b"data:\x00\n\n"),
        events=(Expected(MSG, "\x00"),),
    ),
    SSECase(
        name="wpt_format_utf_8",
        source="wpt eventsource/format-utf-8.any.js (always UTF-8, whatever the charset)",
        stream=_message_py(b"data:ok\xe2\x80\xa6"),
        events=(Expected(MSG, "ok\u2026"),),
    ),
    SSECase(
        name="wpt_event_data_message2",
        source="wpt eventsource/event-data.html, one loop of resources/message2.py",
        stream=(
            b"data:msg\ndata: msg\n\n:\nfalsefield:msg\n\nfalsefield:msg\nData:data\n\n"
            b"data\n\ndata:end\n\n"
        ),
        events=(Expected(MSG, "msg\nmsg"), Expected(MSG, ""), Expected(MSG, "end")),
    ),
)

_LINE_END_CASES: tuple[SSECase, ...] = (
    SSECase(
        name="lf_basic",
        source=f"{_S}: LF ends a line, blank line dispatches",
        stream=b"data: hello\n\n",
        events=(Expected(MSG, "hello"),),
    ),
    SSECase(
        name="crlf_basic",
        source=f"{_S}: CRLF ends a line",
        stream=b"data: hello\r\n\r\n",
        events=(Expected(MSG, "hello"),),
    ),
    SSECase(
        name="cr_only",
        source=f"{_S}: a CR not followed by LF ends a line",
        stream=b"data: a\rdata: b\r\r",
        events=(Expected(MSG, "a\nb"),),
    ),
    SSECase(
        name="mixed_endings",
        source=f"{_S}: CRLF, LF and CR mixed in one block",
        stream=b"data: a\r\ndata: b\ndata: c\r\r\n",
        events=(Expected(MSG, "a\nb\nc"),),
    ),
    SSECase(
        name="crlf_counted_once",
        source=f"{_S}: CR followed by LF is one line end, not a line end plus a blank line",
        stream=b"data: a\r\ndata: b\r\n\r\n",
        events=(Expected(MSG, "a\nb"),),
    ),
    SSECase(
        name="lf_then_cr_is_two_line_ends",
        source=f"{_S}: LF then CR (not followed by LF) are two line ends -> blank line",
        stream=b"data: a\n\rdata: b\n\n",
        events=(Expected(MSG, "a"), Expected(MSG, "b")),
    ),
    SSECase(
        name="lf_then_crlf_blank_line",
        source=f"{_S}: LF ends the data line, the following CRLF ends a blank line",
        stream=b"data: a\n\r\n",
        events=(Expected(MSG, "a"),),
    ),
    SSECase(
        name="lone_cr_final_byte_ends_blank_line",
        source=f"{_S}: a CR as the stream's last byte is 'not followed by LF' and ends the line",
        stream=b"data: x\r\r",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="lone_cr_final_byte_after_lf",
        source=f"{_S}: final CR ends the blank line after an LF-terminated data line",
        stream=b"data: x\n\r",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="lone_cr_final_byte_ends_data_line_only",
        source=f"{_S}: final CR ends 'data: b' but no blank line follows -> block discarded",
        stream=b"data: a\n\ndata: b\r",
        events=(Expected(MSG, "a"),),
        truncated=True,
    ),
    SSECase(
        name="crlf_blank_lines_repeated",
        source=f"{_S}: extra CRLF blank lines dispatch nothing (empty data buffer)",
        stream=b"data: a\r\n\r\n\r\n\r\n",
        events=(Expected(MSG, "a"),),
    ),
    SSECase(
        name="u2028_not_line_end",
        source=f"{_S}: only CRLF/LF/CR end lines; U+2028 stays in the data",
        stream=b"data: a\xe2\x80\xa8b\n\n",
        events=(Expected(MSG, "a\u2028b"),),
    ),
    SSECase(
        name="u2029_not_line_end",
        source=f"{_S}: U+2029 PARAGRAPH SEPARATOR is not a line end",
        stream=b"data: a\xe2\x80\xa9b\n\n",
        events=(Expected(MSG, "a\u2029b"),),
    ),
    SSECase(
        name="u0085_not_line_end",
        source=f"{_S}: U+0085 NEL (C2 85) is not a line end",
        stream=b"data: a\xc2\x85b\n\n",
        events=(Expected(MSG, "a\x85b"),),
    ),
    SSECase(
        name="vt_ff_not_line_end",
        source=f"{_S}: U+000B and U+000C are not line ends",
        stream=b"data: a\x0bb\x0cc\n\n",
        events=(Expected(MSG, "a\x0bb\x0cc"),),
    ),
    SSECase(
        name="fs_gs_rs_not_line_end",
        source=f"{_S}: U+001C..U+001E (str.splitlines separators) are not line ends",
        stream=b"data: a\x1cb\x1dc\x1ed\n\n",
        events=(Expected(MSG, "a\x1cb\x1dc\x1ed"),),
    ),
    SSECase(
        name="raw_0x85_byte_not_line_end",
        source=f"{_UTF8}: a lone 0x85 byte is invalid UTF-8 -> U+FFFD, not NEL",
        stream=b"data: a\x85b\n\n",
        events=(Expected(MSG, "a\ufffdb"),),
    ),
    SSECase(
        name="whitespace_only_line_is_not_blank",
        source=f"{_S}: a line holding one space is a field named ' ' (ignored), not a blank line",
        stream=b"data: a\n \ndata: b\n\n",
        events=(Expected(MSG, "a\nb"),),
    ),
    SSECase(
        name="multiple_blank_lines_between_events",
        source=f"{_S}: extra blank lines dispatch nothing",
        stream=b"data: a\n\n\n\ndata: b\n\n",
        events=(Expected(MSG, "a"), Expected(MSG, "b")),
    ),
)

_BOM_CASES: tuple[SSECase, ...] = (
    SSECase(
        name="bom_stripped_at_start",
        source=f"{_S}: one leading U+FEFF BOM is ignored",
        stream=b"\xef\xbb\xbfdata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="bom_twice_at_start",
        source=f"{_S}: only one BOM is stripped; the 2nd makes field '\\ufeffdata' unknown",
        stream=b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\ndata: y\n\n",
        events=(Expected(MSG, "y"),),
    ),
    SSECase(
        name="bom_mid_stream_kept",
        source=f"{_S}: a BOM not at stream start is part of the line -> unknown field",
        stream=b"data: a\n\n\xef\xbb\xbfdata: b\n\ndata: c\n\n",
        events=(Expected(MSG, "a"), Expected(MSG, "c")),
    ),
    SSECase(
        name="bom_after_leading_blank_line_kept",
        source=f"{_S}: the BOM is only stripped at the very start of the stream",
        stream=b"\n\xef\xbb\xbfdata: x\n\n",
        events=(),
    ),
    SSECase(
        name="bom_inside_data_value_kept",
        source=f"{_S}: U+FEFF inside a value is ordinary data",
        stream=b"data: \xef\xbb\xbfx\n\n",
        events=(Expected(MSG, "\ufeffx"),),
    ),
    SSECase(
        name="bom_only_stream",
        source=f"{_S}: a stream that is just a BOM decodes to the empty string",
        stream=b"\xef\xbb\xbf",
        events=(),
    ),
    SSECase(
        name="partial_bom_at_eof",
        source=f"{_UTF8}: EF BB at EOF is one truncated sequence -> one U+FFFD, an "
        "unterminated line",
        stream=b"\xef\xbb",
        events=(),
        truncated=True,
    ),
    SSECase(
        name="partial_bom_before_data",
        source=f"{_UTF8}: EF BB then 'd' -> U+FFFD, so the field is '\\ufffddata' (unknown)",
        stream=b"\xef\xbbdata: x\n\n",
        events=(),
    ),
)

_FIELD_CASES: tuple[SSECase, ...] = (
    SSECase(
        name="data_without_colon",
        source=f"{_S}: line without colon = field with empty value; data buffer '\\n' -> ''",
        stream=b"data\n\n",
        events=(Expected(MSG, ""),),
    ),
    SSECase(
        name="data_colon_space_empty",
        source=f"{_S}: 'data: ' has empty value and still dispatches",
        stream=b"data: \n\n",
        events=(Expected(MSG, ""),),
    ),
    SSECase(
        name="data_two_spaces_one_removed",
        source=f"{_S}: only one U+0020 after the colon is removed",
        stream=b"data:  x\n\n",
        events=(Expected(MSG, " x"),),
    ),
    SSECase(
        name="data_no_space",
        source=f"{_S}: 'data:x' has value 'x'",
        stream=b"data:x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="data_tab_not_removed",
        source=f"{_S}: only U+0020 is removed after the colon, not TAB",
        stream=b"data:\tx\n\n",
        events=(Expected(MSG, "\tx"),),
    ),
    SSECase(
        name="data_trailing_space_kept",
        source=f"{_S}: trailing whitespace of a value is kept",
        stream=b"data: x \n\n",
        events=(Expected(MSG, "x "),),
    ),
    SSECase(
        name="multiple_data_lines_joined",
        source=f"{_S}: each data value is followed by LF; one trailing LF removed",
        stream=b"data: a\ndata: b\ndata: c\n\n",
        events=(Expected(MSG, "a\nb\nc"),),
    ),
    SSECase(
        name="data_two_empty_lines",
        source=f"{_S}: 'data' twice -> buffer '\\n\\n' -> '\\n'",
        stream=b"data\ndata\n\n",
        events=(Expected(MSG, "\n"),),
    ),
    SSECase(
        name="data_three_empty_lines",
        source=f"{_S}: only ONE trailing LF is removed",
        stream=b"data\ndata\ndata\n\n",
        events=(Expected(MSG, "\n\n"),),
    ),
    SSECase(
        name="data_ends_with_empty_data_line",
        source=f"{_S}: 'data: a' + 'data' -> 'a\\n'",
        stream=b"data: a\ndata\n\n",
        events=(Expected(MSG, "a\n"),),
    ),
    SSECase(
        name="data_empty_line_in_middle",
        source=f"{_S}: an empty data line in the middle gives an empty line",
        stream=b"data: a\ndata:\ndata: b\n\n",
        events=(Expected(MSG, "a\n\nb"),),
    ),
    SSECase(
        name="colon_in_value_kept",
        source=f"{_S}: only the first colon splits name and value",
        stream=b"data: a:b\n\n",
        events=(Expected(MSG, "a:b"),),
    ),
    SSECase(
        name="value_starting_with_colon",
        source=f"{_S}: 'data::x' has value ':x'",
        stream=b"data::x\n\n",
        events=(Expected(MSG, ":x"),),
    ),
    SSECase(
        name="data_colon_keepalive_is_data",
        source=f"{_S}: 'data: : keepalive' is a data field, value ': keepalive', not a comment",
        stream=b"data: : keepalive\n\n",
        events=(Expected(MSG, ": keepalive"),),
    ),
    SSECase(
        name="field_name_case_sensitive",
        source=f"{_S}: field names compare exactly; 'Data' is unknown",
        stream=b"Data: x\n\n",
        events=(),
    ),
    SSECase(
        name="field_name_case_sensitive_mixed",
        source=f"{_S}: 'DATA' ignored, 'data' kept",
        stream=b"DATA: x\ndata: y\n\n",
        events=(Expected(MSG, "y"),),
    ),
    SSECase(
        name="leading_space_before_field_name",
        source=f"{_S}: ' data: x' is the unknown field ' data'",
        stream=b" data: x\n\n",
        events=(),
    ),
    SSECase(
        name="space_before_colon",
        source=f"{_S}: 'data :x' is the unknown field 'data '",
        stream=b"data :x\n\n",
        events=(),
    ),
    SSECase(
        name="unknown_field_ignored",
        source=f"{_S}: unknown field names are ignored",
        stream=b"foo: bar\ndata: x\nbaz\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="nul_in_data",
        source=f"{_S}: U+0000 inside data is kept",
        stream=b"data: a\x00b\n\n",
        events=(Expected(MSG, "a\x00b"),),
    ),
    SSECase(
        name="multibyte_data",
        source=f"{_S}: UTF-8 multi-byte characters decode normally",
        stream=b"data: \xe2\x82\xac \xf0\x9f\x98\x80 \xe6\x97\xa5\n\n",
        events=(Expected(MSG, "\u20ac \U0001f600 \u65e5"),),
    ),
    SSECase(
        name="long_line",
        source=f"{_S}: no line length limit",
        stream=b"data: " + b"x" * 100_000 + b"\n\n",
        events=(Expected(MSG, "x" * 100_000),),
    ),
    SSECase(
        name="three_events",
        source=f"{_S}: each blank line dispatches its block",
        stream=b"data: 1\n\ndata: 2\n\ndata: 3\n\n",
        events=(Expected(MSG, "1"), Expected(MSG, "2"), Expected(MSG, "3")),
    ),
)

_EVENT_TYPE_CASES: tuple[SSECase, ...] = (
    SSECase(
        name="event_type_set",
        source=f"{_S}: 'event' sets the event type buffer",
        stream=b"event: add\ndata: 1\n\n",
        events=(Expected("add", "1"),),
    ),
    SSECase(
        name="event_type_reset_between_events",
        source=f"{_S}: event type buffer is reset to '' after each dispatch",
        stream=b"event: a\ndata: 1\n\ndata: 2\n\n",
        events=(Expected("a", "1"), Expected(MSG, "2")),
    ),
    SSECase(
        name="event_empty_value_is_message",
        source=f"{_S}: empty event type buffer -> type 'message'",
        stream=b"event:\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="event_without_colon_is_message",
        source=f"{_S}: 'event' alone sets an empty type -> 'message'",
        stream=b"event\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="event_cleared_by_later_empty_event",
        source=f"{_S}: a later 'event:' overwrites the buffer with ''",
        stream=b"event: a\nevent:\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="event_last_wins",
        source=f"{_S}: the last 'event' field of a block wins",
        stream=b"event: a\nevent: b\ndata: x\n\n",
        events=(Expected("b", "x"),),
    ),
    SSECase(
        name="event_after_data_in_block",
        source=f"{_S}: field order inside a block does not matter for the type",
        stream=b"data: x\nevent: e\n\n",
        events=(Expected("e", "x"),),
    ),
    SSECase(
        name="event_type_two_spaces",
        source=f"{_S}: one space removed, the second is part of the type",
        stream=b"event:  spaced\ndata: x\n\n",
        events=(Expected(" spaced", "x"),),
    ),
    SSECase(
        name="event_only_block_no_dispatch",
        source=f"{_S}: a block without data dispatches nothing",
        stream=b"event: x\n\n",
        events=(),
    ),
    SSECase(
        name="event_type_reset_after_undispatched_block",
        source=f"{_S} dispatch step 2: empty data buffer -> data AND event type buffers reset",
        stream=b"event: x\n\ndata: y\n\n",
        events=(Expected(MSG, "y"),),
    ),
)

_ID_CASES: tuple[SSECase, ...] = (
    SSECase(
        name="id_only_block_commits_id",
        source=f"{_S} dispatch step 1: last event ID string is set even when nothing dispatches",
        stream=b"id: 7\n\ndata: x\n\n",
        events=(Expected(MSG, "x", id="7"),),
        last_event_id="7",
    ),
    SSECase(
        name="id_only_stream",
        source=f"{_S}: id-only block sets the last event ID without an event",
        stream=b"id: 42\n\n",
        events=(),
        last_event_id="42",
    ),
    SSECase(
        name="id_persists_across_events",
        source=f"{_S}: the id buffer is not reset by dispatch",
        stream=b"id: 1\ndata: a\n\ndata: b\n\n",
        events=(Expected(MSG, "a", id="1"), Expected(MSG, "b", id="1")),
        last_event_id="1",
    ),
    SSECase(
        name="id_without_colon_resets",
        source=f"{_S}: 'id' alone sets the id buffer to ''",
        stream=b"id: 1\ndata: a\n\nid\ndata: b\n\n",
        events=(Expected(MSG, "a", id="1"), Expected(MSG, "b", id="")),
        last_event_id="",
    ),
    SSECase(
        name="id_empty_resets_without_dispatch",
        source=f"{_S}: 'id:' in a data-less block still resets the last event ID",
        stream=b"id: 1\ndata: a\n\nid:\n\n",
        events=(Expected(MSG, "a", id="1"),),
        last_event_id="",
    ),
    SSECase(
        name="id_with_nul_ignored",
        source=f"{_S}: an id value containing U+0000 is ignored (previous id kept)",
        stream=b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n",
        events=(Expected(MSG, "a", id="1"), Expected(MSG, "b", id="1")),
        last_event_id="1",
    ),
    SSECase(
        name="id_nul_only_in_first_block",
        source=f"{_S}: id with U+0000 ignored, so the id stays ''",
        stream=b"id: \x00\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="id_nul_after_valid_id_same_block",
        source=f"{_S}: the ignored NUL id does not undo the valid one before it",
        stream=b"id: 1\nid: 2\x00\ndata: x\n\n",
        events=(Expected(MSG, "x", id="1"),),
        last_event_id="1",
    ),
    SSECase(
        name="id_last_wins_in_block",
        source=f"{_S}: the last valid id field of a block wins",
        stream=b"id: 1\nid: 2\ndata: x\n\n",
        events=(Expected(MSG, "x", id="2"),),
        last_event_id="2",
    ),
    SSECase(
        name="id_after_data_in_block",
        source=f"{_S}: id is set before dispatch, whatever its position in the block",
        stream=b"data: x\nid: 9\n\n",
        events=(Expected(MSG, "x", id="9"),),
        last_event_id="9",
    ),
    SSECase(
        name="id_two_spaces",
        source=f"{_S}: one space removed from the id value",
        stream=b"id:  x\ndata: y\n\n",
        events=(Expected(MSG, "y", id=" x"),),
        last_event_id=" x",
    ),
    SSECase(
        name="id_with_colon",
        source=f"{_S}: colons after the first are part of the id",
        stream=b"id: a:b\ndata: x\n\n",
        events=(Expected(MSG, "x", id="a:b"),),
        last_event_id="a:b",
    ),
    SSECase(
        name="id_in_discarded_final_block",
        source=f"{_S}: id in a block never ended by a blank line is not committed",
        stream=b"id: 1\ndata: a\n\nid: 2\ndata: b",
        events=(Expected(MSG, "a", id="1"),),
        last_event_id="1",
        truncated=True,
    ),
    SSECase(
        name="id_terminated_line_without_blank_line",
        source=f"{_S}: 'id: 5\\n' sets only the buffer; EOF discards it -> last event ID ''",
        stream=b"data: a\n\nid: 5\n",
        events=(Expected(MSG, "a"),),
        truncated=True,
    ),
    SSECase(
        name="id_and_comment_keepalive_block",
        source=f"{_S}: id + comment block: no event, last event ID committed",
        stream=b"id: 3\n: ping\n\n",
        events=(),
        last_event_id="3",
    ),
)

_RETRY_CASES: tuple[SSECase, ...] = (
    SSECase(
        name="retry_leading_space",
        source=f"{_S}: 'retry: 10' -> one space removed, '10' is all ASCII digits",
        stream=b"retry: 10\ndata: x\n\n",
        events=(Expected(MSG, "x", retry=10),),
        retry=10,
    ),
    SSECase(
        name="retry_zero",
        source=f"{_S}: '0' is all ASCII digits",
        stream=b"retry:0\ndata: x\n\n",
        events=(Expected(MSG, "x", retry=0),),
        retry=0,
    ),
    SSECase(
        name="retry_leading_zeros_decimal",
        source=f"{_S}: base ten, leading zeros allowed",
        stream=b"retry:007\ndata: x\n\n",
        events=(Expected(MSG, "x", retry=7),),
        retry=7,
    ),
    SSECase(
        name="retry_huge",
        source=f"{_S}: any run of ASCII digits is an integer (no upper bound in the spec)",
        stream=b"retry:99999999999999999999\ndata: x\n\n",
        events=(Expected(MSG, "x", retry=99999999999999999999),),
        retry=99999999999999999999,
    ),
    SSECase(
        name="retry_digit_letter",
        source=f"{_S}: '1a' is not only ASCII digits -> ignored",
        stream=b"retry:1a\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="retry_empty_value",
        source=f"{_S}: empty value is not 'only ASCII digits' -> ignored (the spec wording is "
        "loose for ''; read as ignored, like format-field-retry-empty)",
        stream=b"retry:\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="retry_plus_sign",
        source=f"{_S}: '+5' -> ignored",
        stream=b"retry:+5\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="retry_minus_sign",
        source=f"{_S}: '-1' -> ignored",
        stream=b"retry:-1\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="retry_two_leading_spaces",
        source=f"{_S}: 'retry:  5' -> value ' 5' -> ignored",
        stream=b"retry:  5\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="retry_trailing_space",
        source=f"{_S}: '5 ' -> ignored",
        stream=b"retry: 5 \ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="retry_decimal_point",
        source=f"{_S}: '1.5' -> ignored",
        stream=b"retry:1.5\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="retry_arabic_indic_digits",
        source=f"{_S}: U+0661 U+0662 are not ASCII digits -> ignored",
        stream=b"retry:\xd9\xa1\xd9\xa2\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="retry_fullwidth_digits",
        source=f"{_S}: U+FF11 U+FF12 are not ASCII digits -> ignored",
        stream=b"retry:\xef\xbc\x91\xef\xbc\x92\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="retry_superscript_digit",
        source=f"{_S}: U+00B2 (str.isdigit() is True) is not an ASCII digit -> ignored",
        stream=b"retry:1\xc2\xb2\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="retry_underscore",
        source=f"{_S}: '1_000' (int() accepts it) -> ignored",
        stream=b"retry:1_000\ndata: x\n\n",
        events=(Expected(MSG, "x"),),
    ),
    SSECase(
        name="retry_last_valid_in_block",
        source=f"{_S}: the later valid retry wins",
        stream=b"retry: 100\nretry: 200\ndata: x\n\n",
        events=(Expected(MSG, "x", retry=200),),
        retry=200,
    ),
    SSECase(
        name="retry_invalid_keeps_previous",
        source=f"{_S}: an invalid retry is ignored, the earlier valid one stays",
        stream=b"retry: 100\nretry: abc\ndata: x\n\n",
        events=(Expected(MSG, "x", retry=100),),
        retry=100,
    ),
    SSECase(
        name="retry_after_data_in_block",
        source=f"{_S}: retry position in the block does not matter",
        stream=b"data: x\nretry: 5\n\n",
        events=(Expected(MSG, "x", retry=5),),
        retry=5,
    ),
    SSECase(
        name="retry_per_event_only",
        source=f"{_S}: Expected.retry only reflects the event's own block",
        stream=b"retry: 100\ndata: a\n\ndata: b\n\n",
        events=(Expected(MSG, "a", retry=100), Expected(MSG, "b")),
        retry=100,
    ),
    SSECase(
        name="retry_only_block",
        source=f"{_S}: retry-only block: no event, reconnection time set",
        stream=b"retry: 500\n\n",
        events=(),
        retry=500,
    ),
    SSECase(
        name="retry_only_block_then_event",
        source=f"{_S}: retry in a data-less block does not attach to the next event",
        stream=b"retry: 100\n\ndata: a\n\n",
        events=(Expected(MSG, "a"),),
        retry=100,
    ),
    SSECase(
        name="retry_in_discarded_block_still_applies",
        source=f"{_S}: retry sets the reconnection time when the field is processed, not at "
        "dispatch; the block is still discarded",
        stream=b"data: a\n\nretry: 300\ndata: b",
        events=(Expected(MSG, "a"),),
        retry=300,
        truncated=True,
    ),
    SSECase(
        name="retry_unterminated_final_line_ignored",
        source=f"{_S}: an unterminated final line is never processed",
        stream=b"data: a\n\nretry: 300",
        events=(Expected(MSG, "a"),),
        truncated=True,
    ),
)

_COMMENT_CASES: tuple[SSECase, ...] = (
    SSECase(
        name="comment_with_space",
        source=f"{_S}: a line starting with ':' is ignored",
        stream=b": hello\ndata: a\n\n",
        events=(Expected(MSG, "a"),),
    ),
    SSECase(
        name="comment_without_space",
        source=f"{_S}: ':x' is a comment",
        stream=b":x\ndata: a\n\n",
        events=(Expected(MSG, "a"),),
    ),
    SSECase(
        name="comment_looks_like_data",
        source=f"{_S}: ': data: x' is a comment",
        stream=b": data: x\n\n",
        events=(),
    ),
    SSECase(
        name="comment_between_data_lines",
        source=f"{_S}: comments do not break a block",
        stream=b"data: a\n: c\ndata: b\n\n",
        events=(Expected(MSG, "a\nb"),),
    ),
    SSECase(
        name="colon_only_line_is_comment",
        source=f"{_S}: ':' alone is a comment, not a blank line",
        stream=b"data: a\n:\ndata: b\n\n",
        events=(Expected(MSG, "a\nb"),),
    ),
    SSECase(
        name="comment_keepalive_block",
        source=f"{_S}: comment + blank line dispatches nothing",
        stream=b":\n\n",
        events=(),
    ),
    SSECase(
        name="comments_only_stream",
        source=f"{_S}: terminated comments only: no events, clean end",
        stream=b": a\n:b\r:c\r\n",
        events=(),
    ),
    SSECase(
        name="comment_after_last_event_terminated",
        source=f"{_S}: a terminated comment after the last blank line is not a field line",
        stream=b"data: a\n\n: ping\n",
        events=(Expected(MSG, "a"),),
    ),
    SSECase(
        name="comment_unterminated_final",
        source=f"{_S}: an unterminated comment line at EOF counts as an unterminated line",
        stream=b"data: a\n\n: keepalive",
        events=(Expected(MSG, "a"),),
        truncated=True,
    ),
    SSECase(
        name="comment_only_unterminated",
        source=f"{_S}: a lone unterminated comment",
        stream=b": keepalive",
        events=(),
        truncated=True,
    ),
)

_UTF8_CASES: tuple[SSECase, ...] = (
    SSECase(
        name="utf8_truncated_3byte_before_lf",
        source=f"{_UTF8}: E2 82 then LF -> one U+FFFD; the LF still ends the line",
        stream=b"data: \xe2\x82\n\n",
        events=(Expected(MSG, "\ufffd"),),
    ),
    SSECase(
        name="utf8_ff_byte",
        source=f"{_UTF8}: FF -> one U+FFFD",
        stream=b"data: \xff\n\n",
        events=(Expected(MSG, "\ufffd"),),
    ),
    SSECase(
        name="utf8_truncated_4byte_then_ascii",
        source=f"{_UTF8}: F0 9F 98 then 'x' -> one U+FFFD then 'x'",
        stream=b"data: \xf0\x9f\x98x\n\n",
        events=(Expected(MSG, "\ufffdx"),),
    ),
    SSECase(
        name="utf8_truncated_4byte_before_lf",
        source=f"{_UTF8}: F0 9F then LF -> one U+FFFD; the LF ends the line",
        stream=b"data: \xf0\x9f\n\n",
        events=(Expected(MSG, "\ufffd"),),
    ),
    SSECase(
        name="utf8_overlong_slash",
        source=f"{_UTF8}: overlong C0 AF -> two U+FFFD (C0 is never a valid lead byte)",
        stream=b"data: \xc0\xaf\n\n",
        events=(Expected(MSG, "\ufffd\ufffd"),),
    ),
    SSECase(
        name="utf8_encoded_surrogate",
        source=f"{_UTF8}: ED A0 80 -> three U+FFFD (ED allows only 80..9F next)",
        stream=b"data: \xed\xa0\x80\n\n",
        events=(Expected(MSG, "\ufffd\ufffd\ufffd"),),
    ),
    SSECase(
        name="utf8_above_max_code_point",
        source=f"{_UTF8}: F4 90 80 80 -> four U+FFFD (F4 allows only 80..8F next)",
        stream=b"data: \xf4\x90\x80\x80\n\n",
        events=(Expected(MSG, "\ufffd\ufffd\ufffd\ufffd"),),
    ),
    SSECase(
        name="utf8_lone_continuation_bytes",
        source=f"{_UTF8}: 80 80 -> two U+FFFD",
        stream=b"data: \x80\x80\n\n",
        events=(Expected(MSG, "\ufffd\ufffd"),),
    ),
    SSECase(
        name="utf8_truncated_then_valid",
        source=f"{_UTF8}: E2 82 then E2 82 AC -> U+FFFD then the euro sign",
        stream=b"data: \xe2\x82\xe2\x82\xac\n\n",
        events=(Expected(MSG, "\ufffd\u20ac"),),
    ),
    SSECase(
        name="utf8_invalid_in_field_name",
        source=f"{_UTF8}: 'd\\ufffdata' is an unknown field",
        stream=b"d\xffata: x\n\n",
        events=(),
    ),
    SSECase(
        name="utf8_invalid_in_id",
        source=f"{_UTF8}: invalid byte in id -> U+FFFD in the id",
        stream=b"id: \xff\ndata: x\n\n",
        events=(Expected(MSG, "x", id="\ufffd"),),
        last_event_id="\ufffd",
    ),
    SSECase(
        name="utf8_invalid_in_event_type",
        source=f"{_UTF8}: invalid byte in event -> U+FFFD in the type",
        stream=b"event: \xffx\ndata: y\n\n",
        events=(Expected("\ufffdx", "y"),),
    ),
    SSECase(
        name="utf8_truncated_at_eof",
        source=f"{_UTF8}: E2 82 at EOF after a clean boundary -> unterminated line '\\ufffd'",
        stream=b"data: a\n\n\xe2\x82",
        events=(Expected(MSG, "a"),),
        truncated=True,
    ),
)

_END_CASES: tuple[SSECase, ...] = (
    SSECase(
        name="empty_stream",
        source=f"{_S}: empty stream: no events, clean end",
        stream=b"",
        events=(),
    ),
    SSECase(
        name="only_blank_lines",
        source=f"{_S}: blank lines with empty buffers dispatch nothing",
        stream=b"\n\n\r\n\r",
        events=(),
    ),
    SSECase(
        name="ends_exactly_after_blank_line",
        source=f"{_S}: stream ending right after the dispatching blank line is clean",
        stream=b"data: a\n\n",
        events=(Expected(MSG, "a"),),
    ),
    SSECase(
        name="unterminated_final_block_discarded",
        source=f"{_S}: at EOF any pending data is discarded",
        stream=b"data: a\n\ndata: b",
        events=(Expected(MSG, "a"),),
        truncated=True,
    ),
    SSECase(
        name="unterminated_only_line",
        source=f"{_S}: a single unterminated data line dispatches nothing",
        stream=b"data: a",
        events=(),
        truncated=True,
    ),
    SSECase(
        name="final_data_line_single_lf",
        source=f"{_S}: 'data: a\\n' without the blank line is never dispatched",
        stream=b"data: a\n",
        events=(),
        truncated=True,
    ),
    SSECase(
        name="final_data_line_single_crlf",
        source=f"{_S}: 'data: a\\r\\n' without the blank line is never dispatched",
        stream=b"data: a\r\n",
        events=(),
        truncated=True,
    ),
    SSECase(
        name="partial_field_name_at_eof",
        source=f"{_S}: a partial line after the last event is discarded",
        stream=b"data: a\n\nda",
        events=(Expected(MSG, "a"),),
        truncated=True,
    ),
    SSECase(
        name="event_field_without_blank_line",
        source=f"{_S}: 'event: x\\n' after the last blank line is a discarded block",
        stream=b"data: a\n\nevent: x\n",
        events=(Expected(MSG, "a"),),
        truncated=True,
    ),
    SSECase(
        name="event_field_with_data_last_block_crlf",
        source=f"{_S}: full block ended by CRLF CRLF is clean",
        stream=b"event: x\r\ndata: y\r\n\r\n",
        events=(Expected("x", "y"),),
    ),
)

CASES: tuple[SSECase, ...] = (
    _WPT_CASES
    + _LINE_END_CASES
    + _BOM_CASES
    + _FIELD_CASES
    + _EVENT_TYPE_CASES
    + _ID_CASES
    + _RETRY_CASES
    + _COMMENT_CASES
    + _UTF8_CASES
    + _END_CASES
)

_names = [case.name for case in CASES]
assert len(_names) == len(set(_names)), "duplicate SSECase names"
del _names
