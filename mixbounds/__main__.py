"""``python -m mixbounds`` = the ``mixbounds`` command."""

from mixbounds.cli import main

raise SystemExit(main())
