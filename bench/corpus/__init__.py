"""The corpus builders (samples/real, samples/stages: `make corpus`) and the model
families they build, importable as bench.corpus by the tests that build a model as they do."""
