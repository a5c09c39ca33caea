"""How checks run: tasks and their cache, executors, check results and the results document."""
