"""Run time: from camera frames to observed plays, on ONNX Runtime.

Nothing here imports :mod:`vision.training` (tests/vision/test_layers.py
checks it): a table node runs without PyTorch, ultralytics or the card art.
"""
