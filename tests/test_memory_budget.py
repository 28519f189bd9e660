"""cuzk.memory.budget: declarations, retries and refusals, with figures worked out by hand."""

import pytest

from cuzk.memory import budget, model
from cuzk.memory.budget import (
    MemoryBudgetError, attempt_gb, declared_gb, mem_mb, refuse_any_over_budget, refuse_over_budget, retry_gb,
)

GIB = 1 << 30


def test_declared_gb_is_ceil_of_prediction_times_headroom():
    assert declared_gb(4 * GIB) == 5              # 4 × 1.25 = 5.0 exactly: no rounding up
    assert declared_gb(4 * GIB + 1) == 6          # a byte more: the next whole GB
    assert declared_gb(GIB) == 2                  # 1.25 → 2
    assert declared_gb(0) == 1 and declared_gb(100) == 1   # the floor
    assert declared_gb(3 * GIB, headroom=1.0) == 3
    assert declared_gb(0, floor_gb=2) == 2
    assert mem_mb(5) == 5 * 1024 + 292            # the GB in MB, plus a cluster job's own Snakemake


def test_declared_gb_of_a_porep_2kib_setup_by_hand():
    """porep-2KiB (domain 2^22, aux 2,685,673, nnz 6,421,005 + 2,689,006 + 5,824,682) setup with 2
    threads: the model's linear formula worked out by hand, then the headroom."""
    from cuzk.circuits.registry import shape_by_name

    st = shape_by_name("porep-2KiB").stats()
    assert (st["domain"], st["aux"]) == (4_194_304, 2_685_673)
    # CPU: 64 MiB + 2 × 80 MiB workers + 1700 × 4,194,304 + 1250 × 2,685,673
    cpu = 67_108_864 + 167_772_160 + 7_130_316_800 + 3_357_091_250
    assert cpu == 10_722_289_074 == model.predict_step_bytes("setup", st, threads=2, backend="cpu")
    assert declared_gb(cpu) == 13                 # 10,722,289,074 × 1.25 / 2^30 = 12.48
    # cuda: 64 MiB + 2 GiB + 12 × nnz (14,934,693) + 24 × rows (2,687,961); no workers, no key on the host
    cuda = 67_108_864 + 2_147_483_648 + 179_216_316 + 64_511_064
    assert cuda == 2_458_319_892 == model.predict_step_bytes("setup", st, threads=2, backend="cuda")
    assert declared_gb(cuda) == 3                 # 2.86 → 3


def test_retry_doubles_up_to_the_budget():
    assert [retry_gb(3, a, None) for a in (1, 2, 3)] == [3, 6, 9]
    assert retry_gb(3, 2, 16) == 6
    assert retry_gb(3, 2, 5) == 5                 # capped at the budget
    assert retry_gb(3, 2, 2) == 3                 # never below the first declaration
    assert retry_gb(3, 1, 2) == 3                 # the first attempt is not capped (it is refused)


def test_first_attempt_over_budget_is_refused_naming_the_rule():
    msg = "Rule setup: the memory model predicts 13 GiB (mem_gb) but --resources mem_gb=4; give --resources mem_gb=13 or more"
    with pytest.raises(MemoryBudgetError) as e:
        attempt_gb("setup", 13, 1, 4)
    assert str(e.value) == msg
    with pytest.raises(MemoryBudgetError, match="Rule prove: .* mem_gb=0;"):
        refuse_over_budget("prove", 1, 0)
    assert attempt_gb("setup", 13, 1, None) == 13
    assert attempt_gb("setup", 4, 1, 4) == 4      # exactly the budget fits
    assert attempt_gb("setup", 13, 2, 4) == 13    # a retry asks for more, never stops the run


def test_refuse_any_lists_every_rule_over_and_the_smallest_budget():
    """(rule, declared, declared at threads 1 / batch 1): every rule over 8 GB in one message,
    each with its largest need; the smallest budget is the largest declaration (20); lowering
    threads cannot help, as prove still needs 18 GB alone."""
    jobs = [("prepare", 1, 1), ("setup", 13, 12), ("prove", 20, 18), ("prove", 9, 9), ("setup", 7, 6)]
    with pytest.raises(MemoryBudgetError) as e:
        refuse_any_over_budget(jobs, 8)
    lines = str(e.value).splitlines()
    assert lines[0].startswith("--resources mem_gb=8 is too small")
    assert lines[1:3] == ["  Rule setup: 13 GiB (1 job over the budget)", "  Rule prove: 20 GiB (2 jobs over the budget)"]
    assert "--resources mem_gb=20" in lines[3]
    assert "cannot help" in lines[4] and "still needs 18 GiB" in lines[4]
    refuse_any_over_budget(jobs, 20)              # the smallest budget named runs every job
    with pytest.raises(MemoryBudgetError):
        refuse_any_over_budget(jobs, 19)


def test_refuse_any_advises_lowering_threads_only_when_it_fits():
    jobs = [("setup", 13, 12), ("prove", 14, 13)]
    with pytest.raises(MemoryBudgetError) as e:
        refuse_any_over_budget(jobs, 13)
    msg = str(e.value)
    assert "Rule setup" not in msg and "  Rule prove: 14 GiB" in msg
    assert "or lower threads and max_batch_size" in msg and "needs 13 GiB" in msg and "cannot help" not in msg

    def never():
        raise AssertionError("no budget: the jobs are not looked at")
        yield

    refuse_any_over_budget(never(), None)


def test_step_check_and_the_old_names():
    budget.check_budget("x", 2 * GIB, 2)
    with pytest.raises(MemoryBudgetError, match="x: predicted peak 2.00 GiB exceeds the budget of 1.5 GiB"):
        budget.check_budget("x", 2 * GIB, 1.5)
    # the names callers imported from cuzk.memory.model before the budget module held them
    assert model.check_budget is budget.check_budget and model.declared_gb is budget.declared_gb
    assert model.MemoryBudgetError is MemoryBudgetError
