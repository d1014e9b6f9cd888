"""Differential fuzzing of any implementation (``raf fuzz``, docs/fuzzing.md).

* :mod:`raf.fuzz.generate`: streams with their ground truth, drawn from the format strategies
  and the quirk catalogue (:mod:`raf.quirks`);
* :mod:`raf.fuzz.cost`: the cost probe (``raf cost``): one long event in tiny reads against
  the same bytes in short events, judged (pure); :mod:`raf.fuzz.cost_run` its runners;
"""
