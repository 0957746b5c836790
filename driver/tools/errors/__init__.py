"""One file per error code: the explanation `ferrox explain CODE` prints, with its example."""
