"""The shell examples of README.md and docs/ that can run here are run, in
document order, in one folder (a match log ready as match.jsonl), and must
end as documented: exit 0, or for `judge` 0 when the play is legal, 1 when not."""

import json
import re

import pytest

from referee.settings import Settings
from referee.simulation import simulate_match

from tests.cli.helpers import ROOT, shell

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# what runs here without a camera, a device, a server or a speaker
RUNNABLE = re.compile(r"^guandan-ref (--help|--version|judge|replay|record|export|import|users|deal|deal-record)(?=\s|$)")
NEEDS_MORE = re.compile(r"\[|\.\.\.|\b(audio|devices|table|dashboard|demo|central|watch|calibrate|recognize)\b")


def examples(path):
    """Lines starting with `guandan-ref` in fenced blocks and indented (4-space) blocks."""
    out, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        text = line.strip() if fenced or line.startswith("    ") else ""
        if text.startswith("guandan-ref "):
            out.append(text)
    return out


ALL = [(p.relative_to(ROOT).as_posix(), line) for p in DOCS for line in examples(p)]
RUN = [(doc, line) for doc, line in ALL if RUNNABLE.match(line) and not NEEDS_MORE.search(line.split("#")[0])]


def test_the_examples_that_matter_are_found():
    commands = {line.split()[1] for _, line in RUN}
    assert {"--help", "--version", "judge", "replay", "record", "export", "import", "users"} <= commands
    users = {line.split()[2] for _, line in RUN if line.split()[1] == "users"}
    assert {"add", "list", "passwd", "remove"} <= users


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("docs")
    events = simulate_match(seed=5, settings=Settings.parse_format("deals:1"))
    (d / "match.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (d / "events.jsonl").write_text((d / "match.jsonl").read_text())
    (d / "examples").mkdir()
    return d


def test_the_documented_commands_run_as_documented(folder):
    failures = []
    for doc, line in RUN:
        # a password for the commands that ask for one, on stdin as a script gives it
        r = shell(f"printf 'secret1\\n' | {line}", folder)
        if line.startswith("guandan-ref judge"):
            legal = json.loads(r.stdout)["legal"] if r.stdout else None
            ok = r.returncode == (0 if legal else 1) and legal is not None
        else:
            ok = r.returncode == 0
        if not ok or "Traceback" in r.stderr:
            failures.append(f"{doc}: {line}\n  exit {r.returncode}: {r.stderr.strip()[-500:]}")
    assert not failures, "\n".join(failures)


def test_the_documented_error_line_is_the_real_one(folder):
    documented = next(line for _, line in ALL if line.startswith("guandan-ref replay: argument --countdown"))
    r = shell("guandan-ref replay match.jsonl --countdown -5", folder)
    assert r.returncode == 2 and r.stderr.strip() == documented
