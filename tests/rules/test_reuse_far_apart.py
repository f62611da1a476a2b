"""Two tile groups at one address range, used by stages far apart in a deep pipeline: the last
of six stages writes a scratch laid on the tiles the first two hand over. At preload 3 the reuse
distance changes from task to task (PTO036), whose help asked to take one slot per call with
`g.next()`, which every stage does; at preload 1 PTO048's help put "lower the preload" first
(probe h139). Both name the two groups' shared addresses now."""

from pathlib import Path

from pto_transpile import transpile

KERNEL = (Path(__file__).parent / "kernels" / "h139_scratch_on_handed_tiles.py").read_text(encoding="utf-8")


def _errors(preload: int) -> list:
    return [d for d in transpile(KERNEL, path="k.py", preload=preload).diagnostics if d.is_error]


def test_an_unstable_reuse_distance_names_the_two_groups():
    errors = _errors(3)
    assert errors and {d.code for d in errors} == {"PTO036"}, [d.message for d in errors]
    assert all(d.hint.startswith("Stop sharing addresses between `x_db` and `w_db`") for d in errors), \
        [d.hint for d in errors]


def test_an_inverse_time_reuse_at_preload_1_does_not_ask_first_for_a_lower_preload():
    errors = [d for d in _errors(1) if d.code == "PTO048"]
    assert errors and errors[0].hint == ("Stop sharing addresses between these buffers (preload 1 is the lowest "
                                         "that pipelines)"), [d.hint for d in errors]
