"""Helpers shared by the rules."""


def model_params(name, keys=("kind", "source", "revision", "lowercase", "layer")):
    """The model settings a job depends on (not its test list), so editing which tests a
    model runs does not re-prepare or re-embed it."""
    model_spec(config, name)  # an unknown name fails naming the configured models
    return {k: v for k, v in config["models"][name].items() if k in keys}


def external_inputs(resource):
    return [f"results/external/{i}" for i in external_ids(resource)]
