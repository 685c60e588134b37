"""Real table surfaces from Debian packages, as zone pictures, to measure hand false alarms.

The detector learnt hands on synthetic dark cloths only; a venue's table may
be wood, cork, paper or a pale cloth.  These are photographs and scans of
such surfaces shipped by Debian under licences that allow it (nothing is
downloaded; install the packages with ``apt-get``):

============================  ==================================================  =========
package                       files                                               licence
============================  ==================================================  =========
``mypaint-data-extras``       ``/usr/share/mypaint/backgrounds/ramon/*.png``       CC0-1.0
                              (canvas, cork, papers, 512 px seamless tiles)
``mypaint-data-extras``       ``/usr/share/mypaint/backgrounds/mrmamurk/*.png``    CC0-1.0
                              (paper and cloth textures)
``mate-backgrounds``          ``/usr/share/backgrounds/mate/nature/Wood.jpg``      GPL-2+
                              (wooden boards, 2560x1920)
============================  ==================================================  =========

:func:`zone_surface` cuts a zone-sized picture (the zone and its margin)
from one, tiling the small seamless tiles and cropping the large photograph
at a random place and scale; :func:`relight` puts a light change on it (a
warm or cold tint, a dimmer lamp, a hard shadow band such as a player's arm
or a lamp's edge casts).  Never train or tune on these: they are for
measuring only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

WOOD = Path("/usr/share/backgrounds/mate/nature/Wood.jpg")
MYPAINT = Path("/usr/share/mypaint/backgrounds")


@dataclass(frozen=True)
class Surface:
    name: str
    path: Path
    package: str
    licence: str
    tile: bool        # a small seamless tile (repeat it) rather than a photograph (crop it)


def surfaces() -> list[Surface]:
    """The real surfaces installed here (empty when the packages are absent)."""
    out = []
    if WOOD.exists():
        out.append(Surface("wood", WOOD, "mate-backgrounds", "GPL-2+", False))
    for sub in ("ramon", "mrmamurk"):
        for f in sorted((MYPAINT / sub).glob("*.png")):
            out.append(Surface(f.stem.replace(" ", "_").lower(), f, "mypaint-data-extras", "CC0-1.0", True))
    return out


LIGHTS = ("as_shot", "warm", "cold", "dim", "shadow_band")


def zone_surface(surface: Surface, size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """A ``size`` (width, height) BGR picture of the surface, as a zone picture shows it."""
    img = cv2.imread(str(surface.path), cv2.IMREAD_COLOR)
    if img is None:
        raise FileNotFoundError(surface.path)
    w, h = size
    if surface.tile:
        reps = (int(np.ceil(h / img.shape[0])) + 1, int(np.ceil(w / img.shape[1])) + 1, 1)
        big = np.tile(img, reps)
        y, x = int(rng.integers(img.shape[0])), int(rng.integers(img.shape[1]))
        return np.ascontiguousarray(big[y:y + h, x:x + w])
    # a photograph: a random window, 1-2 times the zone's size, shrunk to it
    s = rng.uniform(1.0, 2.0)
    cw, ch = min(img.shape[1], int(w * s)), min(img.shape[0], int(h * s))
    x, y = int(rng.integers(img.shape[1] - cw + 1)), int(rng.integers(img.shape[0] - ch + 1))
    return cv2.resize(img[y:y + ch, x:x + cw], (w, h), interpolation=cv2.INTER_AREA)


def relight(img: np.ndarray, light: str, rng: np.random.Generator) -> np.ndarray:
    """The picture under another light (``LIGHTS``)."""
    f = img.astype(np.float32)
    h, w = f.shape[:2]
    if light == "warm":          # tungsten: more red, less blue
        f *= np.float32([0.75, 0.95, 1.15])
    elif light == "cold":        # daylight / cold LED: more blue
        f *= np.float32([1.15, 1.0, 0.8])
    elif light == "dim":
        f *= np.float32(rng.uniform(0.45, 0.6))
    elif light == "shadow_band":  # a hard-edged band across the zone, at a random angle
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, np.pi)
        d = (xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a) - rng.uniform(-0.3, 0.3) * min(w, h)
        band = np.abs(d) < rng.uniform(0.08, 0.25) * min(w, h)
        mask = cv2.GaussianBlur(band.astype(np.float32), (0, 0), 1.5)
        f *= (1 - rng.uniform(0.45, 0.65) * mask)[:, :, None]
    elif light != "as_shot":
        raise ValueError(f"unknown light {light!r}")
    return np.clip(f, 0, 255).astype(np.uint8)
