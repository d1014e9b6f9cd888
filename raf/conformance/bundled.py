"""Where the bundled suite is: :mod:`raf.shared.bundled`, under the name docs/conformance.md
gives it. Reads nothing.

    from raf.conformance.bundled import bundled
"""

from raf.shared.bundled import BundledSuite, bundled, owned_by_raf

__all__ = ["BundledSuite", "bundled", "owned_by_raf"]
