"""Type faces for the training data's new prints: the machine's TrueType
fonts (through Pillow) and OpenCV's stroke fonts, drawn as ink masks.

Corner indices in new type faces (:mod:`vision.training.index_art`) and
joker words (:mod:`vision.training.joker_art`) both draw from here.

>>> m = text_mask("A", 0, 0, False)     # OpenCV's plain stroke font
>>> m.dtype.name, float(m.max()) > 0.9, m.shape[0] > 50
('float32', True, True)
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

FONT_DIRS = (Path("/usr/share/fonts"),)


@lru_cache(maxsize=1)
def type_faces() -> tuple[Path, ...]:
    """The machine's TrueType/OpenType font files (none: OpenCV's stroke fonts alone)."""
    found = []
    for d in FONT_DIRS:
        if d.is_dir():
            found += [p for p in d.rglob("*") if p.suffix.lower() in (".ttf", ".otf", ".ttc")]
    return tuple(sorted(found))


# font files that draw Chinese (Debian's fonts-wqy-*, fonts-noto-cjk, fonts-arphic-*)
_CJK_NAMES = ("wqy", "cjk", "arphic", "ukai", "uming", "droidsansfallback")


@lru_cache(maxsize=1)
def cjk_faces() -> tuple[Path, ...]:
    """Those of :func:`type_faces` that draw Chinese characters, known by
    their file names (:data:`_CJK_NAMES`; none: no Chinese can be drawn)."""
    return tuple(p for p in type_faces() if any(n in p.name.lower().replace("-", "") for n in _CJK_NAMES))


def text_mask(text: str, face: Path | int, weight: int, italic: bool) -> np.ndarray:
    """``text`` as a float mask (1 = ink), cut to its ink, at roughly 120 px tall."""
    if isinstance(face, Path):
        from PIL import Image, ImageDraw, ImageFont

        font = ImageFont.truetype(str(face), 120)
        x0, y0, x1, y1 = font.getbbox(text, stroke_width=weight)
        im = Image.new("L", (x1 - x0 + 8, y1 - y0 + 8), 0)
        ImageDraw.Draw(im).text((4 - x0, 4 - y0), text, fill=255, font=font,
                                stroke_width=weight, stroke_fill=255)
        mask = np.asarray(im, np.float32) / 255
    else:
        f = face | (cv2.FONT_ITALIC if italic else 0)
        thick = 3 + 3 * weight
        (tw, th), base = cv2.getTextSize(text, f, 4.0, thick)
        mask = np.zeros((th + base + 2 * thick + 8, tw + 2 * thick + 8), np.uint8)
        cv2.putText(mask, text, (thick + 4, th + thick + 4), f, 4.0, 255, thick, cv2.LINE_AA)
        mask = mask.astype(np.float32) / 255
    ys, xs = np.nonzero(mask > 0.1)
    if not len(xs):
        raise ValueError(f"font draws no ink for {text!r}: {face}")
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
