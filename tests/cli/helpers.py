"""Running ``guandan-ref`` as a user does: a separate process, this checkout first."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def env(**extra) -> dict:
    e = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    e.update(extra)
    return e


def cli(*args, cwd=None, stdin=subprocess.DEVNULL, input=None, timeout=120, **extra_env):
    return subprocess.run([sys.executable, "-m", "commands", *map(str, args)], cwd=cwd,
                          input=input, stdin=None if input is not None else stdin,
                          capture_output=True, text=True, timeout=timeout, env=env(**extra_env))


def shell(line: str, cwd, timeout=120, **extra_env):
    """A documented shell line, with ``guandan-ref`` being this checkout's command."""
    bindir = Path(cwd) / ".bin"
    bindir.mkdir(exist_ok=True)
    exe = bindir / "guandan-ref"
    if not exe.exists():
        exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m commands "$@"\n')
        exe.chmod(0o755)
    path = str(bindir) + os.pathsep + os.environ.get("PATH", "")
    return subprocess.run(["bash", "-c", line], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, env=env(PATH=path, **extra_env))
