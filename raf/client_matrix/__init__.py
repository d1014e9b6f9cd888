"""The real-client matrix (``raf clients``, docs/clients.md): composes the shells.

It starts a :class:`~raf.serve.ReplayServer`, loads the bundled suite and judges each cell
as ``raf conform`` does (:mod:`raf.conformance`), driving the adapters of
:mod:`raf.clients`; so it sits above all three, beside the CLI (docs/architecture.md).

* :mod:`raf.client_matrix.run`: runs adapters over the bundled scenarios and judges each
  cell at level ``response``;
* :mod:`raf.client_matrix.report`: writes the JSON and Markdown matrix.
"""
