"""skewlsp: predict pypto's SkewCrossCorePipeline verdict for every ``pl.pipeline`` loop."""

__version__ = "0.1.0"
