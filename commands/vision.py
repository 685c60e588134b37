"""Card recognition commands: ``calibrate``, ``recognize`` and ``watch``.

    guandan-ref calibrate --print-markers markers.pdf       # what to print: table markers
    guandan-ref calibrate --print-cards cards.pdf           # PASS and count-report cards
    guandan-ref calibrate FRAME.jpg --out table.json --annotated check.png
    guandan-ref recognize ZONE.jpg                           # one play zone picture
    guandan-ref recognize FRAME.jpg --table table.json       # every zone of a table frame
    guandan-ref watch game.mp4 --table table.json            # events as JSON lines
    guandan-ref enroll-deck photos/*.jpg --out deck.npz      # adapt the classifier to a deck
    guandan-ref recognize ZONE.jpg --deck deck.npz           # read with that deck's profile
"""

from __future__ import annotations

import json
import sys
from contextlib import closing
from pathlib import Path

from commands import UsageError
from commands.args import (deck_profile, existing_file, frame_size, integer, new_file_in_existing_dir, number,
                           probability)


def _imread(path: str):
    import cv2

    p = Path(path)
    if not p.exists():
        raise UsageError(f"picture not found: {path}")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if img is None:
        raise UsageError(f"not a readable picture: {path}")
    return img


def _first_frame(source: str, size: tuple[int, int] | None = None):
    """A picture file, or the first good frame of a video file or camera
    (a camera device asked for ``size``)."""
    if Path(source).suffix.lower() in (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"):
        return _imread(source)
    from vision.reading.watch import SourceError, open_source

    try:
        for _, frame in open_source(source, size=size):
            if frame is not None:
                return frame
    except SourceError as exc:
        raise UsageError(str(exc)) from None
    raise UsageError(f"no frame could be read from {source}")


def _detector(args, deck: str | None = None):
    from vision.reading.detector import CardDetector, DetectorError

    try:
        return CardDetector(args.model, conf=args.conf, threads=args.threads,
                            deck=deck if deck is not None else getattr(args, "deck", None))
    except DetectorError as exc:
        raise UsageError(str(exc)) from None


def _geometry(path: str):
    from vision.reading.table import GeometryError, TableGeometry

    try:
        geo = TableGeometry.load(path)
    except GeometryError as exc:
        raise UsageError(str(exc)) from None
    if geo.homography is None:
        raise UsageError(f"{path} holds no camera calibration (run guandan-ref calibrate)")
    return geo


def cmd_calibrate(args) -> int:
    import cv2

    from vision.reading.table import GeometryError, annotate, calibrate

    if args.print_markers or args.print_cards:
        if args.print_markers:
            from vision.reading.printables import write_marker_sheet

            print(write_marker_sheet(args.print_markers, args.size_mm))
        if args.print_cards:
            from vision.reading.printed_cards import write_card_sheet

            print(write_card_sheet(args.print_cards))
        if not args.source:
            return 0
    if not args.source:
        raise UsageError("give a picture or video of the table (or --print-markers FILE.pdf)")
    if not args.out:
        raise UsageError("--out GEOMETRY.json is required to save the calibration")
    frame = _first_frame(args.source, args.camera_size)
    try:
        geo = calibrate(frame, table=args.table, size_mm=args.size_mm)
    except GeometryError as exc:
        raise UsageError(str(exc)) from None
    annotated = args.annotated or str(Path(args.out).with_suffix(".png"))
    try:
        geo.save(args.out)
    except OSError as exc:
        raise UsageError(f"cannot write {args.out}: {exc.strerror}") from None
    if not cv2.imwrite(annotated, annotate(frame, geo)):
        raise UsageError(f"cannot write the annotated picture {annotated} (a .png or .jpg name?)")
    # the lamp's colour as the markers' paper shows it (vision.reading.white_balance): said at set-up
    from vision.reading.white_balance import MarkerWhite
    papers, gains = MarkerWhite(geo).check(frame)
    if papers == 0:
        print("guandan-ref calibrate: no marker shows its white paper unclipped (burnt out, or covered): the "
              "lamp's colour cannot be measured; lower the camera's exposure until the paper is not pure white",
              file=sys.stderr)
    # a USB camera opened without a size gives OpenCV's default (640x480 on most):
    # the cloth at a quarter of what reading needs, and nothing else says so
    from vision.reading.table import MIN_PX_PER_MM
    fine = geo.px_per_mm()
    if fine < MIN_PX_PER_MM:
        h, w = frame.shape[:2]
        print(f"guandan-ref calibrate: the camera sees the play zones at {fine:.2f} px/mm ({w}x{h} frames); "
              f"cards need 2 px/mm (a 900 mm cloth: 1,800 px or more on the short side), {MIN_PX_PER_MM:g} at the least: "
              f"set the camera to a higher resolution (a USB camera: --camera-size 3840x2160), or bring it closer, "
              f"and calibrate again", file=sys.stderr)
    print(json.dumps({"geometry": str(args.out), "annotated": annotated, "px_per_mm": round(fine, 2),
                      "zones": [z.name for z in geo.zones],
                      "light": {"markers_showing_paper": papers,
                                "tint_taken_out": None if gains is None else [round(float(g), 3) for g in gains]}}))
    return 0


def cmd_recognize(args) -> int:
    image = _imread(args.image)
    det = _detector(args)
    if args.table:
        from vision.reading.watch import FrameError, TableWatcher

        from vision.reading.table import GeometryError

        try:
            watcher = TableWatcher(_geometry(args.table), det, margin_mm=args.margin_mm, threads=args.threads)
            reads = watcher.read(image)
        except (FrameError, GeometryError) as exc:
            raise UsageError(f"{args.image}: {exc}") from None
        out = {"image": args.image, "zone_margin_mm": watcher.margin_mm,
               "zones": {name: r.to_dict() for name, r in reads.items()}}
    else:
        from vision.reading.table import find_markers
        if len(find_markers(image)) >= 2:
            # a zone read of a whole table finds nothing and would say so confidently
            raise UsageError(f"{args.image} shows the table's markers: it is a whole-table frame; "
                             f"give --table GEOMETRY.json (from guandan-ref calibrate) to read its zones")
        out = {"image": args.image, **det.read_zone(image).to_dict()}
    print(json.dumps(out, ensure_ascii=False))
    return 0


def _curve(path: str | None):
    """``--confidence-curve``: the venue's own curve, checked as a table checks it."""
    if path is None:
        return None
    from vision.reading.confidence import Calibration, CalibrationError
    try:
        return Calibration.load(path)
    except CalibrationError as exc:
        raise UsageError(f"--confidence-curve: {exc}") from None


def cmd_watch(args) -> int:
    from vision.reading.picture_loss import FROZEN_S
    from vision.reading.watch import FrameError, SourceError, TableWatcher, is_live, open_source

    geo = _geometry(args.table)
    zones = args.zones.split(",") if args.zones else None
    from vision.reading.table import GeometryError

    try:
        watcher = TableWatcher(geo, _detector(args), zones, args.stable_s, args.stable_frames,
                               margin_mm=args.margin_mm, threads=args.threads,
                               frozen_s=FROZEN_S if is_live(args.source) else None,
                               confidence_curve=_curve(args.confidence_curve))
    except GeometryError as exc:
        raise UsageError(str(exc)) from None
    n = -1
    try:
        # (closed on the way out, Ctrl-C too: a live source's reading thread is stopped first)
        with closing(open_source(args.source, size=geo.image_size)) as frames:
            for n, (t, frame) in enumerate(frames):
                try:
                    events = watcher.process(t, frame)
                except FrameError as exc:
                    print(f"guandan-ref watch: frame {n} (t={t:.2f}s): {exc}; carrying on",
                          file=sys.stderr, flush=True)
                    continue
                for e in events:
                    print(e.to_json(), flush=True)
    except SourceError as exc:
        raise UsageError(str(exc)) from None
    if n < 0:
        raise UsageError(f"no frame could be read from {args.source}: give a video file, a camera "
                         f"index or an RTSP/HTTP URL")
    return 0


def _card_labels(path: str) -> list[str]:
    """The card codes of a labels file (spaces, commas or lines between them)."""
    from referee.cards import CardError, parse_card

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read labels file {path}: {exc}") from None
    out = []
    for n, token in enumerate(text.replace(",", " ").split(), 1):
        try:
            out.append(parse_card(token).code)
        except CardError:
            raise UsageError(f"labels file {path}: label {n} {token!r} is not a card code "
                             f"(S5, H10, DT, BJ, LJ, ...)") from None
    return out


def cmd_enroll_deck(args) -> int:
    from vision.reading.deck_profile import DeckProfile, DeckProfileError
    from vision.reading.enroll import EnrollError, cards_from_photos, enroll, parse_grid, read_photo

    if Path(args.out).suffix.lower() != ".npz":
        raise UsageError(f"--out {args.out}: a deck profile is written as a .npz file (e.g. deck.npz)")
    try:
        grid = parse_grid(args.grid) if args.grid else None
        labels = _card_labels(args.labels) if args.labels else None
        if grid is not None and labels is not None and (len(labels) != 54 or len(set(labels)) != 54):
            raise UsageError(f"labels file {args.labels}: a grid's labels name each of the 54 faces once, "
                             f"in the grid's order ({len(labels)} labels, {len(set(labels))} different)")
        photos = [(p, read_photo(p)) for p in args.photos]
        cards, _ = cards_from_photos(photos, labels=labels, grid=grid)
    except EnrollError as exc:
        raise UsageError(str(exc)) from None
    try:
        start = DeckProfile.load(args.start) if args.start else None
    except DeckProfileError as exc:
        raise UsageError(f"--start: {exc}") from None
    # (with --start, the classifier that profile was made for, reading with it)
    det = _detector(args, deck=args.start)
    log = (lambda msg: print(f"guandan-ref enroll-deck: {msg}", file=sys.stderr)) if not args.quiet else None
    try:
        result = enroll(det, cards, args.name or Path(args.out).stem, per_corner=args.variants,
                        calibration_rows=args.calibration_rows, log=log, start=start)
        result.profile.save(args.out)
    except DeckProfileError as exc:
        raise UsageError(str(exc)) from None
    print(json.dumps({"profile": str(args.out), **result.profile.meta}, ensure_ascii=False))
    return 0


def _add_model_args(p) -> None:
    p.add_argument("--model", help="ONNX model (default models/cards-yolo11n-int8.onnx or $GUANDAN_CARD_MODEL; "
                                     "models/cards-yolo11n.onnx is the same detector unquantised)")
    p.add_argument("--conf", type=probability, default=None,
                   help="lowest detector confidence for an index box (default 0.1; the classifier then decides)")
    p.add_argument("--threads", type=integer(1, 256, "a thread count"), default=2,
                   help="threads for the models and the picture work (default 2)")


def _add_deck_arg(p) -> None:
    p.add_argument("--deck", metavar="PROFILE", type=deck_profile,
                   help="deck profile from guandan-ref enroll-deck (.npz), or a shipped one by name "
                        "(hanzi-jokers: decks printing 大王 / 小王): read that deck's indices with its own head")


def _add_margin_arg(p) -> None:
    from vision.reading.table import ZONE_MARGIN_MM

    p.add_argument("--margin-mm", type=number(0, 100, "a margin in mm"), default=ZONE_MARGIN_MM,
                   help=f"cloth read around each zone, so cards pushed past its line are named "
                        f"(default {ZONE_MARGIN_MM:g}; keep it under the gap between zones)")


def register(subparsers) -> None:
    p = subparsers.add_parser("calibrate", help="find the table and its zones from four ArUco markers")
    p.add_argument("source", nargs="?", help="picture, video file or camera index showing the table")
    p.add_argument("--out", type=new_file_in_existing_dir, help="geometry file to write (JSON)")
    p.add_argument("--annotated", type=new_file_in_existing_dir,
                   help="picture with the zones drawn (default: beside --out, .png)")
    p.add_argument("--table", default="T01", help="table id (default T01)")
    p.add_argument("--camera-size", type=frame_size, metavar="WxH",
                   help="ask a camera device for this frame size, e.g. 3840x2160 (default: the driver's, "
                        "640x480 on most USB cameras); the table node asks it for the size calibrated at")
    p.add_argument("--size-mm", type=number(300, 3000, "a table side in mm"), default=900.0,
                   help="table side in mm (default 900)")
    p.add_argument("--print-markers", metavar="PDF", type=new_file_in_existing_dir,
                   help="write the printable marker sheet")
    p.add_argument("--print-cards", metavar="PDF", type=new_file_in_existing_dir,
                   help="write the printable PASS and count cards")
    p.set_defaults(func=cmd_calibrate)

    p = subparsers.add_parser("recognize", help="name the cards in a zone picture or a table frame")
    p.add_argument("image", type=existing_file, help="a zone picture, or a whole-table frame with --table")
    p.add_argument("--table", metavar="GEOMETRY", type=existing_file,
                   help="the picture is a whole-table frame; its geometry from calibrate")
    _add_margin_arg(p)
    _add_model_args(p)
    _add_deck_arg(p)
    p.set_defaults(func=cmd_recognize)

    p = subparsers.add_parser("watch", help="print observed events from a camera or video as JSON lines")
    p.add_argument("source", help="camera index, RTSP/HTTP URL or video file")
    p.add_argument("--table", required=True, metavar="GEOMETRY", type=existing_file,
                   help="the table's geometry from calibrate")
    p.add_argument("--zones", help="comma-separated zone names (default: all)")
    p.add_argument("--stable-s", type=number(0, 60, "a number of seconds"), default=0.4,
                   help="seconds a play must hold still (default 0.4)")
    p.add_argument("--stable-frames", type=integer(1, 1000, "a frame count"), default=3,
                   help="frames a play must hold still (default 3)")
    _add_margin_arg(p)
    _add_model_args(p)
    _add_deck_arg(p)
    p.add_argument("--confidence-curve", metavar="CURVE.json", type=existing_file,
                   help="the venue's own confidence curve (guandan-ref camera-check --fit; default: the shipped one)")
    p.set_defaults(func=cmd_watch)

    p = subparsers.add_parser(
        "enroll-deck", help="adapt the card classifier to one deck from photos of its 54 faces",
        description="Photos of a deck's faces -> a deck profile (.npz) for recognize/watch --deck and the "
                    "table config's [camera] deck. Single photos: one card each, named after it (S5.jpg, "
                    "H10.jpg, BJ.jpg) or in the order of --labels. Grid photos (--grid ROWSxCOLS): the cards "
                    "apart in rows, in the order S2..SA, H2..HA, D2..DA, C2..CA, BJ, LJ (or --labels), left "
                    "to right, top row first, photo after photo. Light cards on a darker plain cloth.")
    p.add_argument("photos", nargs="+", type=existing_file, metavar="PHOTO", help="photos of the deck's faces")
    p.add_argument("--out", required=True, type=new_file_in_existing_dir, metavar="DECK.npz",
                   help="the deck profile to write")
    p.add_argument("--grid", metavar="ROWSxCOLS", help="the photos show the cards laid in a grid, e.g. 4x7 (2 photos)")
    p.add_argument("--labels", type=existing_file, metavar="FILE",
                   help="card codes in the photos' order (single photos) or the grid's order, e.g. S2 S3 ...")
    p.add_argument("--name", help="the deck's name, kept in the profile (default: the file's name)")
    p.add_argument("--start", type=deck_profile, metavar="PROFILE",
                   help="fit the deck's head from this profile's instead of the shipped one: hanzi-jokers for a "
                        "deck printing its jokers 大王 / 小王 (a file, or a shipped profile's name)")
    p.add_argument("--variants", type=integer(2, 200, "a number of variants"), default=24,
                   help="made-up views of each index, upright and turned (default 24)")
    p.add_argument("--calibration-rows", type=integer(0, 5000, "a number of rows"), default=400,
                   help="rows of the deck's cards held back from the head and read with the new profile "
                        "to fit its own confidence calibration (default 400; 0: none, the shipped curve "
                        "is then applied to the profile's scores, unmeasured)")
    _add_model_args(p)
    p.set_defaults(func=cmd_enroll_deck)
