# Cluster safety (cuzk.cluster): no mem_mb_per_cpu setting under-sizes a job below its rule's
# mem_mb, and the SLURM executor polls job states with a command that answers on this cluster.
import shutil

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

from cuzk import cluster


def _values(resources):
    """{name: value} of a Resources mapping (a function-valued one: the Resource itself)."""
    return {
        k: (v.value if hasattr(v, "is_evaluable") and not v.is_evaluable() else v)
        for k, v in dict(resources or {}).items()
    }


def mem_per_cpu_check():
    """At parse time: a --set-resources <rule>:mem_mb_per_cpu is refused; a default (profile or
    --default-resources) is warned about once, as every rule of the memory model declares
    mem_mb_per_cpu=None (common.smk job_memory) so its mem_mb decides --mem."""
    rs = workflow.resource_settings
    overwrite = {r: _values(m) for r, m in rs.overwrite_resources.items()}
    default, rules = cluster.mem_per_cpu_settings(
        _values(rs.default_resources), overwrite
    )
    try:
        cluster.refuse_mem_per_cpu_overrides(rules)
    except cluster.ClusterError as e:
        raise WorkflowError(str(e)) from None
    if default is not None and not workflow.remote_exec:
        logger.warning(
            f"cuzk: default resource {cluster.MEM_PER_CPU}={default} ignored for the rules "
            f"sized by the memory model: each asks SLURM for its own mem_mb (--mem)"
        )


mem_per_cpu_check()


def slurm_status_command():
    """Before the first job (onstart, SLURM executor only): keep sacct for job states where it
    answers, else switch the executor to squeue (a cluster without accounting would otherwise
    make Snakemake wait forever after the last job); log the choice."""
    settings = getattr(workflow, "executor_settings", None)
    if not hasattr(settings, "status_command"):
        return
    from snakemake_executor_plugin_slurm.job_status_query import get_min_job_age

    problem = cluster.sacct_problem()
    try:
        command, why = cluster.status_command(
            settings.status_command,
            problem,
            shutil.which("sacct") is not None,
            get_min_job_age() if problem else None,  # asked only when it matters
            getattr(settings, "init_seconds_before_status_checks", None) or 40,
        )
    except cluster.ClusterError as e:
        raise WorkflowError(str(e)) from None
    settings.status_command = command
    logger.info(f"cuzk: SLURM {why}")
