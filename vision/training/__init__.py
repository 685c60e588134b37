"""Making the card models: card art, synthetic scenes and tables, data sets
and training (PyTorch and ultralytics: the ``train`` extra).

Builds on :mod:`vision.reading` (the classes, the zone geometry, the
detector that boxes crops); never the other way round.
"""
