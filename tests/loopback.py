"""A one-shot HTTP/1.1 server on a real loopback socket that misbehaves on purpose.

It answers every connection with the given status line, headers and body pieces (written and
flushed one by one; the first in the same write as the headers, so that a client holding the
headers holds it too), optionally going quiet after the first until the test is done, then
either ends the chunked body properly or drops the connection mid-body. Binds 127.0.0.1 only; stops by itself when the test leaves the
``with`` block (connections are closed, the thread is joined with a timeout).
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager


@contextmanager
def serve(
    pieces: Sequence[bytes],
    *,
    status: str = "200 OK",
    content_type: str = "text/event-stream",
    stall_after_first: bool = False,
    finish: bool = True,
) -> Iterator[str]:
    """Serve ``pieces`` as a chunked body; yields the base URL (``http://127.0.0.1:PORT``).

    Args:
        pieces: the body, one HTTP chunk each.
        status: the status line's code and reason.
        content_type: the ``content-type`` header.
        stall_after_first: send nothing after the first piece until the test leaves the
            ``with`` block (to trip read timeouts: however long they are, and however slow
            the machine, the stall is longer).
        finish: end the chunked body with its terminating chunk; ``False`` drops the
            connection after the last piece instead (a connection lost mid-stream).
    """
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    stop = threading.Event()

    def answer(conn: socket.socket) -> None:
        try:
            respond(conn)
        except OSError:
            pass  # the client went away (it may stop reading early): nothing to do
        finally:
            conn.close()

    def respond(conn: socket.socket) -> None:
        conn.settimeout(60)  # a guard against a client that never sends its request
        request = b""
        while b"\r\n\r\n" not in request:
            data = conn.recv(65536)
            if not data:
                return
            request += data
        head = (
            f"HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\n"
            "transfer-encoding: chunked\r\nconnection: close\r\n\r\n".encode()
        )
        for n, piece in enumerate(pieces):
            conn.sendall(head + f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            head = b""
            if n == 0 and stall_after_first:
                stop.wait()
            if stop.is_set():
                return
        conn.sendall(head)  # no pieces: the headers alone
        if finish:
            conn.sendall(b"0\r\n\r\n")
        else:
            # Reset instead of a clean close: the client sees the connection lost.
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop.set()
        listener.close()
        thread.join(timeout=5)
        time.sleep(0)  # let answer threads see the stop flag
