"""Files another run reads back are written whole or not at all (storage/files.py)."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from storage.files import link_or_copy, replaced_when_complete, write_whole


def _names(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_file_written_whole_is_made_as_a_plain_write_makes_it(tmp_path):
    write_whole(tmp_path / "plain.txt", "x")
    (tmp_path / "other.txt").write_text("x")
    assert stat.S_IMODE(os.stat(tmp_path / "plain.txt").st_mode) == stat.S_IMODE(os.stat(tmp_path / "other.txt").st_mode)
    assert (tmp_path / "plain.txt").read_text() == "x"


def test_a_file_replaced_keeps_its_mode_and_takes_the_new_content(tmp_path):
    users = tmp_path / "users.toml"
    users.write_text("old")
    users.chmod(0o600)            # a users file kept private by its venue
    write_whole(users, b"new")
    assert users.read_bytes() == b"new"
    assert stat.S_IMODE(os.stat(users).st_mode) == 0o600
    assert _names(tmp_path) == ["users.toml"]


def test_an_error_while_writing_leaves_the_old_file_and_no_temp_file(tmp_path):
    users = tmp_path / "users.toml"
    users.write_text("[[user]]\nname = \"chief\"\n")
    with pytest.raises(OSError, match="No space left"):
        with replaced_when_complete(users) as tmp:
            tmp.write_text("[[us")        # cut short, as a full disk cuts it
            raise OSError(28, "No space left on device")
    assert users.read_text() == "[[user]]\nname = \"chief\"\n"
    assert _names(tmp_path) == ["users.toml"]


def test_a_folder_that_is_not_there_is_an_error_and_makes_nothing(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_whole(tmp_path / "none" / "t.json", "{}")
    assert _names(tmp_path) == []


def test_writers_of_one_name_at_once_each_finish_and_leave_one_whole_file(tmp_path):
    # (they once shared a temp name: a writer that found it moved away failed)
    target = tmp_path / "sheet.png"
    start = threading.Barrier(8)
    failed: list[BaseException] = []

    def write(k: int) -> None:
        start.wait(timeout=30)
        try:
            with replaced_when_complete(target) as tmp:
                tmp.write_bytes(bytes([k]) * 100_000)
        except BaseException as exc:     # noqa: BLE001 - each writer's failure is the test's finding
            failed.append(exc)

    threads = [threading.Thread(target=write, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert failed == []
    data = target.read_bytes()
    assert len(data) == 100_000 and len(set(data)) == 1        # one writer's file, whole
    assert _names(tmp_path) == ["sheet.png"]


def test_the_temp_file_keeps_the_suffix_writers_choose_a_format_by(tmp_path):
    with replaced_when_complete(tmp_path / "clip.webm") as tmp:
        assert tmp.suffix == ".webm" and tmp.parent == tmp_path and tmp.name.startswith(".clip.")
        tmp.write_bytes(b"v")
    assert _names(tmp_path) == ["clip.webm"]


def test_link_or_copy_makes_the_same_file_in_place_of_what_was_there(tmp_path):
    (tmp_path / "clip.webm").write_bytes(b"pictures")
    (tmp_path / "twin.webm").write_bytes(b"old")
    link_or_copy(tmp_path / "clip.webm", tmp_path / "twin.webm")
    assert (tmp_path / "twin.webm").read_bytes() == b"pictures"


def test_link_or_copy_onto_itself_or_its_link_keeps_the_file(tmp_path):
    # (it unlinked the destination first: the file itself, its only copy, went)
    (tmp_path / "clip.webm").write_bytes(b"pictures")
    link_or_copy(tmp_path / "clip.webm", tmp_path / "clip.webm")
    assert (tmp_path / "clip.webm").read_bytes() == b"pictures"
    link_or_copy(tmp_path / "clip.webm", tmp_path / "twin.webm")
    link_or_copy(tmp_path / "twin.webm", tmp_path / "clip.webm")      # a link made before, the other way
    assert (tmp_path / "clip.webm").read_bytes() == (tmp_path / "twin.webm").read_bytes() == b"pictures"
