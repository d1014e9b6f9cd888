"""What the formats' hypothesis strategies share (``raf/formats/<name>/strategies.py``).

:mod:`~raf.formats._strategies.common`: JSON arguments, responses, network chunking,
:class:`~raf.formats._strategies.common.GeneratedStream`; :mod:`~raf.formats._strategies.sse`:
SSE framing. Needs hypothesis (the ``test`` extra): nothing in raf's core imports this
package or a format's ``strategies`` module. The public face is :mod:`raf.testing.strategies`.
"""
