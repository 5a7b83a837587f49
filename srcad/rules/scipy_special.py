"""scipy.special (registered only when scipy is installed)."""
