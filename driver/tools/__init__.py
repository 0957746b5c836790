"""ferrox.driver.tools: `ferrox-opt` and the `ferrox` command, on top of every other layer."""
