"""The table node's configuration file (TOML): see ``examples/table.toml``."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from referee.events import Event, EventError
from referee.settings import Settings, SettingsError
from vision.reading.picture_loss import FROZEN_S


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the key."""


@dataclass
class CameraConfig:
    source: str
    geometry: Path
    margin_mm: float = 15.0     # cloth read around each zone (vision.reading.table.ZONE_MARGIN_MM)
    zones: tuple[str, ...] | None = None     # the zones it reads (None: every zone of its geometry)
    deck: Path | None = None    # deck profile from `guandan-ref enroll-deck` (None: the shipped classifier alone)
    hands: str = "mediapipe"    # what says a hand is over a zone: HAND_CUES
    unread: bool = True         # something laid that reads as no card is asked about (vision.reading.laid)
    white_balance: bool = True  # the lamp's colour, measured on the markers, taken out (vision.reading.white_balance)
    frozen_s: float | None = FROZEN_S   # a live camera's picture unchanged this long: said frozen (None: not checked)
    confidence_curve: Path | None = None   # the venue's own curve (guandan-ref camera-check --fit; None: shipped)
    threads: int = 2            # cores the card reading shares its work between (THREADS_MAX at most)


@dataclass
class TableConfig:
    table: str
    database: Path
    settings: Settings
    cameras: list[CameraConfig] = field(default_factory=list)
    binding: Path | None = None
    ports: list[str] | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    users: Path | None = None
    overlay: dict[str, Any] = field(default_factory=dict)   # [dashboard] overlay_delay/_themes, as OVERLAY_*
    audio: bool = False
    voice: str | None = None
    redis: str | None = None
    node: str | None = None
    redis_password_file: Path | None = None   # the node's Redis ACL user's password
    key_file: Path | None = None              # the HMAC key the node signs its events with
    redis_ca_file: Path | None = None         # TLS (rediss://): the CA of the Redis server's certificate
    evidence_dir: Path | None = None          # zone pictures and clips ([clips]; None: none kept)
    clips: Any = None                         # table_node.clips.ClipSettings
    names: dict[str, dict[str, str]] = field(default_factory=dict)   # [match]: teams, captains, players


# [[camera]] hands: MediaPipe's hand models (the default), or the hand model
# before them (faster where the detector proposes hands; more false alarms)
HAND_CUES = ("mediapipe", "hand-model")
# [[camera]] frozen_s: a live camera's sensor noise changes every frame; a
# still stretch shorter than a few seconds can be a network camera's encoder
FROZEN_MIN_S, FROZEN_MAX_S = 2.0, 600.0
# [[camera]] threads: the models' runs and the zones' picture work are split
# between this many cores (a real zone is read turned several ways: more
# cores, more of them at once; models/MODEL_CARD.md, "A table whose zones
# hold real photographs")
THREADS_MAX = 64
_SECTIONS = {"table", "rules", "camera", "devices", "dashboard", "audio", "venue", "match", "clips"}
_NAME_KEYS = ("teams", "captains", "players")


def _match_names(match: Any) -> dict[str, dict[str, str]]:
    """``[match]``: teams and captains by side, players by seat, checked as the
    log's ``settings`` event will be (one check: :meth:`Event.from_dict`)."""
    if not isinstance(match, dict):
        raise ConfigError("[match] must be a table of teams, captains and players")
    unknown = set(match) - set(_NAME_KEYS)
    if unknown:
        raise ConfigError(f"[match]: unknown key(s) {', '.join(sorted(unknown))} "
                          f"(known: {', '.join(_NAME_KEYS)})")
    try:
        Event.from_dict({"t": 0, "type": "settings", "settings": {}, **match})
    except EventError as exc:
        raise ConfigError(f"[match]: {str(exc).removeprefix('settings: ')}") from None
    return {k: dict(match[k]) for k in _NAME_KEYS if match.get(k)}


def _check_zones_watched_once(cameras: list[CameraConfig]) -> None:
    """Two cameras reading one zone would report each play there twice (the
    second copy judged a play out of turn): each zone goes to one camera."""
    if len(cameras) > 1:
        for i, cam in enumerate(cameras, 1):
            if cam.zones is None:
                raise ConfigError(f"[[camera]] {i}: with several cameras, give each its zones "
                                  f"(zones = [\"S-play\", \"S-reminder\", ...]); a zone read twice "
                                  f"reports each play twice")
    owner: dict[str, int] = {}
    for i, cam in enumerate(cameras, 1):
        for z in cam.zones or ():
            if z in owner:
                raise ConfigError(f"[[camera]] {i}: zone {z} is already read by camera {owner[z]}")
            owner[z] = i


def load_config(path: str | Path) -> TableConfig:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {str(path)!r} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return parse_config(data, path.parent)


def parse_config(data: dict[str, Any], base: Path = Path(".")) -> TableConfig:
    unknown = set(data) - _SECTIONS
    if unknown:
        raise ConfigError(f"unknown section(s) {', '.join(sorted(unknown))} "
                          f"(known: {', '.join(sorted(_SECTIONS))})")
    table = data.get("table", {})
    tid = table.get("id")
    if not isinstance(tid, str) or not tid:
        raise ConfigError("[table] id is required, e.g. id = \"T01\"")
    rel = lambda p: None if p in (None, "") else (Path(p) if Path(p).is_absolute() else base / p)
    rules = dict(data.get("rules", {}))
    known = {f.name for f in fields(Settings)}
    bad = set(rules) - known
    if bad:
        raise ConfigError(f"[rules]: unknown key(s) {', '.join(sorted(bad))}")
    try:
        settings = Settings.from_dict(rules)
    except (SettingsError, TypeError) as exc:
        raise ConfigError(f"[rules]: {exc}") from None
    cameras = []
    for i, cam in enumerate(data.get("camera", []), 1):
        if "source" not in cam or "geometry" not in cam:
            raise ConfigError(f"[[camera]] {i}: needs source and geometry")
        margin = cam.get("margin_mm", CameraConfig.margin_mm)
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 <= margin <= 100:
            raise ConfigError(f"[[camera]] {i}: margin_mm must be a number of mm from 0 to 100, got {margin!r}")
        zones = cam.get("zones")
        if zones is not None and (not isinstance(zones, list) or not zones
                                  or not all(isinstance(z, str) and z for z in zones)):
            raise ConfigError(f"[[camera]] {i}: zones must be a list of zone names such as \"S-play\"")
        deck_path = _camera_file(cam, i, "deck", "a deck profile (.npz from guandan-ref enroll-deck, or a "
                                 "shipped profile's name)", lambda p: _shipped_deck(p) or rel(p), _check_deck)
        hands = cam.get("hands", CameraConfig.hands)
        if hands not in HAND_CUES:
            raise ConfigError(f"[[camera]] {i}: hands must be one of {', '.join(map(repr, HAND_CUES))}, "
                              f"got {hands!r}")
        switches = {}
        for key in ("unread", "white_balance"):
            switches[key] = cam.get(key, getattr(CameraConfig, key))
            if not isinstance(switches[key], bool):
                raise ConfigError(f"[[camera]] {i}: {key} must be true or false, got {switches[key]!r}")
        frozen = cam.get("frozen_s", CameraConfig.frozen_s)
        if isinstance(frozen, bool) or not isinstance(frozen, (int, float)) or not (
                frozen == 0 or FROZEN_MIN_S <= frozen <= FROZEN_MAX_S):
            raise ConfigError(f"[[camera]] {i}: frozen_s must be a number of seconds from {FROZEN_MIN_S:g} to "
                              f"{FROZEN_MAX_S:g}, or 0 to turn the check off, got {frozen!r}")
        curve_path = _camera_file(cam, i, "confidence_curve",
                                  "a curve file (.json from guandan-ref camera-check --fit)", rel, _check_curve)
        threads = cam.get("threads", CameraConfig.threads)
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= THREADS_MAX:
            raise ConfigError(f"[[camera]] {i}: threads must be a whole number of cores from 1 to {THREADS_MAX}, "
                              f"got {threads!r}")
        cameras.append(CameraConfig(str(cam["source"]), rel(cam["geometry"]), float(margin),
                                    None if zones is None else tuple(zones), deck_path, hands, **switches,
                                    frozen_s=float(frozen) or None, confidence_curve=curve_path, threads=threads))
    _check_zones_watched_once(cameras)
    devices = data.get("devices", {})
    ports = devices.get("ports")
    if ports is not None and (not isinstance(ports, list) or not all(isinstance(p, str) for p in ports)):
        raise ConfigError("[devices] ports must be a list of port paths")
    dash = data.get("dashboard", {})
    port = dash.get("port", 8000)
    if not isinstance(port, int) or not 0 <= port <= 65535:
        raise ConfigError(f"[dashboard] port must be 0..65535, got {port!r}")
    overlay = _overlay(dash, rel)
    audio = data.get("audio", {})
    venue = data.get("venue", {})
    redis_url = venue.get("redis")
    ca_file = _secret_file(rel(venue.get("redis_ca_file")), "redis_ca_file")
    if redis_url is not None:
        from venue.publisher import check_redis_url
        try:
            check_redis_url(str(redis_url), ca_file)
        except ValueError as exc:
            raise ConfigError(f"[venue] redis: {exc}") from None
    elif ca_file is not None:
        raise ConfigError("[venue] redis_ca_file without redis: give redis = \"rediss://...\"")
    evidence_dir, clips = _clips(data.get("clips", {}), rel)
    return TableConfig(
        table=tid, database=rel(table.get("database") or f"{tid}.sqlite"), settings=settings,
        cameras=cameras, binding=rel(devices.get("binding")), ports=ports,
        host=str(dash.get("host", "127.0.0.1")), port=port, users=rel(dash.get("users")), overlay=overlay,
        audio=bool(audio.get("enabled", False)), voice=audio.get("voice") or None,
        redis=redis_url, node=venue.get("node") or f"{tid}-node", redis_ca_file=ca_file,
        redis_password_file=_secret_file(rel(venue.get("redis_password_file")), "redis_password_file"),
        key_file=_secret_file(rel(venue.get("key_file")), "key_file"),
        names=_match_names(data.get("match", {})),
        evidence_dir=evidence_dir, clips=clips)


def _overlay(dash: dict[str, Any], rel) -> dict[str, Any]:
    """``[dashboard] overlay_delay`` (seconds the public overlay and deal
    viewer lag the table, 0-600) and ``overlay_themes`` (a folder of theme
    stylesheets), as the dashboard's ``OVERLAY_DELAY`` / ``OVERLAY_THEMES``."""
    from web_dashboard.overlay import OverlayConfigError, check_seconds, check_themes   # the dashboard's own checks
    out: dict[str, Any] = {}
    try:
        if dash.get("overlay_delay") is not None:
            out["OVERLAY_DELAY"] = check_seconds(dash["overlay_delay"], "overlay_delay")
        themes = dash.get("overlay_themes")
        if themes is not None:
            out["OVERLAY_THEMES"] = check_themes(str(rel(themes)) if isinstance(themes, str) and themes else themes,
                                                 "overlay_themes")
    except OverlayConfigError as exc:
        raise ConfigError(f"[dashboard] {exc}") from None
    return out


def _clips(section: Any, rel) -> tuple[Path | None, Any]:
    """``[clips]``: where the evidence (zone pictures and clips) goes and how clips are cut."""
    from table_node.clips import ClipSettings
    if not isinstance(section, dict):
        raise ConfigError("[clips] must be a table of keys")
    section = dict(section)
    extra = set(section) - {"dir", "enabled", "before_s", "after_s", "budget_mb", "fps", "width", "wait_s"}
    if extra:
        raise ConfigError(f"[clips]: unknown key(s) {', '.join(sorted(extra))} (known: dir, enabled, "
                          f"before_s, after_s, budget_mb, fps, width, wait_s)")
    enabled = section.pop("enabled", True)
    folder = section.pop("dir", "evidence")
    if not isinstance(enabled, bool):
        raise ConfigError(f"[clips] enabled must be true or false, got {enabled!r}")
    if not isinstance(folder, str) or not folder:
        raise ConfigError(f"[clips] dir must be a folder path, got {folder!r}")
    try:
        settings = ClipSettings.from_dict(section)
    except ValueError as exc:
        raise ConfigError(f"[clips] {exc}") from None
    return (rel(folder) if enabled else None), settings


def _camera_file(cam: dict, i: int, key: str, what: str, rel, check) -> Path | None:
    """A camera's optional file ``key``: a non-empty path (relative to the
    config's folder), checked by ``check(path, i)`` as the camera will load it."""
    value = cam.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError(f"[[camera]] {i}: {key} must be the path of {what}, got {value!r}")
    path = rel(value)
    check(path, i)
    return path


def _shipped_deck(name: str) -> Path | None:
    """The file of a deck profile shipped in models/ named ``name`` (None: not such a name)."""
    from vision.reading.deck_profile import SHIPPED_PROFILES

    return SHIPPED_PROFILES.get(name)


def _check_deck(path: Path, i: int) -> None:
    """A camera's deck profile must exist and fit the index classifier the
    node will run (its labels, its format's version, that very classifier
    and its features): loaded with it once here, as the camera will."""
    from vision.reading.deck_profile import DeckProfile, DeckProfileError
    from vision.reading.index_classifier import IndexClassifier

    try:
        DeckProfile.load(path)          # the file itself first: no model needed to refuse it
        IndexClassifier(threads=1, deck=path)
    except DeckProfileError as exc:
        raise ConfigError(f"[[camera]] {i}: deck: {exc}") from None
    except FileNotFoundError as exc:    # the classifier itself is missing
        raise ConfigError(f"[[camera]] {i}: deck {path}: {exc}") from None


def _check_curve(path: Path, i: int) -> None:
    """A camera's confidence curve must be a calibration file a table can
    apply: loaded once here, as the camera will."""
    from vision.reading.confidence import Calibration, CalibrationError

    try:
        Calibration.load(path)
    except CalibrationError as exc:
        raise ConfigError(f"[[camera]] {i}: confidence_curve: {exc}") from None


def _secret_file(path: Path | None, name: str) -> Path | None:
    """A secret (or the CA file) is named by its file (never written in the config itself)."""
    if path is not None and not path.is_file():
        raise ConfigError(f"[venue] {name}: {path} is not a file")
    return path


def read_secret(path: Path | None) -> str | None:
    """The first line of a secret file, or None."""
    if path is None:
        return None
    with open(path, encoding="utf-8") as f:
        return f.readline().rstrip("\r\n") or None
