"""The appeal bundle: one ruling with everything behind it, as one ZIP archive
for the appeals committee (仲裁委员会).

    ruling.json      the ruling (a violation or a confirm request), its status,
                     its rule (Chinese term and clause of 《江苏省掼蛋竞赛规则（2023）》
                     第三章, the rule in English) and what the archive holds
    events.jsonl     the events it rests on, then the referee's actions on them
    pictures/...     the zone pictures those events were read from
    clips/...        the ruling's video clip(s) (WebM) and what each shows (JSON)
    summary.html     all of it for a person, in Chinese and English

``guandan-ref appeal`` and the dashboard's button make the same archive.
"""

from __future__ import annotations

import html
import io
import json
import zipfile
from pathlib import Path
from typing import Any

from referee.codes import Confirm, Violation
from services.evidence import clip_paths

RULEBOOK = "《江苏省掼蛋竞赛规则（2023）》第三章"
RULED = ("violation", "confirm_request")
_VIOLATIONS = {v.value for v in Violation}
_CONFIRMS = {c.value for c in Confirm}


class AppealError(ValueError):
    """No such ruling, or a file its record names is missing: the message says which."""


def find_ruling(decisions: list[dict[str, Any]], n: int, table: str) -> dict[str, Any]:
    """The violation or confirm request numbered ``n`` (its ``n`` in the record)."""
    for d in decisions:
        if d.get("n") == n and d.get("type") in RULED:
            return d
    known = [str(d["n"]) for d in decisions if d.get("type") in RULED]
    shown = ", ".join(known[:20]) + (" ..." if len(known) > 20 else "")
    raise AppealError(f"table {table} has no violation or confirm request number {n} "
                      f"({'its rulings: ' + shown if known else 'it has no rulings'})")


def rule_of(decision: dict[str, Any]) -> dict[str, str]:
    """The rule a ruling applies: its code, and for a violation the Chinese term
    and clause as the rules write them.

    >>> rule_of({"type": "violation", "code": "illegal_play"})["clause"]
    '七(二)3'
    """
    code = str(decision.get("code") or "")
    if decision.get("type") == "violation" and code in _VIOLATIONS:
        v = Violation(code)
        return {"code": code, "term": v.term, "clause": v.clause, "cited": v.cn(),
                "rulebook": RULEBOOK, "en": v.__doc__ or ""}
    if code in _CONFIRMS:
        return {"code": code, "term": "", "clause": "", "cited": "", "rulebook": RULEBOOK,
                "en": Confirm(code).__doc__ or ""}
    return {"code": code, "term": "", "clause": "", "cited": "", "rulebook": RULEBOOK, "en": ""}


def bundle(table: str, decision: dict[str, Any], events: list[dict[str, Any]], status: str,
           folder: Path | None) -> bytes:
    """The archive (ZIP bytes) of ``decision`` at ``table``; ``events``: the table's
    log, ``status``: open, confirmed, voided or chosen, ``folder``: the table's
    evidence folder (``<evidence_dir>/<table>/``), None if it keeps none.

    A picture an event names that is not in ``folder`` is an :class:`AppealError`;
    a ruling without a clip (no camera was running) is said in the summary."""
    ids = [int(i) for i in decision.get("events") or []]
    by_id = {e.get("id"): e for e in events}
    evidence = [by_id[i] for i in ids if i in by_id]
    actions = [e for e in events if e.get("type") == "referee" and e.get("ref") in ids]
    pictures: list[tuple[str, Path]] = []
    for e in evidence:
        crop = e.get("crop")
        if not isinstance(crop, str) or crop.startswith("data:"):
            continue
        if folder is None:
            raise AppealError(f"event #{e.get('id')} names the picture {crop}, but no evidence "
                              f"folder was given (--evidence-dir)")
        path = folder / Path(crop).name
        if not path.is_file():
            raise AppealError(f"the picture {crop} of event #{e.get('id')} is missing from {folder}")
        pictures.append((f"pictures/{path.name}", path))
    clips = clip_paths(folder, decision) if folder is not None else []
    rule = rule_of(decision)
    record = {"table": table, "ruling": decision, "status": status, "rule": rule,
              "events": [e.get("id") for e in evidence], "referee_actions": [e.get("id") for e in actions],
              "pictures": [name for name, _ in pictures],
              "clips": [f"clips/{p.name}" for p in clips]}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("ruling.json", json.dumps(record, ensure_ascii=False, indent=2))
        z.writestr("events.jsonl", "".join(json.dumps(e, ensure_ascii=False) + "\n"
                                           for e in evidence + actions))
        for name, path in pictures:
            z.write(path, name, zipfile.ZIP_STORED)
        for p in clips:
            z.write(p, f"clips/{p.name}", zipfile.ZIP_STORED)     # already compressed
            meta = p.with_suffix(".json")
            if meta.is_file():
                z.write(meta, f"clips/{meta.name}")
        z.writestr("summary.html", summary_html(record, evidence, actions))
    return out.getvalue()


def summary_html(record: dict[str, Any], evidence: list[dict[str, Any]],
                 actions: list[dict[str, Any]]) -> str:
    """The archive's contents for a person: a page that opens from the archive."""
    esc = html.escape
    d, rule = record["ruling"], record["rule"]
    kind = "违规 violation" if d.get("type") == "violation" else "待确认 confirm request"
    rows = "".join(
        f"<tr><td>#{esc(str(e.get('id')))}</td><td>{e.get('t', 0):.2f}</td><td>{esc(str(e.get('type')))}</td>"
        f"<td>{esc(str(e.get('seat') or ''))}</td><td>{esc(' '.join(e.get('cards') or []) or str(e.get('card') or e.get('count') or e.get('action') or ''))}</td>"
        f"<td>{esc(str(e.get('source') or ''))}</td><td>{esc(str(e.get('who') or ''))}</td></tr>"
        for e in evidence + actions)
    pictures = "".join(f'<img src="{esc(p)}" alt="{esc(p)}">' for p in record["pictures"])
    clips = "".join(f'<video controls src="{esc(c)}"></video>' for c in record["clips"]
                    if c.endswith(".webm")) or "<p>无录像 (no clip was recorded: no camera was running)</p>"
    return f"""<!doctype html>
<html lang="zh"><head><meta charset="utf-8"><title>申诉材料 Appeal: {esc(record['table'])} #{d.get('n')}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:1em auto}}td,th{{padding:0 .6em;text-align:left}}
img,video{{max-width:100%;margin:.3em 0}}</style></head><body>
<h1>申诉材料 Appeal bundle: {esc(record['table'])} #{d.get('n')}</h1>
<p><b>{esc(kind)}</b> · {esc(str(d.get('seat') or ''))} · {esc(str(d.get('code') or ''))} ·
处罚 penalty: {esc(str(d.get('penalty') or '—'))} · 状态 status: {esc(record['status'])} · t = {d.get('t', 0):.2f} s</p>
<p>{esc(str(d.get('message') or ''))}</p>
<h2>规则 Rule</h2>
<p>{esc(rule['term'])} {('§' + esc(rule['clause'])) if rule['clause'] else ''} — {esc(rule['rulebook'])}</p>
<p>{esc(rule['en'])}</p>
<h2>证据事件 Evidence events</h2>
<table><tr><th>#</th><th>t (s)</th><th>type</th><th>seat</th><th>what</th><th>source</th><th>who</th></tr>{rows}</table>
<h2>图片 Pictures</h2>{pictures or '<p>—</p>'}
<h2>录像 Clip</h2>{clips}
</body></html>
"""
