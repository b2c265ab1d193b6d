"""The build of futocp's optional C extension (everything else is in pyproject.toml).

``futocp.backends._listcolor_core`` is the compiled core of the ``listcolor``
backend. It is optional: without a C compiler the install goes on and
``listcolor`` runs its pure-Python reference. ``pip install -e .`` builds it;
in a clone, ``python setup.py build_ext --inplace`` builds it in place.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "futocp.backends._listcolor_core",
            ["futocp/backends/_listcolor_core.c"],
            optional=True,  # a missing compiler must not break the install
        )
    ]
)
