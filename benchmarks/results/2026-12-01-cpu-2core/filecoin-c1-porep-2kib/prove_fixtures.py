"""One-off: the three Filecoin-format fixtures through the porep-2KiB circuit on the CPU backend."""
import time, json
from pathlib import Path
from cuzk import pipeline
from cuzk.sector import filecoin_c1 as fc
from cuzk.sector.porep_c1 import write_porep_c1

FIX = Path(__file__).resolve().parents[4] / "tests" / "fixtures" / "filecoin"
ITEMS = [("lotus-bench-2kib-s1.c2in.json", None, fc.prover_id_of_actor(1000)),
         ("venus-t0106-2kib-s0.c1.json", 0, fc.prover_id_of_actor(106)),
         ("venus-t0106-2kib-s1.c1.json", 1, fc.prover_id_of_actor(106))]
SHAPE = "porep-2KiB"


def prove(d: Path, i: int) -> None:
    """Fixture ``i``: read, written in cuzk's form, synthesized, proved and verified in ``d``."""
    name, sid, pid = ITEMS[i]
    t = time.time()
    form, c1 = fc.read_any(FIX / name, sid, pid)
    c = d / f"{i}.c1.json"; write_porep_c1(c, c1)
    pipeline.synthesize_sector(c, d / "s.pce", d / f"w{i}"); print(name, "synth", round(time.time() - t, 1), flush=True); t = time.time()
    pipeline.prove_batch(d / "s.pce", d / "s.params", [c], [d / f"w{i}"], d / f"p{i}", backend="cpu", threads=2)
    print(name, "prove", round(time.time() - t, 1), flush=True); t = time.time()
    res = pipeline.verify_sector(d / "s.vk", c, d / f"p{i}" / f"{c1['sector_id']}.proof", d / f"v{i}.json", shape_name=SHAPE)
    print(name, form, json.dumps(res), round(time.time() - t, 2), flush=True)


def main():
    d = Path("/tmp/fcprove/full"); d.mkdir(parents=True, exist_ok=True)
    t = time.time()
    pipeline.pce_extract(SHAPE, d / "s.pce"); print("pce", round(time.time() - t, 1), flush=True); t = time.time()
    pipeline.setup_params(d / "s.pce", d / "s.params", d / "s.vk", backend="cpu", threads=2); print("setup", round(time.time() - t, 1), flush=True)
    for i in range(len(ITEMS)):
        prove(d, i)


if __name__ == "__main__":
    main()
