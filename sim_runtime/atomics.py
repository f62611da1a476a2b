"""Atomic stores GM has taken but the emulator has not applied yet.

GM applies an atomic store (`pl.store(..., atomic=AtomicType.AtomicAdd)`) as one
read-modify-write per element, so concurrent ones from several cores land in the order they
arrive, and with floats that order changes the rounding. The serial kernel and the pipelined
one reach GM at other times, so applying each store on arrival would make their outputs
differ by rounding alone. The emulator therefore holds atomic stores back, per element, until
something else touches the element (a read, a plain store, an atomic store of another class:
the race detector requires each of them to be ordered after every store held there) or the
kernel ends, and then applies them in one order: by core, and each core's in the order it
issued them, each rounded as a single atomic store rounds. Which stores are held at such a
point follows from the happens-before order, not from the timing, so both kernels get the
same bits, and a kernel whose atomic stores never meet another core's gets exactly the values
of applying each on arrival.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from sim_runtime.dtypes import DType
from sim_runtime.memory import Footprint

#: What each reduction of `pto_api.effects.ATOMIC_REDUCTIONS` does to the held value.
REDUCE = {"add": np.add}


@dataclass
class _Held:
    """One atomic store: the GM view it writes, its operand, and the elements still held."""

    order: tuple[int, int]  #: (core index, issue number): the order stores are applied in
    cls: tuple[str, str]  #: (reduction, dtype), `pto_api.effects.atomic_class`
    target: np.ndarray  #: the view of GM the store writes
    values: np.ndarray  #: its operand, one value per element of `target`, as the store computed it
    offsets: np.ndarray  #: byte offset of each element of `target` in its GM argument
    dtype: DType  #: the tensor's
    left: np.ndarray  #: elements not applied yet

    def apply(self, which: np.ndarray) -> None:
        """GM's read-modify-write of the elements `which`, as the hardware rounds one store."""
        dt = self.dtype
        new = REDUCE[self.cls[0]](dt.to_compute(self.target[which]), self.values[which])
        self.target[which] = dt.to_storage(np.asarray(new).astype(dt.compute))
        self.left = self.left & ~which


def byte_offsets(view: np.ndarray, root: np.ndarray) -> np.ndarray:
    """Byte offset in `root` of every element of `view` (a view of `root`'s bytes)."""
    base = view.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    steps = np.ix_(*(np.arange(n, dtype=np.int64) * s for n, s in zip(view.shape, view.strides, strict=True)))
    return sum(steps, np.full(view.shape, base, np.int64))


def touched(offsets: np.ndarray, itemsize: int, fp: Footprint) -> np.ndarray:
    """Elements (at byte `offsets`) with a byte in `fp`: the first interval ending after an
    element's first byte starts at or before its last."""
    if not fp.starts.size:
        return np.zeros(offsets.shape, bool)
    j = np.searchsorted(fp.ends, offsets, side="right")
    inside = j < fp.starts.size
    return inside & (fp.starts[np.minimum(j, fp.starts.size - 1)] <= offsets + itemsize - 1)


class HeldAtomics:
    """The atomic stores held back, by GM argument (footprint key) and class: one more store of
    the class already held costs no look at the others."""

    def __init__(self) -> None:
        self.held: dict[tuple, dict[tuple[str, str], list[_Held]]] = defaultdict(lambda: defaultdict(list))
        self.issued = 0

    def hold(self, core: int, cls: tuple[str, str], tensor, index: tuple, values: np.ndarray) -> None:
        """`core` stores `values` atomically into `tensor.array[index]`."""
        target = tensor.array[index]
        self.issued += 1
        self.held[tensor.memkey][cls].append(_Held(
            (core, self.issued), cls, target, np.array(values).reshape(target.shape),
            byte_offsets(target, tensor.root), tensor.dtype, np.ones(target.shape, bool)))

    def settle(self, accesses) -> None:
        """Before an op runs: apply what is held on the bytes it accesses, but stores of the
        class of its own atomic access, which commute with it."""
        for _, fp, _, *cls in accesses:
            for held_cls in list(self.held.get(fp.key, ())):
                if held_cls not in cls:
                    self._apply(fp.key, held_cls, fp)

    def settle_all(self) -> None:
        """At the end of the kernel: apply everything held."""
        for key, classes in list(self.held.items()):
            for cls in list(classes):
                self._apply(key, cls, None)

    def _apply(self, key: tuple, cls: tuple[str, str], fp: Footprint | None) -> None:
        """Apply, in their order, the held stores of `key` and `cls` on the bytes of `fp` (None:
        all of them)."""
        held = sorted(self.held[key][cls], key=lambda h: h.order)
        for h in held:
            which = h.left if fp is None else h.left & touched(h.offsets, h.target.itemsize, fp)
            if which.any():
                h.apply(which)
        left = [h for h in held if h.left.any()]
        if left:
            self.held[key][cls] = left
        else:
            del self.held[key][cls]
