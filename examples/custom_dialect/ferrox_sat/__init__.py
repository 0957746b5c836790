"""ferrox-sat: the sat dialect for ferrox, made by `ferrox new --dialect sat`."""
