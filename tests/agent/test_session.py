"""Sessions and their stores: what is saved is what is loaded, file names never escape the
folder or collide, writes are atomic, and a file the store did not write is never replaced."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from raf.agent.session import (
    MAX_NAME_CHARS,
    SCHEMA_VERSION,
    AgentSession,
    CorruptSessionError,
    FileSystemSessionStore,
    InMemorySessionStore,
    NotASessionFileError,
    SessionStore,
    SessionStoreError,
    UnknownSchemaVersionError,
    session_file_name,
)
from raf.model import ChatMessage, ToolCall, blocks
from tests.model.strategies import json_values, values_of

# Short ids get a name of their own, long ones (over ~120 UTF-8 bytes) a hashed name.
ids = st.text(max_size=20) | st.text(min_size=60, max_size=300)
sessions = st.builds(
    AgentSession,
    id=ids,
    messages=st.lists(values_of(ChatMessage), max_size=3),
    state=st.dictionaries(st.text(max_size=8), json_values, max_size=3),
)

A_TURN = [
    ChatMessage.user("Weather in Paris?"),
    ChatMessage(
        role="assistant",  # type: ignore[arg-type]
        content="",
        tool_calls=(ToolCall(id="c1", name="w", arguments={"city": "Paris"}),),
        blocks=(
            blocks.Reasoning(text="", signature="SIG"),
            blocks.ToolCall(id="c1", name="w", arguments={"city": "Paris"}, signature="TS"),
        ),
    ),
]


@given(sessions)
def test_any_session_is_loaded_back_equal_from_either_store(session: AgentSession) -> None:
    event("hashed file name" if session_file_name(session.id).startswith("h-") else "encoded")
    with tempfile.TemporaryDirectory() as folder:
        stores: list[SessionStore] = [FileSystemSessionStore(folder), InMemorySessionStore()]
        for store in stores:
            store.save(session)
            assert store.load(session.id) == session
            assert store.list() == [session.id]
        assert os.listdir(folder) == [session_file_name(session.id)]  # no temporary file left


@given(ids, ids)
def test_two_ids_never_share_a_file_and_no_name_leaves_the_folder(a: str, b: str) -> None:
    name_a, name_b = session_file_name(a), session_file_name(b)
    if a != b:
        assert name_a != name_b
        # nor on a file system that ignores case
        assert name_a.lower() != name_b.lower()
    for name in (name_a, name_b):
        assert len(name) <= MAX_NAME_CHARS
        assert set(name) <= set("abcdefghijklmnopqrstuvwxyz234567-.0123456789")
        assert name.startswith(("s-", "h-"))
        assert name.endswith(".json")
        event(name[:2])


@pytest.mark.parametrize(
    "session_id", ["../x", "a/b", "..", "CON", "nul.txt", "", "é/\\:*?", "A", "a", "x" * 5000]
)
def test_hostile_ids_stay_in_the_folder(tmp_path: Path, session_id: str) -> None:
    store = FileSystemSessionStore(tmp_path / "sessions")
    store.save(AgentSession(id=session_id, messages=list(A_TURN)))
    (entry,) = (tmp_path / "sessions").iterdir()
    assert entry.parent == tmp_path / "sessions"
    loaded = store.load(session_id)
    assert loaded is not None
    assert loaded.messages == A_TURN
    assert store.list() == [session_id]
    store.delete(session_id)
    assert list((tmp_path / "sessions").iterdir()) == []


def test_a_session_id_that_is_not_text_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="valid Unicode"):
        FileSystemSessionStore(tmp_path).save(AgentSession(id="\ud800"))


def test_the_file_is_canonical_json_with_its_schema_version(tmp_path: Path) -> None:
    store = FileSystemSessionStore(tmp_path)
    store.save(AgentSession(id="abc", messages=A_TURN[:1], state={"n": 1}))
    text = store.path("abc").read_text()
    assert store.path("abc").name == "s-mfrgg.json"
    assert text.startswith('{\n "format": "raf-agent-session",\n "schema_version": 1,')
    assert '"role": "user"' in text


def test_missing_sessions_load_as_none_and_delete_quietly(tmp_path: Path) -> None:
    store = FileSystemSessionStore(tmp_path / "not-yet")
    assert store.load("x") is None
    store.delete("x")
    assert store.list() == []


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (b'{"format": "raf-agent-session", "schema_version": 1, "id": "s", "ses', CorruptSessionError),
        (b'{"format": "raf-agent-session", "schema_version": 1, "id": "s", "session": {"id": 3}}', CorruptSessionError),
        (b'{"format": "raf-agent-session", "schema_version": 1, "id": "t", "session": {"id": "t"}}', CorruptSessionError),
        (b'{"format": "raf-agent-session", "schema_version": 2, "id": "s", "session": {}}', UnknownSchemaVersionError),
        (b'{"format": "raf-agent-session", "schema_version": true, "id": "s", "session": {}}', UnknownSchemaVersionError),
        (b'{"format": "raf-agent-session", "id": "s", "session": {}}', UnknownSchemaVersionError),
        (b'{"name": "my notes"}', NotASessionFileError),
    ],
)  # fmt: skip
def test_a_file_that_cannot_be_read_as_the_session_raises_a_typed_error(
    tmp_path: Path, content: bytes, error: type[SessionStoreError]
) -> None:
    store = FileSystemSessionStore(tmp_path)
    store.path("s").write_bytes(content)
    with pytest.raises(error) as raised:
        store.load("s")
    assert raised.value.path == store.path("s")
    assert str(raised.value)


def test_an_unknown_version_names_it(tmp_path: Path) -> None:
    store = FileSystemSessionStore(tmp_path)
    store.save(AgentSession(id="s"))
    text = store.path("s").read_text()
    store.path("s").write_text(
        text.replace(f'"schema_version": {SCHEMA_VERSION}', '"schema_version": 9')
    )
    with pytest.raises(UnknownSchemaVersionError, match="schema_version 9") as raised:
        store.load("s")
    assert raised.value.version == 9


def test_a_file_it_did_not_write_is_never_replaced_nor_deleted(tmp_path: Path) -> None:
    store = FileSystemSessionStore(tmp_path)
    foreign = store.path("notes")
    foreign.write_text("my own notes, not JSON")
    with pytest.raises(NotASessionFileError):
        store.save(AgentSession(id="notes"))
    with pytest.raises(NotASessionFileError):
        store.delete("notes")
    assert foreign.read_text() == "my own notes, not JSON"
    with pytest.raises(CorruptSessionError):  # loading it says so, never an empty session
        store.load("notes")
    # The same for a folder and for a link, wherever it points.
    store.path("dir").mkdir()
    with pytest.raises(NotASessionFileError):
        store.save(AgentSession(id="dir"))
    store.save(AgentSession(id="real"))
    store.path("link").symlink_to(store.path("real"))
    with pytest.raises(NotASessionFileError):
        store.save(AgentSession(id="link"))
    assert store.path("link").is_symlink()
    assert "link" not in store.list()  # a link is not listed, nor followed when loading
    with pytest.raises(NotASessionFileError):
        store.load("link")


def test_other_files_in_the_folder_are_not_sessions(tmp_path: Path) -> None:
    store = FileSystemSessionStore(tmp_path)
    store.save(AgentSession(id="b"))
    store.save(AgentSession(id="a"))
    (tmp_path / "README.md").write_text("x")
    (tmp_path / "s-NOTBASE32.json").write_text("{}")
    (tmp_path / ".tmp-1.part").write_text("{}")
    assert store.list() == ["a", "b"]


def test_a_failed_write_leaves_the_previous_session_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FileSystemSessionStore(tmp_path)
    store.save(AgentSession(id="s", messages=A_TURN[:1]))
    before = store.path("s").read_bytes()

    def failing_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(SessionStoreError, match="disk full"):
        store.save(AgentSession(id="s", messages=A_TURN))
    assert store.path("s").read_bytes() == before
    assert os.listdir(tmp_path) == [store.path("s").name]  # the temporary file is gone


def test_state_that_is_not_json_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    store = FileSystemSessionStore(tmp_path)
    with pytest.raises(SessionStoreError, match="cannot be written as JSON"):
        store.save(AgentSession(id="s", state={"x": object()}))
    assert os.listdir(tmp_path) == []


def test_the_memory_store_keeps_copies() -> None:
    store = InMemorySessionStore()
    session = AgentSession(id="s", state={"seen": [1]})
    store.save(session)
    session.messages.append(ChatMessage.user("later"))
    session.state["seen"].append(2)
    loaded = store.load("s")
    assert loaded == AgentSession(id="s", state={"seen": [1]})
    assert loaded is not None
    loaded.messages.append(ChatMessage.user("mine"))
    assert store.load("s") == AgentSession(id="s", state={"seen": [1]})
    store.delete("s")
    assert (store.load("s"), store.list()) == (None, [])


def test_new_sessions_get_distinct_ids() -> None:
    assert AgentSession().id != AgentSession().id
