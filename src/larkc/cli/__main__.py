"""``python -m larkc.cli``: the ``larkc`` command."""

import sys

from larkc.cli import main

sys.exit(main())
