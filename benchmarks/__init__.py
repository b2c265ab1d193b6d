"""The benchmark scripts, importable as ``benchmarks.<name>`` (the tests import some).

Each is run from the repository root as ``python benchmarks/<name>.py`` (see
docs/performance.md) with futocp installed in the venv.
"""
