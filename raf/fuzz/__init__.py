"""Differential fuzzing of any implementation (``raf fuzz``, docs/fuzzing.md).

* :mod:`raf.fuzz.generate`: streams with their ground truth, drawn from the format strategies
  and the quirk catalogue (:mod:`raf.quirks`);
* :mod:`raf.fuzz.campaign`: the campaign engine (find, deduplicate and shrink failures, on
  hypothesis);
* :mod:`raf.fuzz.check`: the check of a stream against an implementation (stdio or http);
* :mod:`raf.fuzz.cassette` and :mod:`raf.fuzz.save`: a finding as a cassette, and its writer;
* :mod:`raf.fuzz.properties`: the check as a pytest property (HypoFuzz, pytest-xdist);
* :mod:`raf.fuzz.cost`: the cost probe (``raf cost``): one long event in tiny reads against
  the same bytes in short events, judged (pure); :mod:`raf.fuzz.cost_run` its runners;
"""
