"""Differential fuzzing of any implementation (``raf fuzz``, docs/fuzzing.md).

* :mod:`raf.fuzz.generate`: streams with their ground truth, drawn from the format strategies
  and the quirk catalogue (:mod:`raf.quirks`);
"""
