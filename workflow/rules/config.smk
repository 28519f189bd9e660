# The configuration checked against workflow/schemas/config.schema.yaml (defaults filled in)
# before anything else reads it.
import os

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from cuzk.configcheck import config_problems

CONFIG_SCHEMA = os.path.join(
    workflow.basedir, "workflow", "schemas", "config.schema.yaml"
)


def _schema():
    import yaml

    with open(CONFIG_SCHEMA) as f:
        return yaml.safe_load(f)


# the file a user edits, named in messages: the --configfile(s) given, else the Snakefile's own
CONFIG_NAME = ", ".join(map(str, workflow.overwrite_configfiles)) or "config.yaml"


def _refuse(problems):
    raise WorkflowError(
        f"{CONFIG_NAME} (with any --config) does not fit workflow/schemas/config.schema.yaml:\n"
        + "\n".join(problems)
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
