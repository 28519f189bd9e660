"""The last fixture (venus s1) through porep-2KiB with the PCE and key prove_fixtures.py made
(prove_fixtures.py was killed, signal 9, before proving it: memory shared with a test run)."""
import sys, time, json
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from cuzk import pipeline
from prove_fixtures import FIX, ITEMS
from cuzk.sector import filecoin_c1 as fc
from cuzk.sector.porep_c1 import write_porep_c1

def main():
    d = Path("/tmp/fcprove/full"); shape = "porep-2KiB"; i = 2
    name, sid, pid = ITEMS[i]
    t = time.time()
    form, c1 = fc.read_any(FIX / name, sid, pid)
    c = d / f"{i}.c1.json"; write_porep_c1(c, c1)
    pipeline.synthesize_sector(c, d / "s.pce", d / f"w{i}"); print(name, "synth", round(time.time() - t, 1), flush=True); t = time.time()
    pipeline.prove_batch(d / "s.pce", d / "s.params", [c], [d / f"w{i}"], d / f"p{i}", backend="cpu", threads=2)
    print(name, "prove", round(time.time() - t, 1), flush=True); t = time.time()
    res = pipeline.verify_sector(d / "s.vk", c, d / f"p{i}" / f"{c1['sector_id']}.proof", d / f"v{i}.json", shape_name=shape)
    print(name, form, json.dumps(res), round(time.time() - t, 2), flush=True)

if __name__ == "__main__":
    main()
