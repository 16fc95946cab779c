"""A module whose import never ends (`check_import_hangs.yaml`): `check --engine haystack` must cost only its file."""

import time

time.sleep(3600)
