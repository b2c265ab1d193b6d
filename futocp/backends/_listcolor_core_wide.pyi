"""Types of the compiled core of listcolor with 128-bit lists (``_listcolor_core_wide.c``:
the source of ``_listcolor_core.c`` with NW=2; built by setup.py): the same API."""

from ._listcolor_core import AUTO_SWITCH as AUTO_SWITCH
from ._listcolor_core import Program as Program
from ._listcolor_core import pack_givens as pack_givens
from ._listcolor_core import run as run
from ._listcolor_core import run_many as run_many
