"""ferrox-sat: the worked example of docs/custom-dialect.md."""
