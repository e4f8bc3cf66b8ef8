"""Helpers shared by the rules."""

#: model settings a job depends on: not which tests it runs or which paper model it stands for
#: (editing those re-prepares and re-embeds nothing)
MODEL_KEYS = ("kind", "source", "revision", "lowercase", "layer", "case")


def model_params(name, keys=MODEL_KEYS):
    model_spec(config, name)  # an unknown name fails naming the configured models
    return {k: v for k, v in config["models"][name].items() if k in keys}


def external_inputs(resource):
    return [f"results/external/{i}" for i in external_ids(resource)]
