"""Files written whole or not at all.

A file another run reads back (the dashboard's users, a table's geometry, a
confidence curve, a deal record, a rendered deck) must never be left half
written: a crash, a full disk or Ctrl-C during a plain write leaves a
truncated file under the real name, and the next start reads it as broken
(an emptied users file locks every referee out).  :func:`replaced_when_complete`
gives the writer a temp file of its own beside the real one; only once the
writer is done is it flushed to disk and renamed over the real name in one
step, so the real name holds the old file or the new one.  Two processes
writing one name at once each finish (the later rename wins); they once
shared a temp name, and one that found it moved away by the other failed.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> write_whole(folder / "users.toml", "[[user]]\\n")
>>> (folder / "users.toml").read_text()
'[[user]]\\n'
>>> try:
...     with replaced_when_complete(folder / "users.toml") as tmp:
...         _ = tmp.write_text("half")
...         raise OSError("disk full")
... except OSError:
...     pass
>>> (folder / "users.toml").read_text(), sorted(p.name for p in folder.iterdir())
('[[user]]\\n', ['users.toml'])
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["link_or_copy", "replaced_when_complete", "write_whole"]


@contextmanager
def replaced_when_complete(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temp file's path beside ``path`` (same folder, same suffix, so
    writers that choose a format by the name still do; it exists, empty)
    for the ``with`` block to write; when the block ends without an error
    the temp file is synced to disk and renamed over ``path``, otherwise it
    is removed and ``path`` is left as it was.  Raises ``OSError`` where the
    folder cannot hold the temp file (missing, read-only)."""
    final = Path(path)
    tmp = _new_temp(final)
    try:
        yield tmp
        _synced(tmp)
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(final).st_mode))      # a file replaced keeps its mode
        except FileNotFoundError:
            pass
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    _synced_folder(final.parent)


def _new_temp(final: Path) -> Path:
    """An empty file of this writer's own beside ``final``, made as a plain
    write makes one (its mode from the umask; ``tempfile`` would make it
    private to its owner)."""
    while True:
        tmp = final.with_name(f".{final.stem}.{secrets.token_hex(6)}.part{final.suffix}")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        return tmp


def write_whole(path: str | os.PathLike[str], data: str | bytes, encoding: str = "utf-8") -> None:
    """Write ``data`` (text in ``encoding``, or bytes) to ``path`` whole or
    not at all (:func:`replaced_when_complete`)."""
    with replaced_when_complete(path) as tmp:
        tmp.write_bytes(data.encode(encoding) if isinstance(data, str) else data)


def link_or_copy(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
    """``dst`` made the same file as ``src``: a hard link where the file
    system allows (a clip or a video is megabytes), else a copy; whatever
    ``dst`` held before is replaced. Where ``dst`` is ``src`` already (the
    same name, or a link made before) nothing is done: unlinking it first
    would delete the only copy."""
    if Path(dst).exists() and Path(src).exists() and os.path.samefile(src, dst):
        return
    Path(dst).unlink(missing_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _synced(path: Path) -> None:
    # the data on disk before the rename makes it the real file: a power cut
    # then leaves the old file or the new one, never a named empty one
    with open(path, "rb+") as f:
        os.fsync(f.fileno())


def _synced_folder(folder: Path) -> None:
    # the rename itself on disk; some file systems cannot open a folder so: best effort
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
