# The configuration checked against workflow/schemas/config.schema.yaml (defaults filled in)
# before anything else reads it.
import os

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger
from snakemake.utils import validate

from cuzk.configcheck import ConfigError, config_problems

CONFIG_SCHEMA = os.path.join(
    workflow.basedir, "workflow", "schemas", "config.schema.yaml"
)


def _schema():
    import yaml

    with open(CONFIG_SCHEMA) as f:
        return yaml.safe_load(f)


# the file a user edits, named in messages: the --configfile(s) given, else the Snakefile's own
CONFIG_NAME = ", ".join(map(str, workflow.overwrite_configfiles)) or "config.yaml"


def stop_before_run(error):
    """Stop the run before any job with ``error`` (a CuzkError) as its message: logged, then
    SystemExit, which neither the Snakefile's parsing nor Snakemake's input-function wrapper
    turns into a traceback (a WorkflowError would arrive framed by the .smk file and line, or as
    an InputFunctionException of rule all)."""
    logger.error(f"cuzk: {type(error).__name__}: {error}")
    raise SystemExit(1)


def _refuse(problems):
    stop_before_run(
        ConfigError(
            f"{CONFIG_NAME} (with any --config) does not fit workflow/schemas/config.schema.yaml:\n"
            + "\n".join(problems)
        )
    )


# strict first (integers that are ints, finite numbers, no empty or root paths), every problem at
# once; then Snakemake's validation, which fills in the schema's defaults
PROBLEMS = config_problems(config, _schema())
if PROBLEMS:
    _refuse(PROBLEMS)
try:
    validate(config, CONFIG_SCHEMA)
except WorkflowError:
    _refuse(
        config_problems(config, _schema()) or ["  (Snakemake's validation refused it)"]
    )
