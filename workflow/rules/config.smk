# The configuration checked against workflow/schemas/config.schema.yaml (defaults filled in)
# before anything else reads it.
import os

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

CONFIG_SCHEMA = os.path.join(
    workflow.basedir, "workflow", "schemas", "config.schema.yaml"
)


def config_problems(schema_path):
    """Every violation of the config schema, one line each with its place in config.yaml
    (Snakemake's own message prints the whole schema after the first one)."""
    import jsonschema
    import yaml

    with open(schema_path) as f:
        schema = yaml.safe_load(f)
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(config),
        key=lambda e: list(map(str, e.path)),
    )
    return "\n".join(
        f"  {'.'.join(map(str, e.path)) or '(top level)'}: {e.message}" for e in errors
    )


try:
    validate(config, CONFIG_SCHEMA)
except WorkflowError:
    raise WorkflowError(
        "config.yaml (with any --config/--configfile) does not fit workflow/schemas/config.schema.yaml:\n"
        + config_problems(CONFIG_SCHEMA)
    ) from None
