"""Static methods of a class of the file are followed as the file's functions are (probe h88).

A call through a class (`Ev.notify()`) was a call of something unknown: given no tile, it was
neither run nor refused. A hand-pipelined kernel whose syncs sit in such methods was taken for
a plain kernel (PTO003, its syncs never checked), and a pipelined kernel whose body raised an
event of the transform's own ids that way was written although it raced. Such a call now runs
the method's body, class attributes it reads (`Handshake.EVENT`) are their values, and a call
into a class the check does not follow that way (an instance's method) is refused, not skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_probe_h83 import CALL, PICK, PICKED

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

HAND = (Path(__file__).resolve().parents[2] / "examples" / "hand_pipelined.py").read_text(encoding="utf-8")
ROWS_KERNEL = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
MULS = "    pl.muls(res, proj, 0.5)\n"
#: each sync of the hand-pipelined example by (op, pipe): the static method of `Ev` it becomes
METHODS = {("set", "FIX"): "full_set", ("wait", "V"): "full_wait", ("set", "V"): "free_set",
           ("wait", "FIX"): "free_wait"}
EV = "class Ev:\n" + "\n".join(
    f"    @staticmethod\n    def {name}(e):\n        pl.system.{op}_cross_core(pipe=pl.PipeType.{pipe}, event_id=e)\n"
    for (op, pipe), name in METHODS.items()) + "\n\n"
SYNC = re.compile(r"pl\.system\.(set|wait)_cross_core\(pipe=pl\.PipeType\.(FIX|V), event_id=(.*)\)$", re.M)


def _through_class(text: str) -> str:
    """The hand-pipelined example with each of its syncs made through a static method of `Ev`."""
    calls = SYNC.sub(lambda m: f"Ev.{METHODS[(m.group(1), m.group(2))]}({m.group(3)})", text)
    return calls.replace("\n@pl.jit(", "\n" + EV + "@pl.jit(", 1)


STATIC = _through_class(HAND)
WAITS = [line for line in STATIC.splitlines(keepends=True) if re.match(r" +Ev\.\w+_wait\(", line)]


def _codes(text: str) -> list[str]:
    return [d.code for d in transpile(text, path="k.py").diagnostics]


def test_syncs_in_static_methods_are_the_kernel_s_own_and_are_proven():
    assert STATIC.count("Ev.") == 8 and len(WAITS) == 4
    assert _codes(STATIC) == ["PTO060"]
    assert [row.verdict for row in verify(STATIC, STATIC, "hand_pipelined_kernel", path="k.py").rows] == ["ok", "ok"]


@pytest.mark.parametrize("wait", range(4))
def test_a_wait_missing_from_static_methods_is_an_error(wait):
    assert "PTO068" in _codes(STATIC.replace(WAITS[wait], "", 1))


def test_an_instance_s_methods_are_refused_not_skipped():
    text = STATIC.replace("    @staticmethod\n    def ", "    def ")
    text = re.sub(r"    def (\w+)\(e\):", r"    def \1(self, e):", text)
    kernel = text.index("\ndef hand_pipelined_kernel(")
    body = text[kernel:].replace("Ev.", "ev.").replace("    ring = ", "    ev = Ev()\n    ring = ", 1)
    result = transpile(text[:kernel] + body, path="k.py")
    found = [d for d in result.diagnostics if d.code == "PTO077"]
    assert found and re.search(r"reaches `Ev` \(line \d+\), a class whose methods run `pl` ops", found[0].message)


#: the author's own cube -> vector notice per iteration, on event 0, which the transform also
#: gives `proj_vec_db`'s forward events: the cube's next notice releases the vector's wait
#: for the slot before the cube's `pl.move` into it is done
HANDSHAKE = '''class Handshake:
    EVENT = 0

    @staticmethod
    def notify():
        pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=Handshake.EVENT)

    @staticmethod
    def receive():
        pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=Handshake.EVENT)


'''
PROJECT = "            project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)\n"


def test_a_static_method_raising_a_generated_event_id_is_refused_naming_the_race():
    text = edited(PICKED, [(PICK, "    pl.store(ws2, res, [sub_id * HALF, 0])\n"),
                           ("\n@pl.jit(", "\n" + HANDSHAKE + "@pl.jit("),
                           (PROJECT, "            Handshake.notify()\n        with pl.section_cube():\n" + PROJECT),
                           (CALL, CALL + "        with pl.section_vector():\n            Handshake.receive()\n")])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and "reads `proj_vec_db[0]` while stage `project` (task 0), `pl.move`" in errors[0], errors


def _handshake(classes: str) -> str:
    return edited(PICKED, [(PICK, "    pl.store(ws2, res, [sub_id * HALF, 0])\n"),
                           ("\n@pl.jit(", "\n" + classes + "@pl.jit("),
                           (PROJECT, "            Handshake.notify()\n        with pl.section_cube():\n" + PROJECT),
                           (CALL, CALL + "        with pl.section_vector():\n            Handshake.receive()\n")])


def test_a_class_attribute_is_the_value_it_had_when_the_class_was_made():
    # `EVENT = X` took 0 when the class ran; `X` is 12 at the module's end: neither is taken for it
    text = _handshake("X = 0\n\n\n" + HANDSHAKE.replace("    EVENT = 0\n", "    EVENT = X\n") + "X = 12\n\n\n")
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and "the pipe or event id of this sync is not static" in errors[0], errors


def test_a_static_method_a_class_inherits_is_refused_where_it_runs_pl_ops():
    base = HANDSHAKE.replace("class Handshake:\n    EVENT = 0\n", "class Base:\n    EVENT = 0\n")
    text = _handshake(base.replace("Handshake.EVENT", "0") + "class Handshake(Base):\n    pass\n\n\n")
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and "reaches `Base` (line" in errors[0] and "a class whose methods run `pl` ops" \
        in errors[0], errors


@pytest.mark.parametrize("binding", ["staticmethod = classmethod", "(staticmethod) = classmethod",
                                     "[staticmethod] = [classmethod]", "staticmethod, _X = classmethod, 0"])
def test_a_module_that_rebinds_staticmethod_follows_none(binding):
    # `staticmethod` bound to another decorator: `Ev.full_set` may be anything it returns
    text = STATIC.replace("\nclass Ev:\n", f"\n{binding}\n\n\nclass Ev:\n", 1)
    found = [d for d in transpile(text, path="k.py").diagnostics if d.code in ("PTO068", "PTO077")]
    assert found and all("`staticmethod` not rebound), called as `Ev.method(...)`" in d.message
                         for d in found), [d.message for d in found]


#: functions of the file that raise and wait for event 0, which the transform also gives
#: `proj_vec_db`'s forward events: reached through `Handshake.notify()`, a race
EVENT_0 = ("def _notify0():\n    pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=0)\n\n\n"
           "def _receive0():\n    pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=0)\n\n\n")
QUIET = "    @staticmethod\n    def notify():\n        pass\n\n    @staticmethod\n    def receive():\n        pass\n"
#: ways a class's members become something else than its body says (probe h90): each was followed
#: as its body says, or skipped as a call of something unknown, and raced
REPLACED = {
    "a class decorator": "def _events(cls):\n    cls.notify = staticmethod(_notify0)\n    cls.receive = staticmethod("
                         "_receive0)\n    return cls\n\n\n@_events\nclass Handshake:\n" + QUIET,
    "a metaclass": "class _Meta(type):\n    def __new__(mcs, name, bases, ns):\n"
                   "        ns['notify'], ns['receive'] = staticmethod(_notify0), staticmethod(_receive0)\n"
                   "        return super().__new__(mcs, name, bases, ns)\n\n\n"
                   "class Handshake(metaclass=_Meta):\n" + QUIET,
    "a base's __init_subclass__": "class _Base:\n    def __init_subclass__(cls):\n"
                                  "        cls.notify = staticmethod(_notify0)\n"
                                  "        cls.receive = staticmethod(_receive0)\n\n\n"
                                  "class Handshake(_Base):\n" + QUIET,
    "an alias of the class": "class Handshake:\n" + QUIET + "\n\nHS = Handshake\nHS.notify = staticmethod(_notify0)\n"
                             "HS.receive = staticmethod(_receive0)\n",
    "staticmethod rebound in the class": "def _on_event(fn):\n    return staticmethod(_notify0 if fn.__name__ == "
                                         "'notify' else _receive0)\n\n\nclass Handshake:\n    staticmethod = "
                                         "_on_event\n\n" + QUIET,
    "a function stored in the class": "class Handshake:\n    notify = staticmethod(_notify0)\n"
                                      "    receive = staticmethod(_receive0)\n",
    "methods under an if": "class Handshake:\n    if True:\n        @staticmethod\n        def notify():\n"
                           "            _notify0()\n\n        @staticmethod\n        def receive():\n"
                           "            _receive0()\n",
    "a nested class": "class Outer:\n    class Handshake:\n        @staticmethod\n        def notify():\n"
                      "            _notify0()\n\n        @staticmethod\n        def receive():\n"
                      "            _receive0()\n\n\nHandshake = Outer.Handshake\n",
}


@pytest.mark.parametrize("how", list(REPLACED))
def test_a_class_whose_members_may_be_replaced_is_not_followed_and_the_kernel_is_refused(how):
    text = _handshake(EVENT_0 + REPLACED[how] + "\n\n")
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and ("only where nothing can replace them" in errors[0]
                                 or "which the check does not run" in errors[0]
                                 or "a class whose methods run `pl` ops" in errors[0]
                                 or "a value of a kind the check does not know" in errors[0]), errors


def test_an_instance_s_methods_reaching_pl_through_a_function_are_refused():
    methods = "class Handshake:\n    def notify(self):\n        _notify0()\n\n    def receive(self):\n" \
              "        _receive0()\n\n\n"
    text = _handshake(EVENT_0 + methods).replace("            Handshake.notify()\n",
                                                 "            Handshake().notify()\n")
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and "reaches `Handshake` (line" in errors[0], errors


#: the vector stage's epilogue as a static method it calls with the slot it took
EPILOGUE = "class Epilogue:\n    @staticmethod\n    def halve(dst, src):\n        pl.muls(dst, src, 0.5)\n\n\n"


def test_a_static_method_a_stage_calls_is_scanned_with_the_stage_and_proven():
    """The access scan did not follow it: the vector stage's read of its slot went unseen and the
    kernel was refused as using a cross-core buffer in one stage only (PTO033, probe h90)."""
    text = edited(ROWS_KERNEL, [(MULS, "    Epilogue.halve(res, proj)\n"),
                                ("\n@pl.jit(", "\n" + EPILOGUE + "@pl.jit(")])
    result = transpile(text, path="k.py", preload=1)
    assert [d.message for d in result.diagnostics] == [] and result.code is not None
    for rows in (64, 160):
        report = verify(text, result.code, "kern", path="k.py", shapes={"a": (rows, 32), "out": (rows, 32)})
        assert [row.verdict for row in report.rows] == ["ok", "ok"], rows


def _aliased(text: str, alias: str, member: str) -> str:
    """`text` with `alias = member` below the class of `member`, and its calls of `member` made
    through it."""
    text = text.replace(f"{member}(", f"{alias}(")
    end = text.index("\n\n\n", text.index(f"\nclass {member.split('.')[0]}")) + 1
    return text[:end] + f"\n{alias} = {member}\n" + text[end:]


def test_a_module_alias_of_a_static_method_is_that_method():
    """`halve = Epilogue.halve` was an attribute access the module-name reading did not fold:
    a call through it was PTO070 ("cannot be known without running the file")."""
    text = _aliased(edited(ROWS_KERNEL, [(MULS, "    Epilogue.halve(res, proj)\n"),
                                         ("\n@pl.jit(", "\n" + EPILOGUE + "@pl.jit(")]), "halve", "Epilogue.halve")
    assert "    halve(res, proj)\n" in text
    result = transpile(text, path="k.py", preload=1)
    assert [d.message for d in result.diagnostics] == [] and result.code is not None
    report = verify(text, result.code, "kern", path="k.py", shapes={"a": (96, 32), "out": (96, 32)})
    assert [row.verdict for row in report.rows] == ["ok", "ok"]


def test_syncs_through_aliases_of_static_methods_are_checked():
    text = STATIC
    for name in METHODS.values():
        text = _aliased(text, name, f"Ev.{name}")
    assert "Ev." not in text[text.index("\ndef hand_pipelined_kernel("):]
    assert _codes(text) == ["PTO060"]
    assert [row.verdict for row in verify(text, text, "hand_pipelined_kernel", path="k.py").rows] == ["ok", "ok"]
    wait = next(line for line in text.splitlines(keepends=True) if re.match(r" +full_wait\(", line))
    assert "PTO068" in _codes(text.replace(wait, "", 1))


def test_an_alias_of_a_method_of_a_class_that_may_change_is_not_followed():
    text = _aliased(STATIC, "full_set", "Ev.full_set").replace("\nclass Ev:\n", "\nclass Ev(object):\n", 1)
    found = [d for d in transpile(text, path="k.py").diagnostics if d.code == "PTO070"]
    assert found and "`full_set`" in found[0].message, [d.message for d in found]
def test_an_attribute_of_a_class_the_check_does_not_read_is_named_with_why():
    """An event id taken from a base's attribute (`Events.FREE` with `FREE` bound in `Base`) was
    "the pipe or event id of this sync is not static", with nothing naming the attribute."""
    kernel = HAND.index("\n@pl.jit(")
    text = HAND[:kernel] + "\n\nclass Base:\n    FREE = [2, 3]\n\n\nclass Events(Base):\n    pass\n\n" \
        + HAND[kernel:].replace("EV_FREE[", "Events.FREE[")
    found = [d for d in transpile(text, path="k.py").diagnostics if d.code == "PTO077"]
    assert found and "`Events.FREE` is not a compile-time constant (the check reads the attributes of a class only " \
        "where nothing can replace them" in found[0].message and "use a module constant" in found[0].message, found
    # the help applied: the ids in a module constant
    assert _codes(text.replace("Events.FREE[", "EV_FREE[")) == ["PTO060"]


#: stores the regex reading of the file took for no store of `Handshake.notify` (probe h92):
#: the class was followed as its body says while Python ran `_notify0`, a race
STORED = {
    "a tuple target": "Handshake.notify, _STORED = staticmethod(_notify0), True\n",
    "a list target": "[Handshake.notify] = [staticmethod(_notify0)]\n",
    "a parenthesized target": "(Handshake.notify) = staticmethod(_notify0)\n",
    "a for target": "for Handshake.notify in [staticmethod(_notify0)]:\n    pass\n",
    "a with target": "with _holding(staticmethod(_notify0)) as Handshake.notify:\n    pass\n",
}
HOLDING = "def _holding(value):\n    return contextlib.nullcontext(value)\n\n\n"


@pytest.mark.parametrize("how", list(STORED))
def test_a_member_stored_by_any_target_is_not_followed_and_the_kernel_is_refused(how):
    classes = EVENT_0 + HOLDING + "class Handshake:\n" + QUIET + "\n\n" + STORED[how] + "\n\n"
    text = _handshake(classes).replace("import pypto_pro.language as pl\n",
                                       "import contextlib\n\nimport pypto_pro.language as pl\n", 1)
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and "only where nothing can replace them" in errors[0] \
        and "`Handshake.notify` is not one" in errors[0], errors


#: the vector stage also stores its rows into `a` at `i + Cfg.AHEAD`: 0 by the class body, where
#: the next task's cube stage loads nothing of them; 1 once rebound, a cross-core race
AHEAD = [("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
          "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"
          "    pl.store(a, res, [(i + Cfg.AHEAD) * BLOCK + sub_id * HALF, 0])\n"),
         ("def finish(i, sub_id, out, ", "def finish(i, sub_id, out, a, "),
         ("            finish(i, sub_id, out, ", "            finish(i, sub_id, out, a, ")]
CFG = "class Cfg:\n    AHEAD = 0\n\n\n"
REBOUND = {"a for target": "for Cfg.AHEAD in (1,):\n    pass\n",
           "a tuple target": "Cfg.AHEAD, _X = 1, 0\n",
           "a list target": "[Cfg.AHEAD] = [1]\n",
           "a parenthesized target": "(Cfg.AHEAD) = 1\n"}


def test_a_class_constant_nothing_rebinds_is_its_value():
    text = edited(ROWS_KERNEL, [*AHEAD, ("\n@pl.jit(", "\n" + CFG + "@pl.jit(")])
    result = transpile(text, path="k.py", preload=1)
    assert [d.message for d in result.diagnostics] == [] and result.code is not None


@pytest.mark.parametrize("how", list(REBOUND))
def test_a_class_constant_rebound_by_any_target_is_not_its_body_s_value(how):
    """`for Cfg.AHEAD in (1,)` was read as no store: the check proved the store at rows `i` while
    Python stored rows `i + 1`, which the next task's cube stage loads (probe h92)."""
    text = edited(ROWS_KERNEL, [*AHEAD, ("\n@pl.jit(", "\n" + CFG + REBOUND[how] + "\n\n@pl.jit(")])
    errors = [d for d in transpile(text, path="k.py", preload=1).diagnostics if d.is_error]
    assert errors and "Cfg.AHEAD" in text.splitlines()[errors[0].line - 1], [d.message for d in errors]


#: a plain class whose docstring (not code) spells a store of its member (probe h92)
DOCUMENTED = ('class Epilogue:\n    """Unit tests stub it by assigning `Epilogue.halve = fake`.\n\n'
              '    Helpers need no import: each is a staticmethod of a class.\n    """\n\n'
              "    @staticmethod\n    def halve(dst, src):\n        pl.muls(dst, src, 0.5)  # Epilogue.halve = f\n\n\n")


def test_a_docstring_or_comment_spelling_a_store_leaves_the_class_followed():
    text = edited(ROWS_KERNEL, [(MULS, "    Epilogue.halve(res, proj)\n"),
                                ("\n@pl.jit(", "\n" + DOCUMENTED + "@pl.jit(")])
    result = transpile(text, path="k.py", preload=1)
    assert [d.message for d in result.diagnostics] == [] and result.code is not None
    report = verify(text, result.code, "kern", path="k.py", shapes={"a": (96, 32), "out": (96, 32)})
    assert [row.verdict for row in report.rows] == ["ok", "ok"]
