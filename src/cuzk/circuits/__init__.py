"""Circuits built from the R1CS gadgets: synthetic benchmark circuits (PoRep and PoSt to come)."""
