# Thin: convert one sector's C1 from Filecoin's form to cuzk's (params: shape_name, sector_id, prover_id_hex).
from cuzk.pipeline import import_c1, start_log

start_log(snakemake.log[0])
import_c1(snakemake.input.vanilla, snakemake.output.c1, mem_json=snakemake.output.mem,
          mem_gb=snakemake.resources.mem_gb, **dict(snakemake.params.items()))
