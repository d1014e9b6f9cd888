"""Test support for raf and for projects that test their own streaming clients with it:
cassette replay through real HTTP machinery, the golden snapshot extension, and (with the
next parts) hypothesis strategies. Needs the ``testing`` extra (pytest, respx, vcrpy, syrupy).
"""
