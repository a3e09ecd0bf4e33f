"""Safe YAML loading, through libyaml's C parser where PyYAML has it (same rules, many times faster)."""

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
YAMLError = yaml.YAMLError


def safe_load(text: str):
    return yaml.load(text, Loader=_LOADER)
