"""Real hands in a zone picture: MediaPipe's palm detector and hand landmark model, on ONNX Runtime.

The card detector learnt hands from drawn ones and takes real wood, cork,
carpet and shadows for hands; the small hand model trained here to judge
its boxes still raised a hand on 5 % of real pictures without one and
missed arms seen from above (models/MODEL_CARD.md, "Hands on real
photographs").  MediaPipe Hands (Google, Apache-2.0) learnt hands from a
large set of real photographs: its palm detector finds palms (a fist or
the back of a hand too) and its landmark model, given the square around a
palm turned upright, says whether a hand is there (``presence``) and where
its 21 joints lie.  Both models ship in ``models/`` converted to ONNX
(the recipe: :mod:`vision.training.hand_landmarks_export`).

The steps follow MediaPipe's own graphs (``palm_detection_cpu``,
``hand_landmark_cpu``): the picture letterboxed to 192x192, the 2,016
anchors decoded, overlapping palms blended (weighted non-maximum
suppression), each palm's square turned so the hand points up and
widened 2.6 times, cut at 224x224 for the landmark model.

>>> finder = HandLandmarks()                                   # doctest: +SKIP
>>> [round(h.presence, 2) for h in finder.hands(zone_picture)]  # doctest: +SKIP
[1.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.reading.runtime import model_path, open_model

MODELS = Path(__file__).resolve().parents[2] / "models"
PALM_MODEL = MODELS / "palm-detection.onnx"
LANDMARK_MODEL = MODELS / "hand-landmarks.onnx"
PALM_ENV = "GUANDAN_PALM_MODEL"              # environment variables naming other model files
LANDMARK_ENV = "GUANDAN_HAND_LANDMARK_MODEL"
PALM_INPUT = 192         # the palm detector's picture is PALM_INPUT x PALM_INPUT
LANDMARK_INPUT = 224     # the landmark model's crop
# the palm score: the lowest at which none of the 686 training-side real
# pictures without a hand raised one (MediaPipe's default, 0.5, missed more
# hands there); the presence: MediaPipe's default.  Chosen on training-side
# photographs only: models/MODEL_CARD.md, "Hands found by MediaPipe's models"
PALM_THRESHOLD = 0.2
PRESENCE_THRESHOLD = 0.5
PALM_OVERLAP = 0.3       # palms overlapping more (IoU) are one palm, blended by score
HAND_SCALE = 2.6         # a palm's square widened to hold the whole hand
HAND_SHIFT = -0.5        # ... and moved this share of its height towards the fingers
KEYPOINTS = 7            # the palm detector's keypoints: 0 the wrist, 2 the middle finger's root


def anchors() -> np.ndarray:
    """The palm detector's anchor centres (x, y, in 0-1): 24x24 cells of 2
    anchors, then 12x12 cells of 6 (MediaPipe's SSD anchors for this model:
    strides 8, 16, 16, 16, fixed size, so only centres matter).

    >>> a = anchors()
    >>> a.shape, (a[[0, 1151, 2015]] * 48).round(2).tolist()
    ((2016, 2), [[1.0, 1.0], [47.0, 47.0], [46.0, 46.0]])
    """
    out = []
    for stride, per_cell in ((8, 2), (16, 6)):
        cells = PALM_INPUT // stride
        for y in range(cells):
            for x in range(cells):
                out += [((x + 0.5) / cells, (y + 0.5) / cells)] * per_cell
    return np.array(out, np.float32)


_ANCHORS = anchors()


@dataclass(frozen=True)
class Hand:
    """One hand found in a picture: the palm detector's score, the landmark
    model's presence (the probability that a hand is in its crop), and the
    hand's 21 joints (x, y) in the picture's pixels (MediaPipe's order: 0 the wrist)."""

    palm: float
    presence: float
    points: tuple[tuple[float, float], ...]

    @property
    def box(self) -> tuple[float, float, float, float]:
        """The box (x0, y0, x1, y1) around the joints."""
        xs, ys = [p[0] for p in self.points], [p[1] for p in self.points]
        return (min(xs), min(ys), max(xs), max(ys))

    def reaches(self, box: tuple[float, float, float, float]) -> bool:
        """Whether a joint lies in ``box`` (x0, y0, x1, y1): the hand is over it.

        >>> Hand(0.9, 1.0, ((5.0, 5.0), (50.0, 5.0))).reaches((40.0, 0.0, 100.0, 100.0))
        True
        >>> Hand(0.9, 1.0, ((5.0, 5.0), (30.0, 5.0))).reaches((40.0, 0.0, 100.0, 100.0))
        False
        """
        return any(box[0] <= x <= box[2] and box[1] <= y <= box[3] for x, y in self.points)


def letterbox(rgb: np.ndarray, size: int = PALM_INPUT) -> tuple[np.ndarray, float, float, float]:
    """The picture shrunk to fit a ``size`` square, centred on black, as
    floats 0-1; with its scale and the square's left and top padding (px).

    >>> square, scale, left, top = letterbox(np.full((100, 200, 3), 255, np.uint8), 20)
    >>> square.shape, scale, left, top, float(square[0, 0, 0]), float(square[10, 10, 0])
    ((20, 20, 3), 0.1, 0.0, 5.0, 0.0, 1.0)
    """
    h, w = rgb.shape[:2]
    scale = size / max(h, w)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    left, top = (size - nw) // 2, (size - nh) // 2
    out = np.zeros((size, size, 3), np.float32)
    out[top:top + nh, left:left + nw] = cv2.resize(rgb, (nw, nh), interpolation=cv2.INTER_AREA) / np.float32(255)
    return out, scale, float(left), float(top)


def blend_overlapping(boxes: np.ndarray, points: np.ndarray, scores: np.ndarray,
                      overlap: float = PALM_OVERLAP) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """Weighted non-maximum suppression: the surest palm takes every palm
    overlapping it more than ``overlap`` (IoU), their boxes and keypoints
    averaged by score; its own score is kept.

    >>> b = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [50, 50, 60, 60]], np.float32)
    >>> k = np.zeros((3, 1, 2), np.float32)
    >>> [(round(s, 2), bb.round(1).tolist()) for s, bb, _ in blend_overlapping(b, k, np.array([0.9, 0.9, 0.6]))]
    [(0.9, [0.5, 0.0, 10.5, 10.0]), (0.6, [50.0, 50.0, 60.0, 60.0])]
    """
    order = np.argsort(-scores, kind="stable")
    out = []
    while len(order):
        first, rest = boxes[order[0]], boxes[order]
        iw = np.clip(np.minimum(rest[:, 2], first[2]) - np.maximum(rest[:, 0], first[0]), 0, None)
        ih = np.clip(np.minimum(rest[:, 3], first[3]) - np.maximum(rest[:, 1], first[1]), 0, None)
        area = (rest[:, 2] - rest[:, 0]) * (rest[:, 3] - rest[:, 1])
        iou = iw * ih / np.maximum(area + area[0] - iw * ih, 1e-9)
        group = order[iou > overlap]
        w = scores[group] / scores[group].sum()
        out.append((float(scores[order[0]]), (boxes[group] * w[:, None]).sum(0),
                    (points[group] * w[:, None, None]).sum(0)))
        order = order[iou <= overlap]
    return out


def hand_square(box: np.ndarray, keypoints: np.ndarray) -> tuple[float, float, float, float]:
    """The square the landmark model reads for one palm (centre x, y, side,
    turn in radians), in the picture's pixels: the palm box turned so the
    line from the wrist to the middle finger's root points up, moved
    towards the fingers and widened :data:`HAND_SCALE` times.

    >>> [round(v, 2) for v in hand_square(np.array([40.0, 40.0, 60.0, 60.0]), np.array([[50.0, 60.0], [0, 0], [50.0, 40.0]]))]
    [50.0, 40.0, 52.0, 0.0]
    """
    (x0, y0), (x1, y1) = keypoints[0], keypoints[2]
    turn = math.pi / 2 - math.atan2(-(y1 - y0), x1 - x0)
    turn = (turn + math.pi) % (2 * math.pi) - math.pi
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    w, h = box[2] - box[0], box[3] - box[1]
    cx -= h * HAND_SHIFT * math.sin(turn)
    cy += h * HAND_SHIFT * math.cos(turn)
    return float(cx), float(cy), float(max(w, h) * HAND_SCALE), float(turn)


def _square_corners(cx: float, cy: float, side: float, turn: float) -> np.ndarray:
    """The square's top-left, top-right and bottom-left corners in the picture."""
    c, s = math.cos(turn), math.sin(turn)
    half = side / 2
    return np.array([[cx + dx * c - dy * s, cy + dx * s + dy * c]
                     for dx, dy in ((-half, -half), (half, -half), (-half, half))], np.float32)


class HandLandmarks:
    """MediaPipe's palm detector and hand landmark model on ONNX Runtime.

    ``palm_threshold`` and ``presence_threshold``: a hand is a palm scored
    that much or more whose crop the landmark model finds a hand in with
    that presence or more."""

    def __init__(self, palm_model: str | Path | None = None, landmark_model: str | Path | None = None,
                 threads: int = 2, palm_threshold: float = PALM_THRESHOLD,
                 presence_threshold: float = PRESENCE_THRESHOLD):
        self.palm_path = model_path(palm_model, PALM_ENV, PALM_MODEL)
        self.landmark_path = model_path(landmark_model, LANDMARK_ENV, LANDMARK_MODEL)
        self.palm, self.palm_input = open_model("palm detector", self.palm_path, threads)
        self.landmarks, self.landmark_input = open_model("hand landmark model", self.landmark_path, threads)
        self.palm_threshold = palm_threshold
        self.presence_threshold = presence_threshold

    def palms(self, rgb: np.ndarray) -> list[tuple[float, np.ndarray, np.ndarray]]:
        """Palms in an RGB picture: (score, box x0 y0 x1 y1, 7 keypoints), in its pixels."""
        return self.palms_many([rgb])[0]

    def palms_many(self, rgbs: list[np.ndarray]) -> list[list[tuple[float, np.ndarray, np.ndarray]]]:
        """:meth:`palms` for several pictures, searched side by side (each on a
        core of its own: :class:`vision.reading.runtime.ParallelSession`)."""
        squares = [letterbox(rgb) for rgb in rgbs]
        outs = self.palm.run_many(None, [{self.palm_input: square[None]} for square, _, _, _ in squares])
        return [self._decoded(raw, logits, scale, left, top)
                for (raw, logits), (_, scale, left, top) in zip(outs, squares)]

    def _decoded(self, raw: np.ndarray, logits: np.ndarray, scale: float, left: float,
                 top: float) -> list[tuple[float, np.ndarray, np.ndarray]]:
        """One picture's palms from the palm detector's outputs and its letterbox."""
        scores = 1.0 / (1.0 + np.exp(-np.clip(logits[0, :, 0], -100.0, 100.0)))
        keep = scores >= self.palm_threshold
        if not keep.any():
            return []
        raw, scores, centres = raw[0][keep] / PALM_INPUT, scores[keep], _ANCHORS[keep]
        cx, cy = raw[:, 0] + centres[:, 0], raw[:, 1] + centres[:, 1]
        half_w, half_h = raw[:, 2] / 2, raw[:, 3] / 2
        boxes = np.stack([cx - half_w, cy - half_h, cx + half_w, cy + half_h], axis=1)
        points = raw[:, 4:4 + 2 * KEYPOINTS].reshape(-1, KEYPOINTS, 2) + centres[:, None, :]
        # from the letterboxed square back to the picture
        offset = np.array([left, top], np.float32)
        return [(s, (b.reshape(2, 2) * PALM_INPUT - offset).reshape(4) / scale, (k * PALM_INPUT - offset) / scale)
                for s, b, k in blend_overlapping(boxes, points, scores)]

    def hands(self, image: np.ndarray) -> list[Hand]:
        """The hands in a BGR picture (every palm the landmark model finds a hand at)."""
        return self.hands_many([image])[0]

    def hands_many(self, images: list[np.ndarray]) -> list[list[Hand]]:
        """:meth:`hands` for several BGR pictures (a table's zones), their
        palm searches and then every palm's landmark run side by side: the
        same hands as one by one, a table's four zones in about two thirds
        of the time on two cores."""
        for image in images:
            if image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 2:
                raise ValueError(f"expected a BGR picture, got an array of shape {image.shape}")
        rgbs = [cv2.cvtColor(image, cv2.COLOR_BGR2RGB) for image in images]
        jobs = []         # (picture, palm score, to_crop, crop), every picture's palms
        for n, (rgb, palms) in enumerate(zip(rgbs, self.palms_many(rgbs))):
            for score, box, keypoints in palms:
                corners = _square_corners(*hand_square(box, keypoints))
                to_crop = cv2.getAffineTransform(corners, np.array([[0, 0], [LANDMARK_INPUT, 0], [0, LANDMARK_INPUT]],
                                                                   np.float32))
                crop = cv2.warpAffine(rgb, to_crop, (LANDMARK_INPUT, LANDMARK_INPUT), flags=cv2.INTER_LINEAR,
                                      borderMode=cv2.BORDER_REPLICATE)
                jobs.append((n, score, to_crop, crop))
        runs = self.landmarks.run_many(None, [{self.landmark_input: (crop.astype(np.float32) / 255)[None]}
                                              for _, _, _, crop in jobs])
        found: list[list[Hand]] = [[] for _ in images]
        for (n, score, to_crop, _), (joints, presence, _, _) in zip(jobs, runs):
            p = float(presence.reshape(-1)[0])
            if p < self.presence_threshold:
                continue
            back = cv2.invertAffineTransform(to_crop)
            xy = joints.reshape(-1, 3)[:, :2] @ back[:, :2].T + back[:, 2]
            found[n].append(Hand(round(float(score), 4), round(p, 4),
                                 tuple((round(float(x), 1), round(float(y), 1)) for x, y in xy)))
        return found
