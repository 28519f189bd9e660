"""The last fixture (venus s1) through porep-2KiB with the PCE and key prove_fixtures.py made
(prove_fixtures.py was killed, signal 9, before proving it: memory shared with a test run)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from prove_fixtures import prove  # noqa: E402

if __name__ == "__main__":
    prove(Path("/tmp/fcprove/full"), 2)
