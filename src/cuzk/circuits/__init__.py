"""Circuits built from the R1CS gadgets.

The package holds ``porep`` (the StackedDRG PoRep circuit), ``post`` (fallback PoSt: Winning and
Window), ``commd`` (the comm_d inclusion half of PoRep), ``synthetic`` (benchmark circuits), and
``registry``: every shape by name, one interface over the three families, and the workflow's
sector sizes with the shape each is proved with.
"""
