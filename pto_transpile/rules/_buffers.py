"""Cross-core buffers of a kernel, each once (a declaration may bind several names)."""


def cross_core_buffers(kernel):
    seen = set()
    for buf in kernel.buffers.values():
        if buf.cross_core and id(buf) not in seen:
            seen.add(id(buf))
            yield buf
