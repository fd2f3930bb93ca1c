"""gen-matrix: a declarative matrix of custom PyTorch builds, rendered into Flox recipes."""
