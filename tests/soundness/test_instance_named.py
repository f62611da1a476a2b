"""A refusal shown in one tiling-key instance of several names that instance, and says where it
was kept only because the check could not evaluate `is_valid` for it (probe h122: `is_valid`
written with a loop; the refusal blamed stores that are right in every instance the JIT
compiles). Written in plain statements, the same `is_valid` rules the instance out."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile

TEXT = kernel_text(Path(__file__).parent / "kernels" / "h122_is_valid_loop.py")


def test_the_instance_kept_for_an_is_valid_not_followed_is_named():
    (message,) = error_messages(transpile(TEXT, path="k.py", preload=1))
    assert "do not stay within one stride of each other" in message, message
    assert message.endswith("(in the tiling-key instance MODE=1, WIDE=1, kept because the check could not evaluate "
                            "`is_valid` for it, which it follows only as plain statements (assignments, `if` tests, "
                            "`return` of comparisons): if `is_valid` rules this instance out, write it so)"), message


def test_is_valid_in_plain_statements_rules_it_out():
    plain = edited(TEXT, [("        for v in key:\n            if v == 0:\n                return True\n"
                           "        return False\n",
                           "        mode, wide = key\n        return not (mode == 1 and wide == 1)\n")])
    assert error_messages(transpile(plain, path="k.py", preload=1)) == []


def test_an_instance_is_valid_accepts_is_named_without_the_note():
    """With `is_valid` gone, (1, 1) is an instance: the refusal names it, and the instances before
    it, each proven (probe h222: of three, the one between was not named)."""
    whole = edited(TEXT, [("    def is_valid(self, key):\n        for v in key:\n            if v == 0:\n"
                           "                return True\n        return False\n", "")])
    (message,) = error_messages(transpile(whole, path="k.py", preload=1))
    assert message.endswith("(in the tiling-key instance MODE=1, WIDE=1; the instances (MODE=0, WIDE=0), (MODE=0, "
                            "WIDE=1) and (MODE=1, WIDE=0) are proven)"), message


def test_a_refusal_of_every_instance_names_none():
    """A tail over another count is refused in both instances of the activation's key: the
    refusal named the first, and its author looked for a bug of that activation (study ux2)."""
    kernel = (Path(__file__).parent / "kernels" / "ux2_act_matmul.py").read_text(encoding="utf-8")
    text = edited(kernel, [("    for i in pl.range(core_id, n_tiles, num_cores):\n",
                            "    for i in pl.range(core_id, tiling.n_tiles, num_cores):\n")])
    (message,) = error_messages(transpile(text, path="k.py", preload=2))
    assert "clamps by a value its loop's trip count is not computed from" in message, message
    assert "tiling-key instance" not in message, message
