"""``python -m mixbounds`` = the ``mixbounds`` command."""

from mixbounds.cli.command import main

raise SystemExit(main())
