"""Sessions (RAF's ``ISession``): the conversation an agent keeps across runs, and the stores
that keep sessions.

An :class:`AgentSession` holds an ``id``, the stored ``messages`` (what a history provider,
:class:`raf.agent.context.InMemoryHistoryProvider`, reads and appends) and a ``state``
mapping of JSON values for context providers of the caller's. A :class:`SessionStore` loads
and saves them; a caller loads a session, runs the agent with it and saves it::

    session = store.load("user-42") or AgentSession(id="user-42")
    agent.run_to_response("Hello", session)
    store.save(session)

:class:`InMemorySessionStore` keeps copies in a dict. :class:`FileSystemSessionStore` keeps one
JSON file per session in a folder:

* **The file** is one JSON object: ``{"format": "raf-agent-session", "schema_version": 1,
  "id": ..., "session": ...}``, the session in raf's canonical JSON
  (:mod:`raf.model.canonical`: every field, blocks tagged). A file that is not JSON or does
  not match the schema raises :class:`CorruptSessionError`; a ``schema_version`` this raf
  does not know raises :class:`UnknownSchemaVersionError` (never an empty session in place
  of one that could not be read).
* **The file name** is made from the id, never taken from it: ``s-`` and the id's UTF-8
  bytes in lowercase base32 without padding, then ``.json`` (``s-mfrgg.json`` for ``abc``).
  base32 is injective and uses only ``a-z`` and ``2-7``, so no id can name another folder
  (``../x``, ``a/b``), a device (``CON``, ``NUL``), differ only by case on a filesystem that
  ignores case, or collide with another id. An id whose name would pass
  :data:`MAX_NAME_CHARS` is named ``h-`` and the SHA-256 of its bytes in hex; the file holds
  the id, and loading checks it, so even a hash collision could never load another
  session.
* **Writes are atomic**: the file is written to a temporary file in the same folder, flushed
  to disk (``fsync``), then renamed over the old one (``os.replace``), and the folder is
  synced; a crash leaves the old file or the new one, never half of one.
* **Only its own files**: a folder entry at a session's name that is not a raf session file
  (no ``"format": "raf-agent-session"``, a directory, a symbolic link) is never overwritten
  or deleted (:class:`NotASessionFileError`); :meth:`FileSystemSessionStore.list` lists only
  the entries named as it names them.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import hashlib
import os
import tempfile
import uuid
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

import msgspec

from raf.model._base import JSONValue
from raf.model.canonical import encode_json, from_canonical, to_canonical
from raf.model.messages import ChatMessage

__all__ = [
    "FORMAT",
    "MAX_NAME_CHARS",
    "SCHEMA_VERSION",
    "AgentSession",
    "CorruptSessionError",
    "FileSystemSessionStore",
    "InMemorySessionStore",
    "NotASessionFileError",
    "SessionStore",
    "SessionStoreError",
    "UnknownSchemaVersionError",
    "decode_session",
    "encode_session",
    "session_file_name",
]

FORMAT: Final = "raf-agent-session"
"""The ``format`` member that marks a raf session file."""

SCHEMA_VERSION: Final = 1
"""The version of the session file's schema this raf writes and reads."""

MAX_NAME_CHARS: Final = 200
"""Longest file name made from the id itself; longer ones are hashed (file systems allow 255
bytes)."""

_DIRECT, _HASHED, _SUFFIX = "s-", "h-", ".json"


def _new_id() -> str:
    return uuid.uuid4().hex


class AgentSession(msgspec.Struct, kw_only=True):
    """One conversation an agent keeps across runs (RAF's ``AgentSession``).

    Attributes:
        id: the session's id (a new random one by default); any string.
        messages: the stored history, oldest first (a history provider's).
        state: JSON values for context providers (anything JSON can hold; NaN and the
            infinities are written as ``null``, JSON having none).
    """

    id: str = msgspec.field(default_factory=_new_id)
    messages: list[ChatMessage] = msgspec.field(default_factory=list)
    state: dict[str, JSONValue] = msgspec.field(default_factory=dict)


class SessionStoreError(Exception):
    """A session could not be loaded, saved or deleted.

    Attributes:
        path: the file concerned (``None`` for a store without files).
    """

    def __init__(self, message: str, *, path: Path | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


class CorruptSessionError(SessionStoreError):
    """A session file is not JSON, does not match the schema, or holds another id."""


class UnknownSchemaVersionError(SessionStoreError):
    """A session file has a ``schema_version`` this raf does not read (a newer raf wrote it).

    Attributes:
        version: the version the file has.
    """

    def __init__(self, message: str, *, path: Path | None = None, version: object) -> None:
        super().__init__(message, path=path)
        self.version = version


class NotASessionFileError(SessionStoreError):
    """The folder entry where a session would be is not a raf session file: it is left as
    it is."""


@runtime_checkable
class SessionStore(Protocol):
    """Where sessions are kept (RAF's session store)."""

    def load(self, session_id: str) -> AgentSession | None:
        """The stored session, ``None`` when there is none."""
        ...

    def save(self, session: AgentSession) -> None:
        """Store ``session`` (replacing the stored one of its id)."""
        ...

    def delete(self, session_id: str) -> None:
        """Remove the stored session (nothing happens when there is none)."""
        ...

    def list(self) -> list[str]:
        """The ids of the stored sessions, sorted."""
        ...


def _copy(session: AgentSession) -> AgentSession:
    """A copy sharing nothing mutable with ``session`` (messages are immutable)."""
    return AgentSession(
        id=session.id, messages=list(session.messages), state=copy.deepcopy(session.state)
    )


class InMemorySessionStore:
    """Sessions in a dict, for tests and single processes. Saving and loading copy, so a
    session changed after :meth:`save` does not change the stored one."""

    def __init__(self) -> None:
        self._sessions: dict[str, AgentSession] = {}

    def load(self, session_id: str) -> AgentSession | None:
        """See :class:`SessionStore`."""
        stored = self._sessions.get(session_id)
        return None if stored is None else _copy(stored)

    def save(self, session: AgentSession) -> None:
        """See :class:`SessionStore`."""
        self._sessions[session.id] = _copy(session)

    def delete(self, session_id: str) -> None:
        """See :class:`SessionStore`."""
        self._sessions.pop(session_id, None)

    def list(self) -> list[str]:
        """See :class:`SessionStore`."""
        return sorted(self._sessions)


# -- the file (pure) -------------------------------------------------------------------------


def session_file_name(session_id: str) -> str:
    """The file name of a session (module docstring): ``s-<base32 of the id>.json``, or
    ``h-<sha256 of the id>.json`` when that would be longer than :data:`MAX_NAME_CHARS`.

    Raises:
        ValueError: the id is not a string UTF-8 can encode (a lone surrogate).
    """
    data = _id_bytes(session_id)
    encoded = base64.b32encode(data).decode("ascii").rstrip("=").lower()
    name = _DIRECT + encoded + _SUFFIX
    if len(name) <= MAX_NAME_CHARS:
        return name
    return _HASHED + hashlib.sha256(data).hexdigest() + _SUFFIX


def _id_bytes(session_id: str) -> bytes:
    if not isinstance(session_id, str):
        raise ValueError(f"a session id is a string, not {type(session_id).__name__}")
    try:
        return session_id.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"a session id must be valid Unicode text: {exc}") from None


def _id_of_name(name: str) -> str | None:
    """The id a direct file name encodes (``None`` for any other name)."""
    if not (name.startswith(_DIRECT) and name.endswith(_SUFFIX)):
        return None
    encoded = name[len(_DIRECT) : -len(_SUFFIX)]
    if encoded != encoded.lower():
        return None
    try:
        data = base64.b32decode(encoded.upper() + "=" * (-len(encoded) % 8))
        session_id = data.decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    return session_id if session_file_name(session_id) == name else None


def encode_session(session: AgentSession) -> bytes:
    """The file's bytes for ``session`` (module docstring).

    Raises:
        SessionStoreError: the state holds a value JSON cannot (an object of a class of its own).
    """
    _id_bytes(session.id)
    try:
        document = {
            "format": FORMAT,
            "schema_version": SCHEMA_VERSION,
            "id": session.id,
            "session": to_canonical(session),
        }
        return (encode_json(document, indent=1) + "\n").encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError) as exc:
        raise SessionStoreError(
            f"session {session.id!r} cannot be written as JSON: {exc}"
        ) from None


def is_session_document(document: object) -> bool:
    """Whether decoded JSON is a raf session file (has its ``format`` marker)."""
    return isinstance(document, dict) and document.get("format") == FORMAT


def decode_session(data: bytes, *, path: Path | None = None) -> AgentSession:
    """The session in a file's bytes.

    Raises:
        CorruptSessionError: not JSON, or not a session of the schema.
        NotASessionFileError: JSON, but not a raf session file.
        UnknownSchemaVersionError: a schema version this raf does not read.
    """
    where = f" ({path})" if path is not None else ""
    try:
        document: Any = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise CorruptSessionError(f"session file is not JSON{where}: {exc}", path=path) from None
    if not is_session_document(document):
        raise NotASessionFileError(f"not a raf session file{where}", path=path)
    version = document.get("schema_version")
    if version != SCHEMA_VERSION or type(version) is not int:
        raise UnknownSchemaVersionError(
            f"session file has schema_version {version!r}, this raf reads {SCHEMA_VERSION}{where}",
            path=path,
            version=version,
        )
    try:
        session = from_canonical(document.get("session"), AgentSession)
    except msgspec.ValidationError as exc:
        raise CorruptSessionError(
            f"session file does not match the schema{where}: {exc}", path=path
        ) from None
    if document.get("id") != session.id:
        raise CorruptSessionError(
            f"session file's id {document.get('id')!r} is not its session's{where}", path=path
        )
    return session


# -- the folder (IO) -------------------------------------------------------------------------


class FileSystemSessionStore:
    """One JSON file per session in ``folder`` (created when missing); the module docstring
    has the file, its name, and the rules that keep other files safe."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    def path(self, session_id: str) -> Path:
        """The file of a session (:func:`session_file_name` in the folder)."""
        return self.folder / session_file_name(session_id)

    def load(self, session_id: str) -> AgentSession | None:
        """See :class:`SessionStore`; raises a :class:`SessionStoreError` when the file
        cannot be read as a session of ``session_id``."""
        path = self.path(session_id)
        try:
            data = self._read(path)
        except FileNotFoundError:
            return None
        session = decode_session(data, path=path)
        if session.id != session_id:
            raise CorruptSessionError(
                f"session file holds session {session.id!r}, not {session_id!r} ({path})",
                path=path,
            )
        return session

    def save(self, session: AgentSession) -> None:
        """See :class:`SessionStore`: written atomically; raises
        :class:`NotASessionFileError` rather than replace a folder entry that is not a raf
        session file."""
        data = encode_session(session)
        path = self.path(session.id)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SessionStoreError(
                f"cannot create the session folder: {exc}", path=self.folder
            ) from None
        self._check_ours(path)
        self._write(path, data)

    def delete(self, session_id: str) -> None:
        """See :class:`SessionStore`; a folder entry that is not a raf session file is left
        (:class:`NotASessionFileError`)."""
        path = self.path(session_id)
        if not self._check_ours(path):
            return
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise SessionStoreError(f"cannot delete {path}: {exc}", path=path) from None

    def list(self) -> list[str]:
        """See :class:`SessionStore`: the ids of the files named as this store names them
        (a hashed name's id is read from its file; one that cannot be read is left out)."""
        try:
            names = [
                entry.name
                for entry in os.scandir(self.folder)
                if entry.is_file(follow_symlinks=False)
            ]
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise SessionStoreError(
                f"cannot list the session folder: {exc}", path=self.folder
            ) from None
        ids: list[str] = []
        for name in names:
            session_id = _id_of_name(name)
            if session_id is None and name.startswith(_HASHED) and name.endswith(_SUFFIX):
                session_id = self._hashed_id(self.folder / name)
            if session_id is not None:
                ids.append(session_id)
        return sorted(ids)

    def _hashed_id(self, path: Path) -> str | None:
        try:
            session = decode_session(self._read(path), path=path)
        except (OSError, SessionStoreError):
            return None
        return session.id if self.path(session.id) == path else None

    def _read(self, path: Path) -> bytes:
        if path.is_symlink():
            raise NotASessionFileError(f"{path} is a symbolic link, not a session file", path=path)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise
        except IsADirectoryError:
            raise NotASessionFileError(
                f"{path} is a folder, not a session file", path=path
            ) from None
        except OSError as exc:
            raise SessionStoreError(f"cannot read {path}: {exc}", path=path) from None

    def _check_ours(self, path: Path) -> bool:
        """Whether a file is at ``path``; raises when the entry there is not ours."""
        try:
            data = self._read(path)
        except FileNotFoundError:
            return False
        try:
            document = msgspec.json.decode(data)
        except msgspec.DecodeError:
            document = None
        if not is_session_document(document):
            raise NotASessionFileError(
                f"{path} is not a raf session file: it is left as it is", path=path
            )
        return True

    def _write(self, path: Path, data: bytes) -> None:
        """``data`` into ``path`` atomically: a temporary file in the folder, synced, renamed
        over ``path``, then the folder synced."""
        try:
            fd, temporary = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".part")
        except OSError as exc:
            raise SessionStoreError(f"cannot write in {self.folder}: {exc}", path=path) from None
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise SessionStoreError(f"cannot write {path}: {exc}", path=path) from None
        _sync_folder(self.folder)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (POSIX; a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
