"""What the shells share, below all of them: the vocabulary ``raf serve``, ``raf conform``
and the client matrix speak, so that no shell imports another (docs/architecture.md). No IO.

* :mod:`raf.shared.client_response`: what a client read from a stream
  (:class:`~raf.shared.client_response.ClientResponse` and its parts);
* :mod:`raf.shared.case_paths`: the path prefix that names a case on ``raf serve``;
* :mod:`raf.shared.bundled`: where the bundled cassettes, goldens and schemas are.
"""
