"""Print a test's whole configuration (config.yaml with its sections in place), to run it by
hand: ``python -m tests.configs cluster > /tmp/cluster.yaml``."""

import sys

import yaml

from tests.configs import load

if __name__ == "__main__":
    sys.stdout.write(yaml.safe_dump(load(sys.argv[1]), sort_keys=False))
