"""The build of futocp's optional C extensions (everything else is in pyproject.toml).

``futocp.backends._listcolor_core`` is the compiled core of the ``listcolor``
backend (64-bit lists; ``futocp.backends._listcolor_core_wide`` is the same
source with 128-bit lists, for 65 to 128 values) and ``futocp._filter_core``
the compiled list filtering of :func:`futocp.propagate.filter_lists`
(``build_model``'s). All are optional:
without a C compiler the install goes on and the pure-Python references run.
``pip install -e .`` builds them; in a clone, ``python setup.py build_ext
--inplace`` builds them in place.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "futocp.backends._listcolor_core",
            ["futocp/backends/_listcolor_core.c"],
            depends=["futocp/_bits.h", "futocp/_inputs.h"],
            optional=True,  # a missing compiler must not break the install
        ),
        Extension(  # the same core with 128-bit lists (NW=2; its .c includes the other)
            "futocp.backends._listcolor_core_wide",
            ["futocp/backends/_listcolor_core_wide.c"],
            depends=["futocp/_bits.h", "futocp/_inputs.h", "futocp/backends/_listcolor_core.c"],
            optional=True,  # needs unsigned __int128 (GCC, Clang)
        ),
        Extension(
            "futocp._filter_core",
            ["futocp/_filter_core.c"],
            depends=["futocp/_bits.h", "futocp/_inputs.h"],
            optional=True,
        ),
    ]
)
