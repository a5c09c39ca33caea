"""Reports: the reviewer's report of ``mixbounds verify`` and the report of ``mixbounds bench``."""
