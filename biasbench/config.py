"""The configuration, checked at the edge: validated against ``config/schema.yaml`` with the
schema's defaults filled in (the schema is the only place that holds a default), so every
later stage reads keys directly. A bad value fails before any job runs, naming the field.

What the library's registries declare the schema does not repeat: where it says
``x-enum: <module>:<function>`` the names that function returns become the node's ``enum``
(the data sets' names, ``biasbench.data.datasets.names``), and ``x-properties`` adds the
properties its function returns (each trained-weight null kind's section,
``biasbench.nulls.config_sections``), when the schema is read for validation
(:func:`read_schema`). The schema names the registry; this module imports none of them.
"""

from __future__ import annotations

import copy
import functools
import importlib
import os
from pathlib import Path
from typing import Any

import yaml

from biasbench.errors import InputError

#: the workflow's schema, beside the library in the checkout
SCHEMA = Path(__file__).resolve().parents[1] / "config" / "schema.yaml"


@functools.cache
def _defaulting_validator() -> type:
    """A validator that fills in ``default`` values of missing properties before checking
    them (nested objects included: a default ``{}`` is filled in, then its own defaults).
    Built, and jsonschema imported, only where a configuration is validated: every job
    imports this module for :func:`section_defaults` alone."""
    from jsonschema import Draft202012Validator, validators

    check_properties = Draft202012Validator.VALIDATORS["properties"]

    def properties(validator, props, instance, schema):
        if isinstance(instance, dict):
            for name, sub in props.items():
                if isinstance(sub, dict) and "default" in sub and name not in instance:
                    instance[name] = copy.deepcopy(sub["default"])
        yield from check_properties(validator, props, instance, schema)

    return validators.extend(Draft202012Validator, {"properties": properties})


@functools.cache
def _parsed_schema(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=YAML_LOADER)


def read_schema(path: str | os.PathLike) -> dict[str, Any]:
    """The schema at ``path`` (a copy: parsed once per process, as every job reads it), with
    the lists and sections its registries declare filled in (``x-enum``, ``x-properties``)."""
    return _from_registries(copy.deepcopy(_parsed_schema(os.fspath(path))))


def _registry_function(reference: str):
    """The function ``<module>:<name>`` a schema node names."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def _from_registries(node: Any) -> Any:
    """``node`` (changed in place) with every ``x-enum`` and ``x-properties`` filled in from
    the function it names: the names of a registry as the node's ``enum``, the sections of
    one added to its ``properties``."""
    if isinstance(node, dict):
        for value in node.values():
            _from_registries(value)
        if "x-enum" in node:
            node["enum"] = list(_registry_function(node["x-enum"])())
        if "x-properties" in node:
            node.setdefault("properties", {}).update(_registry_function(node["x-properties"])())
    elif isinstance(node, list):
        for value in node:
            _from_registries(value)
    return node


def _field(error) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "(top level)"


def validate_config(
    config: dict[str, Any], schema_path: str | os.PathLike = SCHEMA
) -> dict[str, Any]:
    """``config`` (changed in place, and returned) with every default filled in; raises
    InputError naming the field of the first problem."""
    schema = read_schema(schema_path)
    errors = list(_defaulting_validator()(schema).iter_errors(config))
    if errors:
        from jsonschema.exceptions import best_match

        error = best_match(errors)
        raise InputError(f"config: {_field(error)}: {error.message}")
    return config


YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Refused(yaml.YAMLError):
    """What the strict loader refuses, its message complete but for the file."""


class StrictLoader(YAML_LOADER):
    """Safe YAML that refuses what would change a document's meaning unseen: a key given twice
    in one mapping (YAML lets the last value win, silently) and a Python tag
    (``!!python/object``), which a safe loader cannot build and plain YAML never needs."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _value in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # ``<<: *anchor``: its keys may be overridden, by design
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                first = seen.get(key)
            except TypeError:
                continue  # an unhashable key: the constructor says so
            if first is not None:
                raise _Refused(
                    f"line {line}: duplicate key {key!r} (first at line {first}): a mapping "
                    "holds each key once, and the second value would silently replace the first"
                )
            seen[key] = line
        return super().construct_mapping(node, deep)


def _python_tag(loader, suffix, node):
    tag = node.tag.replace("tag:yaml.org,2002:", "!!")
    raise _Refused(
        f"line {node.start_mark.line + 1}: {tag} is a Python tag, which is not allowed: the "
        "file must hold plain YAML values (strings, numbers, lists, mappings)"
    )


StrictLoader.add_multi_constructor("tag:yaml.org,2002:python/", _python_tag)


def read_yaml(path: str | os.PathLike) -> dict[str, Any]:
    """A YAML mapping (a configuration, word set or template file), read by
    :class:`StrictLoader`: every problem is an InputError naming the file."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=StrictLoader)
    except _Refused as exc:
        raise InputError(f"{path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise InputError(f"{path}: not valid YAML: {exc}") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a mapping at the top level")
    return data


def check_config_files(paths: list[str | os.PathLike]) -> None:
    """Read each configuration file that exists with the project's YAML loader
    (``read_yaml``): a duplicate key (Snakemake's loader keeps the last value, silently) or
    a Python tag (Snakemake: "not valid JSON or YAML") is an InputError naming the file, key
    and line. Snakemake has loaded a ``--configfile`` before the Snakefile runs, so a Python
    tag there still gets its message; config.yaml is checked before Snakemake loads it."""
    for path in paths:
        if os.path.isfile(path):
            read_yaml(path)


def section_defaults(section: str, schema_path: str | os.PathLike = SCHEMA) -> dict[str, Any]:
    """The schema's defaults of one section (e.g. ``scoring``): library dataclasses take their
    field defaults from here, so a number is never written twice."""
    properties = _parsed_schema(os.fspath(schema_path))["properties"][section]["properties"]
    return copy.deepcopy(
        {name: sub["default"] for name, sub in properties.items() if "default" in sub}
    )


def model_entry(**entry: Any) -> dict[str, Any]:
    """A model entry with the schema's defaults filled in (for library callers: benchmarks,
    notebooks, tests), validated as the workflow would."""
    config = {"seed": 0, "tests": ["_"], "models": {"m": entry}}
    return validate_config(config)["models"]["m"]


def schema_keys_without_description(node: Any, where: str = "") -> list[str]:
    """Every property of the schema that lacks a description (a test keeps this empty)."""
    missing = []
    if isinstance(node, dict):
        for name, sub in (node.get("properties") or {}).items():
            # a $ref is described where it points to
            if isinstance(sub, dict) and "description" not in sub and not set(sub) <= {"$ref"}:
                missing.append(f"{where}.{name}".lstrip("."))
        for key, value in node.items():
            if key in ("properties", "$defs", "additionalProperties", "items"):
                children = value.items() if key in ("properties", "$defs") else [("*", value)]
                for name, sub in children:
                    missing += schema_keys_without_description(sub, f"{where}.{name}")
            elif key in ("oneOf", "allOf", "anyOf"):
                for sub in value:
                    missing += schema_keys_without_description(sub, where)
    return missing
