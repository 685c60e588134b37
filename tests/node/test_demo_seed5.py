"""The demo with another scripted match, as the issue ran it: ``--seed -5``
(seed 5's match: the simulation seeds Python's ``random``, which takes a
negative seed's absolute value).  There the camera once read E's D8 D8 as
D8 D8 D8 and the referee warned E for a count report E never made.  A
file of its own, so the suite's workers run the two demos side by side."""

from tests.node.test_demo import check_demo


def test_the_demo_of_seed_minus_5_catches_exactly_its_scripted_violations(tmp_path):
    check_demo(tmp_path, seed=-5)
