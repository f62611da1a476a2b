"""A launch's tiling key is checked by the key class's own `is_valid`, which is the kernel
file's code: what it raises is the kernel's error, said with how the JIT calls it (the key as
a tuple of the fields' values in definition order), not an internal error of the emulator."""

from __future__ import annotations

import pytest

from sim_runtime.errors import KernelError
from sim_runtime.kernelspec import TilingKeyField, TilingKeySchema


class Key:
    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])
    OutFp16 = TilingKeyField(bits=1, values=[0, 1])

    def is_valid(self, key):
        apply_relu, out_fp16 = key
        return not (apply_relu == 1 and out_fp16 == 0)


class KeyByName:
    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])
    OutFp16 = TilingKeyField(bits=1, values=[0, 1])

    def is_valid(self, key):
        return key["ApplyRelu"] == 0  # a dict lookup on the tuple: the file's own mistake


def test_a_key_is_valid_accepts_is_chosen_and_one_it_rejects_is_said():
    schema = TilingKeySchema.of(Key)
    assert schema.choose({"ApplyRelu": 1, "OutFp16": 1}) == {"ApplyRelu": 1, "OutFp16": 1}
    with pytest.raises(KernelError, match=r"Key.is_valid rejects \{'ApplyRelu': 1, 'OutFp16': 0\}"):
        schema.choose({"ApplyRelu": 1, "OutFp16": 0})


def test_what_is_valid_raises_is_the_kernels_error_with_how_it_is_called():
    schema = TilingKeySchema.of(KeyByName)
    with pytest.raises(KernelError, match=r"KeyByName.is_valid raised TypeError: .*given the key as a tuple of the "
                                          r"fields' values in definition order, here \(1, 0\)"):
        schema.choose({"ApplyRelu": 1, "OutFp16": 0})
